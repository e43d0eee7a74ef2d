"""``python -m training.evaluate``: the same as ``abstract-games evaluate`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("evaluate")
