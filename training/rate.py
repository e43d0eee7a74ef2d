"""``python -m training.rate``: an agent's Elo on a game's calibrated levels (the code lives in ``training.evaluation.rating``)."""

from training.evaluation.rating import main

if __name__ == "__main__":
    main()
