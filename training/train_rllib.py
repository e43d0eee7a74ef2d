"""``python -m training.train_rllib``: the same as ``abstract-games train-rllib`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("train-rllib")
