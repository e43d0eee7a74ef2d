"""Uzor pictures and text boards, and what terminal play says about a move.

A picture shows what its viewer may see: everything public (the table, both hands, the market,
the supply's size and its face-up discards, the Map with its crossed-out patterns and who closed
them, the scores) and the secret goals of the viewer's own seats only (``seats``: ``()`` for a
spectator). The face-down supply has no order to show. The tile placed last is framed in magenta
(``[..]`` in the text board), and a ``last move:`` line names the last move (``last``), whatever it
was: a placement, a close, a take, a discard.

Text tiles are two letters: the motif in capitals (``C`` cedar, ``S`` sun, ``W`` wave, ``B``
bird, ``X`` star) and the colour in small letters (``r`` crimson, ``a`` azure, ``e`` emerald,
``m`` amber, ``i`` ivory); ``##`` is a stone, ``.`` an empty cell, ``[..]`` the tile placed last.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.notation import cell_name, column_name
from envs.core.render import GRID, INK, LAST_MOVE, PAPER, SEAT_COLOURS, LastMove, canvas, font, to_array
from envs.uzor.common import (
    COLOURS, DEAD_TAKE, DEAL, DISCARD, EMPTY, FORK, GOAL, IDLE_LIMIT, MOTIFS, OVER, PASS, PLACE, REFILL, STONE,
    TAKE, tile_name,
)

MOTIF_LETTERS = "CSWBX"
COLOUR_LETTERS = "raemi"
TILE_COLOURS = [(178, 34, 52), (40, 118, 205), (30, 145, 90), (232, 160, 32), (238, 232, 212)]
STONE_FILL = (95, 92, 88)
LAST_MARK = LAST_MOVE  # the suite's last-move colour: the tile placed last
COORDINATES = (90, 86, 80)  # the board's column letters and row numbers: dark enough to read
CROSS_OUT = (200, 40, 40)
COMPLETED = (40, 140, 60)
# what each criterion asks, in a few words (envs.uzor.patterns.CRITERIA order)
CRITERION_WORDS = ("same motif", "same colour", "motif or colour", "all colours differ", "all motifs differ",
                   "identical tiles", "any tiles", "any, centre empty")
LEGEND = ("tiles: motif C cedar S sun W wave B bird X star + colour r crimson a azure e emerald m amber i ivory;"
          " ## stone, . empty, [..] placed last")


def code(t: int) -> str:
    return MOTIF_LETTERS[t // 5] + COLOUR_LETTERS[t % 5]


def result(game) -> str:
    """The final line: both scores and the winner (or a draw), and why the game ended."""
    p0, p1 = game.points
    winner = "a draw" if p0 == p1 else f"player_{0 if p0 > p1 else 1} wins"
    why = (f"no placement in the last {IDLE_LIMIT} turns" if game.idle >= IDLE_LIMIT
           else "no tile outside the table fits anywhere")
    return f"game over: player_0 {p0}, player_1 {p1}: {winner} ({why})"


def status(game) -> str:
    """Who is to do what (or the result)."""
    names = game.geo.map.names
    if game.phase == OVER:
        return result(game)
    if game.phase in (GOAL, DEAL):
        return "the setup: dealing the secret goals and the tiles"
    if game.phase == REFILL:
        return f"player_{game.to_move} took: market slot {game.pending} is refilled from the supply"
    who = f"player_{game.to_move}"
    extra = " (a repeated turn)" if game.repeated else ""
    what = {
        PLACE: "to move: place a tile",
        FORK: "to move: close " + " or ".join(names[k] for k in sorted(game.fork)) + ", or continue",
        TAKE: "to move: take from the market" + (" (then plays again)" if game.continued and not game.repeated else ""),
        DISCARD: "to move, in a dead end: discard a tile",
        DEAD_TAKE: "to move: take after the discard",
        PASS: "to move, in a dead end with an empty market: pass",
    }[game.phase]
    return f"{who} {what}{extra}"


def goal_lines(game, seats: tuple[int, ...]) -> list[str]:
    """The secret goals the viewer may see: their own seats' (dealt ones)."""
    names = game.geo.map.names
    return [f"player_{p}'s secret goal: {names[game.goals[p]]} (double points)"
            for p in seats if game.goals[p] is not None]


def text_window(game) -> tuple[int, int, int, int]:
    """The rows and columns the text board shows (first and last of each): the tiles placed and
    one cell around them."""
    size = game.geo.size
    used = [x for x, v in enumerate(game.board) if v != EMPTY] or [game.geo.centre]
    rows = [x // size for x in used]
    cols = [x % size for x in used]
    return max(0, min(rows) - 1), min(size - 1, max(rows) + 1), max(0, min(cols) - 1), min(size - 1, max(cols) + 1)


# ----- where the last move is marked (``Renderers``' last-move hooks) ----------------------------

def last_move_cell(last: LastMove) -> int | None:
    """The cell of a placement (the tile placed last is framed); ``None`` for any other action."""
    return last.action % last.before.geo.cells if last.before.phase == PLACE else None


def last_move_text(game, cell: int) -> tuple[int, int, int] | None:
    """``ansi``'s ``[..]`` around the tile on ``cell``: its row's line, three characters a cell
    before it; ``None`` where the cell lies outside the rows and columns shown."""
    r0, r1, c0, c1 = text_window(game)
    r, c = divmod(cell, game.geo.size)
    if not (r0 <= r <= r1 and c0 <= c <= c1):
        return None
    first = 4 + 3 * (c - c0)
    return 2 + r - r0, first, first + 3


def last_move_box(game, cell: int) -> tuple[int, int, int, int]:
    """The cell's pixels in ``rgb``'s picture at its default cell size (the frame is drawn
    around the tile placed last, ``game.last_cell``)."""
    size = game.geo.size
    cell_px = max(18, min(32, 640 // size))
    margin, top = 30, 30 + 26  # as rgb lays out the board: the margin, the title and the column letters
    r, c = divmod(cell, size)
    return margin + c * cell_px, top + r * cell_px, margin + (c + 1) * cell_px, top + (r + 1) * cell_px


def ansi(game, seats: tuple[int, ...] = (), last: LastMove | None = None) -> str:
    size = game.geo.size
    board = game.board
    r0, r1, c0, c1 = text_window(game)
    lines = [f"Uzor {size}x{size} (rows {r0 + 1}-{r1 + 1}, columns {column_name(c0)}-{column_name(c1)} shown)"]
    lines.append("    " + "".join(f"{column_name(c):>3}" for c in range(c0, c1 + 1)))
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            x = r * size + c
            v = board[x]
            text = "." if v == EMPTY else ("##" if v >= STONE else code(v))
            cells.append(f"[{text}]" if x == game.last_cell else f" {text:>2}")
        lines.append(f"{r + 1:>3} " + "".join(cells))
    market = "  ".join(f"{m}:{code(t) if t >= 0 else '--'}" for m, t in enumerate(game.market))
    lines.append(f"market  {market}")
    turn = game.to_move if game.phase not in (OVER, GOAL, DEAL) else None
    for p in (0, 1):
        hand = " ".join(f"{s}:{code(t)}" for s, t in enumerate(game.hands[p])) or "(empty)"
        mark = "  <- to move" if p == turn and game.phase != REFILL else ""
        lines.append(f"player_{p}  {game.points[p]:>3} points   hand {hand}{mark}")
    lines.extend(goal_lines(game, seats))
    faceup = game.discards
    shown = (", face up at the bottom: " + " ".join(code(t) for t in faceup)) if faceup else ""
    lines.append(f"supply  {sum(game.facedown) + len(faceup)} tiles{shown}")
    names = game.geo.map.names
    points = game.geo.map.points
    owners = {k: p for p, k, _ in game.closed}
    lines.append("map     " + "  ".join(
        (f"~{n}~(p{owners[k]})" if k in owners else n) + f" {points[k]}" for k, n in enumerate(names)))
    lines.append(status(game))
    if last is not None:
        lines.append(last.text())
    lines.append(LEGEND + "; ~Name~(pN): closed by player_N")
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


def _shape(draw, cells, x0: float, y0: float, unit: int, hollow: bool) -> float:
    """A pattern's first orientation as small squares (the Ring's centre as a ring); returns
    the width drawn."""
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    for r, c in cells:
        draw.rectangle((x0 + c * unit, y0 + r * unit, x0 + (c + 1) * unit - 2, y0 + (r + 1) * unit - 2), fill=INK)
    if hollow:
        cr, cc = height // 2, width // 2
        draw.rectangle((x0 + cc * unit, y0 + cr * unit, x0 + (cc + 1) * unit - 2, y0 + (cr + 1) * unit - 2), outline=INK)
    return width * unit


def rgb(game, seats: tuple[int, ...] = (), cell_px: int | None = None, last: LastMove | None = None) -> np.ndarray:
    size = game.geo.size
    cell_px = cell_px or max(18, min(32, 640 // size))
    margin, title_h = 30, 30
    top = title_h + 26  # the title, then a row for the column letters
    board_px = size * cell_px
    panel = 400
    width = margin * 2 + board_px + panel
    image, draw = canvas(width, top + max(board_px, 700) + 80)  # cropped to what is drawn
    over = game.phase == OVER
    draw.text((margin, 8), status(game), fill=CROSS_OUT if over else INK, font=font(16))
    _draw_board(draw, game, margin, top, cell_px)
    # the side panel: market, players (colour key, hands, turn, own goals), supply, the Map
    y = _draw_players(draw, game, seats, last, margin * 2 + board_px, top - 16)
    y = _draw_map(draw, game, margin * 2 + board_px, y)
    y = _draw_key(draw, margin, max(top + board_px, y) + 14)
    return to_array(image.crop((0, 0, width, y + 30)))


def _draw_board(draw, game, margin: int, top: int, cell_px: int) -> None:
    """The coordinates, the cells (empty, stone or tile) and the frame of the tile placed last."""
    size = game.geo.size
    coord = font(13)
    for c in range(size):
        text = column_name(c)
        draw.text((margin + c * cell_px + (cell_px - draw.textlength(text, font=coord)) / 2, top - 18), text,
                  fill=COORDINATES, font=coord)
    for r in range(size):
        text = str(r + 1)
        draw.text((margin - 5 - draw.textlength(text, font=coord), top + r * cell_px + cell_px / 2 - 7), text,
                  fill=COORDINATES, font=coord)
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
        draw.rectangle((x0 - 1, y0 - 1, x0 + cell_px + 1, y0 + cell_px + 1), outline=LAST_MARK, width=3)


def _draw_players(draw, game, seats: tuple[int, ...], last: LastMove | None, px: int, y: int) -> int:
    """The market, each player (colour key, points, hand, whose turn, the viewer's own secret
    goal), the supply and the last move; where the Map starts."""
    small, label = font(12), font(13)
    slot = 30
    draw.text((px, y), "market (take 0…4)", fill=INK, font=label)
    y += 18
    for m, t, x0 in tile_row(game.market, px, slot, 6):
        if t >= 0:
            _tile(draw, t, x0, y, slot)
        else:
            draw.rectangle((x0, y, x0 + slot, y + slot), outline=GRID)
        draw.text((x0 + slot / 2 - 3, y + slot + 1), str(m), fill=COORDINATES, font=small)
    y += slot + 18
    turn = game.to_move if game.phase not in (OVER, GOAL, DEAL, REFILL) else None
    names = game.geo.map.names
    for p in (0, 1):
        colour = SEAT_COLOURS[p]
        draw.rectangle((px, y + 2, px + 12, y + 14), fill=colour)
        text = f"player_{p}: {game.points[p]} points"
        draw.text((px + 18, y), text, fill=colour, font=label)
        if p == turn:
            tx = px + 26 + draw.textlength(text, font=label)
            draw.polygon([(tx, y + 8), (tx + 10, y + 2), (tx + 10, y + 14)], fill=colour)
            draw.text((tx + 14, y), "to move", fill=colour, font=label)
        y += 18
        for _, t, x0 in tile_row(game.hands[p], px, slot, 6):
            _tile(draw, t, x0, y, slot)
        y += slot + 4
        if p in seats and game.goals[p] is not None:
            draw.text((px, y), f"secret goal: {names[game.goals[p]]} (double points)", fill=colour, font=small)
            y += 16
        y += 8
    faceup = game.discards
    draw.text((px, y), supply_words(game), fill=INK, font=label)
    y += 18
    if faceup:
        for _, t, x0 in tile_row(faceup[-8:], px, 20, 2):
            _tile(draw, t, x0, y, 20)
        y += 26
    if last is not None:  # words only: the frame on the board is the tile placed last, not every move
        draw.text((px, y), last.text(), fill=INK, font=label)
        y += 18
    return y + 4


def _draw_map(draw, game, px: int, y: int) -> int:
    """The Map: each pattern's shape, points and criterion, crossed out once closed (by whom)
    or marked when completed now; where it ends."""
    small = font(12)
    points = game.geo.map.points
    draw.text((px, y), "the Map (points; crossed out: closed, by whom)", fill=INK, font=font(13))
    y += 20
    for k, name, cells, hollow, extent, owner, criterion in map_rows(game):
        unit = 6 if extent <= 5 else max(2, 30 // extent)
        rows = max(r for r, _ in cells) + 1
        row_h = max(18, rows * unit + 6)
        _shape(draw, cells, px, y + 3, unit, hollow)
        text = f"{k:>2} {name}  {points[k]}"
        tx = px + 38
        crossed = owner is not None
        draw.text((tx, y), text, fill=GRID if crossed else INK, font=small)
        end = tx + draw.textlength(text, font=small)
        draw.text((end + 6, y), criterion, fill=GRID, font=small)
        end += 6 + draw.textlength(criterion, font=small)
        if crossed:
            draw.line([(tx, y + 7), (tx + draw.textlength(text, font=small), y + 7)], fill=CROSS_OUT, width=2)
            draw.text((end + 8, y), f"closed by player_{owner}", fill=SEAT_COLOURS[owner], font=small)
        elif k in game.fork:
            draw.text((end + 8, y), "completed now", fill=COMPLETED, font=small)
        y += row_h
    return y


def _draw_key(draw, margin: int, y: int) -> int:
    """The key under both: motifs, colours, stones, the last tile; its last row's top."""
    small = font(12)
    x = margin
    for m, name in enumerate(MOTIFS):
        _tile(draw, m * 5 + 4, x, y, 20)
        draw.text((x + 23, y + 4), name, fill=INK, font=small)
        x += 28 + draw.textlength(name, font=small)
    y += 24
    x = margin
    for c, name in enumerate(COLOURS):
        draw.rectangle((x, y + 2, x + 16, y + 18), fill=TILE_COLOURS[c], outline=INK)
        draw.text((x + 20, y + 4), name, fill=INK, font=small)
        x += 26 + draw.textlength(name, font=small)
    draw.rectangle((x, y + 2, x + 16, y + 18), fill=STONE_FILL, outline=INK)
    draw.text((x + 20, y + 4), "stone", fill=INK, font=small)
    x += 26 + draw.textlength("stone", font=small)
    draw.rectangle((x, y + 2, x + 16, y + 18), outline=LAST_MARK, width=3)
    draw.text((x + 20, y + 4), "placed last", fill=INK, font=small)
    return y


def tile_row(tiles, x: float, size: float, gap: float) -> list[tuple[int, int, float]]:
    """A row of tiles laid left to right from ``x``, ``size`` wide and ``gap`` apart: each
    one's index, tile and left edge. The picture and the SVG lay out the market, the hands and
    the face-up discards so."""
    return [(i, t, x + i * (size + gap)) for i, t in enumerate(tiles)]


def supply_words(game) -> str:
    """The supply's size, and whether face-up discards lie at its bottom (the pictures draw
    the last of them after these words)."""
    return f"supply: {sum(game.facedown) + len(game.discards)} tiles" + (
        ", face up at the bottom:" if game.discards else "")


def map_rows(game):
    """The Map's patterns as the pictures list them: ``(k, name, cells, hollow, extent, owner,
    criterion)``: the cells of the first orientation, whether its centre is hollow, its larger
    side, the seat that closed it (``None`` while open), and its criterion in words."""
    owners = {k: p for p, k, _ in game.closed}
    shapes = _first_shapes(game)
    criteria = game.geo.map.criteria
    for k, name in enumerate(game.geo.map.names):
        cells, hollow = shapes[k]
        extent = max(max(r, c) for r, c in cells) + 1
        yield k, name, cells, hollow, extent, owners.get(k), CRITERION_WORDS[criteria[k]]


def _first_shapes(game) -> list[tuple[tuple[tuple[int, int], ...], bool]]:
    """Per pattern, the cells of its first orientation and whether it has a hollow centre."""
    from envs.uzor.patterns import HOLLOW, STANDARD_MAP

    patterns = game.options["patterns"] or STANDARD_MAP
    criteria = game.geo.map.criteria
    return [(tuple(tuple(cell) for cell in p["shapes"][0]), criteria[k] == HOLLOW) for k, p in enumerate(patterns)]


# ----- terminal play ------------------------------------------------------------------------------

RULES_SUMMARY = """\
Uzor: 75 tiles, five motifs (cedar, sun, wave, bird, star) on five colours (crimson, azure,
emerald, amber, ivory), three of each. Your hand (five tiles) and the market (five, face up)
are public; your secret goal is one pattern of the Map that scores double for you.
A turn: place a hand tile next to a tile on the table, matching at least one open neighbour by
motif or colour (a cell touching only stones takes anything). If it completes patterns of the
Map that are not crossed out, close one (its points; its tiles become stones; it is crossed
out for both) or continue (no points now, another turn straight after this one). Then take a
market tile. A player who cannot place discards a tile face up and takes (or passes with an
empty market). The game ends when no tile outside the table fits, or after 20 turns without a
placement: more points wins.
Moves: place cedar/azure @ h8 (column letters, row number from 1 at the top), close Line-4,
continue, take 3 (market slot 0-4), discard 1 (hand slot 0-4), pass."""


def narrate(before, action: int, after, viewer: int) -> str | None:
    """What a move did, as ``viewer`` may know it: the tile placed and what it completed, the
    pattern closed (its points, doubled for the closer's goal), a continue, the tile taken and
    the one that refilled the market, a discard. At the setup's chance nodes, nothing (the
    goals are secret, the deal shows on the board)."""
    phase = before.phase
    names = before.geo.map.names
    geo = before.geo
    if phase in (GOAL, DEAL):
        return None
    if phase == REFILL:
        return f"the market's slot {before.pending} refills with {tile_name(action)}"
    player = before.to_move
    who = f"player_{player}"
    if phase == PLACE:
        slot, cell = divmod(action, geo.cells)
        t = before.hands[player][slot]
        where = cell_name(*divmod(cell, geo.size))
        done = sorted(after.fork)
        completes = f", completing {' and '.join(names[k] for k in done)}" if done else ""
        return f"{who} places {tile_name(t)} at {where}{completes}"
    if phase == FORK:
        if action == geo.cont:
            return f"{who} continues: no points now, {'another turn follows' if not before.repeated else 'the turn passes'}"
        k = action - geo.close0
        gained = after.points[player] - before.points[player]
        doubled = " (their secret goal: double)" if gained == 2 * geo.map.points[k] and gained else ""
        return f"{who} closes {names[k]} for {gained} points{doubled}; its tiles become stones"
    if phase in (TAKE, DEAD_TAKE):
        m = action - geo.take0
        return f"{who} takes {tile_name(before.market[m])} from market slot {m}"
    if phase == DISCARD:
        t = before.hands[player][action - geo.discard0]
        return f"{who} cannot place: discards {tile_name(t)} face up to the bottom of the supply"
    if phase == PASS:
        return f"{who} cannot place and the market is empty: passes"
    return None


__all__ = ["LEGEND", "RULES_SUMMARY", "ansi", "code", "narrate", "result", "rgb", "status"]

