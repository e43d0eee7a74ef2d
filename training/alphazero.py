"""``python -m training.alphazero``: search-and-learn training (the code lives in ``training.jobs.alphazero``)."""

from training.jobs.alphazero import main

if __name__ == "__main__":
    main()
