"""``python -m training.web``: the same as ``abstract-games web`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("web")
