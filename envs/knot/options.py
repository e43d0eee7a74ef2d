"""Knot's options, constants and the placing limit.

``check_options`` fills in the defaults that depend on the players (board size, deck) and
refuses every bad value with an :class:`~envs.core.game.OptionError` naming the option.
"""

from __future__ import annotations

from typing import Any

from envs.core.game import OptionError, short_repr
from envs.core.options import check_int
from envs.knot.geometry import KIND_NAMES

HAND_SIZE = 5  # a hand is drawn back up to this many strands
DECK_PER_PLAYER = (12, 9, 9, 6)  # the default deck per player: Cut, Run, Hook, Flip
PLACE, DRAW, OVER, DEAL = 0, 1, 2, 3  # phases of a turn, the end, and the opening deal
PHASE_NAMES = ("place", "draw", "over", "deal")
# A strand waiting for its chance outcome: where the strand drawn from the pile goes (a market
# slot's refill, the hand of a blind draw, or the opening deal's next place).
MARKET_0, MARKET_1, BLIND, DEALING = 0, 1, 2, 3
PENDING_NAMES = ("market 0", "market 1", "blind")  # in snapshots; the deal is a phase there
BONUS = 5  # points for the longest closed ribbon, at the end
MAX_DECK = 10_000  # most strands of one kind a deck may hold


def place_limit(turn: int) -> int:
    """Strands a turn allows: 1 on the game's first turn, 2 on its second and third, then 3."""
    return 1 if turn == 0 else 2 if turn < 3 else 3


def default_size(players: int) -> int:
    """The board's default side: 6 squares for 2 players, 8 for 3 or 4."""
    return 6 if players == 2 else 8


def _kind_of(value: Any, what: str) -> int:
    """A strand kind given as 0–3 or by name (the ``pile`` option accepts both)."""
    if isinstance(value, str) and value.strip().lower() in KIND_NAMES:
        return KIND_NAMES.index(value.strip().lower())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 4:
        return value
    raise OptionError(
        f"{what} holds {short_repr(value)}; a strand kind is 0 Cut, 1 Run, 2 Hook, 3 Flip "
        f"(or its name: 'cut', 'run', 'hook', 'flip')"
    )


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options checked and completed in place (``KnotGame.check_options``)."""
    players = check_int(options, "players", 2, 4)
    if options["size"] is None:
        options["size"] = default_size(players)
    check_int(options, "size", 4, 10)
    deck = options["deck"]
    need = HAND_SIZE * players
    if deck is None:
        options["deck"] = [n * players for n in DECK_PER_PLAYER]
    else:
        if isinstance(deck, (str, bytes)) or not isinstance(deck, (list, tuple)) or len(deck) != 4:
            raise OptionError(
                f"option 'deck' must be None or a list [Cut, Run, Hook, Flip] of 4 totals, not {short_repr(deck)}"
            )
        for n in deck:
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_DECK:
                raise OptionError(
                    f"option 'deck' must hold non-negative integer totals (at most {MAX_DECK}), not {short_repr(deck)}"
                )
        if sum(deck) < need:
            raise OptionError(
                f"option 'deck' must total at least 5 × players = {need} strands, not {sum(deck)}"
            )
        options["deck"] = list(deck)
    pile = options["pile"]
    if pile is not None:
        if isinstance(pile, (str, bytes)) or not isinstance(pile, (list, tuple)):
            raise OptionError(f"option 'pile' must be None or a list of strand kinds, top first, not {short_repr(pile)}")
        if len(pile) > MAX_DECK * 4:
            raise OptionError(f"option 'pile' may hold at most {MAX_DECK * 4} strands, not {len(pile)}")
        kinds = [_kind_of(k, "option 'pile'") for k in pile]
        if len(kinds) < need:
            raise OptionError(
                f"option 'pile' must hold at least 5 × players = {need} strands, not {len(kinds)}"
            )
        options["pile"] = kinds
    return options


def num_actions_for(options: dict[str, Any]) -> int:
    """``16*size*size`` placements, then END and the three draws."""
    size = options.get("size") or default_size(options.get("players", 2))
    return 16 * size * size + 4


def deck_totals(options: dict[str, Any]) -> list[int]:
    """Strands per kind in the whole game (resolved options): the deck, or the scripted pile's."""
    if options["pile"] is not None:
        return [options["pile"].count(k) for k in range(4)]
    return list(options["deck"])


def max_turns_for(options: dict[str, Any]) -> int:
    """The most turns a game can last: ``P·T + P − 1`` with ``T`` strands and ``P`` players.

    Any ``P`` turns in a row hold a placement. At the start of a turn in which nobody places,
    somebody could place (or the game would have ended); no strand is placed until that
    player's turn, and only the drawing player's hand changes, so that player can still place
    when their turn comes, within ``P − 1`` turns, and must. Each placing turn uses a strand."""
    players = options["players"]
    return players * sum(deck_totals(options)) + players - 1


def max_game_length_for(options: dict[str, Any]) -> int:
    """A true upper bound on the player actions of one game (chance outcomes not counted): at
    most ``T`` placements, ``T − 5P`` draws (every strand reaches a hand once, 5P by the deal)
    and one END a turn (:func:`max_turns_for`)."""
    strands, players = sum(deck_totals(options)), options["players"]
    return strands + (strands - HAND_SIZE * players) + max_turns_for(options)
