"""From one seat's observation to the full state, for bots and search (Linecatch hides nothing).

:func:`read_position` is the one route: it reads the observation through the core's
:func:`~envs.core.sampling.read_observation` (options, shape, range, mask), rebuilds the
position through the engine's own ``from_state_dict`` (which validates it), told from the seat
to act (as ``player_0`` where a game can leave that position with ``player_0`` to move:
the rules treat both seats alike and nothing in the observation names the seat), and checks with
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
    """The seat's view (read and checked) and the engine state it shows; a ``ValueError`` says
    why an observation cannot be read (other options, a finished game, a vector no position
    shows). The observation does not say which seat it is: the seat to act becomes
    ``player_0`` unless no game leaves that position with ``player_0`` to move (the turn is
    fixed by the moves made when no two caught lines share a square), then ``player_1``."""
    view = read_observation(LinecatchGame, LinecatchObserver, observation, options)
    fields, resolved = view.fields, view.options
    if fields["pro"] != resolved["pro"]:
        raise ValueError(f"the observation is of pro={fields['pro']}, the options say pro={resolved['pro']}")
    black = fields["black"].ravel()
    if black.all():
        raise ValueError("the observation is of a finished game: there is no seat to act")
    refusals = []
    for seat in (0, 1):
        marks = np.full(black.size, NO_MARK)
        marks[fields["my_marks"].ravel()] = seat
        marks[fields["their_marks"].ravel()] = 1 - seat
        scores = [fields["my_score"], fields["their_score"]]
        state = {
            "black": black.astype(int).tolist(),
            "marks": marks.tolist(),
            "scores": scores if seat == 0 else scores[::-1],
            "to_move": seat,
        }
        try:
            game = LinecatchGame.from_state_dict(resolved, state)
        except SnapshotError as error:
            refusals.append(str(error))
            continue
        check_reproduces(view, game, seat)
        return view, game
    raise ValueError(f"the observation is not a Linecatch position: {refusals[0]}")


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
