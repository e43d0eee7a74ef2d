"""What a newcomer sees: pictures with coordinates, a seat key, whose turn, the result and a
legend; text boards with a legend; only the viewer's hidden items; terminal play's rules and
sentences; the refusal of a trap out of its phase."""

from __future__ import annotations

import random

import numpy as np
import pytest

import envs.fill_v0 as fill_module
from envs import fill_v0
from envs.core.render import PAPER, SEAT_COLOURS
from envs.fill import render, terminal
from envs.fill.positions import position
from envs.fill.render import BOARD_PX
from envs.fill.rules import FILL, FillGame
from tests.fill.helpers import settle

OPEN = ". . . . . .\n. # # . . .\n" + ". . . . . .\n" * 4


def played(options: dict, seed: int, steps: int | None = None) -> FillGame:
    game = settle(FillGame(FillGame.resolve_options(options)), random.Random(seed))
    rng = random.Random(seed)
    while not game.is_terminal() and (steps is None or steps > 0):
        game.apply(rng.choice(game.legal_actions()))
        settle(game, rng)
        steps = None if steps is None else steps - 1
    return game


def colour_pixels(picture: np.ndarray, colour, box) -> int:
    x0, y0, x1, y1 = box
    return int(np.all(picture[y0:y1, x0:x1] == colour, axis=-1).sum())


@pytest.mark.parametrize("size", [6, 7, 8])
def test_pictures_are_wide_enough_and_draw_the_coordinates(size):
    game = played({"size": size, "traps": True, "gems": True, "rocks": True}, seed=size, steps=6)
    picture = render.rgb(game, (0,))
    assert picture.dtype == np.uint8 and picture.shape[1] >= 480 and picture.shape[0] >= 400
    cell = BOARD_PX // size
    # a column letter above each column and a row number left of each row
    for c in range(size):
        x = 40 + c * cell + cell // 2
        assert (picture[22:42, x - 8:x + 8] != PAPER).any(axis=-1).any()
    for r in range(size):
        y = 44 + r * cell + cell // 2
        assert (picture[y - 9:y + 9, 4:32] != PAPER).any(axis=-1).any()


def test_the_finished_picture_names_the_winner_and_the_running_one_whose_turn():
    finished = played({"traps": True}, seed=1)
    assert finished.is_terminal()
    panel = (40 + BOARD_PX + 28, 50, 40 + BOARD_PX + 28 + 330, 140)
    end = render.rgb(finished, ())
    assert colour_pixels(end, SEAT_COLOURS[finished.winner], panel) > 300  # "player_N wins", large
    running = played({"traps": True}, seed=1, steps=5)
    middle = render.rgb(running, ())
    assert colour_pixels(middle, SEAT_COLOURS[running.to_move], panel) > 50  # "player_N to act"
    assert colour_pixels(middle, SEAT_COLOURS[running.to_move], panel) < colour_pixels(end, SEAT_COLOURS[finished.winner], panel)
    text = render.ansi(finished, ())
    assert f"game over: player_{finished.winner} wins" in text and "scores" in text


def test_no_hidden_item_of_another_seat_reaches_a_seats_picture():
    game = position(OPEN, traps=True)
    game.apply(game.string_to_action("trap a1"))  # player_1's trap
    elsewhere = position(OPEN, traps=True)
    elsewhere.apply(elsewhere.string_to_action("trap f6"))
    untrapped = position(OPEN, traps=True)
    untrapped.apply(untrapped.n + 6)  # no-trap
    for g in (game, elsewhere, untrapped):
        g.apply(g.string_to_action("d3"))  # player_1 fills: player_0 to act, player_1's trap live
    pictures = [render.rgb(g, (0,)) for g in (game, elsewhere)]
    texts = [render.ansi(g, (0,)) for g in (game, elsewhere, untrapped)]
    assert np.array_equal(pictures[0], pictures[1])
    assert texts[0] == texts[1]  # (the untrapped one differs only in player_1's spent trap: not shown)
    assert texts[2] == texts[0]
    assert not np.array_equal(render.rgb(game, (1,)), render.rgb(elsewhere, (1,)))  # the setter sees it
    assert not np.array_equal(render.rgb(game, ()), render.rgb(game, (1,)))
    assert np.array_equal(render.rgb(game, ()), render.rgb(elsewhere, ()))


def test_text_boards_have_a_legend_of_their_symbols():
    game = played({"gems": True, "rocks": True, "traps": True}, seed=2, steps=4)
    text = render.ansi(game, (0, 1))
    legend = text.splitlines()[-1]
    assert legend.startswith("legend: ")
    for words in ("# filled", "R rock", "□ live", "× poisoned", "· other empty", "D/P/T gem"):
        assert words in legend


def test_gems_are_drawn_inside_the_live_square_not_over_it():
    game = position(". . . . D .\n. # # . . .\n" + ". . . . . .\n" * 4, gems=True)
    e1 = game.string_to_action("e1")
    game.apply(game.string_to_action("d1"))  # now e1 (the gem) touches a filled cell: it is live
    assert e1 in game.legal_cells()
    picture = render.rgb(game, ())
    cell = BOARD_PX // 6
    x0, y0 = 40 + 4 * cell, 44
    inset = cell // 7
    ring = picture[y0 + inset + 1, x0 + cell // 2]  # the live square's top edge, above the gem
    assert tuple(ring) == render.LIVE


def test_terminal_play_has_rules_and_says_what_moves_did():
    assert fill_module.GAME.play.rules_summary == terminal.RULES_SUMMARY and "2x2" in terminal.RULES_SUMMARY
    game = position(". . . . D .\n. # # . . .\n" + ". . . . . .\n" * 4, gems=True, traps=True)
    trap = game.string_to_action("trap a1")
    after = game.clone()
    after.apply(trap)
    assert terminal.narrate(game, trap, after, viewer=1) == "you set a trap on a1 (only you know it)"
    assert terminal.narrate(game, trap, after, viewer=0) is None  # the opponent learns nothing
    before, fill = after, after.string_to_action("d1")
    after = before.clone()
    after.apply(fill)
    line = terminal.narrate(before, fill, after, viewer=0)
    assert line.startswith("player_1 filled d1") and "poisoning a2" not in line
    before = after
    before.apply(before.n + 6)  # player_0: no-trap
    a1 = before.string_to_action("a1")
    cancelled = before.clone()
    cancelled.apply(a1)  # player_0 fills player_1's trap with plenty of cells legal
    assert "player_1's trap was there" in terminal.narrate(before, a1, cancelled, viewer=0)
    collect = position(". . . D . .\n. # # . . .\n" + ". . . . . .\n" * 4, gems=True)
    d1 = collect.string_to_action("d1")
    done = collect.clone()
    done.apply(d1)
    assert "collecting a Double token" in terminal.narrate(collect, d1, done, viewer=0)


def test_a_trap_typed_during_the_fill_phase_says_when_traps_are_set():
    game = position(OPEN, traps=True)
    game.apply(game.n + 6)  # no-trap: now the fill phase
    assert game.phase == FILL
    with pytest.raises(ValueError, match="traps are set in the trap phase, before you fill"):
        game.string_to_action("trap a1")
    with pytest.raises(ValueError, match="without traps"):
        position(OPEN).string_to_action("trap a1")
    trapping = position(OPEN, traps=True)
    assert trapping.string_to_action("trap a1") == 0  # in the trap phase it is the move


def test_the_module_help_opens_with_a_one_line_summary():
    first = fill_module.__doc__.strip().splitlines()[0]
    assert first.startswith("Fill") and not first.startswith("#") and len(first) < 100
    env = fill_v0.raw_env(render_mode="rgb_array", viewer="player_0")
    env.reset(seed=0)
    assert env.render().shape[1] >= 480
