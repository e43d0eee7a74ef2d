"""Tic-tac-toe as SVG for the web page (``envs.core.svg``): the board with its coordinates, x
and o in the seats' colours, the seats' key. Every square is an element, ``sq-<square>`` (the
action that marks it); nothing is hidden, so every viewer sees the same picture."""

from __future__ import annotations

from envs.core.notation import cell_name
from envs.core.svg import GRID, PAPER, SEAT_COLOURS, Picture, colour, coordinates, seat_key
from tests.toy.tictactoe.render import status as _status
from tests.toy.tictactoe.rules import TicTacToeGame

CELL, LEFT, TOP = 72, 60, 90


def svg(game: TicTacToeGame, seats: tuple[int, ...] = (), preview: int | None = None) -> str:
    side = game.size * CELL
    width, height = max(360, 2 * LEFT + side), TOP + side + 40
    picture = Picture(width, height, f"Tic-tac-toe {game.size} x {game.size}")
    picture.text(12, 24, f"Tic-tac-toe {game.size} x {game.size}", size=18, weight="bold")
    over = game.is_terminal()
    for seat, mark in ((0, "x"), (1, "o")):
        seat_key(picture, 12 + seat * (width / 2), 56, seat, f"player_{seat}: {mark}", not over and game.to_move == seat)
    for square, owner in enumerate(game.board):
        r, c = divmod(square, game.size)
        x0, y0 = LEFT + c * CELL, TOP + r * CELL
        picture.rect(x0, y0, CELL, CELL, fill=PAPER, stroke=colour(GRID))
        if owner == 0:
            pad = CELL / 4
            for a, b in (((x0 + pad, y0 + pad), (x0 + CELL - pad, y0 + CELL - pad)),
                         ((x0 + pad, y0 + CELL - pad), (x0 + CELL - pad, y0 + pad))):
                picture.line(*a, *b, stroke=SEAT_COLOURS[0], stroke_width=6, stroke_linecap="round")
        elif owner == 1:
            picture.circle(x0 + CELL / 2, y0 + CELL / 2, CELL / 3, stroke=colour(SEAT_COLOURS[1]), stroke_width=6)
    coordinates(picture, LEFT, TOP, CELL, game.size, game.size)
    for square, owner in enumerate(game.board):
        r, c = divmod(square, game.size)
        state = "empty" if owner < 0 else ("x", "o")[owner]
        picture.element(f"sq-{square}", LEFT + c * CELL, TOP + r * CELL, CELL, CELL, f"{cell_name(r, c)} ({state})")
    return picture.document()


def element(game: TicTacToeGame, action: int) -> str | None:
    """Action ``square`` marks square ``square``: element ``sq-<square>``."""
    return f"sq-{action}" if 0 <= action < game.size ** 2 else None


def status(game: TicTacToeGame, seats: tuple[int, ...] = ()) -> str:
    return _status(game)


def can_preview(game: TicTacToeGame, action: int) -> bool:
    return False  # one action a square: never a choice
