"""``python -m training.train``: the same as ``abstract-games train`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("train")
