"""Loom pictures: the two cloths side by side, threads coloured by dye, the current throw."""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import GRID, INK, PAPER, canvas, font, to_array
from envs.loom.rules import CELLS, ROUNDS, SIDE, LoomGame

DYE_COLOURS = {
    1: (200, 50, 50),    # madder red
    2: (235, 150, 40),   # saffron
    3: (220, 200, 60),   # weld yellow
    4: (70, 150, 70),    # green
    5: (50, 90, 190),    # indigo
    6: (130, 60, 150),   # purple
}


def _status(game: LoomGame) -> str:
    if game.round >= ROUNDS:
        return "woven: game over"
    if game.is_chance_node():
        return f"round {game.round + 1}/16: the shuttle is about to throw"
    low, high = game.throws[game.round]
    actor = game.current_player()
    role = "drafts" if game.taken < 0 else "weaves the leftover"
    return f"round {game.round + 1}/16, throw {low} {high}: player_{actor} {role}"


def ansi(game: LoomGame, seats: tuple[int, ...] = ()) -> str:
    header = "    " + " ".join(column_name(c) for c in range(SIDE))
    lines = [f"{'player_0 cloth':<14}    {'player_1 cloth':<14}", f"{header}      {header}"]
    for r in range(SIDE):
        halves = []
        for cloth in game.cloths:
            halves.append(f"{r + 1:>3} " + " ".join(str(cloth[r * SIDE + c] or ".") for c in range(SIDE)))
        lines.append(f"{halves[0]}      {halves[1]}")
    lines.append(f"scores: player_0 {game.points[0]}  player_1 {game.points[1]}  (bounty {game.bounty})")
    lines.append(_status(game))
    return "\n".join(lines)


def rgb(game: LoomGame, seats: tuple[int, ...] = (), cell_px: int = 44) -> np.ndarray:
    gap, top, margin = 30, 30, 14
    cloth_px = SIDE * cell_px
    width = 2 * cloth_px + gap + 2 * margin
    height = top + cloth_px + 70
    image, draw = canvas(width, height)
    small = font(13)
    for player, cloth in enumerate(game.cloths):
        x_off = margin + player * (cloth_px + gap)
        draw.text((x_off, 8), f"player_{player}: {game.points[player]}", fill=INK, font=small)
        for cell in range(CELLS):
            r, c = divmod(cell, SIDE)
            x0, y0 = x_off + c * cell_px, top + r * cell_px
            draw.rectangle((x0, y0, x0 + cell_px, y0 + cell_px), fill=PAPER, outline=GRID)
            dye = cloth[cell]
            if dye:
                # A thread: a coloured band across the cell, woven over/under by parity.
                colour = DYE_COLOURS[dye]
                if (r + c) % 2:
                    draw.rectangle((x0 + 4, y0 + cell_px // 3, x0 + cell_px - 4, y0 + 2 * cell_px // 3), fill=colour)
                else:
                    draw.rectangle((x0 + cell_px // 3, y0 + 4, x0 + 2 * cell_px // 3, y0 + cell_px - 4), fill=colour)
                draw.text((x0 + 4, y0 + 2), str(dye), fill=INK, font=small)
    y = top + cloth_px + 10
    if game.round < ROUNDS and not game.is_chance_node():
        low, high = game.throws[game.round]
        for t, dye in enumerate((low, high)):
            x0 = margin + t * 40
            available = game.taken < 0 or t == 1 - game.taken
            draw.ellipse((x0, y, x0 + 30, y + 30), fill=DYE_COLOURS[dye] if available else GRID, outline=INK)
            draw.text((x0 + 11, y + 8), str(dye), fill=INK, font=small)
    draw.text((margin, y + 38), _status(game), fill=INK, font=small)
    return to_array(image)
