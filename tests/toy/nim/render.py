"""Nim's pictures: each pile as a row of stones."""

from __future__ import annotations

from tests.toy.nim.rules import LETTERS
from tests.toy.pictures import text_picture

RULES_SUMMARY = ("Take one or more stones from one pile; whoever takes the last stone wins.\n"
                 "A move: the pile's letter and how many stones (b3).")


def ansi(game, seats: tuple[int, ...], last=None) -> str:  # last: the last move (not marked here)
    lines = [f"{LETTERS[pile]}: {'o' * stones}" for pile, stones in enumerate(game.piles)]
    player = game.current_player()
    lines.append(f"player_{player} to move" if player >= 0 else f"player_{game.scores().index(1)} took the last stone")
    return "\n".join(lines)


def rgb(game, seats: tuple[int, ...], last=None):
    return text_picture(ansi(game, seats))
