"""High card's pictures: the round, the chips, the betting and the cards the viewer may see."""

from __future__ import annotations

from tests.toy.highcard.rules import CARD_NAMES, WORDS
from tests.toy.pictures import text_picture

RULES_SUMMARY = ("Each round both players get a secret card; the higher card wins a showdown.\n"
                 "Moves: check or bet 1; facing a bet, call or fold. More chips after the last round wins.")


def ansi(game, seats: tuple[int, ...], last=None) -> str:  # last: the last move (not marked here)
    rounds = game.options["rounds"]
    lines = [f"round {min(game.round + 1, rounds)} of {rounds}; chips {game.chips[0]} : {game.chips[1]}"]
    for seat in (0, 1):
        card = game.hands[seat]
        shown = "-" if card < 0 else CARD_NAMES[card] if seat in seats else "?"
        lines.append(f"player_{seat}: {shown}")
    lines.append("betting: " + (" ".join(WORDS[a] for a in game.history) or "none yet"))
    return "\n".join(lines)


def rgb(game, seats: tuple[int, ...], last=None):
    return text_picture(ansi(game, seats))
