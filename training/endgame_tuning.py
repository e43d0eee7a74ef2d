"""``python -m training.endgame_tuning``: the same as ``abstract-games tune-endgame`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("tune-endgame")
