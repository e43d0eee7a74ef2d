"""Tic-tac-toe's pictures: the board with its coordinates, x and o in the seats' colours, whose
turn or the result, and the last move — ``[ ]`` around its square in the text board, a magenta
frame in the picture, and a ``last move:`` line in both."""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import GRID, INK, SEAT_COLOURS, LastMove, canvas, font, last_move_key, mark_last, to_array
from tests.toy.tictactoe.rules import EMPTY, TicTacToeGame

SYMBOL = {EMPTY: ".", 0: "x", 1: "o"}
RULES_SUMMARY = ("Mark an empty square in turn (player_0 x, player_1 o); three in a row, a column or a diagonal wins.\n"
                 "A move: the square's column letter and row number (b2).")
CELL, LEFT, TOP = 60, 40, 56  # the picture's square size and the board's top-left corner


def status(game: TicTacToeGame) -> str:
    if not game.is_terminal():
        return f"player_{game.to_move} ({SYMBOL[game.to_move]}) to move"
    winner = game.winner()
    return "a draw: the board is full" if winner is None else f"player_{winner} ({SYMBOL[winner]}) wins"


def ansi(game: TicTacToeGame, seats: tuple[int, ...] = (), last: LastMove | None = None) -> str:
    lines = ["    " + " ".join(column_name(c) for c in range(game.size))]
    for r in range(game.size):
        row = [" "] * (2 * game.size + 1)  # a space before and after every square
        for c in range(game.size):
            square = r * game.size + c
            row[2 * c + 1] = SYMBOL[game.board[square]]
            if last is not None and last.action == square:
                row[2 * c], row[2 * c + 2] = "[", "]"
        lines.append(f"{r + 1:>3}" + "".join(row).rstrip())
    lines.append(status(game))
    if last is not None:
        lines.append(last.text())
    return "\n".join(lines)


def rgb(game: TicTacToeGame, seats: tuple[int, ...] = (), last: LastMove | None = None) -> np.ndarray:
    side = game.size * CELL
    image, draw = canvas(LEFT * 2 + side + 120, TOP + side + 70)
    label = font(14)
    draw.text((LEFT, 12), status(game), fill=INK, font=font(16))
    for c in range(game.size):
        draw.text((LEFT + c * CELL + CELL // 2 - 4, TOP - 20), column_name(c), fill=INK, font=label)
    for square, owner in enumerate(game.board):
        x0, y0, x1, y1 = last_move_box(game, square)
        draw.rectangle((x0, y0, x1, y1), outline=GRID, width=1)
        if owner == 0:
            draw.line((x0 + 14, y0 + 14, x1 - 14, y1 - 14), fill=SEAT_COLOURS[0], width=6)
            draw.line((x0 + 14, y1 - 14, x1 - 14, y0 + 14), fill=SEAT_COLOURS[0], width=6)
        elif owner == 1:
            draw.ellipse((x0 + 12, y0 + 12, x1 - 12, y1 - 12), outline=SEAT_COLOURS[1], width=6)
    if last is not None:
        mark_last(draw, last_move_box(game, last.action), width=4)
    last_move_key(draw, (LEFT, TOP + side + 24), last, label)
    return to_array(image)


# ----- where the last move is marked (``Renderers``' last-move hooks) ----------------------------

def last_move_cell(last: LastMove) -> int:
    """Every move marks a square: the action."""
    return last.action


def last_move_text(game: TicTacToeGame, cell: int) -> tuple[int, int, int]:
    r, c = divmod(cell, game.size)
    return 1 + r, 3 + 2 * c, 5 + 2 * c


def last_move_box(game: TicTacToeGame, cell: int) -> tuple[int, int, int, int]:
    r, c = divmod(cell, game.size)
    return LEFT + c * CELL, TOP + r * CELL, LEFT + (c + 1) * CELL, TOP + (r + 1) * CELL
