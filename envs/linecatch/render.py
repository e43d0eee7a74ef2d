"""Linecatch pictures: the grid with its coordinates, black squares and the catch marks
(orange ✕ for player_0, blue ■ for player_1), a key of the seats' colours and scores, whose
turn it is, and at the end the final scores and the winner; under it a legend of the catch
marks and the last move (a magenta frame around its square; ``[ ]`` in the text board).
Nothing is hidden in Linecatch, so every viewer sees the same picture."""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import (
    GRID, INK, PAPER, SEAT_COLOURS, LastMove, canvas, font, last_move_key, mark_last, to_array,
)
from envs.linecatch.rules import NO_MARK, LinecatchGame

SYMBOL = {NO_MARK: "#", 0: "x", 1: "o"}
LEGEND = ". white   # black   x caught last by player_0   o caught last by player_1   [ ] the last move"
MARKS_KEY = "on a black square: who last caught a line across it"
LEGEND_LINE = 22  # pixels per line of the picture's legend
BLACK_SQUARE = (40, 40, 45)
MIN_WIDTH = 520  # pixels: readable beside the other games' pictures


def status(game: LinecatchGame) -> str:
    """Whose turn, or the result: ``player_1 to move``, ``game over: player_0 wins 30 to 20``,
    ``game over: a draw, 25 to 25`` (plain ASCII: the pictures' font has no dashes)."""
    p0, p1 = game.points
    if not game.is_terminal():
        return f"player_{game.to_move} to move"
    if p0 == p1:
        return f"game over: a draw, {p0} to {p1}"
    winner = 0 if p0 > p1 else 1
    return f"game over: player_{winner} wins {max(p0, p1)} to {min(p0, p1)}"


def ansi(game: LinecatchGame, seats: tuple[int, ...] = (), last: LastMove | None = None) -> str:
    """The grid (``[ ]`` around the last move's square), the scores and whose turn, the last
    move, the legend."""
    geo = game.geo
    header = "    " + " ".join(column_name(c) for c in range(geo.cols))
    rows = [header]
    for r in range(geo.rows):
        line = [" "] * (2 * geo.cols + 1)  # a space before and after every square
        for c in range(geo.cols):
            cell = r * geo.cols + c
            line[2 * c + 1] = SYMBOL[game.marks[cell]] if game.black[cell] else "."
            if last is not None and last.action == cell:
                line[2 * c], line[2 * c + 2] = "[", "]"
        rows.append(f"{r + 1:>3}" + "".join(line).rstrip())
    p0, p1 = game.points
    rows.append(f"player_0 (x) {p0}  player_1 (o) {p1}  {status(game)}" + ("  [pro: diagonals of 3+ count]" if geo.pro else ""))
    if last is not None:
        rows.append(last.text())
    rows.append(LEGEND)
    return "\n".join(rows)


def _cross(draw, box, colour, width):
    x0, y0, x1, y1 = box
    draw.line((x0, y0, x1, y1), fill=colour, width=width)
    draw.line((x0, y1, x1, y0), fill=colour, width=width)


def layout(geo) -> dict[str, int]:
    """Where the picture puts things (pixels): ``width``, ``height``, the board's ``left`` and
    ``top`` edge, the ``cell`` size, and ``status_top``, where the turn / result line starts."""
    cell = max(36, min(64, 560 // max(geo.rows, geo.cols)))
    margin = 34  # room for the coordinates
    board_w, board_h = geo.cols * cell, geo.rows * cell
    width = max(MIN_WIDTH, board_w + 2 * margin)
    top = 100  # title, seat key and the column letters above the board
    status_top = top + board_h + margin
    legend_top = status_top + 40
    height = legend_top + 2 * LEGEND_LINE + 6  # the catch marks' key, the last move
    return {"width": width, "height": height, "left": (width - board_w) // 2, "top": top, "cell": cell,
            "status_top": status_top, "legend_top": legend_top}


# ----- where the last move is marked (``Renderers``' last-move hooks) ----------------------------

def last_move_cell(last: LastMove) -> int:
    """Every move blackens a square: the action."""
    return last.action


def last_move_text(game: LinecatchGame, cell: int) -> tuple[int, int, int]:
    """``ansi``'s brackets around square ``cell``: its row's line, a character either side."""
    r, c = divmod(cell, game.geo.cols)
    return 1 + r, 3 + 2 * c, 5 + 2 * c


def last_move_box(game: LinecatchGame, cell: int) -> tuple[int, int, int, int]:
    """Square ``cell``'s pixels in ``rgb``'s picture."""
    place = layout(game.geo)
    r, c = divmod(cell, game.geo.cols)
    x0, y0 = place["left"] + c * place["cell"], place["top"] + r * place["cell"]
    return x0, y0, x0 + place["cell"], y0 + place["cell"]


def _draw_title(draw, game: LinecatchGame, width: int) -> None:
    """Title and the seat key: colour, symbol, points; the one to move is underlined."""
    geo, big, small = game.geo, font(20), font(15)
    finished = game.is_terminal()
    title = f"Linecatch {geo.rows} x {geo.cols}" + (", pro: diagonals of 3 or more count" if geo.pro else "")
    draw.text((12, 10), title, fill=INK, font=big)
    for seat in (0, 1):
        x = 12 + seat * (width // 2)
        colour = SEAT_COLOURS[seat]
        swatch = (x, 44, x + 20, 64)
        if seat == 0:
            _cross(draw, (x + 3, 47, x + 17, 61), colour, 4)
        else:
            draw.rectangle((x + 3, 47, x + 17, 61), fill=colour)
        draw.rectangle(swatch, outline=GRID)
        text = f"player_{seat}: {game.points[seat]} points"
        draw.text((x + 28, 45), text, fill=colour, font=small)
        if not finished and game.to_move == seat:
            text_w = draw.textlength(text, font=small)
            draw.line((x + 28, 66, x + 28 + text_w, 66), fill=colour, width=3)


def _draw_legend(draw, y: int, last: LastMove | None) -> None:
    """The legend: the catch marks as drawn on a black square, then the last move's frame."""
    small = font(15)
    x = 12
    for seat in (0, 1):
        box = (x, y, x + 18, y + 18)
        draw.rectangle(box, fill=BLACK_SQUARE, outline=GRID)
        inner = (x + 4, y + 4, x + 14, y + 14)
        if seat == 0:
            _cross(draw, inner, SEAT_COLOURS[0], 3)
        else:
            draw.rectangle(inner, fill=SEAT_COLOURS[1])
        draw.text((x + 23, y + 1), f"player_{seat}", fill=SEAT_COLOURS[seat], font=small)
        x += 23 + draw.textlength(f"player_{seat}", font=small) + 10
    draw.text((x, y + 1), MARKS_KEY, fill=INK, font=small)
    last_move_key(draw, (12, y + LEGEND_LINE), last, small, size=18)


def rgb(game: LinecatchGame, seats: tuple[int, ...] = (), last: LastMove | None = None) -> np.ndarray:
    geo = game.geo
    place = layout(geo)
    width, height, left, cell = place["width"], place["height"], place["left"], place["cell"]
    board_w, board_h = geo.cols * cell, geo.rows * cell
    image, draw = canvas(width, height)
    big, label = font(20), font(max(13, cell // 3))
    label_h = max(13, cell // 3)
    finished = game.is_terminal()
    _draw_title(draw, game, width)

    # The board.
    y_board = place["top"]
    for r in range(geo.rows):
        for c in range(geo.cols):
            square = r * geo.cols + c
            x0, y0 = left + c * cell, y_board + r * cell
            box = (x0, y0, x0 + cell, y0 + cell)
            draw.rectangle(box, fill=BLACK_SQUARE if game.black[square] else PAPER, outline=GRID)
            mark, pad = game.marks[square], cell // 4
            inner = (x0 + pad, y0 + pad, x0 + cell - pad, y0 + cell - pad)
            if mark == 0:
                _cross(draw, inner, SEAT_COLOURS[0], max(3, cell // 12))
            elif mark == 1:
                draw.rectangle(inner, fill=SEAT_COLOURS[1])
    # Coordinates, as the notation writes them: column letters, row numbers from 1 at the top.
    for c in range(geo.cols):
        name = column_name(c)
        x = left + c * cell + cell / 2 - draw.textlength(name, font=label) / 2
        draw.text((x, y_board - label_h - 6), name, fill=INK, font=label)
        draw.text((x, y_board + board_h + 4), name, fill=INK, font=label)
    for r in range(geo.rows):
        name = str(r + 1)
        y = y_board + r * cell + (cell - label_h) / 2
        draw.text((left - 8 - draw.textlength(name, font=label), y), name, fill=INK, font=label)
        draw.text((left + board_w + 8, y), name, fill=INK, font=label)
    if last is not None:  # the last move's square, framed
        mark_last(draw, last_move_box(game, last.action), width=max(3, cell // 14))

    # Whose turn, or the final scores and the winner.
    line = status(game)
    colour = INK
    if finished and game.points[0] != game.points[1]:
        colour = SEAT_COLOURS[0 if game.points[0] > game.points[1] else 1]
    elif not finished:
        colour = SEAT_COLOURS[game.to_move]
    text_w = draw.textlength(line, font=big)
    draw.text(((width - text_w) / 2, place["status_top"] + 6), line, fill=colour, font=big)

    _draw_legend(draw, place["legend_top"], last)
    return to_array(image)


# ----- words for terminal play ----------------------------------------------------------------

RULES_SUMMARY = """\
Blacken one white square a move. A line is a row, a column, and in pro mode a diagonal of
3 or more squares. Blacken a line's last white square and you catch it: you score its length
(a square can catch several lines at once) and move again while white squares remain;
otherwise the turn passes. When every square is black, more points wins.
Moves: column letter then row number from 1 at the top, e.g. a1 (top left) or c2.
Board: . white, # black, x / o black and last caught across by player_0 / player_1."""


def _names(geo, lines) -> str:
    names = [geo.line_name(line) for line in lines]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def narrate(before: LinecatchGame, action: int, after: LinecatchGame, viewer: int) -> str | None:
    """What a move did: the lines it caught (points, who moves next), or the lines it left one
    square short for the opponent; ``None`` for a quiet move. Nothing is hidden, so every
    viewer reads the same (the mover is called "you" in their own seat)."""
    geo, mover = before.geo, before.current_player()
    who = f"player_{mover}" + (" (you)" if viewer == mover else "")
    square = before.action_to_string(action)
    caught = [line for line in geo.cell_lines[action] if before.remaining[line] == 1]
    if caught:
        points = sum(geo.line_length[line] for line in caught)
        then = "the board is full" if after.is_terminal() else "and moves again"
        return f"{who} blackened {square} and caught {_names(geo, caught)}: {points} points (now {after.points[mover]}), {then}"
    short = [line for line in geo.cell_lines[action] if after.remaining[line] == 1]
    if short:
        return f"{who} blackened {square}, leaving {_names(geo, short)} one square short for player_{1 - mover}"
    return None
