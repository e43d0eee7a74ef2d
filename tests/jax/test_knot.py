"""Knot's JAX engine equals the Python engine (``envs/knot/jax_engine.py``).

Lockstep games (random, and the heuristic bot, which closes, joins and captures on purpose) for
2, 3 and 4 players on the description's test and benchmark option sets, compared after every
action and chance outcome (snapshot, mask, every seat's observation, chance probabilities,
rewards); the same games in one vmapped batch; hypothesis sequences that shrink; the scripted
``pile``; hidden information (a seat's observation and mask do not move when the others' hands
and the pile are redrawn); the deal drawn at once by ``init``; chance from keys with Pgx's
``auto_reset`` under ``jit(vmap)``; the planes.
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
from envs.knot.rules import KnotGame
from envs.knot.sampling import complete_snapshot, strip_hidden
from tests.jax.lockstep import (agrees_with_python, agent_policy, auto_reset_play, compiled, picked_policy,
                                play_lockstep, python_positions, random_policy, record, replay_batched)

DESCRIPTION = envs.describe("knot")
TESTS = DESCRIPTION.test_options
OPTION_SETS = {
    "quick": TESTS.quick,  # 2 players, 4x4
    "search": TESTS.search,  # 3 players, 4x4
    "more": TESTS.more[0],  # 4 players, 5x5
    "page": TESTS.page,  # a small deck: the pile runs out, the market empties
    "2 players": DESCRIPTION.benchmark_options["2 players"],  # 6x6, the default
    "4 players": DESCRIPTION.benchmark_options["4 players"],  # 8x8
    "scripted": {"players": 3, "size": 5, "pile": ["hook", "cut", "run", "flip", "hook"] * 5 + ["cut", "hook"] * 4},
}
SMALL = ["quick", "search", "more", "page", "scripted"]


class Events(Counter):
    """What happened in a Python game, step by step: closes, captures, joins, ENDs while
    strands fit, draws of each kind, a finished game."""

    def see(self, before: KnotGame, action: int, after: KnotGame) -> None:
        if before.is_chance_node():
            return
        n = before.n
        if action < 16 * n:
            closed = len(after.closed_ribbons) - len(before.closed_ribbons)
            owners = [s[3] for s in before.strands()]
            captured = any(a != b for a, b in zip(owners, (s[3] for s in after.strands())))
            live = sum(o >= 0 for o in after.rib_owner) - sum(o >= 0 for o in before.rib_owner)
            self["closed"] += closed
            self["captured"] += captured
            self["joined"] += live < 0 and not captured and not closed
        else:
            self[("end", "draw 0", "draw 1", "draw blind")[action - 16 * n]] += 1


def counting(policy, events: Events):
    def act(game, rng):
        before = game.clone()
        action = policy(game, rng)
        after = game.clone()
        after.apply(action)
        events.see(before, action, after)
        return action
    return act


def heuristic(options: dict):
    from training import load_agent

    agent = load_agent("heuristic", "knot_v0", seed=1, **options)
    return agent_policy(agent, DESCRIPTION.make_observer(options))


# ----- lockstep -------------------------------------------------------------------------------


@pytest.mark.parametrize("label", list(OPTION_SETS))
def test_random_games_in_lockstep(label):
    options = OPTION_SETS[label]
    games = 1 if label == "4 players" else 2
    events = Events()
    steps = sum(play_lockstep("knot", options, seed, counting(random_policy, events)) for seed in range(games))
    assert steps >= games * 40, steps
    assert events["end"] >= games and events["draw blind"] >= 1, events


@pytest.mark.parametrize("label", ["quick", "search", "more"])
def test_heuristic_games_close_join_and_capture_in_lockstep(label):
    """The heuristic bot closes ribbons, joins its own and captures others' on purpose: the
    ribbon bookkeeping (labels, owners, points, the closing order, the bonus) in lockstep."""
    options = OPTION_SETS[label]
    events = Events()
    policy = counting(heuristic(options), events)
    for seed in range(2):
        play_lockstep("knot", options, seed, policy)
    assert events["closed"] >= 2 and events["captured"] >= 1 and events["joined"] >= 1, events


@pytest.mark.parametrize("label", ["quick", "search", "more", "scripted"])
def test_games_in_one_vmapped_batch(label):
    """Random and heuristic games side by side in one ``vmap(env.apply)`` batch."""
    options = OPTION_SETS[label]
    games = [record("knot", options, seed) for seed in range(10, 16)]
    games += [record("knot", options, seed, heuristic(options)) for seed in range(16, 18)]
    assert replay_batched("knot", options, games) == sum(map(len, games))


@settings(max_examples=15, deadline=None)
@given(label=st.sampled_from(["quick", "search", "page"]), seed=st.integers(0, 5),
       picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=60))
def test_hypothesis_sequences(label, seed, picks):
    """Each pick chooses among the legal actions (placements, END, the draws); the chance
    outcomes come from ``seed``; a failure shrinks to a short sequence."""
    play_lockstep("knot", OPTION_SETS[label], seed, picked_policy(picks))


# ----- scripted chance and the deal -------------------------------------------------------------


def test_the_scripted_pile_is_dealt_and_drawn_in_order():
    """With ``pile`` the deal is the pile's top strands (``init`` builds it once, every node
    having one outcome) and every later chance node gives probability 1 to the next strand."""
    options = OPTION_SETS["scripted"]
    pile = KnotGame.resolve_options(dict(options))["pile"]
    env, apply, _, chance_probs = compiled("knot", options)
    state = env.init(jax.random.PRNGKey(3))
    snapshot = env.to_snapshot(state)["state"]
    for p in range(3):
        assert snapshot["hands"][p] == [pile[5 * p:5 * p + 5].count(k) for k in range(4)]
    assert snapshot["market"] == pile[15:17] and not bool(state.is_chance)
    game = KnotGame.from_snapshot(env.to_snapshot(state))
    rng, nodes = random.Random(0), 0
    while not game.is_terminal():
        if game.is_chance_node():
            action = pile[len(pile) - sum(game.pile)]
            assert np.asarray(chance_probs(state)).tolist() == [float(k == action) for k in range(4)]
            nodes += 1
        else:
            action = rng.choice(game.legal_actions())
        game.apply(action)
        state = apply(state, action)
        assert env.to_snapshot(state) == game.snapshot()
    assert nodes >= 5


def test_init_deals_like_the_chance_nodes():
    """``init`` deals the hands and the market at once (``KnotRules._deal``); the kinds follow
    the deck's shares, as the nodes one by one would deal them, and the first player acts."""
    env = envs.make_jax("knot")
    count = 2000
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), count))
    g = jax.device_get(states._game)
    assert (g.hands.sum(axis=-1) == 5).all() and (g.market >= 0).all()
    deck = np.asarray(KnotGame.resolve_options({})["deck"])
    assert (g.pile.sum(axis=-1) == deck.sum() - 12).all()
    assert (g.pile + g.hands.sum(axis=1) + np.stack([(g.market == k).sum(axis=1) for k in range(4)], 1) == deck).all()
    assert (np.asarray(states.current_player) == 0).all() and not np.asarray(states.is_chance).any()
    shares = g.hands[:, 0].sum(axis=0) / (5 * count)
    expected = deck / deck.sum()
    assert (np.abs(shares - expected) < 5 * np.sqrt(expected / (5 * count))).all(), (shares, expected)
    slot_1 = np.bincount(g.market[:, 1], minlength=4) / count
    assert (np.abs(slot_1 - expected) < 5 * np.sqrt(expected / count)).all(), (slot_1, expected)
    # each dealt start is one the Python engine plays from
    for one, game in python_positions(env, states, range(0, count, 400)):
        assert np.array_equal(np.asarray(one.legal_action_mask), game.action_mask().astype(bool))


# ----- hidden information ---------------------------------------------------------------------


def _positions(options: dict, seeds) -> list[KnotGame]:
    """Positions along random games: every phase, every seat to act, chance nodes too."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        game = DESCRIPTION.new_game(options, seed)
        step = 0
        while not game.is_terminal():
            if step % 7 == 3:
                out.append(game.clone())
            game.apply(rng.choice(game.chance_outcomes())[0] if game.is_chance_node() else rng.choice(game.legal_actions()))
            step += 1
    return out


@pytest.mark.parametrize("label", ["quick", "search"])
def test_a_seat_never_sees_the_others_hands_or_the_pile(label):
    """Redraw what a seat cannot see (the other hands, beyond their face-up takes, and what the
    pile holds; the pile has no order to hide: each draw is a chance node) among what it
    cannot rule out: the seat's JAX observation and, when it acts,
    its mask stay the same; another seat's own observation does change (so the comparison can
    fail), and so does the position."""
    options = OPTION_SETS[label]
    env, _, observe, _ = compiled("knot", options)
    players = env.num_players
    rng = random.Random(5)
    redraws = seen_changes = hidden_changes = pile_changes = 0
    for game in _positions(options, range(2))[::2]:
        snapshot = game.snapshot()
        base = env.from_snapshot(snapshot)
        for seat in range(players):
            mine = np.asarray(observe(base, seat))
            others = [np.asarray(observe(base, p)) for p in range(players)]
            for _ in range(2):
                redrawn = complete_snapshot(strip_hidden(snapshot, seat), seat, rng)
                other = env.from_snapshot(redrawn)
                assert np.array_equal(np.asarray(observe(other, seat)), mine)
                if game.current_player() == seat:
                    assert np.array_equal(np.asarray(other.legal_action_mask), np.asarray(base.legal_action_mask))
                hidden_changes += redrawn["state"]["hands"] != snapshot["state"]["hands"]
                pile_changes += redrawn["state"]["pile"] != snapshot["state"]["pile"]
                seen_changes += any(not np.array_equal(np.asarray(observe(other, p)), others[p])
                                    for p in range(players) if p != seat)
                redraws += 1
    assert redraws >= 40 and min(hidden_changes, pile_changes, seen_changes) >= 10, \
        (redraws, hidden_changes, pile_changes, seen_changes)


# ----- chance from keys, Pgx's auto_reset, planes -----------------------------------------------


@pytest.mark.parametrize("label", ["quick", "search"])
def test_step_and_auto_reset_under_jit_vmap_give_python_positions(label):
    """Random play with chance resolved from keys (``env.step``, Pgx's ``auto_reset``) in one
    compiled scan: games end with ranked rewards, and every final position is one the Python
    engine accepts, with the same mask and observation."""
    options = OPTION_SETS[label]
    env = envs.make_jax("knot", **options)
    batch = 8
    state, ended, rewards = auto_reset_play(env, batch, 200)
    assert ended.sum() >= batch // 2, ended.sum()
    finished = rewards[ended]
    assert ((finished == 1) | (finished == 0) | (finished == -1)).all()
    assert (finished.max(axis=-1) >= 0).all() and not rewards[~ended].any()
    observer = DESCRIPTION.make_observer(options)
    for one, game in python_positions(env, state, range(batch)):
        assert not bool(one.is_chance)
        agrees_with_python(one, game, observer)
    single = env.init(jax.random.PRNGKey(3))
    with pytest.raises(ValueError, match="key"):
        env.step(single, int(np.flatnonzero(np.asarray(single.legal_action_mask))[0]))


@pytest.mark.parametrize("label", ["quick", "search"])
def test_step_draws_as_the_chance_loop_and_rewards_the_draw_that_ends_the_game(label):
    """``env.step`` applies a decision and the draw after it in one program
    (``KnotRules.apply_and_draw``): the position is the one ``apply`` and the env's chance
    loop reach from the same key, and a draw that ends the game (the next turn finds nobody
    able to place) is rewarded in that step."""
    env = envs.make_jax("knot", **OPTION_SETS[label])
    batch = 64
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(5), batch))
    step = jax.jit(jax.vmap(env.step))
    loop = jax.jit(jax.vmap(lambda g, a, k: env._resolve_chance(env.rules.apply(g, a), k)))
    at_once = jax.jit(jax.vmap(env.rules.apply_and_draw))
    scores = jax.jit(jax.vmap(env.rules.scores))
    key, ended, drawn = jax.random.PRNGKey(6), 0, 0
    while not bool(state.terminated.all()):
        key, pick, resolve = jax.random.split(key, 3)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        keys = jax.random.split(resolve, batch)
        live = ~np.asarray(state.terminated)
        expected, got = loop(state._game, action, keys), at_once(state._game, action, keys)
        for want, have in zip(expected, got):
            assert np.array_equal(np.asarray(want)[live], np.asarray(have)[live])
        drawn += int((np.asarray(jax.vmap(env.rules.apply)(state._game, action).pending)[live] >= 0).sum())
        after = step(state, action, keys)
        new = np.asarray(after.terminated) & live
        for points, rewards in zip(np.asarray(scores(after._game))[new], np.asarray(after.rewards)[new]):
            best = points == points.max()
            assert np.array_equal(rewards, np.where(best, 1.0 if best.sum() == 1 else 0.0, -1.0)), (points, rewards)
        ended += int(new.sum())
        state = after
    assert ended == batch and drawn > batch, (ended, drawn)


@pytest.mark.parametrize("label", ["quick", "search"])
def test_planes_are_the_python_observers(label):
    options = OPTION_SETS[label]
    env, apply, observe, _ = compiled("knot", options)
    observer = DESCRIPTION.make_observer(options)
    assert env.planes_shape == observer.planes_shape()
    planes = jax.jit(env.planes)
    flats = []
    game = DESCRIPTION.new_game(options)
    state = env.from_snapshot(game.snapshot())
    rng = random.Random(1)
    while not game.is_terminal():
        action = rng.choice(game.chance_outcomes())[0] if game.is_chance_node() else rng.choice(game.legal_actions())
        game.apply(action)
        state = apply(state, action)
        for seat in range(env.num_players):
            flat = observer.observe(game, seat)
            assert np.array_equal(np.asarray(planes(observe(state, seat))), observer.planes(flat))
            flats.append(flat)
    batch = np.stack(flats)
    assert np.array_equal(np.asarray(planes(batch)), observer.planes(batch))
    noise = (np.random.default_rng(0).random((4, batch.shape[1])) < 0.3).astype(np.float32)
    assert np.array_equal(np.asarray(planes(noise)), observer.planes(noise))


def test_options_and_facts():
    env = envs.make_jax("knot", players=3)
    assert (env.num_players, env.num_actions, env.num_outcomes) == (3, 16 * 64 + 4, 4)
    assert env.observation_shape == (DESCRIPTION.make_observer({"players": 3}).size,)
    for bad in ({"players": 5}, {"size": 3}, {"deck": [1, 1, 1, 1]}, {"pile": ["cut"] * 9}, {"colour": 1}):
        with pytest.raises(ValueError):
            envs.make_jax("knot", **bad)


# ----- longer sweeps --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("label", list(OPTION_SETS))
def test_many_games_in_lockstep(label):
    """20 lockstep games and 64 batched ones per option set (``-m slow``)."""
    options = OPTION_SETS[label]
    for seed in range(20):
        play_lockstep("knot", options, 1000 + seed, heuristic(options) if seed % 2 else random_policy)
    games = [record("knot", options, seed) for seed in range(2000, 2064)]
    replay_batched("knot", options, games)
