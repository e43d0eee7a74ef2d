"""Lockstep differential testing of a JAX engine against its Python engine.

The Python engine is the reference. A game is played on the Python engine (its actions from a
policy, its chance outcomes drawn with their probabilities) and every action and outcome is
applied to the JAX env too (``env.apply``); after each one :func:`compare` checks everything the
contract says is equal: the full snapshot, whose turn and whether it is a chance node, the
legal mask, every seat's observation, the chance probabilities and, at the end, the rewards.

:func:`replay_batched` replays many recorded games inside one ``vmap``-ped batch (batching turns
a branch into a select of both sides: some bugs only show there) and compares each game of the
batch after every step the same way.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

import envs
from envs.core.game import CHANCE

Policy = Callable[[Any, random.Random], int]  # (python game, rng) -> a legal action


@lru_cache(maxsize=None)
def _compiled(name: str, frozen: tuple) -> tuple:
    env = envs.make_jax(name, **{k: _thaw(v) for k, v in frozen})
    return env, jax.jit(env.apply), jax.jit(env.observe), jax.jit(env.chance_probs)


class _FrozenDict(tuple):
    """A dict inside an option (a pattern of Uzor's Map) as a hashable tuple of its items."""


def _freeze(value: Any) -> Any:
    if isinstance(value, _FrozenDict):
        return value
    if isinstance(value, dict):
        return _FrozenDict(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, _FrozenDict):
        return {k: _thaw(v) for k, v in value}
    if isinstance(value, tuple):
        return tuple(_thaw(v) for v in value)
    return value


def compiled(name: str, options: dict[str, Any]) -> tuple:
    """``env, apply, observe, chance_probs`` for a game and options, jitted once per run."""
    return _compiled(name, tuple(sorted((k, _freeze(v)) for k, v in options.items())))


def random_policy(game, rng: random.Random) -> int:
    return rng.choice(game.legal_actions())


def picked_policy(picks: list[int]) -> Policy:
    """The n-th decision is the legal action at index ``picks[n]`` (modulo their number; 0 once
    the picks run out): hypothesis draws the picks and shrinks a failure to a short sequence."""
    sequence = iter(picks)

    def policy(game, rng: random.Random) -> int:
        legal = game.legal_actions()
        return legal[next(sequence, 0) % len(legal)]

    return policy


def agent_policy(agent, observer) -> Policy:
    """A suite agent (``load_agent``) as a policy: it sees only the acting seat's observation."""
    def act(game, rng):
        seat = game.current_player()
        return int(agent.act({"observation": observer.observe(game, seat), "action_mask": game.action_mask()}))
    return act


def auto_reset_play(env, batch: int, steps: int, seed: int = 1) -> tuple:
    """Random legal play of ``batch`` games for ``steps`` compiled steps with Pgx's
    ``auto_reset`` (chance drawn from keys): the last states, and per step which games ended and
    their rewards (``(steps, batch)`` and ``(steps, batch, seats)`` numpy arrays)."""
    from pgx.experimental import auto_reset

    step = jax.vmap(auto_reset(env.step, env.init))

    def body(carry, _):
        state, key = carry
        key, pick, resolve = jax.random.split(key, 3)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        state = step(state, action, jax.random.split(resolve, batch))
        return (state, key), (state.terminated, state.rewards)

    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(seed), batch))
    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=steps))
    (state, _), (ended, rewards) = run(state, jax.random.PRNGKey(seed + 1))
    return state, np.asarray(ended), np.asarray(rewards)


def python_positions(env, states, indices) -> Iterator[tuple[Any, Any]]:
    """The batched states at ``indices``, each as (its JAX state, the Python game its snapshot
    restores): the Python engine checks every position the compiled batch reached."""
    for index in indices:
        one = jax.tree_util.tree_map(lambda leaf: leaf[index], states)
        yield one, env.description.engine.from_snapshot(env.to_snapshot(one))


def agrees_with_python(one, game, observer, exact: bool = True) -> None:
    """A JAX position (one of :func:`python_positions`) against the Python game it restores: the
    same mask and the same observation for the seat to act (a finished game has neither).
    ``exact=False`` compares the observations to float tolerance."""
    if game.is_terminal():
        return
    assert np.array_equal(np.asarray(one.legal_action_mask), game.action_mask().astype(bool))
    same = np.array_equal if exact else np.allclose
    assert same(np.asarray(one.observation), observer.observe(game, game.current_player()))


def draw_chance(game, rng: random.Random) -> int:
    outcomes = game.chance_outcomes()
    point = rng.random()
    for outcome, probability in outcomes:
        point -= probability
        if point < 0:
            return outcome
    return outcomes[-1][0]


def compare(env, observe, chance_probs, state, game, observer, where: str) -> None:
    """Everything the contract says is equal, for one JAX state and one Python game."""
    snapshot = env.to_snapshot(state)
    assert snapshot == game.snapshot(), f"{where}: snapshots differ\njax:    {snapshot}\npython: {game.snapshot()}"
    player = game.current_player()
    assert bool(state.is_chance) == (player == CHANCE), f"{where}: is_chance {bool(state.is_chance)}, python player {player}"
    assert bool(state.terminated) == game.is_terminal(), f"{where}: terminated {bool(state.terminated)}"
    if player >= 0:
        assert int(state.current_player) == player, f"{where}: current_player {int(state.current_player)} != {player}"
    if player == CHANCE:
        assert int(state.current_player) == CHANCE, f"{where}: current_player {int(state.current_player)} at chance"
    mask = np.asarray(state.legal_action_mask)
    expected = game.action_mask().astype(bool) if player >= 0 else np.zeros(env.num_actions, bool)
    assert np.array_equal(mask, expected), f"{where}: masks differ at {np.flatnonzero(mask != expected).tolist()}"
    for seat in range(env.num_players):
        mine = np.asarray(observe(state, seat))
        theirs = observer.observe(game, seat)
        assert mine.shape == theirs.shape, f"{where}: seat {seat} observation shape {mine.shape} != {theirs.shape}"
        close = np.isclose(mine, theirs, rtol=1e-6, atol=1e-7)
        assert close.all(), (f"{where}: seat {seat} observation differs at "
                             f"{[(observer.layout.name_at(i), float(mine[i]), float(theirs[i])) for i in np.flatnonzero(~close)[:5]]}")
    seen_by = player if player >= 0 else 0 if player == CHANCE else int(state.current_player)  # at the end: its seat
    assert 0 <= seen_by < env.num_players, f"{where}: current_player {seen_by} is not a seat"
    assert np.allclose(np.asarray(state.observation), observer.observe(game, seen_by), rtol=1e-6, atol=1e-7), \
        f"{where}: state.observation is not the acting seat's"
    probs = np.asarray(chance_probs(state))
    if player == CHANCE:
        expected_probs = np.zeros_like(probs)
        for outcome, probability in game.chance_outcomes():
            expected_probs[outcome] = probability
        assert np.allclose(probs, expected_probs, atol=1e-6), f"{where}: chance probabilities differ"
    else:
        assert not probs.any(), f"{where}: chance probabilities off a chance node"


def play_lockstep(name: str, options: dict[str, Any], seed: int, policy: Policy = random_policy) -> int:
    """One game in lockstep; returns the number of actions and outcomes compared."""
    description = envs.describe(name)
    env, apply, observe, chance_probs = compiled(name, options)
    rng = random.Random(seed)
    game = description.new_game(options, seed)
    observer = description.make_observer(options)
    state = env.from_snapshot(game.snapshot())
    steps = 0
    compare(env, observe, chance_probs, state, game, observer, f"seed {seed}, start")
    while not game.is_terminal():
        action = draw_chance(game, rng) if game.is_chance_node() else policy(game, rng)
        game.apply(action)
        state = apply(state, action)
        steps += 1
        compare(env, observe, chance_probs, state, game, observer, f"seed {seed}, after {steps} ({action})")
        if game.is_terminal():
            assert np.asarray(state.rewards).tolist() == [float(r) for r in game.returns()], \
                f"seed {seed}: rewards {np.asarray(state.rewards).tolist()} != returns {game.returns()}"
        else:
            assert not np.asarray(state.rewards).any(), f"seed {seed}: rewards before the end"
    return steps


def record(name: str, options: dict[str, Any], seed: int, policy: Policy = random_policy) -> list[int]:
    """The actions and outcomes of one game played on the Python engine."""
    description = envs.describe(name)
    rng = random.Random(seed)
    game = description.new_game(options, seed)
    actions = []
    while not game.is_terminal():
        action = draw_chance(game, rng) if game.is_chance_node() else policy(game, rng)
        game.apply(action)
        actions.append(action)
    return actions


def replay_batched(name: str, options: dict[str, Any], games: list[list[int]]) -> int:
    """Replays recorded games side by side in one ``vmap(env.apply)`` batch (a finished game
    is padded with action 0, which a finished state ignores), comparing every game of the batch
    after every step with everything :func:`compare` checks; returns the number of steps
    compared. The batch comes to the host once a step (state, every seat's observation, the
    chance probabilities), so thousands of games at once stay cheap."""
    description = envs.describe(name)
    env = compiled(name, options)[0]
    observer = description.make_observer(options)
    pythons = [description.new_game(options) for _ in games]
    states = jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves),
                                    *[env.from_snapshot(game.snapshot()) for game in pythons])
    batched_apply, batched_view = _batched(name, options)
    longest = max(len(actions) for actions in games)
    compared = 0
    for step in range(longest):
        actions = jnp.asarray([a[step] if step < len(a) else 0 for a in games], jnp.int32)
        states = batched_apply(states, actions)
        host, seen, probs = jax.device_get((states, *batched_view(states)))
        for index, (game, recorded) in enumerate(zip(pythons, games)):
            if step >= len(recorded):
                continue
            game.apply(recorded[step])
            compare_host(env, host, seen, probs, index, game, observer, f"batch game {index}, step {step + 1}")
            compared += 1
    return compared


@lru_cache(maxsize=None)
def _batched_frozen(name: str, frozen: tuple) -> tuple:
    env = compiled(name, dict(frozen))[0]

    def view(states):
        seats = jnp.arange(env.num_players)
        seen = jax.vmap(lambda state: jax.vmap(lambda seat: env.observe(state, seat))(seats))(states)
        return seen, jax.vmap(env.chance_probs)(states)

    return jax.jit(jax.vmap(env.apply)), jax.jit(view)


def _batched(name: str, options: dict[str, Any]) -> tuple:
    return _batched_frozen(name, tuple(sorted((k, _freeze(v)) for k, v in options.items())))


def compare_host(env, host, seen, probs, index: int, game, observer, where: str) -> None:
    """:func:`compare` for game ``index`` of a batch already on the host: ``host`` the states,
    ``seen`` every seat's observation ``(batch, seats, size)``, ``probs`` the chance
    probabilities ``(batch, outcomes)``."""
    one = jax.tree_util.tree_map(lambda leaf: np.asarray(leaf[index]), host)
    state_dict = env.rules.state_dict(one._game)
    assert state_dict == game.state_dict(), f"{where}: states differ\njax:    {state_dict}\npython: {game.state_dict()}"
    player = game.current_player()
    assert bool(one.is_chance) == (player == CHANCE), f"{where}: is_chance {bool(one.is_chance)}, python player {player}"
    assert bool(one.terminated) == game.is_terminal(), f"{where}: terminated {bool(one.terminated)}"
    if player >= 0 or player == CHANCE:
        assert int(one.current_player) == player, f"{where}: current_player {int(one.current_player)} != {player}"
    expected = game.action_mask().astype(bool) if player >= 0 else np.zeros(env.num_actions, bool)
    assert np.array_equal(one.legal_action_mask, expected), \
        f"{where}: masks differ at {np.flatnonzero(one.legal_action_mask != expected).tolist()}"
    for seat in range(env.num_players):
        theirs = observer.observe(game, seat)
        close = np.isclose(seen[index, seat], theirs, rtol=1e-6, atol=1e-7)
        assert close.all(), (f"{where}: seat {seat} observation differs at "
                             f"{[(observer.layout.name_at(i), float(seen[index, seat, i]), float(theirs[i])) for i in np.flatnonzero(~close)[:5]]}")
    seen_by = player if player >= 0 else 0 if player == CHANCE else int(one.current_player)
    assert np.allclose(one.observation, seen[index, seen_by]), f"{where}: state.observation is not the acting seat's"
    if player == CHANCE:
        expected_probs = np.zeros_like(probs[index])
        for outcome, probability in game.chance_outcomes():
            expected_probs[outcome] = probability
        assert np.allclose(probs[index], expected_probs, atol=1e-6), f"{where}: chance probabilities differ"
    else:
        assert not probs[index].any(), f"{where}: chance probabilities off a chance node"
    if game.is_terminal():
        assert one.rewards.tolist() == [float(r) for r in game.returns()], f"{where}: rewards {one.rewards.tolist()}"


def sweep(name: str, options: dict[str, Any], games: int, policy: Policy = random_policy, seed: int = 0,
          chunk: int = 500) -> tuple[int, int]:
    """``games`` seeded games recorded on the Python engine and replayed in vmapped batches of
    ``chunk``, every step compared (:func:`replay_batched`); returns (games, steps compared)."""
    steps = 0
    for first in range(seed, seed + games, chunk):
        recorded = [record(name, options, s, policy) for s in range(first, min(seed + games, first + chunk))]
        steps += replay_batched(name, options, recorded)
    return games, steps
