"""The exact fill-only solver (envs/fill/solver.py) against a brute force through the engine,
its budget, and its table."""

from __future__ import annotations

import random

import pytest

from envs.fill.board import Board
from envs.fill.positions import position
from envs.fill.rules import FILL, FillGame
from envs.fill.solver import FillSolver


def engine_wins(game: FillGame, memo: dict) -> bool:
    """Whether the player to fill wins the fill-only game, by trying every fill through the
    engine (no tokens, no traps: every turn is one fill)."""
    key = game.filled
    if key not in memo:
        memo[key] = False
        for cell in game.legal_actions():
            after = game.clone()
            after.apply(cell)
            if after.is_terminal() or not engine_wins(after, memo):
                memo[key] = True
                break
    return memo[key]


def small_endgames(options, games, room, seed):
    rng = random.Random(seed)
    resolved = FillGame.resolve_options(options)
    for index in range(games):
        game = FillGame(resolved, random.Random(seed * 1000 + index))
        while not game.is_terminal():
            empty = game.geo.full & ~(game.filled | game.rock | game.poison)
            if game.phase == FILL and empty.bit_count() <= room:
                yield game
                break
            game.apply(rng.choice(game.legal_actions()))


def test_the_only_winning_fill_is_found():
    game = position("""
    # . R . . .
    . . R . . .
    R R R . . .
    . . . . . .
    . . . . . .
    . . . . . .
    """)
    solver = FillSolver(game.geo, game.rock)
    winning = solver.winning_fills(game.filled, game.touch, game.poison)
    for cell in game.legal_cells():
        after = game.clone()
        after.apply(cell)
        assert (cell in winning) == (after.is_terminal() or not engine_wins(after, {}))


@pytest.mark.parametrize("options", [{}, {"lines": "strict", "rocks": True}, {"lines": "off", "size": 7}])
def test_the_solver_agrees_with_the_engine_on_small_endgames(options):
    checked = 0
    solver = None
    for game in small_endgames(options, games=80, room=10, seed=4):
        if solver is None or not solver.fits(game.geo, game.rock):
            solver = FillSolver(game.geo, game.rock)
        truth = engine_wins(game, {})
        assert solver.mover_wins(game.filled, game.touch, game.poison) == truth
        winning = solver.winning_fills(game.filled, game.touch, game.poison)
        assert bool(winning) == truth
        first = solver.winning_fills(game.filled, game.touch, game.poison, first_only=True)
        assert first == winning[:1]
        checked += 1
    assert checked >= 60


def test_a_double_first_fill_wins_when_the_same_player_then_wins():
    for game in small_endgames({}, games=30, room=9, seed=7):
        solver = FillSolver(game.geo, game.rock)
        doubles = solver.winning_fills(game.filled, game.touch, game.poison, again=True)
        for cell in game.legal_cells():
            after = game.clone()
            after._place(cell)  # the first fill of a Double: the same player fills again
            stuck = not after.legal_mask()
            assert (cell in doubles) == (stuck or engine_wins(after, {}))


def test_a_budget_gives_none_instead_of_searching_more_and_the_table_only_changes_speed():
    game = next(small_endgames({}, games=20, room=16, seed=1))
    exact = FillSolver(game.geo, game.rock).mover_wins(game.filled, game.touch, game.poison)
    tight = FillSolver(game.geo, game.rock, budget=3)
    assert tight.mover_wins(game.filled, game.touch, game.poison) is None
    assert tight.winning_fills(game.filled, game.touch, game.poison) is None
    roomy = FillSolver(game.geo, game.rock, budget=10**7)
    assert roomy.mover_wins(game.filled, game.touch, game.poison) == exact
    warm = FillSolver(game.geo, game.rock)
    warm.memo.update(roomy.memo)
    assert warm.mover_wins(game.filled, game.touch, game.poison) == exact
    small = FillSolver(game.geo, game.rock, memo_limit=10)
    assert small.mover_wins(game.filled, game.touch, game.poison) == exact
    small.mover_wins(game.filled, game.touch, game.poison)
    assert small.fits(game.geo, game.rock) and not small.fits(game.geo, game.rock | 1)
