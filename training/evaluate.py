"""``python -m training.evaluate``: a tournament between agents (the code lives in ``training.evaluation.tournament``)."""

from training.evaluation.tournament import main

if __name__ == "__main__":
    main()
