"""Linecatch's JAX engine equals the Python engine: lockstep games on every board shape the
tests can afford (random and bot-driven), the same games in one vmapped batch, hypothesis
sequences that shrink, and every position of the 3×3 and 4×4 boards exhaustively."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.linecatch.geometry import NO_MARK
from envs.linecatch.rules import LinecatchGame
from tests.jax.lockstep import agent_policy, compiled, picked_policy, play_lockstep, record, replay_batched

BOARDS = [
    {"rows": 3, "cols": 3}, {"rows": 3, "cols": 4}, {}, {"pro": True}, {"rows": 4, "cols": 6, "pro": True},
    {"rows": 7, "cols": 3, "pro": True}, {"rows": 12, "cols": 12}, {"rows": 12, "cols": 11, "pro": True},
]


@pytest.mark.parametrize("options", BOARDS, ids=str)
def test_random_games_in_lockstep(options):
    games = 6 if options.get("rows", 5) * options.get("cols", 5) <= 30 else 2
    steps = sum(play_lockstep("linecatch", options, seed) for seed in range(games))
    assert steps >= games * 9


@pytest.mark.parametrize("spec,options", [("heuristic", {}), ("solver", {"rows": 4, "cols": 4}),
                                          ("heuristic", {"pro": True})], ids=str)
def test_bot_games_in_lockstep(spec, options):
    from training.players.load import load_agent

    description = envs.describe("linecatch")
    agent = load_agent(spec, "linecatch_v0", seed=1, **options)
    policy = agent_policy(agent, description.make_observer(options))
    for seed in range(3):
        play_lockstep("linecatch", options, seed, policy)


@pytest.mark.parametrize("options", [{"rows": 4, "cols": 4}, {"pro": True}], ids=str)
def test_games_in_one_vmapped_batch(options):
    games = [record("linecatch", options, seed) for seed in range(12)]
    assert replay_batched("linecatch", options, games) == sum(map(len, games))


@settings(max_examples=40)
@given(options=st.sampled_from([{"rows": 3, "cols": 5, "pro": True}, {"rows": 4, "cols": 4}, {"pro": True}]),
       picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=25))
def test_hypothesis_sequences(options, picks):
    """Each pick chooses among the legal squares; a failure shrinks to a short sequence."""
    play_lockstep("linecatch", options, 0, picked_policy(picks))


def _every_position(rows: int, cols: int, pro: bool):
    """Every set of black squares, each with marks and scores drawn at random and both seats
    to move: the Python positions and the JAX batch of the same."""
    options = LinecatchGame.resolve_options({"rows": rows, "cols": cols, "pro": pro})
    n = rows * cols
    sets = np.arange(2 ** n)
    black = ((sets[:, None] >> np.arange(n)) & 1).astype(bool)
    rng = np.random.default_rng(n)
    marks = np.where(black, rng.integers(0, 2, black.shape), NO_MARK).astype(np.int8)
    points = rng.integers(0, 30, (len(sets), 2)).astype(np.int32)
    to_move = (sets % 2).astype(np.int32)
    return options, black, marks, points, to_move


@pytest.mark.parametrize("rows,cols,pro", [(3, 3, False), (3, 3, True), (4, 4, False), (4, 4, True)])
def test_every_position_every_move(rows, cols, pro):
    """Every position of the board (2^n sets of black squares): the mask, both seats'
    observations and the position after every legal move equal the Python engine's."""
    options, black, marks, points, to_move = _every_position(rows, cols, pro)
    env = compiled("linecatch", {k: v for k, v in options.items()})[0]
    rules = env.rules
    from envs.linecatch.jax_engine import Position

    remaining = (~black).astype(np.int32) @ np.asarray(rules.incidence, np.int32)
    batch = Position(jnp.asarray(black), jnp.asarray(marks), jnp.asarray(points), jnp.asarray(to_move), jnp.asarray(remaining))
    n = rows * cols
    every_move = jax.jit(jax.vmap(jax.vmap(rules.apply, in_axes=(None, 0)), in_axes=(0, None)))
    after = jax.device_get(every_move(batch, jnp.arange(n)))
    observe = jax.jit(jax.vmap(rules.observe, in_axes=(0, None)))
    seen = [np.asarray(observe(batch, seat)) for seat in (0, 1)]
    observer = envs.describe("linecatch").make_observer(options)
    for index in range(len(black)):
        game = LinecatchGame(options)
        game._set_position(black[index].astype(int).tolist(), marks[index].tolist(), points[index].tolist(),
                           int(to_move[index]))
        for seat in (0, 1):
            assert np.allclose(seen[seat][index], observer.observe(game, seat), rtol=1e-6, atol=1e-7), (index, seat)
        if game.is_terminal():
            continue
        for cell in game.legal_actions():
            child = game.clone()
            child.apply(cell)
            assert after.black[index, cell].astype(int).tolist() == child.black, (index, cell)
            assert after.marks[index, cell].tolist() == child.marks, (index, cell)
            assert after.points[index, cell].tolist() == child.points, (index, cell)
            assert int(after.to_move[index, cell]) == child.to_move, (index, cell)
            assert after.remaining[index, cell].tolist() == child.remaining, (index, cell)


SWEEP = [{"rows": 3, "cols": 3}, {"rows": 4, "cols": 4}, {}, {"pro": True}, {"rows": 6, "cols": 9, "pro": True},
         {"rows": 12, "cols": 12}]


@pytest.mark.slow
@pytest.mark.parametrize("options", SWEEP, ids=str)
def test_sweep_thousands_of_games(options, capsys):
    """2,000 random games and 200 heuristic games per board, every step compared."""
    from training.players.load import load_agent
    from tests.jax.lockstep import agent_policy, sweep

    games, steps = sweep("linecatch", options, 2000)
    agent = load_agent("heuristic", "linecatch_v0", seed=3, **options)
    bot_games, bot_steps = sweep("linecatch", options, 200, agent_policy(agent, envs.describe("linecatch").make_observer(options)),
                                 seed=10_000)
    with capsys.disabled():
        print(f"\nlinecatch {options}: {games} random games ({steps} steps), {bot_games} heuristic games ({bot_steps} steps)")
