"""From one seat's observation to the full state, for bots and search (Linecatch hides nothing).

:func:`read_position` is the one route: it reads the observation through the core's
:func:`~envs.core.sampling.read_observation` (options, shape, range, mask), rebuilds the
position through the engine's own ``from_state_dict`` (which validates it), told from the seat
to act — it becomes ``player_0``: the rules treat both seats alike and nothing in the
observation says which seat it is — and checks with
:func:`~envs.core.sampling.check_reproduces` that the rebuilt state shows that seat exactly
the observation and mask it was given. ``sampler`` hands out clones of that state;
``complete_snapshot`` has nothing to fill in: it validates the snapshot and returns it.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

import numpy as np

from envs.core.game import SnapshotError
from envs.core.sampling import SeatView, check_reproduces, read_observation
from envs.linecatch.observer import LinecatchObserver
from envs.linecatch.rules import NO_MARK, LinecatchGame


def read_position(observation, options: dict[str, Any]) -> tuple[SeatView, LinecatchGame]:
    """The seat's view (read and checked) and the engine state it shows, the seat to act as
    ``player_0``; a ``ValueError`` says why an observation cannot be read (other options, a
    finished game, a vector no position shows)."""
    view = read_observation(LinecatchGame, LinecatchObserver, observation, options)
    fields, resolved = view.fields, view.options
    if fields["pro"] != resolved["pro"]:
        raise ValueError(f"the observation is of pro={fields['pro']}, the options say pro={resolved['pro']}")
    black = fields["black"].ravel()
    if black.all():
        raise ValueError("the observation is of a finished game: there is no seat to act")
    marks = np.full(black.size, NO_MARK)
    marks[fields["my_marks"].ravel()] = 0
    marks[fields["their_marks"].ravel()] = 1
    state = {
        "black": black.astype(int).tolist(),
        "marks": marks.tolist(),
        "scores": [fields["my_score"], fields["their_score"]],
        "to_move": 0,
    }
    try:
        game = LinecatchGame.from_state_dict(resolved, state)
    except SnapshotError as error:
        raise ValueError(f"the observation is not a Linecatch position: {error}") from None
    check_reproduces(view, game, 0)
    return view, game


def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], LinecatchGame]:
    """A function ``draw(rng)`` giving a fresh clone of the observed position per call."""
    _, base = read_position(observation, options)
    return lambda rng: base.clone()


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """Nothing is hidden in Linecatch: the snapshot must be complete; it is validated and returned."""
    return LinecatchGame.from_snapshot(partial).snapshot()


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads:
    Linecatch hides nothing, so a copy."""
    return copy.deepcopy(snapshot)
