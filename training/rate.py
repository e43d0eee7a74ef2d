"""``python -m training.rate``: the same as ``abstract-games rate`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("rate")
