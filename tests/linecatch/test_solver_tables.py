"""The exact solver on every board of up to 25 squares: the vectorised table against a plain
recurrence and a search over the engine, its disk cache, perfect play on 5×5, and the points an
agent loses to it.

The two 5×5 tables take about 10 seconds each to build on a 2-core machine; they are built once
into pytest's cache folder (``conftest.py``) and read back on later runs.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from envs import linecatch_v0
from envs.linecatch import solver as solver_module
from envs.linecatch.rules import LinecatchGame, geometry
from envs.linecatch.solver import (LinecatchSolver, build_table, cache_dir, move_losses, points_lost, read_cached,
                                   table, table_name, write_cached)
from tests.scripts import import_script
from training.players.load import load_agent
from training.evaluation.points_lost import agent_points_lost
from training.evaluation.tournament import play_game


def plain_values(rows: int, cols: int, pro: bool) -> list[int]:
    """The recurrence over plain ints, one set at a time (no arrays, no chunks)."""
    geo = geometry(rows, cols, pro)
    full = (1 << geo.size) - 1
    values = [0] * (full + 1)
    for mask in range(full - 1, -1, -1):
        options = []
        for cell in range(geo.size):
            if not mask >> cell & 1:
                gained = geo.catch_points(mask, cell)
                rest = values[mask | 1 << cell]
                options.append(gained + rest if gained else -rest)
        values[mask] = max(options)
    return values


def engine_search(game: LinecatchGame, memo: dict) -> int:
    """Negamax over engine clones, remembered by black squares: the mover's best future margin,
    with the engine deciding points and whose turn follows."""
    key = tuple(game.black)
    if key not in memo:
        if game.is_terminal():
            return 0
        mover, best = game.current_player(), None
        for action in game.legal_actions():
            child = game.clone()
            child.apply(action)
            rest = engine_search(child, memo)
            value = child.points[mover] - game.points[mover] + (rest if child.current_player() == mover else -rest)
            best = value if best is None else max(best, value)
        memo[key] = best
    return memo[key]


def new_game(**options) -> LinecatchGame:
    return LinecatchGame(LinecatchGame.resolve_options(options))


def random_position(rng: random.Random, whites: int, **options) -> LinecatchGame:
    game = new_game(**options)
    while game.whites > whites:
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("rows,cols,pro", [(4, 4, True), (3, 5, False), (5, 3, True), (3, 4, True)])
def test_table_equals_the_plain_recurrence(rows, cols, pro):
    values = build_table(geometry(rows, cols, pro))
    assert values.dtype == np.int8 and not values.flags.writeable
    assert values.tolist() == plain_values(rows, cols, pro)


@pytest.mark.parametrize("pro", [False, True])
def test_table_equals_a_search_over_the_engine_on_every_3x5_set(pro):
    memo = {}
    root = engine_search(new_game(rows=3, cols=5, pro=pro), memo)
    solver = LinecatchSolver(3, 5, pro)
    assert solver.value(0) == root == (-14 if pro else 14)
    assert len(memo) == (1 << 15) - 1  # every set but the full board
    for key, value in memo.items():
        assert solver.value(sum(1 << cell for cell, black in enumerate(key) if black)) == value


def test_a_21_square_board_goes_through_the_disk_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LINECATCH_SOLVER_CACHE", str(tmp_path))
    monkeypatch.setattr(solver_module, "_TABLES", {})
    built = table(3, 7, True, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3x7_pro.json", "3x7_pro.lock", "3x7_pro.npy"]
    record = json.loads((tmp_path / "3x7_pro.json").read_text())
    assert record["empty_board_value"] == int(built[0]) and record["length"] == 1 << 21
    # A later process reads it back, memory-mapped.
    monkeypatch.setattr(solver_module, "_TABLES", {})
    again = table(3, 7, True)
    assert isinstance(again, np.memmap) and np.array_equal(again, built)
    # Positions deep in the game against the engine.
    solver, rng = LinecatchSolver(3, 7, True), random.Random(5)
    for _ in range(6):
        game = random_position(rng, rng.randint(4, 9), rows=3, cols=7, pro=True)
        assert solver.value(game) == engine_search(game, {})
    # A damaged table is rebuilt, and says why.
    data = bytearray((tmp_path / "3x7_pro.npy").read_bytes())
    data[-1] ^= 1
    (tmp_path / "3x7_pro.npy").write_bytes(bytes(data))
    monkeypatch.setattr(solver_module, "_TABLES", {})
    rebuilt = table(3, 7, True, progress=False)
    assert "does not match its SHA-256" in capsys.readouterr().err
    assert np.array_equal(rebuilt, built)
    assert read_cached(tmp_path, geometry(3, 7, True))[0] is not None


def test_the_cache_trusts_only_whole_matching_tables(tmp_path):
    geo = geometry(3, 3, False)
    values = build_table(geo)
    assert read_cached(tmp_path, geo) == (None, None)  # nothing there yet: no complaint
    path = write_cached(tmp_path, geo, values)
    assert path == tmp_path / "3x3.npy"
    assert np.array_equal(read_cached(tmp_path, geo)[0], values)
    assert read_cached(tmp_path, geometry(3, 3, True)) == (None, None)  # another board, other files
    about = tmp_path / "3x3.json"
    record = json.loads(about.read_text())
    for key, wrong in (("format", 0), ("rows", 4), ("pro", True)):
        about.write_text(json.dumps({**record, key: wrong}))
        assert "describes another table" in read_cached(tmp_path, geo)[1]
    about.write_text(json.dumps({**record, "sha256": "0" * 64}))
    assert "SHA-256" in read_cached(tmp_path, geo)[1]
    about.write_text(json.dumps(record))
    np.save(path, values[:-1])
    assert "shape" in read_cached(tmp_path, geo)[1]
    path.write_bytes(b"not a table")
    assert "unreadable" in read_cached(tmp_path, geo)[1]
    about.unlink()
    assert "unreadable" in read_cached(tmp_path, geo)[1]


def test_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("LINECATCH_SOLVER_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "abstract-games-suite" / "linecatch"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "abstract-games-suite" / "linecatch"
    monkeypatch.setenv("LINECATCH_SOLVER_CACHE", str(tmp_path / "here"))
    assert cache_dir() == tmp_path / "here"
    monkeypatch.setenv("LINECATCH_SOLVER_CACHE", "off")
    assert cache_dir() is None
    assert table_name(5, 5, True) == "5x5_pro" and table_name(4, 6, False) == "4x6"


# ----- 5×5 ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def five():
    return {pro: LinecatchSolver(5, 5, pro) for pro in (False, True)}


def test_5x5_values_of_the_empty_board(five):
    """With perfect play the first player wins 5×5 by 20 points, and by 60 in pro mode."""
    assert five[False].value(0) == 20 and five[True].value(0) == 60
    assert five[False].value(new_game()) == 20
    full = (1 << 25) - 1
    assert five[False].value(full) == 0 and five[False].best_actions(full) == []
    # One square left: it catches its row and column (and its diagonals in pro mode).
    assert five[False].action_values(full - 1) == {0: 10} and five[True].value(full - 1) == 15


@pytest.mark.parametrize("pro", [False, True])
def test_5x5_positions_match_a_search_over_the_engine(five, pro):
    rng = random.Random(11 + pro)
    for _ in range(8):
        game = random_position(rng, rng.randint(5, 9), pro=pro)
        memo = {}
        assert five[pro].value(game) == engine_search(game, memo)
        values = five[pro].action_values(game)
        mover = game.current_player()
        for action in game.legal_actions():
            child = game.clone()
            child.apply(action)
            rest = engine_search(child, memo)
            sign = 1 if child.current_player() == mover else -1
            assert values[action] == child.points[mover] - game.points[mover] + sign * rest


@pytest.mark.parametrize("pro", [False, True])
@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_5x5_solver_reaches_the_game_value_from_either_seat(five, pro, opponent):
    options = {"pro": pro}
    value = five[pro].value(0)
    solver = load_agent("solver", "linecatch", seed=0, **options)
    other = load_agent(opponent, "linecatch", seed=1, **options)
    for index in range(4):
        as_first = index % 2 == 0
        seats = [solver, other] if as_first else [other, solver]
        _, scores = play_game("linecatch_v0", seats, index, options)
        margin = scores[0] - scores[1] if as_first else scores[1] - scores[0]
        assert margin >= (value if as_first else -value)


def test_5x5_solver_bot_plays_best_moves_and_its_seed_decides_the_ties(five):
    def game_of(seed):
        bot = load_agent("solver", "linecatch", seed=seed)
        env = linecatch_v0.raw_env()
        env.reset(seed=0)
        moves = []
        while not env.game.is_terminal():
            observation = env.observe(env.agent_selection)
            action = bot.act(observation)
            assert action in five[False].best_actions(env.game)
            assert set(bot.best_actions(observation)) == set(five[False].best_actions(env.game))
            moves.append(action)
            env.step(action)
        return moves

    assert game_of(3) == game_of(3)
    assert game_of(3) != game_of(4)


def test_5x5_solver_bot_spreads_its_probabilities_over_every_optimal_square(five):
    # what DAgger with the solver as teacher learns from: all optimal squares, equally, nothing else
    bot = load_agent("solver", "linecatch", seed=0)
    heuristic = load_agent("heuristic", "linecatch", seed=0)
    env = linecatch_v0.raw_env()
    env.reset(seed=11)
    ties = 0
    while not env.game.is_terminal():
        observation = env.observe(env.agent_selection)
        probabilities = bot.action_probabilities(observation)
        best = five[False].best_actions(env.game)
        ties += len(best) > 1
        assert probabilities.shape == observation["action_mask"].shape
        assert np.isclose(probabilities.sum(), 1.0)
        assert set(np.flatnonzero(probabilities)) == set(best)
        assert np.allclose(probabilities[best], 1.0 / len(best))
        env.step(heuristic.act(observation))
    assert ties  # the check covered positions with several optimal squares


# ----- points lost to perfect play ---------------------------------------------------------------

@pytest.mark.parametrize("pro", [False, True])
def test_points_lost_explain_the_final_margin(five, pro):
    """player_0's final margin = the empty board's value − its losses + player_1's."""
    options = {"pro": pro}
    for seed in range(3):
        seats = [load_agent("random", "linecatch", seed=seed, **options),
                 load_agent("heuristic", "linecatch", seed=seed + 9, **options)]
        record = []
        env = linecatch_v0.raw_env(**options)
        env.reset(seed=seed)
        while not env.game.is_terminal():
            record.append(seats[env.game.current_player()].act(env.observe(env.agent_selection)))
            env.step(record[-1])
        scores = env.game.scores()
        lost = points_lost(record, pro=pro, solver=five[pro])
        assert scores[0] - scores[1] == five[pro].value(0) - lost[0] + lost[1]
        assert lost[0] > 0 and min(move.lost for move in move_losses(record, solver=five[pro])) == 0


def test_move_losses_read_notation_and_refuse_illegal_records():
    # 3×3 is a 12-point win for the first player; after a1 b1 (a lost cause for player_1 anyway),
    # c1 catches row 1 and keeps the move (player_0 again), a2 passes it up and loses 6 points.
    moves = move_losses(["a1", "b1", 2, "a2"], rows=3, cols=3)
    assert [m.action for m in moves] == [0, 1, 2, 3] and [m.seat for m in moves] == [0, 1, 0, 0]
    assert [(m.best, m.lost) for m in moves] == [(12, 0), (-12, 0), (12, 0), (9, 0)]
    assert [(m.best, m.chosen, m.lost) for m in move_losses(["a1", "b1", "a2"], rows=3, cols=3)][2] == (12, 6, 6)
    with pytest.raises(ValueError, match="move 2 of the record: square a1 is already black"):
        move_losses(["a1", "a1"], rows=3, cols=3)


def test_agent_points_lost_matches_the_evaluation_measure():
    from training.evaluation.tournament import solver_point_loss

    options = {"rows": 3, "cols": 4}
    mine = agent_points_lost("random", 6, 2, options)
    theirs = solver_point_loss("random", "linecatch", 6, 2, options)
    assert mine["mean_points_lost_per_game"] == theirs["mean_point_loss_per_game"] > 0
    assert mine["perfect_games"] == theirs["perfect_games"] and mine["standard_error"] > 0
    assert mine["mean_margin"] == theirs["mean_margin_vs_solver"]
    assert agent_points_lost("solver", 4, 0, options)["points_lost"] == [0, 0, 0, 0]


def test_regret_script(monkeypatch, capsys, tmp_path):
    script = import_script(monkeypatch, "linecatch_regret")
    out = tmp_path / "regret.json"
    result = script.main(["--agent", "heuristic", "--games", "2", "--rows", "3", "--cols", "4", "--pro",
                          "--opponent", "random", "--json", str(out)])
    assert result["games"] == 2 and result["options"] == {"rows": 3, "cols": 4, "pro": True}
    assert "points lost a game" in capsys.readouterr().out
    assert json.loads(out.read_text())["points_lost"] == result["points_lost"]
    with pytest.raises(SystemExit):
        script.main(["--agent", "random", "--games", "0"])
