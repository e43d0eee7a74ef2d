"""What a newcomer sees of Uzor: pictures and text boards (coordinates, the key, whose turn, the
result, only the viewer's own secret goal), what terminal play says about each move, the rules
summary, the module's help and the game's page."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

import envs.uzor_v0 as uzor_v0
from envs.core.render import PAPER
from envs.uzor import render
from envs.uzor.rules import UzorGame
from tests.uzor.util import dealt, draw, place, position, step, tile, tiles

ROOT = Path(__file__).resolve().parents[2]


def played(size: int, steps: int | None, seed: int = 3) -> UzorGame:
    """A game of random play after ``steps`` player actions (None: to the end)."""
    game = dealt({"board_size": size}, seed)
    rng = random.Random(seed)
    count = 0
    while not game.is_terminal() and (steps is None or count < steps):
        legal = game.legal_actions()
        step(game, rng.choice(legal[:-1] if game.phase == 1 and rng.random() < 0.7 else legal), rng)
        count += 1
    return game


@pytest.mark.parametrize("size", [9, 21, 31])
def test_the_picture_is_wide_enough_and_draws_coordinates_and_the_result(size):
    middle, end = played(size, 40), played(size, None)
    for game in (middle, end):
        image = render.rgb(game, ())
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.shape[1] >= 480
    image = render.rgb(middle, ())
    cell = max(18, min(32, 640 // size))
    top, margin = 56, 30
    letters = image[top - 16:top - 2, margin:margin + size * cell]
    numbers = image[top:top + size * cell, 4:margin - 4]
    assert (letters != PAPER).any(axis=2).sum() > 4 * size  # a letter over every column
    assert (numbers != PAPER).any(axis=2).sum() > 4 * size  # a number beside every row
    title = slice(0, 28)
    assert not np.array_equal(render.rgb(end, ())[title], image[title])  # the result line
    assert render.status(end).startswith("game over: player_0 ") and ("wins" in render.status(end)
                                                                      or "draw" in render.status(end))


def test_a_seat_sees_its_own_goal_and_never_the_other_seats():
    game = played(11, 30)
    other_goal = game.clone()
    other_goal.goals[1] = next(g for g in range(15) if g not in game.goals)
    own_goal = game.clone()
    own_goal.goals[0] = next(g for g in range(15) if g not in game.goals)
    for picture in (render.rgb, render.ansi):
        assert np.array_equal(np.asarray(picture(game, (0,))), np.asarray(picture(other_goal, (0,))))
        assert not np.array_equal(np.asarray(picture(game, (0,))), np.asarray(picture(own_goal, (0,))))
        for twin in (other_goal, own_goal):  # a spectator sees no goal at all
            assert np.array_equal(np.asarray(picture(game, ())), np.asarray(picture(twin, ())))
    name = game.geo.map.names[game.goals[0]]
    assert f"player_0's secret goal: {name}" in render.ansi(game, (0,))
    assert "secret goal" not in render.ansi(game, ())


def test_the_text_board_has_a_legend_coordinates_and_the_turn():
    game = played(9, 25)
    text = render.ansi(game, ())
    lines = text.splitlines()
    assert lines[-1].startswith("tiles: motif C cedar") and "## stone" in lines[-1]
    assert re.search(r"^\s+a\s+b\s+c", lines[1]) or re.search(r"^\s+[a-i](\s+[a-i])+", lines[1])
    assert "<- to move" in text and render.status(game) in text
    end = played(9, None)
    assert render.result(end) in render.ansi(end, ())


def test_pictures_show_the_map_with_who_closed_what():
    game = played(9, 80)
    assert game.closed
    owners = {k: p for p, k, _ in game.closed}
    text = render.ansi(game, ())
    for k, p in owners.items():
        assert f"~{game.geo.map.names[k]}~(p{p})" in text


# ----- terminal play ---------------------------------------------------------------------------

def test_narration_says_what_each_move_did():
    table = {**draw("Ca Cm", top=4, left=4), 4 * 9 + 6 - 9: tile("Sr"), 4 * 9 + 6 + 9: tile("Wr")}
    game = position(table, tiles("Cr", "Xi"), goals=(3, 14), hand1=tiles("Xi", "Xi", "Xe", "Xe", "Xe"))
    said = []

    def play(text):
        before = game.clone()
        action = game.string_to_action(text)
        game.apply(action)
        said.append(render.narrate(before, action, game, 0))
        while game.is_chance_node():
            before = game.clone()
            outcome = game.chance_outcomes()[0][0]
            game.apply(outcome)
            said.append(render.narrate(before, outcome, game, 0))

    play("place cedar/crimson @ g5")
    play("close Flow-3")
    play("take 0")
    assert said[0] == "player_0 places cedar/crimson at g5, completing Line-3 and Flow-3"
    assert said[1] == "player_0 closes Flow-3 for 4 points (their secret goal: double); its tiles become stones"
    assert said[2].startswith("player_0 takes ") and "from market slot 0" in said[2]
    assert said[3].startswith("the market's slot 0 refills with ")
    continuing = position(draw("Ca Cr", top=4, left=4), tiles("Ce", "Cm", "Ci", "Wm"), hand1=tiles("Xi", "Xi", "Xe", "Xe", "Xe"))
    place(continuing, tile("Ce"), "g5")
    before = continuing.clone()
    continuing.apply(continuing.geo.cont)
    assert render.narrate(before, continuing.geo.cont, continuing, 1) == \
        "player_0 continues: no points now, another turn follows"
    stuck = position(draw("Ca", top=4, left=4), tiles("Sr", "Se", "Sm", "Si", "Wr"))
    before = stuck.clone()
    stuck.apply(stuck.string_to_action("discard 0"))
    assert render.narrate(before, stuck.geo.discard0, stuck, 1) == \
        "player_0 cannot place: discards sun/crimson face up to the bottom of the supply"
    fresh = UzorGame(UzorGame.resolve_options({}))
    assert render.narrate(fresh, 25, fresh, 0) is None  # a secret goal dealt: nothing to say


def test_terminal_play_has_the_rules_the_narration_and_your_goal():
    rules = uzor_v0.GAME.play
    assert "place cedar/azure @ h8" in rules.rules_summary and "secret goal" in rules.rules_summary
    assert rules.narrate is render.narrate
    env = uzor_v0.raw_env(board_size=9, render_mode="ansi", viewer=1)  # as terminal play makes it
    env.reset(seed=2)
    board = env.render()
    assert f"player_1's secret goal: {env.game.geo.map.names[env.game.goals[1]]}" in board
    assert "player_0's secret goal" not in board


def test_help_opens_with_a_one_line_summary():
    first = uzor_v0.__doc__.splitlines()[0]
    assert first.startswith("Uzor: ") and not first.startswith("#") and len(first) < 110


def test_the_page_covers_the_whole_game():
    # (that it points at nothing outside the project is tests/docs/test_standalone.py's to check)
    text = (ROOT / "docs" / "uzor.md").read_text()
    for section in ("## Rules, in a player's words", "## The Map", "## Options", "## Chance", "## Actions and notation",
                    "## Observations", "## Snapshots", "## Sampling", "## Pictures and terminal play", "## Bots",
                    "## Decisions where the rules are silent"):
        assert section in text


@pytest.mark.parametrize("size", [9, 21, 31])
def test_the_coordinates_are_dark_and_large_enough_to_read(size):
    """Column letters and row numbers in a dark ink (not the faint grid colour), each letter at
    least 9 pixels tall: readable on the README's picture."""
    image = render.rgb(played(size, 40), ())
    cell = max(18, min(32, 640 // size))
    top, margin = 56, 30
    letters = image[top - 22:top - 1, margin:margin + size * cell].astype(int)
    numbers = image[top:top + size * cell, 2:margin - 2].astype(int)
    for band in (letters, numbers):
        assert band.sum(axis=2).min() < 3 * 110  # ink, not GRID grey (160, 155, 145)
    ink_rows = np.flatnonzero((letters.sum(axis=2) < 3 * 170).any(axis=1))
    assert ink_rows.max() - ink_rows.min() + 1 >= 9  # letters tall enough (b, d, l rise above x-height)
