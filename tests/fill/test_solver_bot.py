"""Fill's exact player (``load_agent("solver", "fill_v0")``): it wins every game it can win,
keeps the winning seat at the pie rule, plays lost positions for the opponent's mistake, and
refuses the options it cannot search to the end."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from envs import fill_v0
from envs.fill.board import Board
from envs.fill.rules import STAY, SWAP, geometry
from envs.fill.solver import FillSolver
from tests.fill.helpers import play as play_game
from training.bots.fill import EMPTY_BOARD_SEEDS, FillSolverBot, seed_narrowness
from training.players.load import bot_table, load_agent


def play(specs, seed, options=None):
    """One game; returns (player_0's reward, the actions played)."""
    results, _, actions = play_game(options or {}, seed, specs)
    return results["player_0"], actions


def test_the_solver_is_fills_named_bot():
    assert bot_table("fill_v0")["solver"] is FillSolverBot


@pytest.mark.parametrize("options", [{}, {"lines": "strict", "rocks": True}])
@pytest.mark.parametrize("seeder", ["random", "mcts:30", "solver"])
def test_the_chooser_wins_every_game(options, seeder):
    # After the seed Fill is impartial and the chooser picks who moves: perfect play wins it.
    for seed in range(2):
        reward, _ = play([seeder, "solver"], 500 + seed, options)
        assert reward < 0, (seeder, seed)


def test_the_solver_wins_as_seeder_whenever_the_chooser_errs():
    # Random play stays on a won seat half the time and then misplays; the solver converts.
    wins = sum(play(["solver", "random"], 600 + seed)[0] > 0 for seed in range(5))
    assert wins >= 4, wins


def test_the_choice_follows_the_exact_value_of_the_seeded_board():
    geo = geometry(6, "orthogonal")
    exact = FillSolver(geo, 0)
    bot = FillSolverBot(seed=0)
    env = fill_v0.env()
    for seed_cell in (0, 14):
        env.reset(seed=1)
        env.step(seed_cell)
        choice = bot.act(env.observe("player_1"))
        mover_wins = exact.board_wins(Board(geo, 0).place(seed_cell))
        assert choice == geo.cells + (STAY if mover_wins else SWAP)


def test_the_seed_table_of_the_empty_board_is_what_the_search_finds():
    geo = geometry(6, "orthogonal")
    shipped = EMPTY_BOARD_SEEDS["orthogonal"]
    assert seed_narrowness(FillSolver(geo, 0), Board(geo, 0), sorted(shipped)) == shipped
    # the corner: one of its three neighbours wins for the chooser, the narrowest first fill
    assert shipped[0] == Fraction(1, 3) and min(shipped.values()) == shipped[0]
    env = fill_v0.env()
    env.reset(seed=0)
    picks = {FillSolverBot(seed=s).act(env.observe("player_0")) for s in range(12)}
    assert picks <= {0, 5, 30, 35} and len(picks) > 1  # the corners, drawn by the seed


def lost_positions(count: int):
    """Seeded boards reached by random fills with at most 24 open cells, the mover lost."""
    geo = geometry(6, "orthogonal")
    exact = FillSolver(geo, 0)
    rng = random.Random(11)
    found = []
    while len(found) < count:
        env = fill_v0.env()
        env.reset(seed=rng.randrange(10**6))
        env.step(rng.randrange(36))
        env.step(geo.cells + STAY)
        while True:
            game = env.unwrapped.game
            board = Board.from_cells(geo, [], [c for c in range(36) if game.filled >> c & 1])
            legal = [c for c in range(36) if board.legal() >> c & 1]
            if len(legal) < 2:
                break
            if board.open_count() <= 24 and not exact.board_wins(board):
                found.append((env, board, legal))
                break
            env.step(rng.choice(legal))
    return exact, found


def test_a_lost_position_is_played_for_the_smallest_share_of_winning_replies():
    exact, found = lost_positions(4)
    for env, board, legal in found:
        shares = {}
        for cell in legal:  # the opponent's replies after each fill, counted one by one
            after = board.place(cell)
            replies = [r for r in range(36) if after.legal() >> r & 1]
            winning = [r for r in replies if not exact.board_wins(after.place(r))]
            shares[cell] = Fraction(len(winning), len(replies))
        name = env.agent_selection
        choice = FillSolverBot(seed=3).act(env.observe(name))
        assert shares[choice] == min(shares.values()), (shares, choice)


def test_the_same_seed_plays_the_same_game():
    assert play(["solver", "mcts:30"], 700) == play(["solver", "mcts:30"], 700)


@pytest.mark.parametrize("options, option", [
    ({"size": 7}, "size"), ({"lines": "off"}, "lines"), ({"traps": True}, "traps"), ({"gems": True}, "gems"),
])
def test_options_it_cannot_search_are_refused_by_name(options, option):
    with pytest.raises(ValueError, match=option):
        load_agent("solver", "fill_v0", **options)
