"""The exact solver against brute force, and the bots on the agent interface."""

from __future__ import annotations

import random
import time

import pytest

from envs import linecatch_v0
from envs.linecatch.rules import LinecatchGame
from envs.linecatch.solver import LinecatchSolver
from training.players.load import load_agent
from training.evaluation.tournament import play_game


def brute_force(game: LinecatchGame) -> int:
    """Plain minimax over every move sequence (no memo): mover's future point margin."""
    if game.is_terminal():
        return 0
    mover = game.current_player()
    best = None
    for cell in game.legal_actions():
        child = game.clone()
        before = child.points[mover]
        child.apply(cell)
        gained = child.points[mover] - before
        rest = brute_force(child)
        value = gained + (rest if child.current_player() == mover else -rest)
        best = value if best is None else max(best, value)
    return best


def mask_of(game: LinecatchGame) -> int:
    return sum(1 << c for c, b in enumerate(game.black) if b)


@pytest.mark.parametrize("pro", [False, True])
def test_solver_agrees_with_brute_force_on_3x3(pro):
    options = LinecatchGame.resolve_options({"rows": 3, "cols": 3, "pro": pro})
    solver = LinecatchSolver(3, 3, pro)
    root = LinecatchGame(options)
    # The empty board after each first move, and random positions deeper in.
    for first in range(9):
        g = root.clone()
        g.apply(first)
        assert solver.value(mask_of(g)) == brute_force(g)
    rng = random.Random(1)
    for _ in range(30):
        g = root.clone()
        for _ in range(rng.randint(2, 6)):
            if g.is_terminal():
                break
            g.apply(rng.choice(g.legal_actions()))
        if not g.is_terminal():
            assert solver.value(mask_of(g)) == brute_force(g)


def test_solver_agrees_with_brute_force_on_3x4_positions():
    options = LinecatchGame.resolve_options({"rows": 3, "cols": 4})
    solver = LinecatchSolver(3, 4, False)
    rng = random.Random(2)
    for _ in range(12):
        g = LinecatchGame(options)
        for _ in range(4):
            g.apply(rng.choice(g.legal_actions()))
        if not g.is_terminal():
            assert solver.value(mask_of(g)) == brute_force(g)


def test_full_4x4_solve_is_fast_and_the_value_is_known():
    started = time.perf_counter()
    solver = LinecatchSolver(4, 4, False)
    elapsed = time.perf_counter() - started
    assert len(solver.values) == 1 << 16
    assert solver.value(0) == -16  # the second player wins 4×4 by 16 points with perfect play
    assert elapsed < 60, f"4×4 solve took {elapsed:.1f} s"


def test_solver_refuses_boards_over_25_squares_with_a_reason():
    with pytest.raises(ValueError, match="up to 25 squares, not 5×6 = 30"):
        LinecatchSolver(5, 6, False)
    with pytest.raises(ValueError, match="up to 25 squares"):
        load_agent("solver", "linecatch_v0", rows=6, cols=6)


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_solver_seat_always_reaches_the_game_value_on_4x4(opponent):
    """Perfect play guarantees at least the minimax margin whatever the opponent does."""
    options = {"rows": 4, "cols": 4}
    value = LinecatchSolver(4, 4, False).value(0)  # player_0's margin under perfect play
    solver = load_agent("solver", "linecatch", seed=0, **options)
    other = load_agent(opponent, "linecatch", seed=1, **options)
    for index in range(40):
        as_first = index % 2 == 0
        seats = [solver, other] if as_first else [other, solver]
        _, scores = play_game("linecatch_v0", seats, index, options)
        margin = scores[0] - scores[1] if as_first else scores[1] - scores[0]
        assert margin >= (value if as_first else -value)


def test_heuristic_takes_the_catch_and_avoids_handing_one_over():
    env = linecatch_v0.raw_env(rows=4, cols=4)
    env.reset(seed=0)
    bot = load_agent("heuristic", "linecatch", seed=0, rows=4, cols=4)
    for name in ("a1", "b1", "c1"):
        env.step(env.string_to_action(name))
    # player_1 to move: d1 catches row 1.
    assert env.action_to_string(bot.act(env.observe("player_1"))) == "d1"
    env.step(env.string_to_action("d1"))
    assert env.agent_selection == "player_1"
    # No catch now; safe squares exist (every column has 3 white): the bot takes one.
    for trial in range(20):
        bot = load_agent("heuristic", "linecatch", seed=trial, rows=4, cols=4)
        g = env.game.clone()
        g.apply(bot.act(env.observe("player_1")))
        assert all(left != 1 for left in g.remaining), "the bot handed over a line"


def test_heuristic_beats_random_clearly():
    wins = 0
    a = load_agent("heuristic", "linecatch", seed=3)
    b = load_agent("random", "linecatch", seed=4)
    for index in range(100):
        seats = [a, b] if index % 2 == 0 else [b, a]
        returns, _ = play_game("linecatch_v0", seats, index, {})
        wins += returns[index % 2] > 0
    assert wins >= 85


def test_solver_point_loss_is_zero_for_the_solver_and_positive_for_random():
    from training.evaluation.tournament import solver_point_loss

    perfect = solver_point_loss("solver", "linecatch", 6, 0, {"rows": 3, "cols": 3})
    careless = solver_point_loss("random", "linecatch", 6, 0, {"rows": 3, "cols": 3})
    assert perfect["mean_point_loss_per_game"] == 0 and perfect["perfect_games"] == 6
    assert careless["mean_point_loss_per_game"] > 0 and careless["perfect_games"] < 6
    with pytest.raises(ValueError, match="solver"):
        solver_point_loss("random", "loom", 1, 0, {})
