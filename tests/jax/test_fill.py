"""Fill's JAX engine equals the Python engine (``envs/fill/jax_engine.py``).

Lockstep games (random, the heuristic bot, and a trap hunter that fills the opponent's trapped
cell on purpose, so traps spring and fail to spring) on every supported option set, compared
after every action and chance outcome (snapshot, mask, both seats' observations, chance
probabilities, rewards); the same games in one vmapped batch; hypothesis sequences that shrink;
hidden information (a seat's observation and mask do not move when the opponent's traps are
redrawn); chance resolved from keys by ``init``/``step`` and Pgx's ``auto_reset`` under
``jit(vmap)``; the planes; and the options the engine refuses (clocks, gems).
"""

from __future__ import annotations

import random
from collections import Counter

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.fill.facts import FILL, NO_TRAP, SEED, TRAP_PHASE
from envs.fill.rules import FillGame
from envs.fill.sampling import complete_snapshot, strip_hidden
from tests.jax.lockstep import (agrees_with_python, agent_policy, auto_reset_play, compiled, picked_policy,
                                play_lockstep, python_positions, random_policy, record, replay_batched)

OPTION_SETS = {
    "default": {},
    "traps": {"traps": True},
    "rocks": {"rocks": True},
    "traps+rocks": {"traps": True, "rocks": True},
    "strict": {"lines": "strict", "traps": True},
    "off": {"lines": "off"},
    "size7": {"size": 7, "rocks": True},
    "size8": {"size": 8, "lines": "strict", "traps": True, "rocks": True},
    "scripted": {"rocks": True, "traps": True, "rock_cells": [14, "a1", 35, 8, 21]},
}
TRAPS = [label for label, options in OPTION_SETS.items() if options.get("traps")]


def trap_hunter(events: Counter, fill_the_trap: float = 0.6):
    """A policy that sees everything: it traps a legal cell when it can, and fills the
    opponent's live trap when that cell is legal (so traps spring with 3 or more legal cells
    and fail to with fewer); otherwise random. Counts what happened in ``events``."""

    def act(game: FillGame, rng: random.Random) -> int:
        legal = game.legal_actions()
        p = game.to_move
        if game.phase == TRAP_PHASE:
            events["trap phase"] += 1
            cells = game.legal_cells()
            if cells and rng.random() < 0.8:
                return rng.choice(cells)
            return rng.choice(legal)
        if game.phase == FILL:
            trap = game.live_trap[1 - p]
            if trap >= 0 and trap in legal and rng.random() < fill_the_trap:
                events["sprung" if len(legal) >= 3 else "trapped cell filled, too few legal to spring"] += 1
                return trap
            if game.options["traps"] and game.turns[p] > 1 and min(game.recharge[p]) > game.turns[p]:
                events["fill phase with both traps recharging"] += 1
        return rng.choice(legal)

    return act


def python_games(options: dict, seeds, policy=random_policy) -> list[list[int]]:
    return [record("fill", options, seed, policy) for seed in seeds]


# ----- lockstep -------------------------------------------------------------------------------


@pytest.mark.parametrize("label", list(OPTION_SETS))
def test_random_games_in_lockstep(label):
    options = OPTION_SETS[label]
    games = 5 if options.get("size", 6) == 8 else 8
    steps = sum(play_lockstep("fill", options, seed) for seed in range(games))
    assert steps >= games * 10


@pytest.mark.parametrize("label", TRAPS)
def test_trap_hunter_games_in_lockstep(label):
    """Traps set on legal cells and the opponent filling them: springs (at least 3 legal
    cells), trapped cells filled without a spring (fewer), recharging, the reveal."""
    options = OPTION_SETS[label]
    events = Counter()
    policy = trap_hunter(events)
    steps = sum(play_lockstep("fill", options, seed, policy) for seed in range(4))
    assert steps >= 100
    assert events["sprung"] >= 3 and events["trap phase"] >= 10, events
    assert events["fill phase with both traps recharging"] >= 1, events


def test_traps_that_do_not_spring_in_lockstep():
    """The trapped cell filled while fewer than 3 cells are legal: the fill is made, nothing is
    revealed (the games are picked for it: the hunter always fills the trap)."""
    events = Counter()
    policy = trap_hunter(events, fill_the_trap=1.0)
    seed = 0
    while events["trapped cell filled, too few legal to spring"] < 2:
        play_lockstep("fill", OPTION_SETS["traps"], seed, policy)
        seed += 1
        assert seed < 40, events


@pytest.mark.parametrize("label", ["default", "traps+rocks", "size7"])
def test_heuristic_bot_games_in_lockstep(label):
    from training.players.load import load_agent

    options = OPTION_SETS[label]
    agent = load_agent("heuristic", "fill_v0", seed=1, **options)
    policy = agent_policy(agent, envs.describe("fill").make_observer(options))
    assert sum(play_lockstep("fill", options, seed, policy) for seed in range(2)) >= 20


def test_a_seed_walled_in_by_rocks_ends_the_game_at_the_choice():
    """Rocks around a corner seed: whoever would move first has no legal cell and loses (the
    turn is not counted), after stay and after swap."""
    options = {"rocks": True, "traps": True, "rock_cells": [1, 6, 7]}
    for choice in (36, 37):  # STAY, SWAP
        script = iter([0, choice])
        play_lockstep("fill", options, 0, lambda game, rng: next(script))
        game = FillGame(FillGame.resolve_options(dict(options)))
        for action in (1, 6, 7, 0, choice):
            game.apply(action)
        assert game.is_terminal() and game.end_reason == "no legal cell" and game.turns == [0, 0]


@pytest.mark.parametrize("label", ["traps+rocks", "size8", "scripted", "off"])
def test_games_in_one_vmapped_batch(label):
    """Random and trap-hunter games side by side in one ``vmap(env.apply)`` batch."""
    options = OPTION_SETS[label]
    events = Counter()
    games = python_games(options, range(12)) + python_games(options, range(12, 24), trap_hunter(events))
    assert events["sprung"] >= 1 or not options.get("traps")
    assert replay_batched("fill", options, games) == sum(map(len, games))


@settings(max_examples=25)
@given(label=st.sampled_from(["traps+rocks", "strict", "scripted"]), seed=st.integers(0, 3),
       picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=40))
def test_hypothesis_sequences(label, seed, picks):
    """Each pick chooses among the legal actions (cells, traps, no-trap, stay, swap); the
    rocks come from ``seed``; a failure shrinks to a short sequence."""
    play_lockstep("fill", OPTION_SETS[label], seed, picked_policy(picks))


# ----- hidden information ---------------------------------------------------------------------


def _positions(options: dict, seeds) -> list[FillGame]:
    """Positions along trap-hunter games, each seat to act in each phase."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        policy = trap_hunter(Counter())
        game = envs.describe("fill").new_game(options)
        while not game.is_terminal():
            if game.phase in (TRAP_PHASE, FILL) and game.turns[game.to_move] > 1:
                out.append(game.clone())
            game.apply(rng.choice(game.chance_outcomes())[0] if game.is_chance_node() else policy(game, rng))
    return out


@pytest.mark.parametrize("label", ["traps", "size8"])
def test_a_seat_never_sees_the_opponents_traps(label):
    """Redraw the opponent's traps (where, whether set, when theirs recharge) among what the
    seat cannot rule out: the seat's JAX observation and, when it acts, its mask stay the same;
    the opponent's own observation does change (so the comparison can fail)."""
    options = OPTION_SETS[label]
    env, _, observe, _ = compiled("fill", options)
    rng = random.Random(5)
    redraws = seen_changes = 0
    for game in _positions(options, range(3))[::3]:
        snapshot = game.snapshot()
        for seat in (0, 1):
            base = env.from_snapshot(snapshot)
            mine = np.asarray(observe(base, seat))
            theirs = np.asarray(observe(base, 1 - seat))
            for _ in range(3):
                other = env.from_snapshot(complete_snapshot(strip_hidden(snapshot, seat), seat, rng))
                assert np.array_equal(np.asarray(observe(other, seat)), mine)
                if game.to_move == seat:
                    assert np.array_equal(np.asarray(other.legal_action_mask), np.asarray(base.legal_action_mask))
                seen_changes += not np.array_equal(np.asarray(observe(other, 1 - seat)), theirs)
                redraws += 1
    assert redraws >= 60 and seen_changes >= 10, (redraws, seen_changes)


def test_a_trapped_cell_stays_legal_for_the_victim():
    options = OPTION_SETS["traps"]
    env, _, observe, _ = compiled("fill", options)
    checked = 0
    for game in _positions(options, range(2)):
        if game.phase != FILL:
            continue
        victim = game.to_move
        snapshot = game.snapshot()
        clean = strip_hidden(snapshot, victim)
        clean["state"]["live_trap"][1 - victim] = -1
        plain = env.from_snapshot(complete_snapshot(clean, victim, random.Random(0)))
        for cell in game.legal_cells():
            trapped = strip_hidden(snapshot, victim)
            trapped["state"]["live_trap"][1 - victim] = cell
            state = env.from_snapshot(complete_snapshot(trapped, victim, random.Random(0)))
            assert int(state._game.live_trap[1 - victim]) == cell
            assert bool(state.legal_action_mask[cell])
            assert np.array_equal(np.asarray(state.legal_action_mask), np.asarray(plain.legal_action_mask))
            assert np.array_equal(np.asarray(observe(state, victim)), np.asarray(observe(plain, victim)))
            checked += 1
    assert checked >= 50


# ----- chance from keys, Pgx's auto_reset, planes, refusals ----------------------------------


def test_init_draws_distinct_uniform_rocks_and_follows_a_script():
    env = envs.make_jax("fill", rocks=True)
    count = 2000
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), count))
    rocks = np.stack([env.rules._cells(row) for row in np.asarray(states._game.rock)])
    assert (rocks.sum(axis=1) == 3).all()  # size - 3 distinct cells
    assert (np.asarray(states._game.phase) == SEED).all() and not np.asarray(states.is_chance).any()
    per_cell = rocks.sum(axis=0)  # about 3/36 of the games each
    expected = count * 3 / 36
    assert (np.abs(per_cell - expected) < 5 * np.sqrt(expected)).all(), per_cell
    scripted = envs.make_jax("fill", rocks=True, rock_cells=["f6", 0, 17])
    state = scripted.init(jax.random.PRNGKey(1))
    assert scripted.to_snapshot(state)["state"]["rocks"] == [0, 17, 35]


def test_step_and_auto_reset_under_jit_vmap_give_python_positions():
    """Random play with chance resolved from keys (``env.step``, Pgx's ``auto_reset``) in one
    compiled scan; games end with +1/−1 and every final position is one the Python engine
    accepts, with the same mask and observation."""
    options = OPTION_SETS["traps+rocks"]
    env = envs.make_jax("fill", **options)
    batch = 16
    state, ended, rewards = auto_reset_play(env, batch, 150)
    assert ended.sum() >= batch
    assert (np.sort(rewards[ended], axis=-1) == [-1.0, 1.0]).all()  # no draws, no illegal moves
    assert not rewards[~ended].any()
    observer = envs.describe("fill").make_observer(options)
    for one, game in python_positions(env, state, range(batch)):
        assert not bool(one.is_chance) and len(game.snapshot()["state"]["rocks"]) == 3
        agrees_with_python(one, game, observer)
    # a step needs its key (Fill has chance), and resolves none after the rocks
    single = env.init(jax.random.PRNGKey(3))
    with pytest.raises(ValueError, match="key"):
        env.step(single, int(np.flatnonzero(np.asarray(single.legal_action_mask))[0]))
    seed = int(np.flatnonzero(np.asarray(single.legal_action_mask))[0])
    after = env.step(single, seed, jax.random.PRNGKey(4))
    assert env.to_snapshot(after)["state"]["filled"] == [seed]
    assert env.to_snapshot(after)["state"]["rocks"] == env.to_snapshot(single)["state"]["rocks"]


@pytest.mark.parametrize("label", ["traps+rocks", "size7"])
def test_planes_are_the_python_observers(label):
    options = OPTION_SETS[label]
    env, apply, observe, _ = compiled("fill", options)
    observer = envs.describe("fill").make_observer(options)
    assert env.planes_shape == observer.planes_shape()
    planes = jax.jit(env.planes)
    flats = []
    for seed in range(2):
        game = envs.describe("fill").new_game(options)
        state = env.from_snapshot(game.snapshot())
        rng = random.Random(seed)
        while not game.is_terminal():
            action = rng.choice(game.chance_outcomes())[0] if game.is_chance_node() else rng.choice(game.legal_actions())
            game.apply(action)
            state = apply(state, action)
            for seat in (0, 1):
                flat = observer.observe(game, seat)
                for block in (observer.GEM, observer.MY_TOKENS, observer.CLOCKS):  # no gems, no clocks: zeros
                    width = {observer.GEM: 3 * game.n, observer.MY_TOKENS: env.rules.token_width,  # both seats
                             observer.CLOCKS: 4}[block]
                    assert not flat[block:block + width].any()
                assert np.array_equal(np.asarray(planes(observe(state, seat))), observer.planes(flat))
                flats.append(flat)
    batch = np.stack(flats)
    assert np.array_equal(np.asarray(planes(batch)), observer.planes(batch))
    noise = np.random.default_rng(0).random((4, batch.shape[1]), dtype=np.float32)  # token slots too
    assert np.array_equal(np.asarray(planes(noise)), observer.planes(noise))


@pytest.mark.parametrize("options,name", [({"time_limit": True}, "time_limit"), ({"gems": True}, "gems"),
                                          ({"gems": True, "traps": True, "size": 8}, "gems")])
def test_refused_options_are_named(options, name):
    with pytest.raises(ValueError, match=name):
        envs.make_jax("fill", **options)


def test_every_trap_phase_action_and_no_trap():
    """The trap phase's actions in lockstep: a trap on every kind of empty cell (legal,
    poisoned, untouched) and no-trap, chosen in turn."""
    kinds = Counter()

    def policy(game, rng):
        if game.phase != TRAP_PHASE:
            return rng.choice(game.legal_actions())
        legal = set(game.legal_cells())
        poisoned = game.poisoned_cells()
        choice = kinds.total() % 4
        if choice == 0 and poisoned:
            kinds["poisoned"] += 1
            return rng.choice(poisoned)
        if choice == 1:
            kinds["no-trap"] += 1
            return game.n + NO_TRAP
        cells = [a for a in game.legal_actions() if a < game.n and a not in legal and a not in poisoned]
        if choice == 2 and cells:
            kinds["untouched"] += 1
            return rng.choice(cells)
        kinds["legal"] += 1
        return rng.choice(sorted(legal))

    for seed in range(3):
        play_lockstep("fill", OPTION_SETS["strict"], seed, policy)
    assert min(kinds[k] for k in ("poisoned", "no-trap", "untouched", "legal")) >= 2, kinds


# ----- longer sweeps --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("label", list(OPTION_SETS))
def test_many_games_in_lockstep(label):
    """40 lockstep games and 64 batched ones per option set (10-25 s each; ``-m slow``)."""
    options = OPTION_SETS[label]
    events = Counter()
    hunter = trap_hunter(events)
    for seed in range(40):
        play_lockstep("fill", options, 1000 + seed, hunter if seed % 2 else random_policy)
    games = python_games(options, range(2000, 2064), hunter)
    replay_batched("fill", options, games)
