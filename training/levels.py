"""``python -m training.levels``: calibrate strength levels (the code lives in ``training.evaluation.calibration``)."""

from training.evaluation.calibration import main

if __name__ == "__main__":
    main()
