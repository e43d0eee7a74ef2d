"""Fill's options: their defaults and the checks that turn what a caller passes into the
normalised values the engine reads (an :class:`OptionError` names a bad option)."""

from __future__ import annotations

import operator
import time
from typing import Any

import numpy as np

from envs.core.game import OptionError, short_repr
from envs.core.notation import parse_cell
from envs.core.options import check_bool, check_choice
from envs.fill.facts import AGENTS, KIND_NAMES, LINES, SIZES

OPTIONS: dict[str, Any] = {
    "size": 6,
    "lines": "orthogonal",
    "traps": False,
    "rocks": False,
    "gems": False,
    "time_limit": False,
    "clocked": None,  # None: every agent has a clock
    "clock": time.monotonic,
    "rock_cells": None,
    "gem_cells": None,
}


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """Resolved options (defaults filled in) checked and normalised; an :class:`OptionError`
    names a bad one and what is allowed."""
    size = check_choice(options, "size", SIZES)
    check_choice(options, "lines", LINES)
    for name in ("traps", "rocks", "gems", "time_limit"):
        check_bool(options, name)
    options["clocked"] = _check_clocked(options["clocked"])
    if options["clock"] is None:
        options["clock"] = time.monotonic
    if not callable(options["clock"]):
        raise OptionError(
            f"option 'clock' must be a callable returning seconds (like time.monotonic), not {short_repr(options['clock'])}"
        )
    # The scripts are checked (and made JSON-ready) whether or not their rule is on; they are
    # used only when it is.
    rock_cells = options["rock_cells"]
    if rock_cells is not None:
        if isinstance(rock_cells, (set, frozenset)):
            rock_cells = sorted(rock_cells, key=lambda c: _check_cell(c, size, "rock_cells"))
        if not isinstance(rock_cells, (list, tuple)):
            raise OptionError(f"option 'rock_cells' must be a list of cells, not {short_repr(rock_cells)}")
        # in the given order (the rock chance nodes place them so), a repeated cell merged
        cells = tuple(dict.fromkeys(_check_cell(c, size, "rock_cells") for c in rock_cells))
        if len(cells) >= size * size:
            raise OptionError("option 'rock_cells' must leave at least one cell free for the seed")
        options["rock_cells"] = cells
    gem_cells = options["gem_cells"]
    if gem_cells is not None:
        if not isinstance(gem_cells, (list, tuple)):
            raise OptionError(
                f"option 'gem_cells' must be a list of (cell, kind) pairs, in the order they are placed, "
                f"not {short_repr(gem_cells)}"
            )
        allowed = KIND_NAMES if options["traps"] or not options["gems"] else KIND_NAMES[:2]
        checked = []
        for item in gem_cells:
            if not isinstance(item, (list, tuple)) or len(item) != 2:
                raise OptionError(f"option 'gem_cells' holds {short_repr(item)}; each gem is a (cell, kind) pair")
            cell, kind = item
            cell = _check_cell(cell, size, "gem_cells")
            if not isinstance(kind, str) or kind not in allowed:
                extra = "" if options["traps"] else " ('trap' gems need traps=True)"
                raise OptionError(
                    f"option 'gem_cells' holds kind {short_repr(kind)}; kinds are {', '.join(map(repr, allowed))}{extra}"
                )
            checked.append((cell, kind))
        options["gem_cells"] = tuple(checked)
    return options



def _check_cell(value: Any, size: int, option: str) -> int:
    """A scripted cell: an integer 0…size²−1 or a cell name such as ``"c4"``."""
    n = size * size
    if isinstance(value, str):
        if len(value) > 8:
            raise OptionError(f"option {option!r} holds {short_repr(value)}, which is not a cell name like 'a1'")
        try:
            row, col = parse_cell(value, size, size)
        except ValueError as error:
            raise OptionError(f"option {option!r}: {error}") from None
        return row * size + col
    wrong = f"option {option!r} holds {short_repr(value)}; cells are integers 0…{n - 1} or names like 'a1'"
    if isinstance(value, (bool, np.bool_)):
        raise OptionError(wrong)
    try:
        cell = operator.index(value)  # ints, numpy integers, 0-d integer arrays
    except TypeError:  # anything else: a float, a longer array (whose __index__ raises), ...
        raise OptionError(wrong) from None
    if not 0 <= cell < n:
        raise OptionError(f"option {option!r} holds cell {cell}, off the board: cells are 0…{n - 1}")
    return cell


def _check_clocked(value: Any) -> tuple[str, ...]:
    if value is None:
        return AGENTS
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise OptionError(
            f"option 'clocked' must be a list of agents (names 'player_0', 'player_1' or seats 0, 1), not {short_repr(value)}"
        )
    seats = set()
    for item in value:
        if isinstance(item, str) and item in AGENTS:
            seats.add(AGENTS.index(item))
        elif isinstance(item, int) and not isinstance(item, bool) and item in (0, 1):
            seats.add(item)
        else:
            raise OptionError(
                f"option 'clocked' holds {short_repr(item)}; its entries must be 'player_0', 'player_1', 0 or 1"
            )
    return tuple(AGENTS[s] for s in sorted(seats))
