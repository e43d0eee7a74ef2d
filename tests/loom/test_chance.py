"""Loom's chance nodes: each round opens with the shuttle's throw, 21 outcomes (one per sorted
pair of dice), 1/36 for a double and 2/36 for any other pair; scripted throws give nodes with one
outcome of probability 1; the state never holds a throw to come."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

from envs import loom_v0
from envs.core import CHANCE, TERMINAL, IllegalActionError
from envs.core.game import draw_outcome
from envs.loom import sampling
from envs.loom.rules import ROUNDS, LoomGame
from envs.loom.throws import OUTCOMES, THROW_ID, THROWS
from tests.loom.util import random_play, throw_dice


def new_game(**options) -> LoomGame:
    return LoomGame(LoomGame.resolve_options(options))


def test_a_throw_has_21_outcomes_with_the_probabilities_of_two_dice():
    game = new_game()
    assert game.current_player() == CHANCE and game.is_chance_node()
    outcomes = game.chance_outcomes()
    assert [o for o, _ in outcomes] == list(range(21)) == game.legal_actions()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
    # The counts out of 36 ordered throws of two dice: 1 for a double, 2 for any other pair.
    ordered = Counter(tuple(sorted((a, b))) for a in range(1, 7) for b in range(1, 7))
    for outcome, probability in outcomes:
        assert probability == ordered[THROWS[outcome]] / 36
    assert THROWS[0] == (1, 1) and THROWS[1] == (1, 2) and THROWS[6] == (2, 2) and THROWS[20] == (6, 6)
    assert all(low <= high for low, high in THROWS) and len(set(THROWS)) == OUTCOMES == 21
    assert LoomGame.max_chance_outcomes_for(game.options) == 21
    assert LoomGame.max_game_length_for(game.options) == 32


def test_drawn_throws_follow_two_fair_dice():
    game, rng = new_game(), random.Random(3)
    outcomes = game.chance_outcomes()
    draws = Counter(draw_outcome(outcomes, rng) for _ in range(36_000))
    for outcome, probability in outcomes:
        expected = 36_000 * probability
        assert abs(draws[outcome] - expected) < 5 * expected ** 0.5, THROWS[outcome]


def test_every_round_opens_with_one_chance_node_and_the_thread_order_follows_the_throw():
    rng = random.Random(5)
    game = new_game()
    kinds = []
    while not game.is_terminal():
        player = game.current_player()
        kinds.append("chance" if player == CHANCE else "weave")
        if player == CHANCE:
            assert game.taken == -1 and len(game.throws) == game.round
            outcome = draw_outcome(game.chance_outcomes(), rng)
            game.apply(outcome)
            assert game.throws[-1] == THROWS[outcome]  # thread 0 the lower dye, thread 1 the higher
        else:
            assert len(game.throws) == game.round + 1
            game.apply(rng.choice(game.legal_actions()))
    assert kinds == ["chance", "weave", "weave"] * ROUNDS
    assert game.current_player() == TERMINAL and len(game.throws) == ROUNDS


def test_scripted_throws_give_one_outcome_of_probability_one_in_order():
    script = [(6, 1), (2, 5), (3, 3)] + [(4, 5)] * 13
    game = new_game(throws=script)
    rng = random.Random(1)
    for round_ in range(ROUNDS):
        assert game.is_chance_node()
        low, high = sorted(script[round_])
        assert game.chance_outcomes() == [(THROW_ID[(low, high)], 1.0)]
        assert game.legal_actions() == [THROW_ID[(low, high)]]
        other = (THROW_ID[(low, high)] + 1) % 21
        assert "scripted" in game.why_illegal(other)
        before = json.dumps(game.snapshot())
        with pytest.raises(IllegalActionError, match="scripted"):
            game.apply(other)
        assert json.dumps(game.snapshot()) == before
        game.apply(game.legal_actions()[0])
        assert game.throws[round_] == (low, high)
        game.apply(rng.choice(game.legal_actions()))
        game.apply(rng.choice(game.legal_actions()))
    assert game.is_terminal()


def test_throws_are_named_and_read_back_at_chance_nodes():
    game = new_game()
    for outcome in range(21):
        name = game.action_to_string(outcome)
        low, high = THROWS[outcome]
        assert name == f"throw {low} {high}"
        assert game.string_to_action(name) == outcome
        assert game.string_to_action(f"{high},{low}") == outcome
        assert game.string_to_action(f"({high}, {low})") == outcome
        assert game.why_illegal(outcome) is None
    for bad in ("5@b3", "throw 7 1", "throw 2"):
        with pytest.raises(ValueError, match="not a throw"):
            game.string_to_action(bad)
    for bad in (21, 31, -1):
        assert "throws 0…20" in game.why_illegal(bad)
        with pytest.raises(IllegalActionError, match="throws 0…20"):
            game.apply(bad)
    with pytest.raises(ValueError):
        game.action_to_string(25)
    game.apply(THROW_ID[(2, 5)])
    assert game.action_to_string(16 + 9) == "5@b3"
    assert game.string_to_action("5@b3") == 16 + 9
    with pytest.raises(ValueError, match="not a weave"):
        game.string_to_action("throw 2 5")


def test_chance_outcomes_off_a_chance_node_say_so():
    game = throw_dice(new_game(), random.Random(0))
    with pytest.raises(ValueError, match="not at a chance node"):
        game.chance_outcomes()


def test_snapshots_hold_only_the_past_and_round_trip_at_every_node():
    rng = random.Random(8)
    for _ in range(100):
        game = new_game(bounty=rng.choice([0, 8, 30]))
        while True:
            snapshot = game.snapshot()
            state = snapshot["state"]
            assert len(state["throws"]) == state["round"] + (0 if game.is_chance_node() or game.is_terminal() else 1)
            restored = LoomGame.from_snapshot(json.loads(json.dumps(snapshot)))
            assert restored.snapshot() == snapshot
            assert restored.current_player() == game.current_player()
            assert restored.legal_actions() == game.legal_actions()
            if game.is_chance_node():
                assert restored.chance_outcomes() == game.chance_outcomes()
            if game.is_terminal():
                break
            action = (draw_outcome(game.chance_outcomes(), rng) if game.is_chance_node()
                      else rng.choice(game.legal_actions()))
            game.apply(action)


def test_the_env_resolves_chance_itself_and_its_seed_fixes_the_throws():
    runs = []
    for _ in range(2):
        env = loom_v0.env()
        env.reset(seed=42)
        throws, rng = [], random.Random(0)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            assert agent in ("player_0", "player_1")
            assert not env.unwrapped.game.is_chance_node()
            throws.append(env.unwrapped.game.throws[env.unwrapped.game.round])
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
        runs.append(throws)
    assert runs[0] == runs[1] and len(runs[0]) == 32


def test_the_sampler_rebuilds_the_position_with_throws_that_fit_the_cloths():
    rng = random.Random(12)
    for index in range(60):
        env = loom_v0.raw_env()
        env.reset(seed=index)
        for _ in range(rng.randrange(0, 32)):
            env.step(rng.choice(env.game.legal_actions()))
        seat = env.game.current_player()
        seen = env.observe(f"player_{seat}")
        state = sampling.sampler(seen, {})(random.Random(0))
        truth = env.game
        assert state.cloths == truth.cloths and state.points == truth.points
        assert (state.round, state.taken, state.throws[-1]) == (truth.round, truth.taken, truth.throws[-1])
        # The same future: play both on with the same weaves and throws.
        for _ in range(6):
            if truth.is_terminal():
                break
            assert state.legal_actions() == truth.legal_actions()
            action = (draw_outcome(truth.chance_outcomes(), rng) if truth.is_chance_node()
                      else rng.choice(truth.legal_actions()))
            truth.apply(action)
            state.apply(action)
        assert state.scores() == truth.scores()


def test_complete_snapshot_drops_the_old_future_entries_and_fills_null_past_throws():
    env = loom_v0.raw_env()
    env.reset(seed=6)
    rng = random.Random(6)
    for _ in range(9):
        env.step(rng.choice(env.game.legal_actions()))
    full = env.snapshot()
    assert sampling.complete_snapshot(sampling.strip_hidden(full, 1), 1, random.Random(0)) == full
    state = full["state"]
    # The older form: all 16 rounds listed, null (or anything) for the rounds to come.
    old = dict(full, state=dict(state, throws=state["throws"] + [None] * (ROUNDS - len(state["throws"]))))
    assert sampling.complete_snapshot(old, 1, random.Random(0)) == full
    # Past throws left out: filled with throws that give each cloth its dyes.
    blanked = dict(full, state=dict(state, throws=[None] * state["round"] + state["throws"][state["round"]:]))
    completed = sampling.complete_snapshot(blanked, 1, random.Random(0))
    game = LoomGame.from_snapshot(completed)
    assert game.cloths == env.game.cloths and game.throws[-1] == env.game.throws[-1]
    assert sorted(d for pair in game.throws[:game.round] for d in pair) == sorted(
        d for pair in env.game.throws[:env.game.round] for d in pair)
    # Some past throws known, some left out.
    half = dict(full, state=dict(state, throws=[p if i % 2 else None for i, p in enumerate(state["throws"][:-1])]
                                 + state["throws"][-1:]))
    completed = LoomGame.from_snapshot(sampling.complete_snapshot(half, 1, random.Random(0)))
    assert [completed.throws[i] for i in range(1, completed.round, 2)] == [env.game.throws[i] for i in range(1, env.game.round, 2)]


def test_hooks_accept_a_chance_node():
    from training.bots.loom import evaluate_state, expected_points, preferred_actions

    game = random_play(new_game(), random.Random(2), moves=6)
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    assert game.is_chance_node()
    first, second = evaluate_state(game)
    assert -1 < first < 1 and first == -second
    assert expected_points(game)
    assert preferred_actions(game) == list(range(21))


def test_the_env_restores_a_chance_node_snapshot_with_its_own_dice():
    game = random_play(new_game(), random.Random(4), moves=10)
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    assert game.is_chance_node()
    env = loom_v0.raw_env()
    env.reset(seed=1)
    env.restore(game.snapshot())
    assert not env.game.is_chance_node() and env.game.round == game.round
    assert env.agent_selection == f"player_{game.round % 2}"
    assert env.game.cloths == game.cloths
