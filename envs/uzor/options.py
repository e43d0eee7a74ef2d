"""Uzor's options, checked: each error is an ``OptionError`` naming the option and what is allowed."""

from __future__ import annotations

from typing import Any

from envs.core.game import OptionError, short_repr
from envs.core.options import check_int, check_int_pairs
from envs.uzor.common import COLOURS, COPIES, DEALT, HAND, MOTIFS, TILES, tile_name
from envs.uzor.patterns import MAP_SIZE, check_map

DEFAULTS = {"board_size": 21, "patterns": None, "tiles": None, "goals": None}
SMALLEST, LARGEST = 9, 31


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options (defaults already filled in), checked and normalised."""
    size = check_int(options, "board_size", SMALLEST, LARGEST)
    if size % 2 == 0:
        raise OptionError(
            f"option 'board_size' must be odd ({SMALLEST}, {SMALLEST + 2}, …, {LARGEST}) so the centre tile has "
            f"a middle, not {size}"
        )
    options["patterns"] = check_map(options["patterns"])
    options["tiles"] = check_tiles(options)
    options["goals"] = check_goals(options["goals"])
    return options


def check_tiles(options: dict[str, Any]) -> tuple[tuple[int, int], ...] | None:
    """``None`` or the scripted order of the 75 tiles as (motif, colour) pairs, every pair
    exactly three times, whose deal lets player_0 place (a scripted order cannot deal again)."""
    assert len(MOTIFS) == len(COLOURS)
    top = len(MOTIFS) - 1
    out = check_int_pairs(
        options, "tiles", TILES, 0, top, plural=f"(motif, colour) pairs (all {TILES} tiles)", entry="tile",
        rule=f"each tile is a pair (motif 0…{top}, colour 0…{top})",
    )
    if out is None:
        return None
    counts: dict[tuple[int, int], int] = {}
    for pair in out:
        counts[pair] = counts.get(pair, 0) + 1
    for m in range(len(MOTIFS)):
        for c in range(len(COLOURS)):
            n = counts.get((m, c), 0)
            if n != COPIES:
                raise OptionError(
                    f"option 'tiles' holds ({m}, {c}) ({MOTIFS[m]}/{COLOURS[c]}) {n} times; "
                    f"every (motif, colour) pair is there exactly {COPIES} times"
                )
    types = [m * 5 + c for m, c in out]
    centre = types[DEALT - 1]
    if not any(t // 5 == centre // 5 or t % 5 == centre % 5 for t in types[:HAND]):
        raise OptionError(
            f"option 'tiles': player_0's hand (tiles 0…{HAND - 1}) has no tile matching the centre tile "
            f"(tile {DEALT - 1}, {tile_name(centre)}) by motif or colour; the rules would deal again, "
            "which a scripted order cannot do"
        )
    return tuple(out)


def check_goals(value: Any) -> tuple[int, int] | None:
    """``None`` or the scripted secret goals ``(player_0's, player_1's)``: two different patterns."""
    if value is None:
        return None
    ok = (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(g, int) and not isinstance(g, bool) and 0 <= g < MAP_SIZE for g in value)
    )
    if not ok:
        raise OptionError(
            f"option 'goals' must be None or a pair (player_0's, player_1's) of pattern numbers "
            f"0…{MAP_SIZE - 1}, not {short_repr(value)}"
        )
    if value[0] == value[1]:
        raise OptionError(f"option 'goals' must name two different patterns, not {short_repr(value)}")
    return (value[0], value[1])
