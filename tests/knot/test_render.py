"""Knot pictures, text boards and terminal-play sentences: coordinates clear of the bands, the
seat key and turn marker, the final scores and the winner, the legend, and no hidden item of
another seat in a seat's view (a spectator sees no hand)."""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path

import numpy as np
import pytest

from envs import knot_v0
from envs.core.game import CHANCE, draw_outcome
from envs.core.render import PAPER, SEAT_COLOURS
from envs.knot import render, terminal
from envs.knot.geometry import KINDS
from envs.knot.options import HAND_SIZE
from envs.knot.rules import KnotGame
from tests.knot.helpers import act, new_game, play_randomly, position, random_step

CELL = 64


def game_after(options, seed, steps=None):
    game = play_randomly(new_game(options, seed), random.Random(seed), steps)
    while game.current_player() == CHANCE:
        random_step(game, random.Random(seed))
    return game


def has_colour(region: np.ndarray, colour, tolerance: int = 0) -> bool:
    return bool((np.abs(region.astype(int) - np.array(colour)).sum(axis=-1) <= tolerance).any())


def ink(region: np.ndarray) -> int:
    return int((region != np.array(PAPER, np.uint8)).any(axis=-1).sum())


@pytest.mark.parametrize("options", [{}, {"players": 3}, {"players": 4}, {"size": 4}], ids=str)
def test_the_picture_is_wide_and_its_coordinates_stand_clear_of_the_bands(options):
    game = game_after(options, 2)  # a finished game: bands everywhere, edge loops included
    picture = render.rgb(game, ())
    size = game.size
    ox, oy = render.board_origin(CELL)
    board = size * CELL
    assert picture.dtype == np.uint8 and picture.shape[2] == 3
    assert picture.shape[1] >= 480 and picture.shape[0] > oy + board
    for c in range(size):  # a letter above and below each column, on paper: no band reaches it
        for top in (2, oy + board + render.MARGIN - 20):
            letters = picture[top:top + 18, ox + c * CELL + 20:ox + c * CELL + 44]
            assert ink(letters) > 10
            assert not any(has_colour(letters, colour, 60) for colour in SEAT_COLOURS[:game.n_players])
    for r in range(size):  # a number left and right of each row
        for left in (2, ox + board + render.MARGIN - 24):
            numbers = picture[oy + r * CELL + 20:oy + r * CELL + 44, left:left + 22]
            assert ink(numbers) > 10
            assert not any(has_colour(numbers, colour, 60) for colour in SEAT_COLOURS[:game.n_players])


def test_the_key_marks_each_seats_colour_and_whose_turn_it_is():
    game = game_after({"players": 3}, 5, 40)
    actor = game.current_player()
    picture = render.rgb(game, ())
    ox, oy = render.board_origin(CELL)
    top = oy + game.size * CELL + render.MARGIN + 4
    for p in range(3):
        row = picture[top + p * render.KEY_LINE - 2:top + p * render.KEY_LINE + 17, render.MARGIN - 4:render.MARGIN + 19]
        assert has_colour(row, SEAT_COLOURS[p])
        ring = row[0, :]  # the frame's top edge is drawn only round the seat to act
        assert (ink(ring[None]) > 15) == (p == actor)
    assert f">player_{actor}:" in render.ansi(game, ())


def test_a_finished_game_shows_the_final_scores_and_the_winner():
    for seed in range(20):
        unfinished = game_after({}, seed, 150)
        finished = game_after({}, seed)
        scores = finished.scores()
        if scores[0] != scores[1] and not unfinished.is_terminal():
            break
    winner = int(scores[1] > scores[0])
    ox, oy = render.board_origin(CELL)
    band = slice(oy + finished.size * CELL + render.MARGIN + 4 + 3 * render.KEY_LINE,
                 oy + finished.size * CELL + render.MARGIN + 4 + 4 * render.KEY_LINE)
    done, going = render.rgb(finished, ()), render.rgb(unfinished, ())
    assert has_colour(done[band, :render.MARGIN + 20], SEAT_COLOURS[winner])
    assert not has_colour(going[band, :render.MARGIN + 20], SEAT_COLOURS[winner])
    assert not np.array_equal(done[band], going[band])
    text = render.ansi(finished, ())
    expected = f"final: player_0 {scores[0]}, player_1 {scores[1]}"
    assert expected in text and f"player_{winner} wins" in text
    assert render.result(finished) in text and "final:" not in render.ansi(unfinished, ())


def test_a_tie_and_a_game_without_a_closed_ribbon_say_so():
    g = position([("cut/ne@c3", 0)], hands=[[0, 0, 0, 0], [0, 0, 0, 0]], market=(-1, -1), pile=[])
    act(g, "end")
    assert g.is_terminal()
    assert render.result(g) == "final: player_0 0, player_1 0 (no closed ribbon, no bonus): a tie: player_0 and player_1 share first place"


def test_a_seat_sees_its_own_hand_only_and_a_spectator_none():
    game = game_after({"players": 3}, 7, 70)
    seat, other = 0, 1
    twin = game.clone()  # the same position with one of player_1's unseen strands swapped with the pile
    hidden = [k for k in range(4) if twin.hands[other][k] > twin.known[other][k]]
    pile = [k for k in range(4) if twin.pile[k] and k not in hidden]
    assert hidden and pile
    twin.hands[other][hidden[0]] -= 1
    twin.hands[other][pile[0]] += 1
    twin.pile[pile[0]] -= 1
    twin.pile[hidden[0]] += 1
    for seats in ((), (seat,), (2,)):
        assert np.array_equal(render.rgb(game, seats), render.rgb(twin, seats))
        assert render.ansi(game, seats) == render.ansi(twin, seats)
    assert not np.array_equal(render.rgb(game, (other,)), render.rgb(twin, (other,)))
    mine = render.ansi(game, (seat,))
    assert re.search(r"player_0: \d+ banked; hand: (Cut|Run|Hook|Flip) \d", mine)
    assert re.search(r"player_1: \d+ banked; hand: \d strands", mine)
    spectator = render.ansi(game, ())
    assert all(re.search(rf"player_{p}: \d+ banked; hand: \d strands", spectator) for p in range(3))
    # through the env: the viewer option picks the seats
    env = knot_v0.raw_env(players=3, render_mode="ansi", viewer="player_2")
    env.reset(seed=1)
    board = env.render()
    assert re.search(r"player_2: \d+ banked; hand: (Cut|Run|Hook|Flip)", board)
    assert re.search(r"player_0: \d+ banked; hand: \d strands", board)


def test_the_text_board_has_coordinates_and_a_one_line_legend():
    text = render.ansi(game_after({}, 3, 30), ())
    lines = text.splitlines()
    assert lines[0].split() == list("abcdef")
    assert [lines[2 + 3 * r].split()[0] for r in range(6)] == [str(r + 1) for r in range(6)]
    legend = [line for line in lines if line.startswith("legend:")]
    assert len(legend) == 1 and all(symbol in legend[0] for symbol in (".", "0-3", "A-D", "#", "*", "C/R/H/F"))
    assert len(legend[0]) <= 130


def test_chance_nodes_render_in_the_engine():
    game = KnotGame(KnotGame.resolve_options({}))
    assert "dealing" in render.ansi(game, ()) and render.rgb(game, ()).shape[1] >= 480
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [1, 1, 1, 1]], market=(2, 1), pile=[3, 3])
    act(g, "cut/sw@c3", "end")
    g.apply(g.string_to_action("draw pile"))
    assert g.current_player() == CHANCE and "a strand is coming from the pile" in render.ansi(g, ())


def test_pictures_for_the_readme_look_right(tmp_path):
    """Pictures are saved (and were looked at while writing this): a mid-game seat view and a
    finished 4-player game."""
    from PIL import Image

    Image.fromarray(render.rgb(game_after({}, 3, 110), (0,))).save(tmp_path / "mid.png")
    Image.fromarray(render.rgb(game_after({"players": 4}, 4), ())).save(tmp_path / "end.png")
    assert (tmp_path / "mid.png").stat().st_size > 10_000


# ----- terminal play -------------------------------------------------------------------------------

def play(g, move, viewer=0):
    before = g.clone()
    action = g.string_to_action(move)
    g.apply(action)
    rng = random.Random(0)
    while g.current_player() == CHANCE:
        g.apply(draw_outcome(g.chance_outcomes(), rng))
    return terminal.narrate(before, action, g, viewer)


def test_narration_says_what_a_move_did():
    g = position([("run/n@a1", 0), ("run/s@a1", 0), ("run/n@c3", 0), ("run/n@e3", 1)],
                 hands=[[1, 1, 1, 1], [1, 1, 1, 1]], market=(2, 3), pile=[0, 1, 2])
    assert play(g, "flip/w@b1") == "player_0 closes a ribbon of 3 strands with a Flip in b1: +2 points (now 2)"
    assert play(g, "run/s@d3") == ("player_0 captures player_1's ribbon of 1 strand with a Run in d3: "
                                   "one ribbon of 3 strands")
    g = position([("cut/ne@c3", 0)], hands=[[2, 1, 0, 0], [1, 1, 1, 1]], market=(2, 3), pile=[1, 0, 3])
    assert play(g, "cut/sw@d3") == "player_0 grows a ribbon with a Cut in d3 (2 strands)"
    assert play(g, "end") is None
    assert play(g, "draw 0") == "player_0 takes the Hook from market slot 0; the pile refills slot 0 with a Run"
    before = g.clone()
    assert play(g, "draw pile", viewer=0) == "player_0 draws a Cut from the pile (seen by you alone)"
    assert play(before, "draw pile", viewer=1) == "player_0 draws a strand from the pile, unseen"
    h = position([("run/n@c3", 0), ("run/n@e3", 0)])
    assert play(h, "run/s@d3") == "player_0 joins two of its ribbons with a Run in d3 (3 strands)"
    k = position([("cut/ne@c3", 0)])
    assert play(k, "run/n@c4") == "player_0 starts a new ribbon with a Run in c4"


def terminal_at_a_draw(seat: int, drawer: int, market_slot_filled: bool):
    """Terminal play of a 2-player Knot game for ``seat``, stopped where ``drawer`` is to draw
    with strands in the pile (and a strand in market slot 0 when asked)."""
    import io

    from envs.knot.options import DRAW
    from training.serving.terminal import TerminalGame

    for seed in range(50):
        played = TerminalGame("knot", ["random"], seat=seat, seed=seed, options={}, out=io.StringIO())
        env, rng = played.env, random.Random(seed)
        env.reset(seed=seed)
        while not env.game.is_terminal():
            game = env.game
            if (game.phase == DRAW and game.current_player() == drawer and sum(game.pile) > 1
                    and (game.market[0] >= 0 or not market_slot_filled)
                    and "draw pile" in [env.action_to_string(a) for a in env.legal_actions()]):
                return played
            env.step(rng.choice(env.legal_actions()))
    raise AssertionError("no draw position found")


@pytest.mark.parametrize("viewer", [0, 1])
def test_terminal_play_tells_a_pile_draw_once_the_strand_is_drawn(viewer):
    """The drawer is told the strand it drew; the others that a strand was drawn, unseen."""
    played = terminal_at_a_draw(viewer, drawer=0, market_slot_filled=False)
    env = played.env
    hand = list(env.game.hands[0])
    before, applied = played.step(env.string_to_action("draw pile"))
    played.narrate(before, applied)
    told = played.out.getvalue()
    drawn = next(k for k in range(4) if env.game.hands[0][k] > hand[k])
    if viewer == 0:
        assert told == f"  player_0 draws a {KINDS[drawn]} from the pile (seen by you alone)\n"
    else:
        assert told == "  player_0 draws a strand from the pile, unseen\n"


def test_terminal_play_tells_a_market_draw_with_the_slot_refilled():
    played = terminal_at_a_draw(0, drawer=0, market_slot_filled=True)
    env = played.env
    taken = KINDS[env.game.market[0]]
    before, applied = played.step(env.string_to_action("draw 0"))
    played.narrate(before, applied)
    refill = env.game.market[0]
    assert refill >= 0  # the pile was not empty
    full = " (hand full)" if sum(env.game.hands[0]) >= HAND_SIZE else ""
    assert played.out.getvalue() == (
        f"  player_0 takes the {taken} from market slot 0{full}; the pile refills slot 0 with a {KINDS[refill]}\n")


def test_help_groups_the_moves_by_square():
    game = new_game({}, 1)
    legal = game.legal_actions()
    lines = terminal.group_moves(game, legal)
    assert len(legal) > 300 and len(lines) <= game.n + 1
    rebuilt = []
    for line in lines:
        square, rest = line.split(": ", 1)
        for part in rest.split(" · "):
            kind, *ways = part.split()
            rebuilt += [game.string_to_action(f"{kind}/{way}@{square}") for way in ways]
    assert sorted(rebuilt) == legal
    drawing = game_after({}, 2, 1)
    while drawing.phase != 1 or drawing.current_player() == CHANCE:
        random_step(drawing, random.Random(1))
    assert terminal.group_moves(drawing, drawing.legal_actions()) == [
        ", ".join(drawing.action_to_string(a) for a in drawing.legal_actions())]
    summary = knot_v0.GAME.play.rules_summary
    assert "cut/ne@c4" in summary and "draw pile" in summary and len(summary.splitlines()) <= 12
    assert knot_v0.GAME.play.narrate is terminal.narrate


def test_the_module_help_opens_with_a_summary_and_the_docs_stand_alone():
    first = knot_v0.__doc__.strip().splitlines()[0]
    assert first.startswith("Knot: ") and not first.startswith("#")
    for method in ("why_illegal", "action_to_string", "string_to_action", "chance_outcomes", "legal_actions", "apply"):
        assert getattr(KnotGame, method).__doc__, method
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "knot.md").read_text()
    for word in ("shared/", "seed 00", "issue ", "session", "the bar", "seeds"):
        assert word not in page.lower(), word
    for option in KnotGame.OPTIONS:
        assert f"`{option}`" in page
    for path in sorted((root / "envs" / "knot").glob("*.py")) + [root / "envs" / "knot_v0.py", root / "training" / "bots" / "knot.py"]:
        text = path.read_text().lower()
        assert "shared/" not in text and "../" not in text, path
