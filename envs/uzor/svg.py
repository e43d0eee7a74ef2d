"""Uzor as SVG for front ends that click (``envs.core.svg``), from one viewer's seats.

The table with its coordinates (tiles drawn as coloured squares with their motif, stones grey,
the tile placed last ringed, the instances a placement just completed outlined in green while
their owner chooses), and a panel: the market, both hands (public), the viewer's own secret
goal only, the supply's size and its face-up discards, the Map (points, crossed out and by
whom, completed now) and the buttons of the viewer's turn. Elements:

* ``cell-<x>`` — every cell of the table: PLACE hand slot ``s`` at ``x`` (``s*B*B + x``); a
  cell where several hand tiles fit is a choice among them;
* ``map-<k>`` — the Map's pattern ``k``: CLOSE ``k``;
* ``market-<m>`` — TAKE market slot ``m``;
* ``hand<p>-<s>`` — player ``p``'s hand slot ``s``: DISCARD ``s`` (a dead end);
* ``continue``, ``pass`` — buttons, drawn only while the viewer may press them.

Never the opponent's goal; the face-down supply has no order in the state to show.
"""

from __future__ import annotations

import math

from envs.core.notation import cell_name, column_name
from envs.core.svg import GRID, INK, PAPER, SEAT_COLOURS, Picture, colour, legal_now, seat_key, star_points
from envs.uzor.common import COLOURS, EMPTY, FORK, MOTIFS, OVER, STONE, tile_name
from envs.uzor.render import (
    COMPLETED, CROSS_OUT, LAST_MARK, STONE_FILL, TILE_COLOURS, map_rows, status as _status, supply_words,
    tile_row,
)

SLOT = 34
PANEL_W = 400


def glyph(picture: Picture, motif: int, x0: float, y0: float, s: float, ink) -> None:
    """The motif drawn in a tile of side ``s`` at ``(x0, y0)``."""
    cx, cy, r = x0 + s / 2, y0 + s / 2, s * 0.3
    width = max(1.2, s / 12)
    stroke = {"stroke": colour(ink), "stroke_width": width, "stroke_linejoin": "round", "stroke_linecap": "round"}
    if motif == 0:  # cedar: a tree
        picture.polygon([(cx, cy - r), (cx - r * 0.8, cy + r * 0.6), (cx + r * 0.8, cy + r * 0.6)], fill="none", **stroke)
        picture.line(cx, cy + r * 0.6, cx, cy + r, **stroke)
    elif motif == 1:  # sun: a disc with rays
        picture.circle(cx, cy, r * 0.5, **stroke)
        for i in range(8):
            a = i * math.pi / 4
            picture.line(cx + math.cos(a) * r * 0.7, cy + math.sin(a) * r * 0.7, cx + math.cos(a) * r,
                         cy + math.sin(a) * r, **stroke)
    elif motif == 2:  # wave
        picture.polyline([(cx - r + i * r / 6, cy + math.sin(i * math.pi / 3) * r * 0.45) for i in range(13)], **stroke)
    elif motif == 3:  # bird: a chevron in flight
        picture.polyline([(cx - r, cy - r * 0.5), (cx - r * 0.45, cy - r * 0.15), (cx, cy + r * 0.4),
                          (cx + r * 0.45, cy - r * 0.15), (cx + r, cy - r * 0.5)], **stroke)
        picture.circle(cx, cy + r * 0.45, r * 0.2, fill=ink)
    else:  # star
        picture.polygon(star_points(cx, cy, r, r * 0.45), fill="none", **stroke)


def tile(picture: Picture, t: int, x0: float, y0: float, s: float, **attrs) -> None:
    """Tile type ``t`` (motif ``t // 5``, colour ``t % 5``) as a square of side ``s``."""
    with picture.group(**attrs):
        picture.rect(x0 + 1, y0 + 1, s - 2, s - 2, fill=TILE_COLOURS[t % 5], stroke=colour(INK), rx=2)
        glyph(picture, t // 5, x0, y0, s, INK if t % 5 in (3, 4) else (250, 240, 200))


def _layout(game) -> tuple[int, int, int, int]:
    size = game.geo.size
    cell = max(20, min(30, 630 // size))
    return cell, 34, 56, size


def _table(picture: Picture, game, preview: int | None) -> None:
    cell, left, top, size = _layout(game)
    picture.rect(left, top, size * cell, size * cell, fill=PAPER, stroke=colour(GRID))
    for i in range(1, size):
        picture.line(left + i * cell, top, left + i * cell, top + size * cell, stroke=(225, 220, 210))
        picture.line(left, top + i * cell, left + size * cell, top + i * cell, stroke=(225, 220, 210))
    for i in range(size):
        picture.centred_text(left + i * cell + cell / 2, top - 10, column_name(i), size=10, fill=GRID)
        picture.centred_text(left - 14, top + i * cell + cell / 2, str(i + 1), size=10, fill=GRID)
    for x, v in enumerate(game.board):
        if v == EMPTY:
            continue
        r, c = divmod(x, size)
        x0, y0 = left + c * cell, top + r * cell
        if v >= STONE:
            picture.rect(x0 + 1, y0 + 1, cell - 2, cell - 2, fill=STONE_FILL, stroke=colour(INK))
            picture.line(x0 + 4, y0 + cell - 4, x0 + cell - 4, y0 + 4, stroke=(120, 117, 112))
        else:
            tile(picture, v, x0, y0, cell)
    if game.last_cell >= 0:
        r, c = divmod(game.last_cell, size)
        picture.rect(left + c * cell - 1, top + r * cell - 1, cell + 2, cell + 2, stroke=colour(LAST_MARK), stroke_width=3)
    if game.phase == FORK:
        outlined = sorted({x for cells in game.fork.values() for x in cells})
        for x in outlined:
            r, c = divmod(x, size)
            picture.rect(left + c * cell + 3, top + r * cell + 3, cell - 6, cell - 6, stroke=colour(COMPLETED),
                         stroke_width=2.5, stroke_dasharray="4 3")
    if preview is not None:
        slot, x = divmod(preview, game.geo.cells)
        r, c = divmod(x, size)
        x0, y0 = left + c * cell, top + r * cell
        tile(picture, game.hands[game.to_move][slot], x0, y0, cell, opacity=0.75)
        picture.rect(x0 - 2, y0 - 2, cell + 4, cell + 4, stroke=colour(INK), stroke_width=3, stroke_dasharray="5 3")


def svg(game, seats: tuple[int, ...] = (), preview: int | None = None) -> str:
    cell, left, top, size = _layout(game)
    px = left + size * cell + 30
    width = px + PANEL_W
    picture = Picture(width, max(top + size * cell + 40, 760), "Uzor")
    over = game.phase == OVER
    picture.text(left, 24, _status(game), size=16, fill=CROSS_OUT if over else INK, weight="bold" if over else None)
    _table(picture, game, preview if preview is not None and can_preview(game, preview) else None)
    legal = legal_now(game, seats)
    y = _svg_players(picture, game, seats, px, top - 8)
    y = _svg_map(picture, game, px, y)
    buttons = [(game.geo.cont, "continue", "continue (no points, play again)"), (game.geo.pass_, "pass", "pass")]
    for action, name, words in buttons:
        if action in legal:
            y += 8
            picture.button(name, px, y, 260, 32, words)
            y += 36
    y = max(y, top + size * cell) + 22
    x = left
    for m, name in enumerate(MOTIFS):
        tile(picture, m * 5 + 4, x, y, 20)
        picture.text(x + 24, y + 15, name, size=12)
        x += 30 + 7 * len(name)
    x += 10
    for c, name in enumerate(COLOURS):
        picture.rect(x, y + 2, 16, 16, fill=TILE_COLOURS[c], stroke=colour(INK))
        picture.text(x + 20, y + 15, name, size=12)
        x += 26 + 7 * len(name)
    picture.height = max(picture.height, y + 34)
    for x in range(game.geo.cells):
        r, c = divmod(x, size)
        v = game.board[x]
        what = "empty" if v == EMPTY else "stone" if v >= STONE else tile_name(v)
        picture.element(f"cell-{x}", left + c * cell, top + r * cell, cell, cell, f"{cell_name(r, c)} ({what})")
    return picture.document()


def _svg_players(picture: Picture, game, seats: tuple[int, ...], px: float, y: float) -> float:
    """The market, each player's key and hand (the viewer's own secret goal), the supply;
    where the Map starts."""
    picture.text(px, y, "market", size=14, weight="bold")
    y += 8
    for m, t, x0 in tile_row(game.market, px, SLOT, 8):
        if t >= 0:
            tile(picture, t, x0, y, SLOT)
        else:
            picture.rect(x0 + 1, y + 1, SLOT - 2, SLOT - 2, stroke=colour(GRID), stroke_dasharray="3 3")
        picture.centred_text(x0 + SLOT / 2, y + SLOT + 9, str(m), size=10, fill=GRID)
        what = tile_name(t) if t >= 0 else "empty"
        picture.element(f"market-{m}", x0, y, SLOT, SLOT, f"market slot {m} ({what})")
    y += SLOT + 40
    turn = game.to_move if game.current_player() >= 0 else None
    names = game.geo.map.names
    for p in (0, 1):
        seat_key(picture, px, y, p, f"player_{p}: {game.points[p]} points", p == turn)
        y += 8
        for s, t, x0 in tile_row(game.hands[p], px, SLOT, 8):
            tile(picture, t, x0, y, SLOT)
            picture.element(f"hand{p}-{s}", x0, y, SLOT, SLOT, f"player_{p}'s hand slot {s} ({tile_name(t)})")
        y += SLOT + 18
        if p in seats and game.goals[p] is not None:
            picture.text(px, y, f"your secret goal: {names[game.goals[p]]} (double points)", size=13,
                         fill=SEAT_COLOURS[p], weight="bold")
            y += 20
        y += 8
    faceup = game.discards
    picture.text(px, y, supply_words(game), size=13)
    y += 6
    if faceup:
        for _, t, x0 in tile_row(faceup[-10:], px, 22, 2):
            tile(picture, t, x0, y, 22)
        y += 28
    return y + 18


def _svg_map(picture: Picture, game, px: float, y: float) -> float:
    """The Map, a row per pattern (each a clickable element); where it ends."""
    points = game.geo.map.points
    picture.text(px, y, "the Map: close a completed pattern for its points", size=13, weight="bold")
    y += 8
    for k, name, cells, hollow, extent, owner, criterion in map_rows(game):
        unit = 5 if extent <= 5 else max(2, 25 // extent)
        row_h = 24
        for r, c in cells:
            picture.rect(px + 2 + c * unit, y + 3 + r * unit, unit - 1, unit - 1, fill=INK)
        if hollow:
            rows, cols = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
            picture.rect(px + 2 + (cols // 2) * unit, y + 3 + (rows // 2) * unit, unit - 1, unit - 1,
                         stroke=colour(INK), stroke_width=0.8)
        crossed = owner is not None
        label = f"{name} {points[k]}"
        picture.text(px + 36, y + 15, label, size=13, fill=GRID if crossed else INK,
                     weight="bold" if k in game.fork else None)
        picture.text(px + 140, y + 15, criterion, size=12, fill=GRID)
        if crossed:
            picture.line(px + 34, y + 10, px + 36 + 7.5 * len(label), y + 10, stroke=CROSS_OUT, stroke_width=2)
            picture.text(px + 270, y + 15, f"closed by player_{owner}", size=12, fill=SEAT_COLOURS[owner])
        elif k in game.fork and game.phase == FORK:
            picture.text(px + 270, y + 15, "completed now", size=12, fill=COMPLETED, weight="bold")
        state = "crossed out" if crossed else "completed now" if k in game.fork and game.phase == FORK else "open"
        picture.element(f"map-{k}", px, y, PANEL_W - 10, row_h - 2, f"pattern {k}: {name}, {points[k]} points ({state})")
        y += row_h
    return y


def element(game, action: int) -> str | None:
    geo = game.geo
    player = game.current_player()
    if player < 0 or not 0 <= action < geo.num_actions:
        return None
    if action < geo.close0:
        return f"cell-{action % geo.cells}"
    if action < geo.cont:
        return f"map-{action - geo.close0}"
    if action == geo.cont:
        return "continue"
    if action < geo.discard0:
        return f"market-{action - geo.take0}"
    if action < geo.pass_:
        return f"hand{player}-{action - geo.discard0}"
    return "pass"


def status(game, seats: tuple[int, ...] = ()) -> str:
    return _status(game)


def can_preview(game, action: int) -> bool:
    """A placement of the player to act (a cell where several hand tiles fit is a choice)."""
    return game.current_player() >= 0 and 0 <= action < game.geo.close0 and game.why_illegal(action) is None


__all__ = ["can_preview", "element", "glyph", "status", "svg", "tile"]
