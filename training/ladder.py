"""``python -m training.ladder``: the same as ``abstract-games ladder`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("ladder")
