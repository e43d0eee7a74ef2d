"""``python -m training.gumbel``: the same as ``abstract-games gumbel`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("gumbel")
