"""Loom pictures, text boards and terminal-play sentences: coordinates in the notation's terms,
the seat key and turn marker, the final scores and the winner; Loom hides nothing, so every
viewer gets the same picture."""

from __future__ import annotations

import random

import numpy as np

from envs import loom_v0
from envs.core.render import PAPER, SEAT_COLOURS
from envs.loom import render
from envs.loom.rules import LoomGame
from tests.loom.util import random_play

CELL, MARGIN, LABEL, GAP, TOP = 64, 20, 24, 56, 34 + 30 + 22  # the picture's geometry (render.rgb)


def game_after(moves: int, seed: int = 0, **options) -> LoomGame:
    return random_play(LoomGame(LoomGame.resolve_options(options)), random.Random(seed), moves=moves)


def cloth_left(player: int) -> int:
    return MARGIN + LABEL + player * (LABEL + 4 * CELL + GAP)


def has_colour(region: np.ndarray, colour) -> bool:
    return bool(np.all(region == np.array(colour, np.uint8), axis=-1).any())


def test_the_picture_is_wide_enough_and_the_same_for_every_viewer():
    game = game_after(11, 1)
    picture = render.rgb(game, ())
    assert picture.dtype == np.uint8 and picture.shape[2] == 3
    assert picture.shape[1] >= 480 and picture.shape[0] >= 400
    for seats in ((0,), (1,), (0, 1)):
        assert np.array_equal(render.rgb(game, seats), picture)
        assert render.ansi(game, seats) == render.ansi(game, ())
    env = loom_v0.raw_env(render_mode="rgb_array", viewer="player_1")
    env.reset(seed=2)
    assert np.array_equal(env.render(), render.rgb(env.game, ()))


def test_coordinates_are_drawn_beside_both_cloths():
    picture = render.rgb(game_after(0), ())
    paper = np.array(PAPER, np.uint8)
    for player in (0, 1):
        left = cloth_left(player)
        for c in range(4):  # a column letter above each column
            letters = picture[TOP - 22:TOP - 2, left + c * CELL + 20:left + c * CELL + 44]
            assert (letters != paper).any(axis=-1).sum() > 10
        for r in range(4):  # a row number left of each row
            numbers = picture[TOP + r * CELL + 20:TOP + r * CELL + 44, left - LABEL:left - 4]
            assert (numbers != paper).any(axis=-1).sum() > 10
        # an empty cloth's cells are paper inside
        assert np.all(picture[TOP + 10:TOP + 50, left + 10:left + 50] == paper)


def test_the_key_marks_whose_turn_it_is():
    game = game_after(3, 4)  # round 1: player_1 drafts... or the leftover: whoever acts now
    actor = game.current_player()
    picture = render.rgb(game, ())
    for player in (0, 1):
        left = cloth_left(player)
        key = picture[34:56, left:left + 4 * CELL]
        assert has_colour(key[:, :18], SEAT_COLOURS[player])  # the seat's swatch
        marked = has_colour(key[:, 140:], SEAT_COLOURS[player])  # the "to act" arrow and words
        assert marked == (player == actor)
    assert f">player_{actor}" in render.ansi(game)


def test_a_finished_game_shows_the_final_scores_and_the_winner():
    unfinished, finished = game_after(31, 7), game_after(32, 7)
    assert finished.is_terminal()
    band = slice(TOP + 4 * CELL + 18, TOP + 4 * CELL + 54)
    winner = 0 if finished.points[0] > finished.points[1] else 1
    assert finished.points[0] != finished.points[1]
    assert has_colour(render.rgb(finished, ())[band], SEAT_COLOURS[winner])
    assert not has_colour(render.rgb(unfinished, ())[band], SEAT_COLOURS[winner])
    assert not np.array_equal(render.rgb(finished, ())[band], render.rgb(unfinished, ())[band])
    text = render.ansi(finished)
    assert f"final: player_0 {finished.points[0]}, player_1 {finished.points[1]}: player_{winner} wins" in text
    assert "player_" in render.status(unfinished) and "round 16/16" in render.status(unfinished)


def test_a_drawn_game_says_so():
    # Doubles only and the same weaves in both cloths: the cloths end equal.
    game = LoomGame(LoomGame.resolve_options({"throws": [(k % 6 + 1,) * 2 for k in range(16)]}))
    rng = random.Random(0)
    while not game.is_terminal():
        if game.is_chance_node():
            game.apply(game.legal_actions()[0])
            continue
        if game.taken < 0:
            action = rng.choice(game.legal_actions())
            cell = action % 16
        game.apply(action if game.taken < 0 else 16 + cell)
    assert game.points[0] == game.points[1]
    assert render.result(game).endswith("a draw")
    assert "a draw" in render.ansi(game)


def test_the_text_board_has_coordinates_and_a_legend():
    text = render.ansi(game_after(5, 2))
    lines = text.splitlines()
    assert lines[1].split() == ["a", "b", "c", "d", "a", "b", "c", "d"]
    assert [line.split()[0] for line in lines[2:6]] == ["1", "2", "3", "4"]
    assert "5@b3" in lines[-1] and "dyes" in lines[-1] and ". an empty cell" in lines[-1]


def test_a_chance_node_renders_in_the_engine():
    game = LoomGame(LoomGame.resolve_options({}))
    assert "about to throw" in render.status(game) and "about to throw" in render.ansi(game)
    assert render.rgb(game, ()).shape[1] >= 480


def test_narration_says_what_a_move_did():
    game = LoomGame(LoomGame.resolve_options({"throws": [(1, 2), (3, 4), (1, 2), (3, 4)] + [(5, 6)] * 12}))
    play = loom_v0.GAME.play
    lines = []
    for move in ("throw 1 2", "1@a1", "2@a4", "throw 3 4", "3@d4", "4@b1", "throw 1 2", "2@c1", "1@d3",
                 "throw 3 4", "4@c4", "3@d1"):
        before = game.clone()
        action = game.string_to_action(move)
        game.apply(action)
        lines.append(play.narrate(before, action, game, 0))
    assert lines[0] == "the shuttle throws 1 and 2"
    assert lines[1] == "player_0 drafts 1 into a1, leaving 2 to player_1: +2 (1 is new in row 1: +1; 1 is new in column a: +1)"
    assert lines[5] == "player_0 weaves the leftover 4 into b1: +8 (4 is new in row 1: +4; 4 is new in column b: +4)"
    assert lines[-1] == ("player_0 weaves the leftover 3 into d1: +14 (3 is new in row 1: +3, four different dyes: "
                         "bounty +8; 3 is new in column d: +3)")
    assert "5@b3" in play.rules_summary and "Touching law" in play.rules_summary


def test_the_module_help_opens_with_a_summary_and_the_docs_stand_alone():
    from pathlib import Path

    first = loom_v0.__doc__.strip().splitlines()[0]
    assert first.startswith("Loom: ") and not first.startswith("#")
    for method in ("why_illegal", "action_to_string", "string_to_action", "chance_outcomes", "state_dict"):
        assert getattr(LoomGame, method).__doc__, method
    page = (Path(__file__).resolve().parents[2] / "docs" / "loom.md").read_text()
    for word in ("shared/", "seed 00", "issue ", "session", "the bar", "seeds"):
        assert word not in page.lower(), word
    for option in LoomGame.OPTIONS:
        assert f"`{option}`" in page
