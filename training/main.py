"""``python -m training.main``: the same as ``abstract-games train-and-evaluate`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("train-and-evaluate")
