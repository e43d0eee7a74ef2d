"""Every symmetry a game declares is one: replaying a game with every action and chance outcome
mapped gives, at every step, the mapped planes and the mapped mask of every seat
(transform-then-observe equals observe-then-transform). Each game's own tests go further."""

from __future__ import annotations

import random

import numpy as np
import pytest

import envs
from envs.core.game import CHANCE, draw_outcome
from tests.cases import option_cases


def views(state, observer, seats: int, actions: int):
    out = []
    for seat in range(seats):
        mask = np.zeros(actions, np.int8)
        if state.current_player() == seat:
            mask[state.legal_actions()] = 1
        out.append((observer.planes(observer.observe(state, seat)), mask))
    return out


@pytest.mark.parametrize("game,options", option_cases())
def test_declared_symmetries_commute_with_play(game, options):
    description = envs.describe(game)
    resolved = description.resolve_options(options)
    observer = description.observer(resolved)
    symmetries = observer.symmetries()
    assert symmetries[0].transform == "identity" and (symmetries[0].actions == np.arange(len(symmetries[0].actions))).all()
    seats = description.engine.num_players_for(resolved)
    actions = description.engine.num_actions_for(resolved)
    rng = random.Random(11)
    for game_index in range(6):
        original = description.engine(resolved)
        mapped = [description.engine(resolved) for _ in symmetries]
        while True:
            base = views(original, observer, seats, actions)
            for symmetry, twin in zip(symmetries, mapped):
                for seat, ((planes, mask), (twin_planes, twin_mask)) in enumerate(zip(base, views(twin, observer, seats, actions))):
                    assert np.array_equal(symmetry.apply_planes(planes), twin_planes), (symmetry.name, seat)
                    assert np.array_equal(symmetry.apply_policy(mask), twin_mask), (symmetry.name, seat)
            if original.is_terminal():
                assert all(t.is_terminal() and t.returns() == original.returns() for t in mapped)
                break
            if original.current_player() == CHANCE:
                outcome = draw_outcome(original.chance_outcomes(), rng)
                for symmetry, twin in zip(symmetries, mapped):
                    twin.apply(int(symmetry.chance[outcome]) if symmetry.chance is not None else outcome)
                original.apply(outcome)
            else:
                action = rng.choice(original.legal_actions())
                for symmetry, twin in zip(symmetries, mapped):
                    twin.apply(int(symmetry.actions[action]))
                original.apply(action)
