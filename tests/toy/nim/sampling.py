"""Nim hides nothing: the observation is the position (and the seat to act)."""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

from envs.core.sampling import check_reproduces, read_observation
from tests.toy.nim.observer import NimObserver
from tests.toy.nim.rules import NimGame


def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], NimGame]:
    view = read_observation(NimGame, NimObserver, observation, options)
    if not any(view.fields["piles"]):
        raise ValueError("the observation is of a finished game: there is no seat to act")
    game = NimGame.from_state_dict(view.options, {"piles": view.fields["piles"], "to_move": view.fields["seat"]})
    check_reproduces(view, game, game.to_move)
    return lambda rng: game.clone()


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    return NimGame.from_snapshot(partial).snapshot()


def strip_hidden(snapshot: dict, seat: int) -> dict:
    return copy.deepcopy(snapshot)
