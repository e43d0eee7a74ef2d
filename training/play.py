"""``python -m training.play``: the same as ``abstract-games play`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("play")
