"""Linecatch has no chance: the engine never reaches a chance node, its declared facts say so,
and every game is exactly ``rows*cols`` moves long (``max_game_length_for``)."""

from __future__ import annotations

import random

import pytest

from envs import linecatch_v0
from envs.core.game import CHANCE, TERMINAL
from envs.linecatch.rules import LinecatchGame


def test_the_declared_facts():
    facts = linecatch_v0.GAME.facts
    assert facts.chance == "deterministic" and facts.information == "perfect"
    assert (facts.min_players, facts.max_players) == (2, 2) and facts.utility(2) == "zero_sum"
    for options in ({}, {"rows": 3, "cols": 12, "pro": True}, {"rows": 12, "cols": 12}):
        resolved = LinecatchGame.resolve_options(options)
        assert LinecatchGame.max_chance_outcomes_for(resolved) == 0
        assert LinecatchGame.max_game_length_for(resolved) == resolved["rows"] * resolved["cols"]
        assert LinecatchGame.num_actions_for(resolved) == resolved["rows"] * resolved["cols"]


@pytest.mark.parametrize("options", [{}, {"pro": True}, {"rows": 3, "cols": 8, "pro": True}, {"rows": 7, "cols": 4}])
def test_no_state_is_a_chance_node_and_games_last_exactly_the_bound(options):
    resolved = LinecatchGame.resolve_options(options)
    bound = LinecatchGame.max_game_length_for(resolved)
    rng = random.Random(17)
    for _ in range(200):
        game = LinecatchGame(resolved, random.Random(rng.random()))
        moves = 0
        while True:
            assert not game.is_chance_node() and game.current_player() != CHANCE
            with pytest.raises(ValueError, match="not at a chance node"):
                game.chance_outcomes()
            if game.is_terminal():
                break
            assert game.current_player() in (0, 1)
            game.apply(rng.choice(game.legal_actions()))
            moves += 1
        assert game.current_player() == TERMINAL and moves == bound


def test_the_generator_changes_nothing():
    """The constructor's rng is unused: two generators, the same moves, the same game; and a
    snapshot holds only the position (no generator state, no future)."""
    resolved = LinecatchGame.resolve_options({"pro": True})
    a, b = LinecatchGame(resolved, random.Random(1)), LinecatchGame(resolved, random.Random(2))
    rng = random.Random(5)
    while not a.is_terminal():
        move = rng.choice(a.legal_actions())
        a.apply(move)
        b.apply(move)
        assert a.snapshot() == b.snapshot()
    assert sorted(a.snapshot()["state"]) == ["black", "marks", "scores", "to_move"]


def test_env_trajectories_do_not_depend_on_the_seed():
    """Nothing to draw: the same actions give the same observations under any reset seed."""
    actions = list(range(25))
    random.Random(3).shuffle(actions)
    seen = []
    for seed in (0, 1, 12345):
        env = linecatch_v0.raw_env()
        env.reset(seed=seed)
        trace = []
        for action in actions:
            trace.append(env.observe(env.agent_selection)["observation"].tobytes())
            env.step(action)
        seen.append((trace, env.game.scores()))
    assert seen[0] == seen[1] == seen[2]
