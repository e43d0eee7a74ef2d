"""``python -m training.alphazero``: the same as ``abstract-games alphazero`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("alphazero")
