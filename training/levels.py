"""``python -m training.levels``: the same as ``abstract-games levels`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("levels")
