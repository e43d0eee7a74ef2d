"""Linecatch rules, one scenario per rule of the game (``docs/linecatch.md``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import linecatch_v0
from envs.core import OptionError
from envs.linecatch.observer import LinecatchObserver
from envs.linecatch.rules import NO_MARK, LinecatchGame, geometry


def new_game(**options) -> LinecatchGame:
    return LinecatchGame(LinecatchGame.resolve_options(options))


def play(game: LinecatchGame, *names: str) -> None:
    for name in names:
        game.apply(game.string_to_action(name))


def test_a_square_catching_a_row_and_a_column_scores_both_and_marks_them():
    g = new_game(rows=3, cols=3)
    # Fill row 1 and column b except their crossing b1... then b1 catches both.
    #   a b c
    # 1 # . #        player to move alternates on non-catching moves
    # 2 . # .
    # 3 . # .
    play(g, "a1", "c1", "b2", "b3")
    assert g.to_move == 0 and g.points == [0, 0]
    play(g, "b1")  # completes row 1 (3) and column b (3)
    assert g.points == [6, 0]
    marked = {g.action_to_string(c) for c in range(9) if g.marks[c] == 0}
    assert marked == {"a1", "b1", "c1", "b2", "b3"}
    assert all(g.marks[c] == NO_MARK for c in range(9) if g.action_to_string(c) not in marked)


def test_a_catch_earns_another_move_and_a_plain_move_passes_the_turn():
    g = new_game(rows=3, cols=3)
    play(g, "a1")
    assert g.current_player() == 1
    play(g, "b1")
    assert g.current_player() == 0
    play(g, "c1")  # catches row 1
    assert g.points == [3, 0] and g.current_player() == 0
    play(g, "a2")
    assert g.current_player() == 1


def test_the_last_square_ends_the_game_even_after_a_catch():
    g = new_game(rows=3, cols=3)
    rng = random.Random(0)
    while g.whites > 1:
        g.apply(rng.choice(g.legal_actions()))
    mover = g.current_player()
    before = g.points[mover]
    g.apply(g.legal_actions()[0])  # completes its row and its column
    assert g.is_terminal() and g.points[mover] == before + 6
    assert g.legal_actions() == [] or g.whites == 0


def test_marks_remember_who_caught_last():
    g = new_game(rows=3, cols=3)
    play(g, "a1", "b1", "c1")  # player_0 catches row 1
    assert g.marks[0] == 0
    play(g, "a2")              # player_0 moves again, no catch → player_1
    play(g, "b3", "c3")        # player_1 blackens; player_0 then c3
    assert g.current_player() == 1
    play(g, "a3")              # player_1 catches column a (a1 a2 a3) and row 3
    assert g.points[1] == 6
    assert g.marks[0] == 1     # a1 now marked by player_1, who caught across it last
    assert g.marks[1] == 0     # b1 only on player_0's row


def test_pro_mode_counts_diagonals_of_three_or_more_only():
    geo = geometry(5, 5, True)
    assert len(geo.lines) == 5 + 5 + 2 * 5
    assert sorted(len(l) for l in geo.lines if len(l) != 5) == [3, 3, 3, 3, 4, 4, 4, 4]
    assert len(geometry(5, 5, False).lines) == 10
    # A 2-square corner diagonal (b1, a2) is not a line.
    g = new_game(rows=4, cols=4, pro=True)
    play(g, "b1", "a2")
    assert g.points == [0, 0]
    # The 3-square diagonal c1 b2 a3 is.
    play(g, "c1", "b2")
    assert g.current_player() == 0 and g.points == [0, 0]
    play(g, "a3")
    assert g.points == [3, 0]
    # Without pro mode the same squares catch nothing.
    plain = new_game(rows=4, cols=4)
    play(plain, "b1", "a2", "c1", "b2", "a3")
    assert plain.points == [0, 0]


def test_pro_diagonal_and_row_at_once():
    g = new_game(rows=3, cols=3, pro=True)
    play(g, "a1", "b2", "a3", "b3")
    assert g.current_player() == 0
    play(g, "c3")  # row 3 (3) and the falling diagonal a1 b2 c3 (3)
    assert g.points == [6, 0]


def test_mask_is_exactly_the_white_squares_and_only_for_the_mover():
    env = linecatch_v0.raw_env(rows=3, cols=4)
    env.reset(seed=0)
    env.step(env.string_to_action("b2"))
    mask = env.observe("player_1")["action_mask"]
    assert mask.tolist() == [1] * 5 + [0] + [1] * 6
    assert env.observe("player_0")["action_mask"].sum() == 0


def test_notation_matches_the_page():
    g = new_game(rows=4, cols=6)
    assert g.action_to_string(0) == "a1"
    assert g.string_to_action("c2") == 1 * 6 + 2
    assert g.string_to_action("F4") == 23
    for bad in ("g1", "a5", "1a", "", "a0"):
        with pytest.raises(ValueError):
            g.string_to_action(bad)


def test_why_illegal_sentences():
    g = new_game(rows=3, cols=3)
    play(g, "b2")
    assert g.why_illegal(4) == "square b2 is already black"
    assert "off the board" in g.why_illegal(9)
    assert "integer" in g.why_illegal("b2")
    assert g.why_illegal(0) is None
    with pytest.raises(ValueError, match="already black"):
        g.apply(4)


@pytest.mark.parametrize(
    "options, fragment",
    [({"rows": 2}, "'rows' must be an integer 3…12"), ({"cols": 13}, "'cols'"),
     ({"pro": 1}, "'pro' must be True or False"), ({"rows": 4.0}, "'rows'")],
)
def test_bad_options_name_the_option(options, fragment):
    with pytest.raises(OptionError, match=fragment):
        linecatch_v0.raw_env(**options)


def test_observation_is_from_the_observers_side():
    env = linecatch_v0.raw_env(rows=3, cols=3)
    env.reset(seed=0)
    for name in ("a1", "b1", "c1"):
        env.step(env.string_to_action(name))
    observer = env.unwrapped.observer
    mine = observer.decode(env.observe("player_0"))
    theirs = observer.decode(env.observe("player_1"))
    assert mine["my_score"] == 3 and mine["their_score"] == 0
    assert theirs["my_score"] == 0 and theirs["their_score"] == 3
    assert mine["my_marks"][0].all() and theirs["their_marks"][0].all()
    assert not mine["pro"]


def recount(rows: int, cols: int, pro: bool, moves: list[int]) -> list[int]:
    """Independent scorer: replays moves with a naive line scan."""
    lines = [[(r, c) for c in range(cols)] for r in range(rows)] + [[(r, c) for r in range(rows)] for c in range(cols)]
    if pro:
        for d in range(-cols, rows):
            lines.append([(r, r - d) for r in range(rows) if 0 <= r - d < cols])
        for s in range(rows + cols):
            lines.append([(r, s - r) for r in range(rows) if 0 <= s - r < cols])
        lines = [l for l in lines[: rows + cols]] + [l for l in lines[rows + cols:] if len(l) >= 3]
    black, points, player = set(), [0, 0], 0
    for move in moves:
        cell = divmod(move, cols)
        black.add(cell)
        gained = sum(len(l) for l in lines if cell in l and all(x in black for x in l))
        points[player] += gained
        if not gained:
            player = 1 - player
    return points


def test_thousands_of_random_games_keep_the_invariants():
    rng = random.Random(2024)
    for index in range(2000):
        rows, cols, pro = rng.randint(3, 7), rng.randint(3, 7), rng.random() < 0.5
        g = new_game(rows=rows, cols=cols, pro=pro)
        moves = []
        while not g.is_terminal():
            legal = g.legal_actions()
            assert legal, "the player to move always has a white square"
            assert legal == [c for c in range(rows * cols) if not g.black[c]]
            moves.append(rng.choice(legal))
            g.apply(moves[-1])
            assert len(moves) <= rows * cols
        assert len(moves) == rows * cols
        assert g.points == recount(rows, cols, pro, moves)
        assert sum(g.points) == geometry(rows, cols, pro).total_points


def test_random_games_through_the_env_keep_masks_honest():
    rng = random.Random(7)
    for index in range(300):
        env = linecatch_v0.raw_env(rows=rng.randint(3, 6), cols=rng.randint(3, 6), pro=index % 2 == 0)
        env.reset(seed=index)
        while not env.game.is_terminal():
            actor = env.agent_selection
            obs = env.observe(actor)
            other = env.observe(next(a for a in env.agents if a != actor))
            assert obs["action_mask"].sum() > 0 and other["action_mask"].sum() == 0
            assert np.array_equal(obs["action_mask"], 1 - obs["observation"][: len(obs["action_mask"])].astype(np.int8))
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        total = sum(env.game.scores())
        assert total == env.unwrapped.observer.geo.total_points


def test_observer_decode_roundtrips_the_state():
    g = new_game(rows=4, cols=5, pro=True)
    rng = random.Random(3)
    for _ in range(9):
        g.apply(rng.choice(g.legal_actions()))
    obs = LinecatchObserver(g.options).observe(g, 1)
    seen = LinecatchObserver(g.options).decode(obs)
    assert seen["black"].ravel().tolist() == [bool(b) for b in g.black]
    assert seen["my_score"] == g.points[1] and seen["their_score"] == g.points[0]
    assert seen["pro"]


def test_observation_prices_every_square_like_an_independent_count():
    rng = random.Random(12)
    for index in range(200):
        rows, cols, pro = rng.randint(3, 6), rng.randint(3, 6), rng.random() < 0.5
        g = new_game(rows=rows, cols=cols, pro=pro)
        for _ in range(rng.randrange(0, rows * cols)):
            g.apply(rng.choice(g.legal_actions()))
        seen = LinecatchObserver(g.options).decode(LinecatchObserver(g.options).observe(g, 0))
        for cell in range(rows * cols):
            r, c = divmod(cell, cols)
            if g.black[cell]:
                assert seen["catch_now"][r, c] == 0 and seen["hands_over"][r, c] == 0
                continue
            catch = sum(len(line) for line in g.geo.lines if cell in line and sum(not g.black[x] for x in line) == 1)
            hand = sum(len(line) for line in g.geo.lines if cell in line and sum(not g.black[x] for x in line) == 2)
            assert seen["catch_now"][r, c] == catch
            assert seen["hands_over"][r, c] == hand
