"""The JAX backend's contract, for every game that has a JAX engine: ``make_jax`` and
``jax_games``, Pgx's API and state fields under ``jit`` and ``vmap``, Pgx's ``auto_reset``,
illegal actions, finished games, explicit chance, snapshots and planes."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envs
from tests.jax.lockstep import auto_reset_play

JAX_GAMES = envs.jax_games()


def test_the_games_with_a_jax_engine():
    assert {"linecatch_v0", "loom_v0", "fill_v0"} <= set(JAX_GAMES)
    for name in envs.GAMES:
        if name not in JAX_GAMES:
            with pytest.raises(ValueError, match="has no JAX engine"):
                envs.make_jax(name)


def test_bad_options_raise_as_the_python_engine_does():
    with pytest.raises(ValueError, match="rows"):
        envs.make_jax("linecatch", rows=13)
    with pytest.raises(ValueError, match="unknown option"):
        envs.make_jax("linecatch", colour="red")
    with pytest.raises(ValueError, match="unknown game"):
        envs.make_jax("chess")


@pytest.mark.parametrize("name", JAX_GAMES)
def test_pgx_api_under_jit_and_vmap(name):
    env = envs.make_jax(name)
    assert env.id == name and env.version == "v0"
    assert env.num_players == 2
    assert env.num_actions == envs.describe(name).num_actions()
    batch = 8
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    state = jax.jit(jax.vmap(env.init))(keys)
    assert state.current_player.dtype == jnp.int32 and state.current_player.shape == (batch,)
    assert state.observation.shape == (batch,) + env.observation_shape
    assert state.legal_action_mask.dtype == jnp.bool_ and state.legal_action_mask.shape == (batch, env.num_actions)
    assert state.rewards.dtype == jnp.float32 and state.rewards.shape == (batch, 2)
    assert not state.is_chance.any() and not state.terminated.any() and not state.truncated.any()
    step = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(0)
    for _ in range(20):
        mask = np.asarray(state.legal_action_mask)
        actions = jnp.asarray([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask], jnp.int32)
        keys = jax.random.split(jax.random.PRNGKey(int(rng.integers(1 << 30))), batch)
        state = step(state, actions, keys)
        assert not (state.is_chance & ~state.terminated).any()  # step resolves every chance node
        observed = jax.vmap(env.observe)(state, state.current_player)
        assert np.array_equal(np.asarray(observed), np.asarray(state.observation))
    assert state.replace(truncated=state.truncated).rewards.shape == (batch, 2)


@pytest.mark.parametrize("name", JAX_GAMES)
def test_pgx_auto_reset_plays_many_games(name):
    env = envs.make_jax(name)
    batch = 16
    _, ended, rewards = auto_reset_play(env, batch, 160)
    assert ended.sum() >= batch  # whole games finished and were reset
    final = rewards[ended]
    assert set(np.unique(final).tolist()) <= {-1.0, 0.0, 1.0}
    assert np.all(final.sum(axis=-1) <= 0) and not rewards[~ended].any()  # rewards only at the end; no illegal moves


@pytest.mark.parametrize("name", JAX_GAMES)
def test_an_illegal_action_ends_the_game(name):
    env = envs.make_jax(name)
    state = env.init(jax.random.PRNGKey(3))
    out_of_range = env.step(state, env.num_actions, jax.random.PRNGKey(4))
    assert bool(out_of_range.terminated) and np.asarray(out_of_range.rewards).min() == -1.0
    while np.asarray(state.legal_action_mask).all():  # play on until some action is illegal
        state = env.step(state, int(np.flatnonzero(np.asarray(state.legal_action_mask))[0]), jax.random.PRNGKey(8))
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    seat = int(state.current_player)
    after = env.step(state, illegal, jax.random.PRNGKey(4))
    assert bool(after.terminated)
    expected = [0.0, 0.0]
    expected[seat] = -1.0
    assert np.asarray(after.rewards).tolist() == expected
    again = env.step(after, 0, jax.random.PRNGKey(5))  # a finished game: nothing changes, zero rewards
    assert not np.asarray(again.rewards).any() and bool(again.terminated)
    assert env.to_snapshot(again) == env.to_snapshot(after)
    assert not np.asarray(after.legal_action_mask).any()


@pytest.mark.parametrize("name", JAX_GAMES)
def test_snapshots_round_trip_and_options_must_match(name):
    env = envs.make_jax(name)
    state = env.init(jax.random.PRNGKey(6))
    snapshot = env.to_snapshot(state)
    description = envs.describe(name)
    game = description.engine.from_snapshot(snapshot)
    assert game.snapshot() == snapshot
    again = env.from_snapshot(snapshot)
    assert env.to_snapshot(again) == snapshot
    assert np.array_equal(np.asarray(again.legal_action_mask), np.asarray(state.legal_action_mask))
    other = {"linecatch_v0": {"rows": 4}, "loom_v0": {"bounty": 3}, "fill_v0": {"size": 7}}.get(name)
    if other is not None:
        with pytest.raises(ValueError, match="options"):
            envs.make_jax(name, **other).from_snapshot(snapshot)
    batched = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 2))
    with pytest.raises(ValueError, match="one game"):
        env.to_snapshot(batched)


@pytest.mark.parametrize("name", JAX_GAMES)
def test_planes_are_the_python_observers(name):
    env = envs.make_jax(name)
    observer = envs.describe(name).make_observer()
    state = env.init(jax.random.PRNGKey(7))
    flat = np.asarray(state.observation)
    assert env.planes_shape == observer.planes_shape()
    assert np.array_equal(np.asarray(env.planes(state.observation)), observer.planes(flat))
    # positions reached in play, batched (a game's planes may compute channels from the
    # position, as Uzor's and Knot's do: equal to float32 rounding)
    step = jax.jit(jax.vmap(env.step))
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(8), 3))
    for move in range(12):
        key = jax.random.split(jax.random.PRNGKey(100 + move), 3)
        logits = np.where(np.asarray(states.legal_action_mask), 0.0, -np.inf)
        actions = np.asarray(jax.vmap(jax.random.categorical)(key, logits))
        states = step(states, np.where(np.asarray(states.terminated), 0, actions), key)
    batch = np.asarray(states.observation)
    assert np.allclose(np.asarray(jax.jit(env.planes)(batch)), observer.planes(batch), rtol=1e-6, atol=1e-7)


def test_step_needs_a_key_where_the_game_has_chance():
    env = envs.make_jax("loom")
    state = env.init(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="key"):
        env.step(state, int(np.flatnonzero(np.asarray(state.legal_action_mask))[0]))
    linecatch = envs.make_jax("linecatch")  # no chance: no key needed, as in Pgx
    linecatch.step(linecatch.init(jax.random.PRNGKey(0)), 0)


def test_the_suite_imports_and_plays_without_jax():
    code = (
        "import sys; sys.modules['jax'] = None; sys.modules['jaxlib'] = None\n"
        "import envs, wrappers, training\n"
        "from envs import linecatch_v0\n"
        "env = linecatch_v0.env(); env.reset(seed=0)\n"
        "assert 'linecatch_v0' in envs.jax_games()\n"
        "try:\n    envs.make_jax('linecatch')\nexcept ImportError as e:\n    print('refused:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "refused: envs.make_jax needs JAX" in out.stdout
