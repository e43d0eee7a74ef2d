"""Linecatch pictures: the grid, black squares, and the catch marks (orange ✕, blue ■)."""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import GRID, INK, PAPER, SEAT_COLOURS, canvas, font, to_array
from envs.linecatch.rules import NO_MARK, LinecatchGame

SYMBOL = {NO_MARK: "#", 0: "x", 1: "o"}


def ansi(game: LinecatchGame, seats: tuple[int, ...] = ()) -> str:
    geo = game.geo
    header = "    " + " ".join(column_name(c) for c in range(geo.cols))
    rows = [header]
    for r in range(geo.rows):
        cells = []
        for c in range(geo.cols):
            cell = r * geo.cols + c
            cells.append(SYMBOL[game.marks[cell]] if game.black[cell] else ".")
        rows.append(f"{r + 1:>3} " + " ".join(cells))
    p0, p1 = game.points
    turn = "game over" if game.is_terminal() else f"player_{game.to_move} to move"
    rows.append(f"player_0 (x) {p0}  player_1 (o) {p1}  {turn}" + ("  [pro]" if geo.pro else ""))
    return "\n".join(rows)


def rgb(game: LinecatchGame, seats: tuple[int, ...] = (), cell_px: int = 48) -> np.ndarray:
    geo = game.geo
    top = 28
    image, draw = canvas(max(geo.cols * cell_px + 1, 200), geo.rows * cell_px + top + 1)
    draw.text((6, 6), f"player_0: {game.points[0]}", fill=SEAT_COLOURS[0], font=font(14))
    draw.text((106, 6), f"player_1: {game.points[1]}", fill=SEAT_COLOURS[1], font=font(14))
    for r in range(geo.rows):
        for c in range(geo.cols):
            cell = r * geo.cols + c
            x0, y0 = c * cell_px, top + r * cell_px
            box = (x0, y0, x0 + cell_px, y0 + cell_px)
            draw.rectangle(box, fill=(40, 40, 45) if game.black[cell] else PAPER, outline=GRID)
            mark, pad = game.marks[cell], cell_px // 4
            if mark == 0:  # orange cross for player_0, as in the seed
                draw.line((x0 + pad, y0 + pad, x0 + cell_px - pad, y0 + cell_px - pad), fill=SEAT_COLOURS[0], width=4)
                draw.line((x0 + pad, y0 + cell_px - pad, x0 + cell_px - pad, y0 + pad), fill=SEAT_COLOURS[0], width=4)
            elif mark == 1:  # blue square for player_1
                draw.rectangle((x0 + pad, y0 + pad, x0 + cell_px - pad, y0 + cell_px - pad), fill=SEAT_COLOURS[1])
    return to_array(image)
