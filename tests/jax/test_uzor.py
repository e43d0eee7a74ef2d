"""Uzor's JAX engine equals the Python engine (``envs/uzor/jax_engine.py``).

Lockstep games on the description's option sets (9×9, 15×15, 21×21), scripted ``tiles`` and
``goals``, and a user's Map (an "any" pattern whose orientations differ in size, one too wide
for the table), compared after every action and chance outcome (snapshot, mask, both seats'
observations, chance probabilities, rewards); positions built for what random games seldom
reach (dead ends turn after turn until the idle limit, refills from face-up discards, several
instances of a pattern through the placed cell, with the known first one); the same games in
one vmapped batch; hypothesis sequences that shrink; hidden information (the opponent's goal
redrawn, the supply kept as counts); the setup drawn by ``init``, ``step`` with keys and Pgx's
``auto_reset`` under ``jit(vmap)``; the planes. ``-m slow`` plays many more games.
"""

from __future__ import annotations

import random
from collections import Counter

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.core.game import CHANCE
from envs.uzor.common import DEAD_TAKE, DISCARD, FORK, HAND, IDLE_LIMIT, PASS, PLACE, REFILL, TAKE, TYPES
from envs.uzor.patterns import STANDARD_MAP
from envs.uzor.rules import UzorGame
from envs.uzor.sampling import complete_snapshot, strip_hidden
from tests.jax.lockstep import (agrees_with_python, auto_reset_play, compare, compiled, draw_chance,
                                picked_policy, play_lockstep, python_positions, random_policy, record,
                                replay_batched)


def _script(seed: int) -> list[list[int]]:
    """A shuffled order of the 75 tiles whose deal lets player_0 place (no deal again)."""
    rng = random.Random(seed)
    while True:
        tiles = [[m, c] for m in range(5) for c in range(5) for _ in range(3)]
        rng.shuffle(tiles)
        centre = tiles[15]
        if any(m == centre[0] or c == centre[1] for m, c in tiles[:HAND]):
            return tiles


def _user_map() -> list[dict]:
    """The standard Map with a pattern of any two or three tiles in a row (orientations of
    different sizes: the shorter list wins a tie in reading order) and one too wide for 9×9."""
    patterns = [dict(p) for p in STANDARD_MAP]
    patterns[9] = {"name": "Pair", "shapes": [[[0, 0], [0, 1]], [[0, 0], [0, 1], [0, 2]], [[0, 0], [1, 0]]],
                   "criterion": "any", "points": 1}
    patterns[13] = {"name": "Long", "shapes": [[[0, i] for i in range(10)]], "criterion": "same_motif", "points": 20}
    return patterns


DESCRIBED = {"quick": {"board_size": 9}, "15x15": {"board_size": 15}, "default 21x21": {}}
OPTION_SETS = {
    **DESCRIBED,
    "scripted": {"board_size": 9, "tiles": _script(1), "goals": [4, 11]},
    "scripted goals": {"board_size": 11, "goals": [14, 0]},
    "user map": {"board_size": 9, "patterns": _user_map()},
}
GAMES = {"quick": 3, "15x15": 1, "default 21x21": 1, "scripted": 1, "scripted goals": 1, "user map": 2}


def test_the_described_option_sets_are_covered():
    description = envs.describe("uzor_v0")
    for options in description.test_options.all() + list(description.benchmark_options.values()):
        assert dict(options) in DESCRIBED.values()


# ----- lockstep -------------------------------------------------------------------------------


@pytest.mark.parametrize("label", list(OPTION_SETS))
def test_random_games_in_lockstep(label):
    steps = sum(play_lockstep("uzor", OPTION_SETS[label], seed) for seed in range(GAMES[label]))
    assert steps >= GAMES[label] * 150


def lockstep_from(game: UzorGame, options: dict, seed: int, events: Counter, policy=random_policy) -> None:
    """``play_lockstep`` from a built position: every action and outcome compared, phases counted."""
    env, apply, observe, chance_probs = compiled("uzor", options)
    observer = envs.describe("uzor").make_observer(options)
    state = env.from_snapshot(game.snapshot())
    rng = random.Random(seed)
    compare(env, observe, chance_probs, state, game, observer, "start")
    while not game.is_terminal():
        events[game.phase] += 1
        if game.phase in (DISCARD, DEAD_TAKE) and not any(game.facedown) and game.discards:
            events["refill face up"] += 1
        action = draw_chance(game, rng) if game.is_chance_node() else policy(game, rng)
        game.apply(action)
        state = apply(state, action)
        compare(env, observe, chance_probs, state, game, observer, f"seed {seed}, after {action}")
    assert np.asarray(state.rewards).tolist() == [float(r) for r in game.returns()]
    events["idle end"] += game.idle >= IDLE_LIMIT


def _stuck_position(options: dict, early_fits: int) -> UzorGame:
    """Only the centre (cedar/crimson) on the table; hands, market and the face-down supply hold
    tiles of neither cedar nor crimson (ten face down); the fitting tiles lie face up at the
    supply's bottom, ``early_fits`` of them first, the others after the non-fitting discards."""
    fitting = [t for t in range(TYPES) for _ in range(3) if t // 5 == 0 or t % 5 == 0][1:]  # one type-0 is the centre
    other = [t for t in range(TYPES) for _ in range(3) if t // 5 and t % 5]
    hands, market, rest = [sorted(other[:5]), sorted(other[5:10])], other[10:15], other[15:]
    discards = fitting[:early_fits] + rest[10:] + fitting[early_fits:]  # rest[:10] stay face down
    centre = options["board_size"] ** 2 // 2
    return UzorGame.from_position(options, {centre: 0}, hands, market, discards=discards)


def test_dead_ends_until_the_idle_limit():
    """Nobody can place: discard and take turn after turn (refills face down, then from the
    face-up discards) until 20 turns without a placement end the game; with fitting tiles among
    the early discards players place again."""
    options = OPTION_SETS["quick"]
    events = Counter()
    lockstep_from(_stuck_position(options, 0), options, 0, events)
    assert events["idle end"] == 1 and events[DISCARD] == IDLE_LIMIT and events["refill face up"] >= 10, events
    lockstep_from(_stuck_position(options, 8), options, 0, events)
    assert events[PLACE] >= 5, events


def test_a_placement_through_several_instances_forks_on_the_first():
    """cedar/crimson, /azure, /emerald on h5…j5 of 9×9 (cells 38-40), cedar/amber on l5 (42)
    joined through row 6; placing cedar/ivory on k5 (41) completes Line-3 twice, Line-4
    twice, Line-5 and a Rainbow: the fork names the first instance of each in reading order."""
    options = OPTION_SETS["quick"]
    table = {38: 0, 39: 1, 40: 2, 42: 3, 49: 5, 50: 10, 51: 15}
    game = UzorGame.from_position(options, table, [[4, 6, 7, 8, 9], [11, 12, 13, 14, 16]], [17, 18, 19, 20, 21])
    env, apply, _, _ = compiled("uzor", options)
    state = apply(env.from_snapshot(game.snapshot()), 41)  # slot 0 (cedar/ivory) at cell 41
    fork = env.to_snapshot(state)["state"]["fork"]
    assert fork == [[0, [39, 40, 41]], [1, [38, 39, 40, 41]], [2, [38, 39, 40, 41, 42]], [12, [38, 39, 40, 41, 42]]]
    game.apply(41)
    assert game.phase == FORK and env.to_snapshot(state) == game.snapshot()
    for seed, first in enumerate((game.geo.close0 + 0, game.geo.close0 + 1, game.geo.cont)):
        again = game.clone()
        again.apply(first)
        lockstep_from(again, options, seed, Counter())


@pytest.mark.parametrize("label", ["quick", "user map", "scripted"])
def test_games_in_one_vmapped_batch(label):
    options = OPTION_SETS[label]
    games = [record("uzor", options, seed) for seed in range(5)]
    assert replay_batched("uzor", options, games) == sum(map(len, games))


@settings(max_examples=8, deadline=None)
@given(label=st.sampled_from(["quick", "user map"]), seed=st.integers(0, 3),
       picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=60))
def test_hypothesis_sequences(label, seed, picks):
    """Each pick chooses among the legal actions (placements, closes, continue, takes, discards,
    pass); the chance outcomes come from ``seed``; a failure shrinks to a short sequence."""
    play_lockstep("uzor", OPTION_SETS[label], seed, picked_policy(picks))


def test_motif_and_colour_without_division():
    """``motif_colour`` (a multiply and a shift, for speed) gives ``divmod(t, 5)`` for every
    tile type; other codes (empty, stones) are clipped into the types, so stay in range."""
    from envs.uzor.jax_table import motif_colour

    codes = np.arange(-1, 2 * TYPES)
    motif, colour = (np.asarray(x) for x in jax.jit(motif_colour)(codes))
    types = np.clip(codes, 0, TYPES - 1)
    assert np.array_equal(motif, types // 5) and np.array_equal(colour, types % 5)
    assert motif.min() == colour.min() == 0 and motif.max() == colour.max() == 4


# ----- hidden information ---------------------------------------------------------------------


def _positions(options: dict, seeds) -> list[UzorGame]:
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        game = envs.describe("uzor").new_game(options)
        while not game.is_terminal():
            if not game.is_chance_node() and rng.random() < 0.1:
                out.append(game.clone())
            game.apply(draw_chance(game, rng) if game.is_chance_node() else rng.choice(game.legal_actions()))
    return out


def test_a_seat_never_sees_the_opponents_goal():
    """Redraw the opponent's goal among those the scores allow: the seat's JAX observation and
    mask stay the same; the opponent's own observation changes when its goal does (so the
    comparison can fail)."""
    options = OPTION_SETS["quick"]
    env, _, observe, _ = compiled("uzor", options)
    rng = random.Random(3)
    redraws = seen_changes = 0
    for game in _positions(options, range(2))[::4]:
        snapshot = game.snapshot()
        for seat in (0, 1):
            base = env.from_snapshot(snapshot)
            mine, theirs = np.asarray(observe(base, seat)), np.asarray(observe(base, 1 - seat))
            for _ in range(2):
                other = env.from_snapshot(complete_snapshot(strip_hidden(snapshot, seat), seat, rng))
                assert np.array_equal(np.asarray(observe(other, seat)), mine)
                assert np.array_equal(np.asarray(other.legal_action_mask), np.asarray(base.legal_action_mask))
                seen_changes += not np.array_equal(np.asarray(observe(other, 1 - seat)), theirs)
                redraws += 1
    assert redraws >= 20 and seen_changes >= 10, (redraws, seen_changes)


def test_the_supply_is_kept_as_counts():
    """A take that refills from the face-down supply, stepped with different keys: the states
    differ only in the tile drawn (the slot's tile and one face-down count); at the refill
    node itself the JAX position is exactly its snapshot, which keeps the face-down supply as
    counts: no order of the supply is kept anywhere a seat could read it."""
    options = OPTION_SETS["quick"]
    env, apply, _, _ = compiled("uzor", options)
    step = jax.jit(env.step)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    state = step(state, int(np.flatnonzero(np.asarray(state.legal_action_mask))[0]), jax.random.PRNGKey(1))
    while int(np.asarray(state._game.phase)) != TAKE:  # continue past a fork
        state = step(state, int(np.flatnonzero(np.asarray(state.legal_action_mask))[-1]), jax.random.PRNGKey(1))
    take = env.rules.layout.take0
    before = env.to_snapshot(state)["state"]
    drawn = set()
    for k in range(12):
        after = env.to_snapshot(step(state, take, jax.random.PRNGKey(k)))["state"]
        tile = after["market"][0]
        drawn.add(tile)
        assert after["facedown"][tile] == before["facedown"][tile] - 1
        assert sum(after["facedown"]) == sum(before["facedown"]) - 1
        assert after["board"] == before["board"] and after["discards"] == before["discards"]
    assert len(drawn) >= 5
    refill = apply(state, take)  # stops at the refill node
    assert bool(refill.is_chance) and int(refill._game.phase) == REFILL
    again = env.from_snapshot(env.to_snapshot(refill))
    for mine, theirs in zip(jax.tree_util.tree_leaves(refill._game), jax.tree_util.tree_leaves(again._game)):
        assert np.array_equal(np.asarray(mine), np.asarray(theirs))


# ----- chance from keys, Pgx's auto_reset, planes, snapshots ----------------------------------


def test_init_deals_as_the_rules_do():
    """``init`` draws two different goals and a deal player_0 can play from (dealing again
    otherwise): every start is a Python position at player_0's placement, goals spread over
    the Map, deals over the tiles; scripted options give their own deal."""
    env = envs.make_jax("uzor", board_size=9)
    count = 300
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), count))
    goals = np.asarray(states._game.goals)
    assert (goals[:, 0] != goals[:, 1]).all() and goals.min() >= 0
    assert len(set(goals[:, 0].tolist())) == 15 and len(set(goals[:, 1].tolist())) == 15
    centres = Counter()
    for one, game in python_positions(env, states, range(0, count, 10)):
        assert game.phase == PLACE and game.to_move == 0 and sum(game.facedown) == 59
        assert np.array_equal(np.asarray(one.legal_action_mask), game.action_mask().astype(bool))
        centres[game.board[game.geo.centre]] += 1
    assert len(centres) >= 12
    scripted = OPTION_SETS["scripted"]
    env = compiled("uzor", scripted)[0]
    game = envs.describe("uzor").new_game(scripted)
    while game.is_chance_node():
        game.apply(game.chance_outcomes()[0][0])
    assert env.to_snapshot(jax.jit(env.init)(jax.random.PRNGKey(5))) == game.snapshot()


def test_step_and_auto_reset_under_jit_vmap_give_python_positions():
    options = OPTION_SETS["quick"]
    env = compiled("uzor", options)[0]
    batch = 8
    state, ended, rewards = auto_reset_play(env, batch, 250)
    assert ended.sum() >= 1
    assert set(np.unique(rewards[ended]).tolist()) <= {-1.0, 0.0, 1.0} and not rewards[~ended].any()
    observer = envs.describe("uzor").make_observer(options)
    for one, game in python_positions(env, state, range(batch)):
        assert not bool(one.is_chance) and game.current_player() != CHANCE
        agrees_with_python(one, game, observer, exact=False)


def test_planes_are_the_python_observers():
    options = OPTION_SETS["quick"]
    env = compiled("uzor", options)[0]
    observer = envs.describe("uzor").make_observer(options)
    flats = np.stack([observer.observe(game, game.current_player()) for game in _positions(options, [5])[:6]])
    planes = jax.jit(jax.vmap(env.planes))(flats)
    assert env.planes_shape == observer.planes_shape()
    assert np.array_equal(np.asarray(planes), observer.planes(flats))


def test_a_user_map_needs_its_own_env():
    state = envs.make_jax("uzor", board_size=9).init(jax.random.PRNGKey(0))
    snapshot = compiled("uzor", OPTION_SETS["quick"])[0].to_snapshot(state)
    with pytest.raises(ValueError, match="options"):
        compiled("uzor", OPTION_SETS["user map"])[0].from_snapshot(snapshot)
    with pytest.raises(ValueError, match="board_size"):
        envs.make_jax("uzor", board_size=10)


# ----- longer sweeps --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("label", list(OPTION_SETS))
def test_many_games_in_lockstep(label):
    """20 lockstep games and 64 batched ones per option set (``-m slow``)."""
    options = OPTION_SETS[label]
    for seed in range(20):
        play_lockstep("uzor", options, 1000 + seed)
    replay_batched("uzor", options, [record("uzor", options, seed) for seed in range(2000, 2064)])


@pytest.mark.slow
def test_many_stuck_positions_in_lockstep():
    options = OPTION_SETS["quick"]
    events = Counter()
    for seed in range(20):
        lockstep_from(_stuck_position(options, seed % 8), options, seed, events)
    assert events["idle end"] >= 1 and events[PASS] + events[DISCARD] >= 100, events

