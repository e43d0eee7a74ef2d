"""Uzor's search hooks (``training/bots/uzor.py``: ``preferred_actions``, ``root_preferred_actions``,
``evaluate_state`` and the completing-placement scan under them), on engine states as MCTS meets
them: every state of seeded games, and set positions with a known best move."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs.core.bits import set_bits
from envs.uzor.observer import UzorObserver
from envs.uzor.patterns import STANDARD_MAP
from envs.uzor.common import DEAL, GOAL, REFILL
from envs.uzor.rules import FORK, PLACE, TAKE, UzorGame
from tests.uzor.util import act, cell, place, position, resolve, tile, tiles
from training.bots import uzor as bots
from training.search.mcts import MCTSAgent

FLAT_MAP = [dict(p, points=4) for p in STANDARD_MAP]  # a user Map: the scan tests every cell


def states(options: dict, games: int, seed: int):
    """Every state of seeded games: random moves, but forks closed four times out of five so
    that patterns get crossed out and stones build up (the scan's filters depend on both)."""
    resolved = UzorGame.resolve_options(dict(options))
    rng = random.Random(seed)
    for index in range(games):
        game = resolve(UzorGame(resolved), random.Random(seed * 1000 + index))
        while not game.is_terminal():
            yield game
            legal = game.legal_actions()
            closes = legal[:-1] if game.phase == FORK else []
            game.apply(rng.choice(closes) if closes and rng.random() < 0.8 else rng.choice(legal))
            resolve(game, rng)


def every_completion(game: UzorGame, hand: list[int]) -> list[tuple[int, int]]:
    """The slow reference: ``completions`` on every acceptable cell, per distinct tile."""
    out = []
    for s, t in enumerate(hand):
        if s and hand[s - 1] == t:
            continue
        for x in set_bits(game.cells_for(t)):
            done = game.completions(x, t)
            if done:
                out.append((s * game.geo.cells + x, sum(1 << k for k in done)))
    return sorted(out)


def table_of(size: int = 9, **tiles_at: str) -> dict[int, int]:
    """``{cell: type}`` from keyword arguments like ``e5="Wr"``."""
    return {cell(name, size): tile(code) for name, code in tiles_at.items()}


def observation(game: UzorGame, player: int) -> dict:
    mask = np.zeros(game.geo.num_actions, np.int8)
    mask[game.legal_actions()] = 1
    return {"observation": UzorObserver(game.options).observe(game, player), "action_mask": mask}


@pytest.mark.parametrize("options", [{"board_size": 9}, {"board_size": 21}, {"board_size": 11, "patterns": FLAT_MAP}],
                         ids=["9x9", "21x21", "user Map 11x11"])
def test_completing_placements_equal_testing_every_acceptable_cell(options):
    checked = completing = 0
    for game in states(options, games=6, seed=3):
        for player in (0, 1):
            hand = game.hands[player]
            expected = every_completion(game, hand)
            assert sorted(bots.completing_placements(game, hand)) == expected
            checked += 1
            completing += bool(expected)
    assert checked > 1200 and completing > 100  # the filters were tested where they matter


def test_hooks_give_legal_moves_and_values_in_range_on_every_state():
    phases = set()
    for index, game in enumerate(states({}, games=8, seed=5)):
        legal = set(game.legal_actions())
        # the root's pricing costs milliseconds (it runs once per move): every 10th state
        for hook in (bots.preferred_actions, bots.root_preferred_actions) if index % 10 == 0 else (bots.preferred_actions,):
            preferred = hook(game)
            assert preferred and set(preferred) <= legal and len(set(preferred)) == len(preferred), (hook, game.phase)
            assert hook is bots.preferred_actions or game.phase != PLACE or len(preferred) <= bots.ROOT_CANDIDATES
        values = bots.evaluate_state(game)
        assert len(values) == 2 and all(-1 < v < 1 for v in values) and values[0] == -values[1]
        phases.add(game.phase)
    assert {PLACE, FORK, TAKE} <= phases


# cedar/azure completes Line-3 at a3 or d3 (cedars b3 c3) and a Flow at f5 (azure f3 f4 ...)
CEDARS = dict(e5="Wr", b3="Cm", c3="Ci")
HAND = ("Ca", "Wr", "Sr", "Br", "Xr")


def test_the_most_valuable_completion_is_preferred_and_the_search_plays_it():
    # (e4, e6, c4 and d4 join the groups to the centre's tile, as on any table a game reaches:
    # the search rebuilds the position from an observation, and only such a table is one; they
    # complete nothing with any tile, and the other hand and the market are as without them)
    joined = dict(e4="Bm", e6="Cm", c4="Ba", d4="Xr")
    game = position(table_of(**CEDARS, **joined, f3="Wa", f4="Sa", f6="Ba", f7="Xa"), tiles(*HAND), goals=(13, 14),
                    hand1=tiles("Xm", "Xm", "Xi", "Xi", "Xi"), market=tiles("Xm", "Xe", "Xe", "Xe", "Xa"))
    best = game.string_to_action("place cedar/azure @ f5")  # Flow-5: 9 points, the Line-3s 2
    assert bots.preferred_actions(game) == [best]
    assert bots.root_preferred_actions(game)[0] == best
    agent = MCTSAgent("uzor", seed=0, simulations=150, depth=1, exploration=0.2, board_size=9)
    assert agent.act(observation(game, 0)) == best


@pytest.mark.parametrize("goal, cells", [(0, {"a3", "d3"}), (3, {"f2", "f5"}), (13, {"a3", "d3", "f2", "f5"})],
                         ids=["goal Line-3", "goal Flow-3", "other goal"])
def test_the_movers_secret_goal_doubles_a_completion(goal, cells):
    game = position(table_of(**CEDARS, f3="Wa", f4="Sa"), tiles(*HAND), goals=(goal, 14))
    preferred = {game.action_to_string(a) for a in bots.preferred_actions(game)}
    assert preferred == {f"place cedar/azure @ {x}" for x in cells}
    assert bots.best_completion(game, 0) == (4 if goal in (0, 3) else 2)


def test_fork_prefers_the_most_valuable_close_and_the_evaluation_counts_it():
    table = table_of(e5="Ca", f5="Cm", g4="Sr", g6="Wr")
    game = position(table, tiles("Cr", "Xi"), goals=(3, 14), hand1=tiles("Xi", "Xi", "Xe", "Xe", "Xe"))
    place(game, tile("Cr"), "g5")
    assert game.phase == FORK and set(game.fork) == {0, 3}
    assert [game.action_to_string(a) for a in bots.preferred_actions(game)] == ["close Flow-3"]  # goal: 4 points
    pending = bots.evaluate_state(game)[0]
    act(game, "close Flow-3")
    assert game.points == [4, 0] and game.phase == TAKE
    assert pending > 0.3 and bots.evaluate_state(game)[0] > 0.3  # 4 points ahead, nothing left to fear


def test_the_preferred_take_is_the_tile_that_completes_the_takers_pattern():
    game = position(table_of(e5="Ca", f5="Cm"), tiles("Wa", "Wi", "Wi", "Si", "Si"),
                    hand1=tiles("Xi", "Xi", "Bi", "Bi", "Bm"), market=tiles("Xe", "Xe", "Cr", "Be", "Be"))
    act(game, "place wave/azure @ e6")
    assert game.phase == TAKE
    # cedar/crimson makes a Line-3 at d5 or g5 with the cedars e5 f5; the others fit nowhere
    assert [game.action_to_string(a) for a in bots.preferred_actions(game)] == ["take 2"]


def test_a_placement_that_hands_the_opponent_a_pattern_is_priced_below_a_safe_one():
    # player_1 holds a sun: a second sun next to e5 gives them a Line-3; the azure wave does not
    def after(move):
        game = position(table_of(e5="Sa"), tiles("Si", "Wa", "Ce", "Ce", "Ce"), hand1=tiles("Sm", "Xi", "Xi", "Bi", "Bi"),
                        market=tiles("Be", "Be", "Be", "We", "We"))
        root = [game.action_to_string(a) for a in bots.root_preferred_actions(game)]
        act(game, move)
        return root, bots.evaluate_state(game)[0]

    root, threatening = after("place sun/ivory @ f5")
    _, safe = after("place wave/azure @ e6")
    assert threatening < safe
    assert all(move.startswith("place wave/azure") for move in root[:4])  # the 4 safe placements first


def test_the_evaluation_takes_chance_nodes_too():
    # a search may cut a play-out off at a chance node: the setup (nothing played yet) or a refill
    game = UzorGame(UzorGame.resolve_options({"board_size": 9}))
    rng = random.Random(2)
    seen = set()
    while not game.is_terminal():
        if game.is_chance_node():
            values = bots.evaluate_state(game)
            assert len(values) == 2 and all(-1 < v < 1 for v in values) and values[0] == -values[1]
            seen.add(game.phase)
            game.apply(rng.choice(game.legal_actions()))
        else:
            game.apply(rng.choice(game.legal_actions()))
    assert seen == {GOAL, DEAL, REFILL}
