"""Full states from one seat's observation, for search bots (Linecatch has nothing hidden).

``sampler(observation, options)`` decodes the vector once into an engine state told from the
seat to act (it becomes ``player_0``: the rules treat both seats alike) and returns a function
that hands out a fresh clone per call. ``complete_snapshot`` has nothing to fill in: it
validates the snapshot and returns it.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

import numpy as np

from envs.core.observer import as_vector
from envs.linecatch.observer import LinecatchObserver
from envs.linecatch.rules import NO_MARK, LinecatchGame


def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], LinecatchGame]:
    resolved = LinecatchGame.resolve_options(dict(options))
    observer = LinecatchObserver(resolved)
    vector = as_vector(observation)
    if vector.shape != (observer.size,):
        raise ValueError(f"a Linecatch {resolved['rows']}×{resolved['cols']} observation has {observer.size} entries, not {vector.shape}")
    fields = observer.decode(vector)
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
        base = LinecatchGame.from_state_dict(resolved, state)
    except ValueError as error:
        raise ValueError(f"the observation is not a Linecatch position: {error}") from None
    return lambda rng: base.clone()


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """Nothing is hidden in Linecatch: the snapshot must be complete; it is validated and returned."""
    return LinecatchGame.from_snapshot(partial).snapshot()


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads:
    Linecatch hides nothing, so a copy."""
    return copy.deepcopy(snapshot)
