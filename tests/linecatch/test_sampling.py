"""The one route from a seat's observation to a position (bots and search), and its refusals."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import linecatch_v0
from envs.linecatch.rules import LinecatchGame
from envs.linecatch.sampling import complete_snapshot, read_position, sampler, strip_hidden
from training.players.load import load_agent


def env_after(moves: int, seed: int = 0, **options):
    env = linecatch_v0.raw_env(**options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        env.step(rng.choice(env.game.legal_actions()))
    return env


@pytest.mark.parametrize("options", [{}, {"rows": 3, "cols": 7, "pro": True}])
def test_the_position_is_the_observed_one_told_from_the_seat_to_act(options):
    """The seat to act becomes player_0, unless no game leaves the position with player_0 to
    move; then it keeps its own seat, player_1 (the observation does not name the seat)."""
    kept = 0
    for seed in range(60):
        env = env_after(seed % 15, seed, **options)
        seat = env.game.current_player()
        view, game = read_position(env.observe(env.agent_selection), options)
        truth = env.game
        label = game.current_player()
        assert label == 0 or label == seat == 1
        kept += label == 1
        relabel = {-1: -1, seat: label, 1 - seat: 1 - label}
        assert game.black == truth.black and game.marks == [relabel[m] for m in truth.marks]
        assert game.points[label] == truth.points[seat] and game.points[1 - label] == truth.points[1 - seat]
        assert game.remaining == truth.remaining and game.legal_actions() == truth.legal_actions()
        draw = sampler(env.observe(env.agent_selection), options)
        first, second = draw(random.Random(1)), draw(random.Random(2))
        assert first is not second and first.snapshot() == second.snapshot() == game.snapshot()
        first.apply(first.legal_actions()[0])  # clones: one played on leaves the other as it was
        assert second.snapshot() == game.snapshot()
    assert kept > 0  # early positions with player_1 to move fix the seat


def test_observations_that_fit_no_position_are_refused_with_a_reason():
    env = env_after(7, 3)
    seen = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match=r"83 entries, not shape \(128,\)"):
        read_position(seen, {"rows": 4, "cols": 4})
    with pytest.raises(ValueError, match="pro=False, the options say pro=True"):
        read_position(seen, {"pro": True})
    with pytest.raises(ValueError, match="action mask is empty"):
        read_position(env.observe("player_0" if env.agent_selection == "player_1" else "player_1"), {})
    # A score no caught line pays out.
    bad = dict(seen, observation=seen["observation"].copy())
    bad["observation"][3 * 25] = np.float32(7 / 50)
    with pytest.raises(ValueError, match="not a Linecatch position: snapshot field 'scores'"):
        read_position(bad, {})
    # A price that the board does not give: the rebuilt position shows another value.
    bad = dict(seen, observation=seen["observation"].copy())
    white = int(np.flatnonzero(seen["action_mask"])[0])
    bad["observation"][3 * 25 + 3 + white] = np.float32(0.5)
    with pytest.raises(ValueError, match="CATCH_NOW block"):
        read_position(bad, {})
    # A mask that is not the white squares.
    bad = dict(seen, action_mask=seen["action_mask"].copy())
    bad["action_mask"][white] = 0
    with pytest.raises(ValueError, match="action mask does not match"):
        read_position(bad, {})
    # A finished game has no seat to act (a bare vector: no mask to say so).
    done = env_after(25, 4)
    with pytest.raises(ValueError, match="finished game"):
        read_position(done.observe("player_0")["observation"], {})


@pytest.mark.parametrize("spec", ["heuristic", "solver", "mcts:5"])
def test_bots_refuse_an_observation_of_another_board_by_name(spec):
    env = env_after(2, 0, rows=4, cols=4)
    bot = load_agent(spec, "linecatch", seed=0, rows=3, cols=3)
    with pytest.raises(ValueError, match="48 entries, not shape"):
        bot.act(env.observe(env.agent_selection))


def test_snapshots_hide_nothing():
    env = env_after(9, 5, pro=True)
    snapshot = env.snapshot()
    assert strip_hidden(snapshot, 0) == snapshot and strip_hidden(snapshot, 0) is not snapshot
    assert complete_snapshot(strip_hidden(snapshot, 1), 1, random.Random(0)) == snapshot


def test_clone_copies_every_attribute_and_shares_no_list():
    game = env_after(11, 6, pro=True).game
    other = game.clone()
    assert set(vars(other)) == set(vars(game))
    for name, value in vars(game).items():
        assert vars(other)[name] == value
        if isinstance(value, list):
            assert vars(other)[name] is not value, name
    other.apply(other.legal_actions()[0])
    assert game.snapshot() != other.snapshot()


def test_catch_points_is_a_query():
    game = LinecatchGame(LinecatchGame.resolve_options({"rows": 3, "cols": 3}))
    for name in ("a1", "b1", "a2"):
        game.apply(game.string_to_action(name))
    before = game.snapshot()
    assert game.catch_points(game.string_to_action("c1")) == 3
    assert game.catch_points(game.string_to_action("a3")) == 3
    assert game.catch_points(game.string_to_action("c3")) == 0
    assert game.snapshot() == before and game.black_mask() == 0b1011
