"""Uzor pictures: the table, the market, both hands, the Map with its crossed-out patterns.

Only what a spectator sees: no secret goal, no face-down supply order (the face-up discards at
the supply's bottom are shown, as they lie face up).

Text tiles are two letters: the motif in capitals (``C`` cedar, ``S`` sun, ``W`` wave, ``B``
bird, ``X`` star) and the colour in small letters (``r`` crimson, ``a`` azure, ``e`` emerald,
``m`` amber, ``i`` ivory); ``##`` is a stone, ``.`` an empty cell.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.notation import cell_name, column_name
from envs.core.render import GRID, INK, PAPER, SEAT_COLOURS, canvas, font, to_array
from envs.uzor.rules import (
    DEAD_TAKE,
    DEAL,
    DISCARD,
    EMPTY,
    FORK,
    GOAL,
    IDLE_LIMIT,
    OVER,
    PASS,
    PLACE,
    REFILL,
    STONE,
    TAKE,
    UzorGame,
)

MOTIF_LETTERS = "CSWBX"
COLOUR_LETTERS = "raemi"
TILE_COLOURS = [(178, 34, 52), (40, 118, 205), (30, 145, 90), (232, 160, 32), (238, 232, 212)]
GOLD = (120, 90, 20)
STONE_FILL = (95, 92, 88)


def code(t: int) -> str:
    return MOTIF_LETTERS[t // 5] + COLOUR_LETTERS[t % 5]


def status(game: UzorGame) -> str:
    names = game.geo.map.names
    if game.phase == OVER:
        p0, p1 = game.points
        result = "draw" if p0 == p1 else f"player_{0 if p0 > p1 else 1} wins"
        why = (f"no placement in the last {IDLE_LIMIT} turns" if game.idle >= IDLE_LIMIT
               else "no tile outside the table fits")
        return f"game over ({why}): {p0}–{p1}, {result}"
    if game.phase in (GOAL, DEAL):
        return "the setup: dealing the secret goals and the tiles"
    if game.phase == REFILL:
        return f"player_{game.to_move} took: the market slot {game.pending} is refilled from the supply"
    who = f"player_{game.to_move}"
    extra = " (repeated turn)" if game.repeated else ""
    what = {
        PLACE: "places a tile",
        FORK: "closes " + " / ".join(names[k] for k in sorted(game.fork)) + " or continues",
        TAKE: "takes from the market" + (" (continued: plays again)" if game.continued and not game.repeated else ""),
        DISCARD: "is in a dead end: discards",
        DEAD_TAKE: "takes after the discard",
        PASS: "is in a dead end with an empty market: passes",
    }[game.phase]
    return f"{who} {what}{extra}"


def ansi(game: UzorGame, seats: tuple[int, ...] = ()) -> str:
    size = game.geo.size
    board = game.board
    used = [x for x, v in enumerate(board) if v != EMPTY] or [game.geo.centre]
    rows = [x // size for x in used]
    cols = [x % size for x in used]
    r0, r1 = max(0, min(rows) - 1), min(size - 1, max(rows) + 1)
    c0, c1 = max(0, min(cols) - 1), min(size - 1, max(cols) + 1)
    lines = [f"Uzor {size}x{size} (rows {r0 + 1}-{r1 + 1}, columns {column_name(c0)}-{column_name(c1)} shown)"]
    lines.append("    " + " ".join(f"{column_name(c):>2}" for c in range(c0, c1 + 1)))
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            v = board[r * size + c]
            text = " ." if v == EMPTY else ("##" if v >= STONE else code(v))
            cells.append(text)
        lines.append(f"{r + 1:>3} " + " ".join(cells))
    market = "  ".join(f"{m}:{code(t) if t >= 0 else '--'}" for m, t in enumerate(game.market))
    lines.append(f"market  {market}")
    for p in (0, 1):
        hand = " ".join(code(t) for t in game.hands[p]) or "(empty)"
        lines.append(f"player_{p}  {game.points[p]:>3} points   hand {hand}")
    faceup = game.discards
    shown = (", face up at the bottom: " + " ".join(code(t) for t in faceup)) if faceup else ""
    lines.append(f"supply  {sum(game.facedown) + len(faceup)} tiles{shown}")
    names = game.geo.map.names
    points = game.geo.map.points
    lines.append("map     " + "  ".join(
        (f"~{n}~" if game.crossed >> k & 1 else n) + f" {points[k]}" for k, n in enumerate(names)))
    if game.last_cell >= 0:
        lines.append(f"last    {cell_name(*divmod(game.last_cell, size))}")
    lines.append(status(game))
    return "\n".join(lines)


# ----- the picture ------------------------------------------------------------------------------

def _glyph(draw, motif: int, x0: float, y0: float, s: float, colour) -> None:
    cx, cy = x0 + s / 2, y0 + s / 2
    r = s * 0.3
    width = max(1, int(s / 12))
    if motif == 0:  # cedar: a tree
        draw.polygon([(cx, cy - r), (cx - r * 0.8, cy + r * 0.6), (cx + r * 0.8, cy + r * 0.6)], outline=colour, width=width)
        draw.line([(cx, cy + r * 0.6), (cx, cy + r)], fill=colour, width=width)
    elif motif == 1:  # sun: a disc with rays
        draw.ellipse((cx - r * 0.5, cy - r * 0.5, cx + r * 0.5, cy + r * 0.5), outline=colour, width=width)
        for i in range(8):
            a = i * math.pi / 4
            draw.line([(cx + math.cos(a) * r * 0.7, cy + math.sin(a) * r * 0.7),
                       (cx + math.cos(a) * r, cy + math.sin(a) * r)], fill=colour, width=width)
    elif motif == 2:  # wave
        pts = [(cx - r + i * r / 6, cy + math.sin(i * math.pi / 3) * r * 0.45) for i in range(13)]
        draw.line(pts, fill=colour, width=width)
    elif motif == 3:  # bird: a chevron in flight
        draw.line([(cx - r, cy - r * 0.5), (cx - r * 0.45, cy - r * 0.15), (cx, cy + r * 0.4),
                   (cx + r * 0.45, cy - r * 0.15), (cx + r, cy - r * 0.5)], fill=colour, width=width)
        draw.ellipse((cx - r * 0.2, cy + r * 0.25, cx + r * 0.2, cy + r * 0.65), fill=colour)
    else:  # star
        pts = []
        for i in range(10):
            a = -math.pi / 2 + i * math.pi / 5
            rr = r if i % 2 == 0 else r * 0.45
            pts.append((cx + math.cos(a) * rr, cy + math.sin(a) * rr))
        draw.polygon(pts, outline=colour, width=width)


def _tile(draw, t: int, x0: float, y0: float, s: float) -> None:
    draw.rectangle((x0 + 1, y0 + 1, x0 + s - 1, y0 + s - 1), fill=TILE_COLOURS[t % 5], outline=INK)
    ink = INK if t % 5 in (3, 4) else (250, 240, 200)
    _glyph(draw, t // 5, x0, y0, s, ink)


def rgb(game: UzorGame, seats: tuple[int, ...] = (), cell_px: int | None = None) -> np.ndarray:
    size = game.geo.size
    cell_px = cell_px or max(18, min(32, 640 // size))
    margin, top = 24, 34
    board_px = size * cell_px
    panel = 330
    width = margin * 2 + board_px + panel
    height = max(top + board_px + margin, 620)
    image, draw = canvas(width, height)
    small = font(12)
    draw.text((margin, 8), status(game), fill=INK, font=font(14))
    for c in range(size):
        draw.text((margin + c * cell_px + cell_px / 3, top - 13), column_name(c), fill=GRID, font=font(9))
    for r in range(size):
        draw.text((4, top + r * cell_px + cell_px / 3), str(r + 1), fill=GRID, font=font(9))
    for x, v in enumerate(game.board):
        r, c = divmod(x, size)
        x0, y0 = margin + c * cell_px, top + r * cell_px
        if v == EMPTY:
            draw.rectangle((x0, y0, x0 + cell_px, y0 + cell_px), fill=PAPER, outline=(225, 220, 210))
        elif v >= STONE:
            draw.rectangle((x0 + 1, y0 + 1, x0 + cell_px - 1, y0 + cell_px - 1), fill=STONE_FILL, outline=INK)
            draw.line([(x0 + 4, y0 + cell_px - 4), (x0 + cell_px - 4, y0 + 4)], fill=(120, 117, 112))
        else:
            _tile(draw, v, x0, y0, cell_px)
    if game.last_cell >= 0:
        r, c = divmod(game.last_cell, size)
        x0, y0 = margin + c * cell_px, top + r * cell_px
        draw.rectangle((x0 - 1, y0 - 1, x0 + cell_px + 1, y0 + cell_px + 1), outline=(250, 60, 200), width=2)
    # side panel
    px = margin * 2 + board_px
    y = top
    slot = 30
    draw.text((px, y), "market", fill=INK, font=small)
    y += 16
    for m, t in enumerate(game.market):
        x0 = px + m * (slot + 6)
        if t >= 0:
            _tile(draw, t, x0, y, slot)
        else:
            draw.rectangle((x0, y, x0 + slot, y + slot), outline=GRID)
    y += slot + 14
    for p in (0, 1):
        mark = " <" if game.phase != OVER and game.to_move == p else ""
        draw.text((px, y), f"player_{p}: {game.points[p]} points{mark}", fill=SEAT_COLOURS[p], font=small)
        y += 16
        for s, t in enumerate(game.hands[p]):
            _tile(draw, t, px + s * (slot + 6), y, slot)
        y += slot + 12
    faceup = game.discards
    draw.text((px, y), f"supply: {sum(game.facedown) + len(faceup)} tiles" + (", face up at the bottom:" if faceup else ""),
              fill=INK, font=small)
    y += 16
    if faceup:
        for i, t in enumerate(faceup[-8:]):
            _tile(draw, t, px + i * 22, y, 20)
        y += 26
    y += 6
    draw.text((px, y), "the Map", fill=INK, font=small)
    y += 16
    names, points = game.geo.map.names, game.geo.map.points
    for k, name in enumerate(names):
        crossed = game.crossed >> k & 1
        text = f"{k:>2} {name}  {points[k]}"
        colour = GRID if crossed else INK
        draw.text((px, y), text, fill=colour, font=small)
        if crossed:
            draw.line([(px, y + 7), (px + draw.textlength(text, font=small), y + 7)], fill=(200, 40, 40), width=2)
            owner = next(p for p, j, _ in game.closed if j == k)
            draw.text((px + 160, y), f"player_{owner}", fill=SEAT_COLOURS[owner], font=small)
        elif k in game.fork:
            draw.text((px + 160, y), "completed", fill=(40, 140, 60), font=small)
        y += 15
    return to_array(image)


__all__ = ["ansi", "rgb", "code", "status"]
