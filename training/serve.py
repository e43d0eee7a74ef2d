"""``python -m training.serve``: the same as ``abstract-games serve`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("serve")
