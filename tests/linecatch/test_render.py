"""What a newcomer sees: pictures, the text board, the words of terminal play, the module help."""

from __future__ import annotations

import pydoc
import random
import re
from pathlib import Path

import numpy as np
import pytest

import envs.linecatch_v0
from envs import linecatch_v0
from envs.core.render import INK, LAST_MOVE, PAPER, SEAT_COLOURS, LastMove
from envs.linecatch.render import BLACK_SQUARE, LEGEND, RULES_SUMMARY, ansi, layout, narrate, rgb, status
from envs.linecatch.rules import LinecatchGame

ROOT = Path(__file__).resolve().parents[2]


def played(moves, seed=2, **options) -> LinecatchGame:
    game = LinecatchGame(LinecatchGame.resolve_options(options))
    rng = random.Random(seed)
    if isinstance(moves, str):
        for name in moves.split():
            game.apply(game.string_to_action(name))
    else:
        for _ in range(moves):
            game.apply(rng.choice(game.legal_actions()))
    return game


def has_colour(region: np.ndarray, colour) -> bool:
    return bool(np.all(region == np.asarray(colour, np.uint8), axis=-1).any())


@pytest.mark.parametrize("options", [{"rows": 3, "cols": 3}, {}, {"rows": 12, "cols": 12, "pro": True},
                                     {"rows": 3, "cols": 12}, {"rows": 12, "cols": 3}])
def test_pictures_are_wide_enough_and_show_the_board(options):
    game = played(7, **options)
    picture = rgb(game)
    place = layout(game.geo)
    assert picture.dtype == np.uint8 and picture.shape == (place["height"], place["width"], 3)
    assert place["width"] >= 480
    env = linecatch_v0.raw_env(render_mode="rgb_array", **options)
    env.reset(seed=0)
    assert env.render().shape[1] >= 480


def test_coordinates_are_drawn_beside_every_row_and_over_every_column():
    game = played(0, rows=4, cols=6)
    picture, place = rgb(game), layout(game.geo)
    left, top, cell = place["left"], place["top"], place["cell"]
    for r in range(4):  # row numbers in the margin left of each row
        band = picture[top + r * cell + 4: top + (r + 1) * cell - 4, max(0, left - 30): left - 2]
        assert has_colour(band, INK), f"row {r + 1}"
    for c in range(6):  # column letters above each column
        band = picture[top - 28: top - 2, left + c * cell + 4: left + (c + 1) * cell - 4]
        assert has_colour(band, INK), f"column {c}"
    # Different boards, different letters: a 3-column board has no letter over where d would be.
    assert status(game) == "player_0 to move"


def test_the_key_the_turn_and_the_result_line():
    running, finished = played(9), played(25)
    assert not running.is_terminal() and finished.is_terminal()
    for game in (running, finished):
        key = rgb(game)[:layout(game.geo)["top"] - 30]
        assert has_colour(key, SEAT_COLOURS[0]) and has_colour(key, SEAT_COLOURS[1])
    place = layout(running.geo)
    strip = slice(place["status_top"], place["legend_top"])  # the status line, above the legend
    mover = running.current_player()
    assert has_colour(rgb(running)[strip], SEAT_COLOURS[mover])
    assert not has_colour(rgb(running)[strip], SEAT_COLOURS[1 - mover])
    winner = int(np.argmax(finished.points))
    assert finished.points[0] != finished.points[1]
    end = rgb(finished)[strip]
    assert has_colour(end, SEAT_COLOURS[winner]) and not has_colour(end, SEAT_COLOURS[1 - winner])
    assert status(finished) == f"game over: player_{winner} wins {max(finished.points)} to {min(finished.points)}"
    # The result line is drawn: the same board unfinished (one square taken back) differs there.
    before = LinecatchGame.from_snapshot(played(24).snapshot())
    assert not np.array_equal(rgb(before)[strip], end)


def test_the_legend_explains_the_catch_marks_and_the_last_move():
    """Under the board: each seat's catch mark drawn on a black square, with words saying what a
    mark means; then the last move's frame and its notation (nothing when there is none)."""
    game = played("a1 b1", rows=3, cols=3)
    place = layout(game.geo)
    first = slice(place["legend_top"], place["legend_top"] + 22)
    second = slice(place["legend_top"] + 22, place["height"])
    plain = rgb(game)
    key = plain[first]
    for colour in (BLACK_SQUARE, SEAT_COLOURS[0], SEAT_COLOURS[1], INK):
        assert has_colour(key, colour), colour
    assert np.all(plain[second] == np.asarray(PAPER, np.uint8))  # no last move: nothing drawn
    before = played("a1", rows=3, cols=3)
    last = LastMove(before.current_player(), before.string_to_action("b1"), before)
    marked = rgb(game, (), last)
    assert has_colour(marked[second], LAST_MOVE) and has_colour(marked[second], INK)
    assert np.array_equal(marked[first], key)


def test_a_draw_is_named():
    game = played("a1 b1 c1 b2 a2 c2 a3 b3 c3", rows=3, cols=3)
    assert game.is_terminal()
    if game.points[0] == game.points[1]:
        assert status(game).startswith("game over: a draw")
    # A drawn finished snapshot, whatever the line above played to.
    drawn = {"game": "linecatch_v0", "version": 1, "options": {"rows": 3, "cols": 3, "pro": False},
             "state": {"black": [1] * 9, "marks": [0, 0, 0, 0, 1, 1, 0, 1, 1], "scores": [9, 9], "to_move": 0}}
    assert status(LinecatchGame.from_snapshot(drawn)) == "game over: a draw, 9 to 9"


def test_every_viewer_sees_the_same_picture_nothing_is_hidden():
    game = played(13, pro=True)
    assert np.array_equal(rgb(game, ()), rgb(game, (0,))) and np.array_equal(rgb(game, ()), rgb(game, (1,)))
    assert ansi(game, ()) == ansi(game, (0,)) == ansi(game, (0, 1))
    texts, pictures = set(), []
    for viewer in (None, 0, "player_1", "all"):
        for mode in ("ansi", "rgb_array"):
            env = linecatch_v0.raw_env(render_mode=mode, viewer=viewer)
            env.reset(seed=0)
            env.step(3)
            if mode == "ansi":
                texts.add(env.render())
            else:
                pictures.append(env.render())
    assert len(texts) == 1 and all(np.array_equal(p, pictures[0]) for p in pictures)
    assert texts.pop().splitlines()[-1] == LEGEND


def test_the_text_board_has_coordinates_a_status_and_a_legend():
    game = played("a1 b1 c1", rows=3, cols=4)
    lines = ansi(game).splitlines()
    assert lines[0].split() == ["a", "b", "c", "d"]
    assert [line.split()[0] for line in lines[1:4]] == ["1", "2", "3"]
    assert lines[1].split()[1:] == ["#", "#", "#", "."]
    assert "player_1 to move" in lines[4] and "player_0 (x) 0" in lines[4]
    assert lines[5] == LEGEND and all(symbol in LEGEND for symbol in (".", "#", "x", "o"))
    assert "wins" in ansi(played(12, rows=3, cols=4)).splitlines()[-2]


def test_narration_says_what_a_move_did():
    game = played("a1 b2", rows=3, cols=3, pro=True)
    before = game.clone()
    game.apply(game.string_to_action("a3"))
    assert narrate(before, before.string_to_action("a3"), game, 1) == (
        "player_0 blackened a3, leaving column a and diagonal c1-a3 one square short for player_1")
    game.apply(game.string_to_action("b3"))
    before = game.clone()
    game.apply(game.string_to_action("c3"))
    assert narrate(before, before.string_to_action("c3"), game, 0) == (
        "player_0 (you) blackened c3 and caught row 3 and diagonal a1-c3: 6 points (now 6), and moves again")
    quiet = played(0, rows=5, cols=5)
    after = quiet.clone()
    after.apply(12)
    assert narrate(quiet, 12, after, 0) is None
    last = played(24)
    end = last.clone()
    action = end.legal_actions()[0]
    end.apply(action)
    assert narrate(last, action, end, 1).endswith("the board is full")
    assert linecatch_v0.GAME.play.narrate is narrate


def test_rules_summary_and_module_help():
    assert linecatch_v0.GAME.play.rules_summary == RULES_SUMMARY
    assert "a1" in RULES_SUMMARY and "pro" in RULES_SUMMARY and len(RULES_SUMMARY.splitlines()) <= 8
    page = pydoc.render_doc(envs.linecatch_v0, renderer=pydoc.plaintext)
    summary = re.search(r"envs\.linecatch_v0 - (.*)", page).group(1)
    assert summary.startswith("Linecatch: ") and "#" not in summary


def test_the_docs_stand_alone():
    text = (ROOT / "docs" / "linecatch.md").read_text()
    for word in ("shared/", "seed 00", "issue", "session", "the bar", "spec:"):
        assert word not in text.lower(), word
    for option in ("rows", "cols", "pro"):
        assert f"`{option}`" in text
    for name in ("snapshot", "planes", "chance", "notation", "why_illegal"):
        assert name in text.lower(), name
