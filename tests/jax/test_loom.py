"""Loom's JAX engine equals the Python engine: lockstep games on every option set (random play,
the heuristic bot, a greedy-by-gain policy, scripted throws), the same games in one vmapped
batch, hypothesis sequences that shrink, random positions (cloths drawn cell by cell, twins
side by side included) with every decision and every throw applied to the whole batch at once,
``env.step`` with chance drawn from the key (replayed on the Python engine), auto-reset under
``jit(vmap)``, snapshots both ways, planes, and an illegal action. ``-m slow`` plays thousands
of games more (``LOOM_JAX_SWEEP`` games per option set, 500 by default)."""

from __future__ import annotations

import os
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.core.game import CHANCE
from envs.loom.cloth import CELLS, cloth_score
from envs.loom.observer import LoomObserver
from envs.loom.rules import ROUNDS, LoomGame
from envs.loom.throws import THROW_ID, pair_up
from tests.jax.lockstep import (agent_policy, compiled, draw_chance, picked_policy, play_lockstep, random_policy,
                                record, replay_batched)

SCRIPT = [[(3 * k) % 6 + 1, (5 * k + 2) % 6 + 1] for k in range(ROUNDS)]  # some doubles, unsorted pairs too
DOUBLES = [[d, d] for d in (1, 2, 3, 4, 5, 6, 6, 5, 4, 3, 2, 1, 1, 1, 6, 6)]  # equal threads every round
OPTION_SETS = [{}, {"bounty": 0}, {"bounty": 37}, {"bounty": 100}, {"throws": SCRIPT},
               {"bounty": 3, "throws": DOUBLES}]
IDS = ["default", "bounty0", "bounty37", "bounty100", "scripted", "doubles-bounty3"]


def greedy_policy(game: LoomGame, rng: random.Random) -> int:
    """The legal weave with the best ``gain`` (ties at random): lines finish, bounties paid."""
    player, throw = game.current_player(), game.throws[game.round]
    scored = [(game.gain(player, a % CELLS, throw[a // CELLS]), a) for a in game.legal_actions()]
    best = max(value for value, _ in scored)
    return rng.choice([a for value, a in scored if value == best])


def heuristic_policy(options: dict, seed: int):
    from training.players.load import load_agent

    agent = load_agent("heuristic", "loom_v0", seed=seed, bounty=options.get("bounty", 8))
    return agent_policy(agent, LoomObserver(LoomGame.resolve_options(dict(options))))


# ----- lockstep: every action and throw, everything compared after each ---------------------------
@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_random_games_in_lockstep(options):
    steps = sum(play_lockstep("loom", options, seed) for seed in range(3))
    assert steps == 3 * 3 * ROUNDS  # every game: 16 × (throw, drafter's weave, rival's weave)


@pytest.mark.parametrize("options", [{}, {"bounty": 0}, {"throws": SCRIPT}], ids=["default", "bounty0", "scripted"])
def test_bot_games_in_lockstep(options):
    for seed in range(2):
        play_lockstep("loom", options, seed, heuristic_policy(options, seed))
    for seed in range(2, 4):
        play_lockstep("loom", options, seed, greedy_policy)


def test_observations_are_exact_not_only_close():
    """The lockstep comparison allows float32 rounding; the engine gives the very same floats
    (the rings and scores come from tables of the observer's own quotients)."""
    options = LoomGame.resolve_options({"bounty": 13})
    env, apply, observe, _ = compiled("loom", {"bounty": 13})
    observer = LoomObserver(options)
    rng = random.Random(5)
    game = LoomGame(options)
    state = env.from_snapshot(game.snapshot())
    while not game.is_terminal():
        action = draw_chance(game, rng) if game.is_chance_node() else greedy_policy(game, rng)
        game.apply(action)
        state = apply(state, action)
        for seat in (0, 1):
            assert np.array_equal(np.asarray(observe(state, seat)), observer.observe(game, seat))


# ----- the same games in one vmapped batch --------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"bounty": 37, "throws": SCRIPT}], ids=["default", "scripted-bounty37"])
def test_games_in_one_vmapped_batch(options):
    games = [record("loom", options, seed) for seed in range(6)]
    games += [record("loom", options, seed, greedy_policy) for seed in range(6, 9)]
    games += [record("loom", options, seed, heuristic_policy(options, seed)) for seed in range(9, 11)]
    games.append(record("loom", options, 11)[:20])  # a game cut short: padded for the rest of the batch
    assert replay_batched("loom", options, games) == sum(map(len, games))


# ----- hypothesis: action sequences that shrink ---------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(options=st.sampled_from([{}, {"bounty": 0}, {"throws": SCRIPT}, {"bounty": 3, "throws": DOUBLES}]),
       seed=st.integers(0, 2 ** 16), picks=st.lists(st.integers(0, 10_000), max_size=32))
def test_hypothesis_sequences(options, seed, picks):
    """Each pick chooses among the legal weaves (the throws come from ``seed``); a failure
    shrinks to a short sequence of small picks."""
    play_lockstep("loom", options, seed, picked_policy(picks))


# ----- random positions: every decision and throw at once -----------------------------------------
def random_position(options: dict, rng: random.Random) -> LoomGame:
    """A position with cloths drawn cell by cell (twins side by side as often as chance puts
    them, which play under the touching law seldom does): any round, at a chance node, before
    or after the draft, or over."""
    rnd = rng.choice([rng.randrange(ROUNDS), rng.randrange(ROUNDS), ROUNDS])
    phase = rng.choice(["chance", "draft", "rival"]) if rnd < ROUNDS else "over"
    scripted = options["throws"]
    throw = list(scripted[rnd]) if scripted and rnd < ROUNDS else sorted([rng.randint(1, 6), rng.randint(1, 6)])
    taken = -1
    if phase == "rival":
        taken = rng.choice([0] if throw[0] == throw[1] else [0, 1])
    if scripted:
        past = [list(pair) for pair in scripted[:rnd]]
        dyes = [[], []]
        for pair in past:  # the cloth that got the lower thread, at random
            low = rng.randrange(2)
            dyes[low].append(pair[0])
            dyes[1 - low].append(pair[1])
    else:
        dyes = [[rng.randint(1, 6) for _ in range(rnd)] for _ in range(2)]
        past = [list(pair) for pair in pair_up(*dyes)]
    if taken >= 0:
        dyes[rnd % 2].append(throw[taken])
    cloths = []
    for mine in dyes:
        cloth = [0] * CELLS
        for cell, dye in zip(rng.sample(range(CELLS), len(mine)), mine):
            cloth[cell] = dye
        cloths.append(cloth)
    state = {"throws": past + ([throw] if phase in ("draft", "rival") else []), "cloths": cloths,
             "scores": [cloth_score(c, options["bounty"]) for c in cloths], "round": rnd, "taken": taken}
    return LoomGame.from_state_dict(options, state)


@pytest.mark.parametrize("options", [{}, {"bounty": 0}, {"bounty": 100}, {"throws": SCRIPT}],
                         ids=["default", "bounty0", "bounty100", "scripted"])
def test_random_positions_every_move(options):
    """300 positions in one batch: whose turn, the mask, both seats' observations, the chance
    probabilities, and the position after every legal weave (or every possible throw) equal
    the Python engine's."""
    resolved = LoomGame.resolve_options(dict(options))
    env = compiled("loom", options)[0]
    rules = env.rules
    rng = random.Random(len(str(options)))
    games = [random_position(resolved, rng) for _ in range(300)]
    batch = jax.tree_util.tree_map(lambda *leaves: jnp.asarray(np.stack(leaves)), *[rules.from_python(g) for g in games])
    every = jax.jit(jax.vmap(jax.vmap(rules.apply, in_axes=(None, 0)), in_axes=(0, None)))
    after = jax.device_get(every(batch, jnp.arange(2 * CELLS)))
    turn = jax.device_get(jax.jit(jax.vmap(rules.turn))(batch))
    masks = np.asarray(jax.jit(jax.vmap(rules.legal_mask))(batch))
    probs = np.asarray(jax.jit(jax.vmap(rules.chance_probs))(batch))
    observe = jax.jit(jax.vmap(rules.observe, in_axes=(0, None)))
    seen = [np.asarray(observe(batch, seat)) for seat in (0, 1)]
    observer = LoomObserver(resolved)
    kinds = {"chance": 0, "decision": 0, "over": 0}
    for index, game in enumerate(games):
        player = game.current_player()
        assert bool(turn.is_chance[index]) == (player == CHANCE), index
        assert bool(turn.terminated[index]) == game.is_terminal(), index
        if player >= 0:
            assert int(turn.player[index]) == player, index
        for seat in (0, 1):
            assert np.array_equal(seen[seat][index], observer.observe(game, seat)), (index, seat)
        if game.is_terminal():
            kinds["over"] += 1
            assert not masks[index].any() and not probs[index].any()
            continue
        if game.is_chance_node():
            kinds["chance"] += 1
            assert not masks[index].any()
            expected = np.zeros(21, np.float32)
            for outcome, probability in game.chance_outcomes():
                expected[outcome] = probability
            assert np.array_equal(probs[index], expected), index
            actions = game.legal_actions()  # the outcomes that may fall
        else:
            kinds["decision"] += 1
            assert np.array_equal(masks[index], game.action_mask().astype(bool)), index
            assert not probs[index].any()
            actions = game.legal_actions()
        for action in actions:
            child = game.clone()
            child.apply(action)
            moved = jax.tree_util.tree_map(lambda leaf: leaf[index, action], after)
            assert rules.state_dict(moved) == child.state_dict(), (index, action)
    assert min(kinds.values()) >= 20, kinds


# ----- env.step: chance drawn from the key --------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"bounty": 0, "throws": SCRIPT}], ids=["default", "scripted"])
def test_step_with_keys_replays_on_the_python_engine(options):
    """Random play through ``init``/``step``: never at a chance node; every snapshot restores
    on the Python engine, which, given the same weave and the throw the key drew, reaches the
    same snapshot, observation and, at the end, returns."""
    env = envs.make_jax("loom", **options)
    init, step = jax.jit(env.init), jax.jit(env.step)
    observer = LoomObserver(env.options)
    for seed in range(3):
        key = jax.random.PRNGKey(seed)
        key, sub = jax.random.split(key)
        state = init(sub)
        game = LoomGame.from_snapshot(env.to_snapshot(state))
        assert len(game.throws) == 1 and game.current_player() == 0
        rng = random.Random(seed)
        while not bool(state.terminated):
            assert not bool(state.is_chance) and int(state.current_player) == game.current_player()
            assert np.array_equal(np.asarray(state.legal_action_mask), game.action_mask().astype(bool))
            assert np.array_equal(np.asarray(state.observation), observer.observe(game, game.current_player()))
            action = rng.choice(game.legal_actions())
            key, sub = jax.random.split(key)
            state = step(state, action, sub)
            snapshot = env.to_snapshot(state)
            game.apply(action)
            if game.is_chance_node():  # the key threw the next round's dice
                game.apply(THROW_ID[tuple(snapshot["state"]["throws"][game.round])])
            assert snapshot == game.snapshot()
            assert LoomGame.from_snapshot(snapshot).snapshot() == snapshot
            expected = game.returns() if game.is_terminal() else [0, 0]
            assert np.asarray(state.rewards).tolist() == [float(r) for r in expected]
        assert game.is_terminal() and int(state._step_count) == 2 * ROUNDS


def test_auto_reset_under_jit_and_vmap():
    import pgx.experimental

    env = envs.make_jax("loom")
    batch = 16
    step = jax.jit(jax.vmap(pgx.experimental.auto_reset(env.step, env.init)))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), batch))
    key = jax.random.PRNGKey(1)
    finished = 0
    for _ in range(2 * ROUNDS + 5):  # every game ends once and starts again
        key, pick, sub = jax.random.split(key, 3)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        state = step(state, action, jax.random.split(sub, batch))
        assert not np.asarray(state.is_chance).any()
        assert np.asarray(state.legal_action_mask).any(axis=1).all()  # reset at once: always a move
        ended = np.asarray(state.terminated)
        finished += int(ended.sum())
        rewards = np.asarray(state.rewards)
        assert not rewards[~ended].any()
        for pair in rewards[ended].tolist():  # a win and a loss, or a draw
            assert sorted(pair) in ([-1.0, 1.0], [0.0, 0.0])
    assert finished == batch


# ----- snapshots, planes, illegal actions, options ------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"bounty": 100, "throws": SCRIPT}], ids=["default", "scripted"])
def test_snapshots_round_trip_and_planes(options):
    env = envs.make_jax("loom", **options)
    observer = LoomObserver(env.options)
    rng = random.Random(3)
    game = LoomGame(env.options)
    observe = jax.jit(env.observe)
    observations, expected = [], []
    for moment in range(3 * ROUNDS + 1):
        snapshot = game.snapshot()
        if moment % 4 == 0 or game.is_terminal():  # from_snapshot runs op by op: every fourth
            state = env.from_snapshot(snapshot)
            assert env.to_snapshot(state) == snapshot
            assert env.to_snapshot(env.from_snapshot(env.to_snapshot(state))) == snapshot
            for seat in (0, 1):
                observations.append(np.asarray(observe(state, seat)))
                expected.append(observer.planes(observer.observe(game, seat)))
        if game.is_terminal():
            break
        game.apply(draw_chance(game, rng) if game.is_chance_node() else rng.choice(game.legal_actions()))
    flat = jnp.asarray(np.stack(observations))
    assert np.array_equal(np.asarray(env.planes(flat)), np.stack(expected))
    assert np.array_equal(np.asarray(env.planes(flat[3])), expected[3])  # one vector too
    assert np.array_equal(np.asarray(jax.jit(env.planes)(flat.reshape(2, -1, flat.shape[-1]))),
                          np.stack(expected).reshape((2, -1) + expected[0].shape))
    assert env.planes_shape == (4, 4, 44)
    with pytest.raises(ValueError, match="options"):
        envs.make_jax("loom", bounty=5).from_snapshot(game.snapshot())


def test_an_illegal_action_ends_the_game():
    env = envs.make_jax("loom", throws=SCRIPT)
    step = jax.jit(env.step)
    state = env.init(jax.random.PRNGKey(0))
    state = step(state, int(np.flatnonzero(np.asarray(state.legal_action_mask))[0]), jax.random.PRNGKey(1))
    seat = int(state.current_player)
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    before = env.to_snapshot(state)
    ended = step(state, illegal, jax.random.PRNGKey(2))
    assert bool(ended.terminated)
    expected = [0.0, 0.0]
    expected[seat] = -1.0
    assert np.asarray(ended.rewards).tolist() == expected
    assert env.to_snapshot(ended) == before  # the position stays as it was
    after = step(ended, 0, jax.random.PRNGKey(3))  # a step on a finished game: nothing, zeros
    assert not np.asarray(after.rewards).any() and env.to_snapshot(after) == before
    out_of_range = step(state, 99, jax.random.PRNGKey(2))
    assert bool(out_of_range.terminated) and np.asarray(out_of_range.rewards).tolist() == expected


def test_options_and_facts():
    assert "loom_v0" in envs.jax_games()
    env = envs.make_jax("loom", bounty=9)
    assert (env.num_players, env.num_actions, env.num_outcomes, env.observation_shape) == (2, 32, 21, (354,))
    assert env.rules.has_chance and env.rules.python_engine is LoomGame
    for bad in ({"bounty": 101}, {"bounty": -1}, {"throws": SCRIPT[:15]}, {"throws": [[0, 1]] * 16}, {"colour": 1}):
        with pytest.raises(ValueError):
            envs.make_jax("loom", **bad)
    scripted = envs.make_jax("loom", throws=SCRIPT)
    assert scripted.options["throws"] == [tuple(sorted(pair)) for pair in SCRIPT]
    state = scripted.init(jax.random.PRNGKey(7))
    assert env.to_snapshot(env.init(jax.random.PRNGKey(7)))["options"] == {"bounty": 9, "throws": None}
    assert scripted.to_snapshot(state)["state"]["throws"] == [sorted(SCRIPT[0])]


# ----- the long sweep -----------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_sweep_many_games(options, request):
    """``LOOM_JAX_SWEEP`` games per option set (500 by default: 3,000 games, 144,000 steps in
    lockstep and as many again batched, about 2 minutes per option set on one core) in lockstep,
    random and greedy play alternating, and as many again replayed in vmapped batches of 100:
    run with ``-m slow``."""
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("a long sweep: run it with -m slow")
    games = int(os.environ.get("LOOM_JAX_SWEEP", "500"))
    steps = sum(play_lockstep("loom", options, 10_000 + seed, greedy_policy if seed % 2 else random_policy)
                for seed in range(games))
    assert steps == games * 3 * ROUNDS
    for first in range(0, games, 100):
        recorded = [record("loom", options, 20_000 + seed, greedy_policy if seed % 3 == 0 else random_policy)
                    for seed in range(first, min(first + 100, games))]
        assert replay_batched("loom", options, recorded) == sum(map(len, recorded))
