"""``python -m training.ladder``: the strength ladder (the code lives in ``training.evaluation.ladder``)."""

from training.evaluation.ladder import main

if __name__ == "__main__":
    main()
