"""Every game's pictures and text boards mark the last move: the env remembers the last move its
viewer may see (``env.last_move``), the text board brackets its cell (Uzor: the tile placed
last) and names it on a ``last move:`` line, and the picture frames its cell in magenta."""

from __future__ import annotations

import random

import numpy as np
import pytest

import envs
from envs.core.render import LAST_MOVE, LastMove

# The published games (a docs page): where each draws a cell is read per game below.
GAMES = [game for game in envs.GAMES if envs.describe(game).docs]


def cell_of(game: str, last: LastMove) -> int | None:
    """The cell (square) the move marks, or None for a move on no cell."""
    before = last.before
    short = envs.describe(game).short_name
    if short == "linecatch":
        return last.action
    if short == "loom":
        return last.action % 16
    if short == "fill":
        return last.action if last.action < before.n else None
    if short == "knot":
        return last.action % before.n if last.action < 16 * before.n else None
    from envs.uzor.common import PLACE

    return last.action % before.geo.cells if before.phase == PLACE else None  # Uzor: a placement


def marked_in_text(game: str, text: str, last: LastMove, state) -> bool:
    """Whether the text board brackets the last move's cell where that cell is drawn."""
    short = envs.describe(game).short_name
    cell = cell_of(game, last)
    lines = text.splitlines()
    if short == "linecatch":
        r, c = divmod(cell, last.before.geo.cols)
        line = lines[1 + r].ljust(4 + 2 * last.before.geo.cols)
        return line[3 + 2 * c] + line[5 + 2 * c] == "[]"
    if short == "loom":
        r, c = divmod(cell, 4)
        line = lines[2 + r].ljust(40)
        base = 17 * last.seat + 3 + 2 * c
        return line[base] + line[base + 2] == "[]"
    if short == "fill":
        size = last.before.options["size"]
        r, c = divmod(cell, size)
        chunk = lines[1 + r][4 + 3 * c: 7 + 3 * c]
        return chunk[0] + chunk[2] == "()"
    if short == "knot":
        size = last.before.size
        r, c = divmod(cell, size)
        line = lines[2 + 3 * r].ljust(4 + 4 * size + 1)
        return line[4 + 4 * c] + line[8 + 4 * c] == "[]"
    # Uzor: the tile placed last is the one in brackets
    from envs.uzor.render import code

    return state.board[cell] < 75 and f"[{code(state.board[cell])}]" in text


def moves_until_a_marked_cell(game: str, seed: int = 5, mode: str = "ansi", viewer=None):
    """An env (``mode``) after random legal play up to just before a move on a cell, and that
    move's action."""
    env = envs.load(game).raw_env(render_mode=mode, viewer=viewer)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(400):
        seat = env.game.current_player()
        action = rng.choice(env.legal_actions())
        probe = LastMove(seat, action, env.game.clone())
        if cell_of(game, probe) is not None and len(env.history) > 6:
            return env, action
        env.step(action)
    raise AssertionError(f"{game}: no move on a cell")


@pytest.mark.parametrize("game", GAMES)
def test_the_text_board_marks_the_move_just_played_and_not_before(game):
    env, action = moves_until_a_marked_cell(game)
    seat, notation = env.game.current_player(), env.action_to_string(action)
    before = env.render()
    line = f"last move: player_{seat} {notation}"
    assert line not in before.splitlines()
    probe = LastMove(seat, action, env.game.clone())
    env.step(action)
    after = env.render()
    assert env.last_move is not None and (env.last_move.seat, env.last_move.action) == (seat, action)
    assert any(text.startswith(line) for text in after.splitlines()), after
    assert marked_in_text(game, after, probe, env.game), after
    assert not marked_in_text(game, before, probe, probe.before), before


@pytest.mark.parametrize("game", GAMES)
def test_no_last_move_after_reset_or_restore(game):
    env = envs.load(game).raw_env(render_mode="ansi")
    env.reset(seed=2)
    assert env.last_move is None and "last move:" not in env.render()
    rng = random.Random(2)
    for _ in range(8):
        env.step(rng.choice(env.legal_actions()))
    assert env.last_move is not None and "last move:" in env.render()
    env.restore(env.snapshot())  # the past of a restored position is not known
    assert env.last_move is None and "last move:" not in env.render()
    env.step(rng.choice(env.legal_actions()))
    env.reset(seed=2)
    assert env.last_move is None


@pytest.mark.parametrize("game", GAMES)
def test_an_env_that_does_not_render_keeps_no_last_move(game):
    """No copy of the position per step where nothing is drawn (training)."""
    env = envs.load(game).raw_env()
    env.reset(seed=1)
    env.step(env.legal_actions()[0])
    assert env.last_move is None


def last_move_box(game: str, state, last: LastMove) -> tuple[int, int, int, int] | None:
    """Where the picture draws the last move's cell (x0, y0, x1, y1), None for Uzor (its frame
    is the tile placed last, drawn from the state with or without ``last``)."""
    short = envs.describe(game).short_name
    cell = cell_of(game, last)
    if short == "linecatch":
        from envs.linecatch.render import layout

        place = layout(state.geo)
        r, c = divmod(cell, state.geo.cols)
        x0, y0 = place["left"] + c * place["cell"], place["top"] + r * place["cell"]
        return x0, y0, x0 + place["cell"], y0 + place["cell"]
    if short == "loom":
        from envs.loom.render import cell_box

        return cell_box(last.seat, cell)
    if short == "fill":
        from envs.fill.render import cell_box

        return cell_box(state, cell)
    if short == "knot":
        from envs.knot.render import board_origin

        ox, oy = board_origin()
        r, c = divmod(cell, state.size)
        return ox + c * 64, oy + r * 64, ox + (c + 1) * 64, oy + (r + 1) * 64
    return None


@pytest.mark.parametrize("game", GAMES)
def test_the_picture_differs_where_the_last_move_is(game):
    env, action = moves_until_a_marked_cell(game, mode="rgb_array")
    seat = env.game.current_player()
    last = LastMove(seat, action, env.game.clone())
    env.step(action)
    pictures = envs.describe(game).render
    marked, plain = env.render(), pictures.rgb(env.game, env.viewer_seats)
    assert np.array_equal(marked, pictures.rgb(env.game, env.viewer_seats, last=last))
    assert marked.shape == plain.shape or envs.describe(game).short_name in ("knot", "uzor")  # a line more
    if marked.shape != plain.shape:
        height = min(marked.shape[0], plain.shape[0])
        marked, plain = marked[:height], plain[:height]
    differ = np.any(marked != plain, axis=-1)
    assert differ.any()
    box = last_move_box(game, env.game, last)
    if box is not None:
        x0, y0, x1, y1 = box
        pad = 3
        inside = np.zeros_like(differ)
        inside[max(0, y0 - pad): y1 + pad, max(0, x0 - pad): x1 + pad] = True
        assert (differ & inside).any(), "no mark on the last move's cell"
        frame = np.all(marked[max(0, y0 - pad): y1 + pad, max(0, x0 - pad): x1 + pad] == LAST_MOVE, axis=-1)
        assert frame.sum() > 40, "the cell is not framed in the last move's colour"


def test_fill_a_secret_trap_is_not_shown_to_the_other_seat():
    """A trap (Fill's secret phase) is the last move only for its own seat; the other seat keeps
    the last move it saw, so not even that a secret move happened shows."""
    options = {"traps": True}
    seen = {}
    for viewer in (0, 1):
        env = envs.load("fill").raw_env(render_mode="ansi", viewer=viewer, **options)
        env.reset(seed=4)
        rng = random.Random(4)
        while True:
            seat, phase = env.game.current_player(), env.snapshot()["state"]["phase"]
            cells = [a for a in env.legal_actions() if a < env.game.n]
            if phase == "trap" and cells:
                previous = env.last_move
                action = cells[0]
                env.step(action)
                seen[viewer] = (seat, previous, env.last_move, env.render())
                break
            env.step(rng.choice(env.legal_actions()))
    trapper = seen[0][0]  # the same seeded play for both viewers
    _, _, last, text = seen[trapper]
    assert last.seat == trapper and last.notation().startswith("trap ")
    assert f"last move: player_{trapper} trap " in text
    _, previous, last, text = seen[1 - trapper]
    assert last is previous  # unchanged: the trap is not shown, nor that there was one
    assert f"player_{trapper} trap" not in text


def test_fill_a_move_that_came_too_late_is_not_shown():
    """With clocks, a move that arrives after its player's time ran out is not played (the game
    ends on time), so there is no cell of it to mark."""

    class Clock:
        now = 0.0

        def __call__(self):
            return self.now

    clock = Clock()
    env = envs.load("fill").raw_env(render_mode="ansi", time_limit=True, clock=clock)
    env.reset(seed=3)
    env.step(env.legal_actions()[0])
    assert "last move:" in env.render()
    clock.now += 10_000
    late = env.legal_actions()[0]
    env.step(late)
    assert env.game.is_terminal() and env.game.end_reason == "time"
    text = env.render()
    assert "last move:" not in text and not any("(" in line for line in text.splitlines()[1:7])
