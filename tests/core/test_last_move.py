"""Every game's pictures and text boards mark the last move: the env remembers the last move its
viewer may see (``env.last_move``), the text board brackets its cell (Uzor: the tile placed
last) and names it on a ``last move:`` line, and the picture frames its cell in magenta. Where
a game draws its cells is its render module's to say (``Renderers``' last-move hooks): no test
here names a game, but for Fill's own rules at the end."""

from __future__ import annotations

import dataclasses
import random
from contextlib import contextmanager

import numpy as np
import pytest

import envs
from envs.core.render import LAST_MOVE, LastMove

# Every game whose renderers say where they mark the last move (``Renderers.last_move_cell``,
# ``last_move_text``, ``last_move_box``): the published games must (tests/core/test_contract.py).
GAMES = [game for game in envs.GAMES if envs.describe(game).render.marks_last_move]
BRACKETS = ("[]", "()")


def cell_of(game: str, last: LastMove) -> int | None:
    """The cell the move marks, or None for a move on no cell."""
    return envs.describe(game).render.last_move_cell(last)


def marked_in_text(game: str, text: str, last: LastMove, state) -> bool:
    """Whether the text board of ``state`` brackets the last move's cell where that cell is drawn."""
    where = envs.describe(game).render.last_move_text(state, cell_of(game, last))
    if where is None:
        return False
    line, first, last_char = where
    lines = text.splitlines()
    row = lines[line].ljust(last_char + 1) if line < len(lines) else ""
    return len(row) > last_char and row[first] + row[last_char] in BRACKETS


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
        if cell_of(game, probe) is not None and len(env.history) > min(6, env.game.max_game_length_for(env.options) // 2):
            return env, action
        env.step(action)
        if env.game.is_terminal():
            env.reset(seed=seed + 1)
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


@pytest.mark.parametrize("game", GAMES)
def test_the_picture_differs_where_the_last_move_is(game):
    env, action = moves_until_a_marked_cell(game, mode="rgb_array")
    seat = env.game.current_player()
    last = LastMove(seat, action, env.game.clone())
    env.step(action)
    pictures = envs.describe(game).render
    marked, plain = env.render(), pictures.rgb(env.game, env.viewer_seats)
    assert np.array_equal(marked, pictures.rgb(env.game, env.viewer_seats, last=last))
    assert marked.shape[1] == plain.shape[1]  # the same width; a picture may grow a line (the last move)
    if marked.shape != plain.shape:
        height = min(marked.shape[0], plain.shape[0])
        marked, plain = marked[:height], plain[:height]
    differ = np.any(marked != plain, axis=-1)
    assert differ.any()
    x0, y0, x1, y1 = pictures.last_move_box(env.game, cell_of(game, last))
    pad = 3
    around = np.s_[max(0, y0 - pad): y1 + pad, max(0, x0 - pad): x1 + pad]
    frame = np.all(marked[around] == LAST_MOVE, axis=-1)
    assert frame.sum() > 40, "the cell is not framed in the last move's colour"
    # the frame comes with ``last``, or (Uzor) from the position: the tile placed last
    assert differ[around].any() or np.all(plain[around] == LAST_MOVE, axis=-1).sum() > 40, "no mark on the last move's cell"


@contextmanager
def renderers(game: str, **changed):
    """The game's renderers with some functions swapped, for the env and the checks alike."""
    description = envs.describe(game)
    kept = description.render
    object.__setattr__(description, "render", dataclasses.replace(kept, **changed))  # frozen: for this test only
    try:
        yield
    finally:
        object.__setattr__(description, "render", kept)


@pytest.mark.parametrize("game", GAMES)
def test_the_checks_fail_where_the_last_move_is_not_marked(game):
    """A picture or a text board that leaves the last move out fails the checks above."""
    pictures = envs.describe(game).render
    with renderers(game, rgb=lambda state, seats, last=None: pictures.rgb(state, seats)), pytest.raises(AssertionError):
        test_the_picture_differs_where_the_last_move_is(game)
    with renderers(game, ansi=lambda state, seats, last=None: pictures.ansi(state, seats)), pytest.raises(AssertionError):
        test_the_text_board_marks_the_move_just_played_and_not_before(game)


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
