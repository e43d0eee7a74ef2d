"""Knot's hooks for search (``training.bots.knot``): ``preferred_actions`` and
``evaluate_state`` on engine states, as ``training.search.mcts`` calls them.

The preferred moves are the heuristic bot's own pricing (one implementation, which the bot runs
on the public board of its observation and search on engine states): checked move by move
against a reference reading of the prices (``tests/knot/reference_heuristic.py``) on the board
the bot sees, and against the legal moves, over thousands of positions from seeded random games.
"""

from __future__ import annotations

import random

import pytest

from envs.core.game import CHANCE
from envs.knot.options import DRAW, PLACE
from envs.knot.rules import KnotGame
from tests.knot.helpers import new_game, position, random_step
from tests.knot.test_bots import bot, can_capture_from, seat_view
from tests.knot import reference_heuristic as reference
from training.players.load import load_agent
from training.bots.knot import (
    PREFERRED_MARGIN,
    HeuristicKnotBot,
    _gap_ports,
    evaluate_state,
    gap_ports,
    needed_kinds,
    placement_prices,
    preferred_actions,
)

OPTION_SETS = [
    {"size": 4},  # the ladder's board
    {},
    {"players": 3},
    {"players": 4, "size": 5, "deck": [20, 10, 20, 6]},
]


def random_states(options: dict, games: int, seed: int):
    """The live engine state before every player step of seeded random games (chance nodes are
    the search's to resolve, never the hooks')."""
    resolved = KnotGame.resolve_options(dict(options))
    rng = random.Random(seed)
    for _ in range(games):
        game = new_game(resolved, rng.getrandbits(32))
        while not game.is_terminal():
            if game.current_player() != CHANCE:
                yield game
            random_step(game, rng)


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: str(o) or "default")
def test_preferred_actions_are_a_nonempty_sorted_subset_of_the_legal_moves(options):
    checked = {PLACE: 0, DRAW: 0}
    for game in random_states(options, 25, seed=1):
        legal = game.legal_actions()
        preferred = preferred_actions(game)
        assert preferred, game.state_dict()
        assert set(preferred) <= set(legal)
        assert preferred == sorted(set(preferred))
        assert game.legal_actions() == legal  # asking changed nothing
        checked[game.phase] += 1
    assert checked[PLACE] > 500 and checked[DRAW] > 300, checked


@pytest.mark.parametrize("options", [{"size": 4}, {"players": 3}], ids=str)
def test_prices_are_the_heuristic_bots_own_and_preferred_is_everything_near_the_best(options):
    # The hook prices the engine state; the reference prices the public board the bot lays out
    # from its decoded observation (owners relative to itself): they agree on every placement.
    heuristic = HeuristicKnotBot(**options)
    base = 16 * KnotGame.resolve_options(dict(options))["size"] ** 2
    positions = 0
    for index, game in enumerate(random_states(options, 12, seed=2)):
        legal = game.legal_actions()
        if game.phase != PLACE or len(legal) < 2 or index % 3:
            continue
        board = heuristic.public_board(heuristic.observer.decode(seat_view(game)))
        prices = placement_prices(game, legal)
        assert set(prices) == set(legal)
        assert placement_prices(board, legal) == prices
        for action in legal:
            if action != base:
                assert prices[action] == pytest.approx(reference.price(board, action)), game.action_to_string(action)
        best = max(prices.values())
        assert preferred_actions(game) == [a for a in legal if prices[a] >= best - PREFERRED_MARGIN]
        positions += 1
    assert positions > 100


def test_preferred_draw_is_the_heuristic_bots_draw():
    draws = 0
    for game in random_states({"size": 4}, 30, seed=3):
        legal = game.legal_actions()
        if game.phase != DRAW or len(legal) < 2:
            continue
        chosen = bot(game).act(seat_view(game))
        preferred = preferred_actions(game)
        assert preferred == [chosen] or (chosen in preferred and preferred == legal)
        heuristic = HeuristicKnotBot(**game.options)
        board = heuristic.public_board(heuristic.observer.decode(seat_view(game)))
        assert list(needed_kinds(game, game.player)) == reference.needed_kinds(board)
        draws += 1
    assert draws > 200


def test_gap_ports_are_recomputed_when_the_board_changes():
    # gap_ports remembers one board (by the engine's board_token); a placement renews the token.
    for game in random_states({}, 10, seed=4):
        assert gap_ports(game, game.player) == _gap_ports(game, game.player)


def test_preferred_closes_the_ribbon_and_mcts_with_few_simulations_too():
    # player_0's a1 ribbon (two Runs) waits for a Flip facing west in b1.
    g = position([("run/n@a1", 0), ("run/s@a1", 0), ("cut/ne@d4", 0)], hands=[[2, 1, 1, 1], [1, 1, 1, 1]], turn=4)
    closing = g.string_to_action("flip/w@b1")
    assert preferred_actions(g) == [closing]
    agent = load_agent("mcts:20:depth=10", "knot_v0", seed=0, **g.options)
    assert agent.act(seat_view(g)) == closing


def test_preferred_captures_and_mcts_with_few_simulations_too():
    g = position([("run/n@c3", 0), ("run/n@e3", 1)], hands=[[0, 1, 0, 0], [1, 1, 1, 1]], turn=4)
    capture = g.string_to_action("run/s@d3")
    assert preferred_actions(g) == [capture]
    agent = load_agent("mcts:20:depth=10", "knot_v0", seed=0, **g.options)
    assert agent.act(seat_view(g)) == capture


def test_preferred_moves_keep_out_of_the_gap_in_front_of_an_opponents_end():
    # Two of player_0's legal moves (cut/ne@c3, run/n@c3) bring its new end one strand from
    # player_1's e3 end: a capture next turn. No preferred move does.
    g = position([("cut/ne@b3", 0), ("run/n@e3", 1)], hands=[[1, 1, 1, 1], [1, 1, 1, 1]])
    risky = [a for a in g.legal_actions() if a != 16 * g.n and can_capture_from(_after(g, a), 1, 0)]
    assert {g.action_to_string(a) for a in risky} >= {"cut/ne@c3", "run/n@c3"}
    preferred = preferred_actions(g)
    assert preferred and not set(preferred) & set(risky)


def _after(game: KnotGame, action: int) -> KnotGame:
    after = game.clone()
    after.apply(action)
    return after


@pytest.mark.parametrize("options", [{"size": 4}, {"players": 3}], ids=str)
def test_evaluate_state_is_in_range_and_favours_the_leader(options):
    players = KnotGame.resolve_options(dict(options))["players"]
    for index, game in enumerate(random_states(options, 20, seed=5)):
        if index % 2:
            continue
        values = evaluate_state(game)
        assert len(values) == players and all(-1 < v < 1 for v in values)
        if players == 2:
            assert values[0] == pytest.approx(-values[1])
        # Banking ten more points (as if a long ribbon had closed) makes a player look better.
        richer = game.clone()
        richer.banked[0] += 10
        assert evaluate_state(richer)[0] > values[0]


def test_evaluate_state_counts_open_ribbons_and_the_bonus():
    # One open ribbon of two strands joined inside the board (1 point once closed): half of it.
    open_ribbon = position([("run/n@b2", 0), ("run/s@c2", 0)], turn=4)
    assert evaluate_state(open_ribbon) == pytest.approx([0.5 / 1.5, -0.5 / 1.5])
    closed = position([("run/n@a1", 0), ("run/s@a1", 0), ("flip/w@b1", 0), ("cut/ne@d4", 1)], turn=4)
    assert closed.banked == [2, 0]
    # Two banked points and the longest-ribbon bonus against nothing: a clear lead.
    assert evaluate_state(closed)[0] == pytest.approx((2 + 5) / (2 + 5 + 1))


def test_evaluate_state_accepts_chance_nodes():
    deal = KnotGame(KnotGame.resolve_options({"players": 3}))
    assert deal.current_player() == CHANCE and evaluate_state(deal) == [0.0, 0.0, 0.0]
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [1, 1, 1, 1]], market=(2, 1), pile=[3, 3])
    g.apply(g.string_to_action("cut/sw@c3"))
    g.apply(g.string_to_action("end"))
    g.apply(g.string_to_action("draw pile"))
    assert g.current_player() == CHANCE and len(evaluate_state(g)) == 2
