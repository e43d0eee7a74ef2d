"""``python -m training.endgame_tuning``: tuning a network on better labels (solver endgames, DAgger) (the code lives in ``training.jobs.tuning``)."""

from training.jobs.tuning import main

if __name__ == "__main__":
    main()
