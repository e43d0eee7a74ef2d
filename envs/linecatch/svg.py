"""Linecatch as SVG for front ends that click (``envs.core.svg``): the grid with its
coordinates, black squares with the catch marks (orange ✕ for player_0, blue ■ for player_1),
the seats' key and points. Every square is an element, ``sq-<cell>`` (the action that blackens
it); nothing is hidden, so every viewer sees the same picture."""

from __future__ import annotations

from envs.core.notation import cell_name
from envs.core.svg import GRID, INK, PAPER, SEAT_COLOURS, Picture, colour, coordinates, seat_key
from envs.linecatch.render import BLACK_SQUARE, status as _status
from envs.linecatch.rules import LinecatchGame


def cell_size(geo) -> int:
    return max(34, min(64, 560 // max(geo.rows, geo.cols)))


def _cross(picture: Picture, x0: float, y0: float, x1: float, y1: float, tint, width: float, **attrs) -> None:
    picture.line(x0, y0, x1, y1, stroke=tint, stroke_width=width, stroke_linecap="round", **attrs)
    picture.line(x0, y1, x1, y0, stroke=tint, stroke_width=width, stroke_linecap="round", **attrs)


def svg(game: LinecatchGame, seats: tuple[int, ...] = (), preview: int | None = None) -> str:
    geo = game.geo
    cell = cell_size(geo)
    left, top = 40, 78
    width = max(420, left * 2 + geo.cols * cell)
    left = (width - geo.cols * cell) / 2
    height = top + geo.rows * cell + 36
    title = f"Linecatch {geo.rows} x {geo.cols}" + (", pro: diagonals of 3 or more count" if geo.pro else "")
    picture = Picture(width, height, title)
    picture.text(12, 24, title, size=18, weight="bold")
    over = game.is_terminal()
    for seat in (0, 1):
        seat_key(picture, 12 + seat * (width / 2), 52, seat, f"player_{seat}: {game.points[seat]} points",
                 not over and game.to_move == seat)
    for r in range(geo.rows):
        for c in range(geo.cols):
            square = r * geo.cols + c
            x0, y0 = left + c * cell, top + r * cell
            black = game.black[square]
            picture.rect(x0, y0, cell, cell, fill=BLACK_SQUARE if black else PAPER, stroke=colour(GRID))
            mark, pad = game.marks[square], cell / 4
            if mark == 0:
                _cross(picture, x0 + pad, y0 + pad, x0 + cell - pad, y0 + cell - pad, SEAT_COLOURS[0], max(3, cell / 12))
            elif mark == 1:
                picture.rect(x0 + pad, y0 + pad, cell - 2 * pad, cell - 2 * pad, fill=SEAT_COLOURS[1])
    coordinates(picture, left, top, cell, geo.rows, geo.cols)
    for r in range(geo.rows):
        for c in range(geo.cols):
            square = r * geo.cols + c
            name = cell_name(r, c)
            state = "black" if game.black[square] else "white"
            picture.element(f"sq-{square}", left + c * cell, top + r * cell, cell, cell, f"{name} ({state})")
    return picture.document()


def element(game: LinecatchGame, action: int) -> str | None:
    """Action ``cell`` blackens square ``cell``: element ``sq-<cell>``."""
    return f"sq-{action}" if 0 <= action < game.geo.rows * game.geo.cols else None


def status(game: LinecatchGame, seats: tuple[int, ...] = ()) -> str:
    return _status(game)


def can_preview(game: LinecatchGame, action: int) -> bool:
    return False  # one action a square: never a choice


__all__ = ["can_preview", "element", "status", "svg"]
