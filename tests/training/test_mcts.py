"""MCTS: it plays every game legally, finds known answers, is reproducible, and cannot see what
its seat may not know (its choice does not move when an opponent's hidden items change)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import envs
from envs.linecatch.rules import LinecatchGame
from tests.cases import imperfect_games, search
from tests.training.hidden_states import positions_with_two_hidden_worlds
from training.players.load import load_agent
from training.evaluation.tournament import play_match
from training.bots import LadderSpec
from training.evaluation.ladder import deal_interval, markdown, run_ladder
from training.search.mcts import MCTSAgent, parse_mcts_spec

@pytest.mark.parametrize("game", envs.GAMES)
def test_mcts_plays_full_games_through_the_wrapped_env(game):
    """The classic wrappers end the game on an illegal action: every game must end normally."""
    options = search(game)
    env = envs.load(game).env(**options)
    env.reset(seed=3)
    agent = load_agent("mcts:12:depth=8", game, seed=0, **options)
    for name in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else agent.act(observation))
    assert env.unwrapped.game.is_terminal()  # ended by the rules, not by an illegal action
    assert not env.unwrapped.ended_by_illegal_action


def test_the_spec_string_sets_the_search_and_bad_ones_say_why():
    agent = load_agent("mcts:300:c=0.7:depth=5:rollout=random", "loom", seed=1)
    assert (agent.simulations, agent.exploration, agent.depth, agent.preferred) == (300, 0.7, 5, None)
    assert parse_mcts_spec("mcts") == {}
    for spec, words in [
        ("mcts:0", "at least 1"),
        ("mcts:ten", "whole number"),
        ("mcts:10:k=2", "unknown MCTS setting 'k'"),
        ("mcts:10:rollout=smart", "heuristic, random"),
        ("mcts:10:c=-1", ">= 0"),
        ("mcts:10:depth=-1", "at least 0"),
    ]:
        with pytest.raises(ValueError, match=words):
            load_agent(spec, "loom")


def linecatch_position(black: str, options: dict) -> dict:
    """The observation of the seat to act on a 4×4 board given as 16 characters (x = black)."""
    resolved = LinecatchGame.resolve_options(dict(options))
    game = LinecatchGame(resolved)
    env = envs.load("linecatch").raw_env(**options)
    env.reset(seed=0)
    cells = [i for i, ch in enumerate(black) if ch == "x"]
    for cell in cells:
        game.apply(cell)
    env.restore(game.snapshot())
    return env.observe(env.agent_selection)


def test_mcts_takes_the_catch_and_refuses_the_hand_over():
    options = {"rows": 4, "cols": 4}
    # Row 0 has one white square (a0... cell 3): blackening it catches the row (4 points) and
    # its column; every other move would leave that catch to the opponent.
    seen = linecatch_position("xxx." + "...." * 3, options)
    for seed in range(3):
        assert MCTSAgent("linecatch", seed=seed, simulations=200, **options).act(seen) == 3


def test_same_seed_same_choice_and_probabilities_are_visit_shares():
    options = {"rows": 4, "cols": 4}
    seen = linecatch_position("x.x." + "...." + "x..." + "....", options)
    a = MCTSAgent("linecatch", seed=5, simulations=150, **options)
    b = MCTSAgent("linecatch", seed=5, simulations=150, **options)
    assert [a.act(seen) for _ in range(3)] == [b.act(seen) for _ in range(3)]
    probabilities = a.action_probabilities(seen)
    assert probabilities.sum() == pytest.approx(1.0)
    assert np.all(probabilities[np.asarray(seen["action_mask"]) == 0] == 0)


def test_mcts_beats_random():
    options = {"rows": 4, "cols": 4}
    strong = MCTSAgent("linecatch", seed=0, simulations=100, **options)
    result = play_match("linecatch_v0", strong, load_agent("random", "linecatch", seed=1), 20, 0, options)
    assert result.score >= 0.8


@pytest.mark.parametrize("game", imperfect_games())
def test_the_choice_does_not_move_when_an_opponents_hidden_items_change(game):
    """Two true states that differ only in hidden items (a stripped snapshot completed with two
    seeds) give the same seeded search the same answer; the states really differ."""
    options = search(game)
    compared = differed = 0
    for env, name, worlds in positions_with_two_hidden_worlds(game, options, 12, random.Random(7)):
        differed += worlds[0] != worlds[1]
        choices = []
        for world in worlds:
            env.restore(world)
            choices.append(MCTSAgent(game, seed=11, simulations=25, depth=10, **options).act(env.observe(name)))
        assert choices[0] == choices[1]
        compared += 1
    assert compared >= 8 and differed >= 4


def test_a_ladder_run_reports_every_rung_with_its_interval():
    spec = LadderSpec({"rows": 3, "cols": 3}, note="test")
    rungs = run_ladder("linecatch_v0", spec, games=6, top_games=2, seed=0, pool=None, log=lambda _: None)
    assert [(r.result.first, r.result.second) for r in rungs] == [
        ("heuristic", "random"), ("mcts:100", "heuristic"), ("mcts:1000", "mcts:100")]
    assert [r.result.games for r in rungs] == [6, 6, 2]
    table = markdown("linecatch_v0", spec, rungs)
    assert table.count("\n| ") == 4 and "95% over deals" in table and "95% Wilson" in table
    for rung in rungs:
        low, high = rung.interval
        assert 0 <= low <= rung.result.score <= high <= 1
        paired_low, paired_high = rung.paired
        assert paired_low <= rung.result.score <= paired_high
        assert rung.separated == (paired_low > 0.5)


def test_the_interval_over_deals_treats_each_deal_as_one_draw():
    # Every deal split (each agent won its lucky seat): the score is exactly one half, known
    # with certainty from the deals, while Wilson's interval over 400 games stays ±5%.
    assert deal_interval([1.0, 0.0] * 200, seats=2) == (0.5, 0.5)
    # Deals scoring 1, ½, ½, 0 → mean ½, standard deviation √(1/6) over 4 deals.
    low, high = deal_interval([1, 1, 1, 0, 0, 1, 0, 0], seats=2)
    half = 1.96 * math.sqrt(1 / 6) / 2
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half))
    # Three seats per deal; a trailing incomplete deal is left out; one deal says nothing.
    half = 1.96 * math.sqrt(2 * (1 / 6) ** 2) / math.sqrt(2)
    assert deal_interval([1, 1, 0, 1, 0, 0, 1], seats=3) == pytest.approx((0.5 - half, 0.5 + half))
    assert deal_interval([1, 0], seats=2) == (0.0, 1.0)
