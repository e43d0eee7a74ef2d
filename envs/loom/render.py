"""Loom pictures and text boards: both cloths with the notation's coordinates (columns a–d,
rows 1–4), each framed in its seat's colour, the throw on the table, whose turn it is, and at
the end the final scores and the winner; the last move's cell framed in magenta (``[ ]`` in the
text board). Loom hides nothing, so every viewer sees the same."""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import (
    GRID, INK, PAPER, SEAT_COLOURS, LastMove, canvas, font, last_move_key, mark_last, to_array,
)
from envs.loom.cloth import CELLS, SIDE
from envs.loom.rules import ROUNDS, LoomGame

DYE_COLOURS = {
    1: (200, 50, 50),    # madder red
    2: (235, 150, 40),   # saffron
    3: (220, 200, 60),   # weld yellow
    4: (70, 150, 70),    # green
    5: (50, 90, 190),    # indigo
    6: (130, 60, 150),   # purple
}
LEGEND = ("digits 1-6 are dyes, . an empty cell, [ ] the last move; rows and columns score their distinct dyes "
          "(+bounty for four different dyes in a full line); moves are dye@cell, e.g. 5@b3")
MARGIN, LABEL, GAP = 20, 24, 56  # the picture's margin, room for the row numbers, gap between the cloths
TITLE_H, HEADER_H, LETTERS_H = 34, 30, 22


def last_cell(last: LastMove | None) -> tuple[int, int] | None:
    """``(player, cell)`` the last move wove into, or ``None`` (no move, or a throw)."""
    if last is None or last.before.is_chance_node():
        return None
    return last.seat, last.action % CELLS


def cell_box(player: int, cell: int, cell_px: int = 64) -> tuple[int, int, int, int]:
    """The pixels of ``cell`` of ``player``'s cloth in :func:`rgb`'s picture (x0, y0, x1, y1)."""
    x_off = MARGIN + LABEL + player * (LABEL + SIDE * cell_px + GAP)
    top = TITLE_H + HEADER_H + LETTERS_H
    r, c = divmod(cell, SIDE)
    return x_off + c * cell_px, top + r * cell_px, x_off + (c + 1) * cell_px, top + (r + 1) * cell_px


# ----- where the last move is marked (``Renderers``' last-move hooks) ----------------------------

def last_move_cell(last: LastMove) -> int | None:
    """The woven cell as ``seat * CELLS + cell`` (both cloths are drawn); ``None`` for a throw."""
    woven = last_cell(last)
    return None if woven is None else woven[0] * CELLS + woven[1]


def last_move_text(game: LoomGame, cell: int) -> tuple[int, int, int]:
    """``ansi``'s brackets around a cell: its row's line, in its seat's half (17 characters on)."""
    player, (r, c) = cell // CELLS, divmod(cell % CELLS, SIDE)
    first = 17 * player + 3 + 2 * c
    return 2 + r, first, first + 2


def last_move_box(game: LoomGame, cell: int) -> tuple[int, int, int, int]:
    """The cell's pixels in ``rgb``'s picture (at its default cell size)."""
    return cell_box(cell // CELLS, cell % CELLS)


def status(game: LoomGame) -> str:
    """One line: the round and throw and who acts, or the final result."""
    if game.is_terminal():
        return result(game)
    if game.is_chance_node():
        return f"round {game.round + 1}/{ROUNDS}: the shuttle is about to throw"
    low, high = game.throws[game.round]
    actor = game.current_player()
    if game.taken < 0:
        return f"round {game.round + 1}/{ROUNDS}, throw {low} {high}: player_{actor} drafts a thread"
    left = (low, high)[1 - game.taken]
    return f"round {game.round + 1}/{ROUNDS}, throw {low} {high}: player_{actor} weaves the leftover {left}"


def result(game: LoomGame) -> str:
    first, second = game.points
    if first == second:
        return f"final: player_0 {first}, player_1 {second}: a draw"
    winner = 0 if first > second else 1
    return f"final: player_0 {first}, player_1 {second}: player_{winner} wins"


def ansi(game: LoomGame, seats: tuple[int, ...] = (), last: LastMove | None = None) -> str:
    header = "    " + " ".join(column_name(c) for c in range(SIDE))
    actor = game.current_player()
    names = []
    for player in (0, 1):
        mark = ">" if player == actor else " "
        names.append(f"{mark}player_{player}: {game.points[player]:<4}")
    lines = [f"{names[0]:<17}     {names[1]}", f"{header}      {header}"]
    woven = last_cell(last)
    for r in range(SIDE):
        halves = []
        for player, cloth in enumerate(game.cloths):
            row = [" "] * (2 * SIDE + 1)  # a space before and after every cell
            for c in range(SIDE):
                row[2 * c + 1] = str(cloth[r * SIDE + c] or ".")
                if woven == (player, r * SIDE + c):
                    row[2 * c], row[2 * c + 2] = "[", "]"
            halves.append(f"{r + 1:>3}" + "".join(row))
        lines.append(f"{halves[0]}     {halves[1]}".rstrip())
    lines.append(status(game) + f" (bounty {game.bounty}; > marks the player to act)")
    if last is not None:
        lines.append(last.text())
    lines.append(LEGEND)
    return "\n".join(lines)


def rgb(game: LoomGame, seats: tuple[int, ...] = (), cell_px: int = 64, last: LastMove | None = None) -> np.ndarray:
    margin, label, gap = MARGIN, LABEL, GAP
    cloth_px = SIDE * cell_px
    width = 2 * (margin + label + cloth_px) + gap
    title_h, header_h, letters_h = TITLE_H, HEADER_H, LETTERS_H
    top = title_h + header_h + letters_h
    height = top + cloth_px + 174
    image, draw = canvas(width, height)
    big, mid, small = font(20), font(16), font(13)
    actor = game.current_player()

    round_text = "woven" if game.is_terminal() else f"round {game.round + 1}/{ROUNDS}"
    draw.text((margin, 8), f"Loom · {round_text} · bounty {game.bounty}", fill=INK, font=big)
    for player, cloth in enumerate(game.cloths):
        x_off = margin + label + player * (label + cloth_px + gap)
        colour = SEAT_COLOURS[player]
        # Seat key: a swatch in the seat's colour, the name, the score, and the turn marker.
        draw.rectangle((x_off, title_h + 4, x_off + 16, title_h + 20), fill=colour)
        key = f"player_{player}: {game.points[player]}"
        draw.text((x_off + 24, title_h + 2), key, fill=INK, font=mid)
        if player == actor:  # the turn marker: an arrow in the seat's colour
            x = x_off + 32 + int(draw.textlength(key, font=mid))
            draw.polygon([(x, title_h + 12), (x + 12, title_h + 5), (x + 12, title_h + 19)], fill=colour)
            draw.text((x + 18, title_h + 2), "to act", fill=colour, font=mid)
        frame = 4 if player == actor else 2
        draw.rectangle((x_off - frame - 1, top - frame - 1, x_off + cloth_px + frame, top + cloth_px + frame),
                       outline=colour, width=frame)
        for c in range(SIDE):
            draw.text((x_off + c * cell_px + cell_px // 2, top - 12), column_name(c), fill=INK, font=mid, anchor="mm")
        for r in range(SIDE):
            draw.text((x_off - label // 2 - 2, top + r * cell_px + cell_px // 2), str(r + 1), fill=INK, font=mid,
                      anchor="mm")
        for cell in range(CELLS):
            r, c = divmod(cell, SIDE)
            _draw_cell(draw, x_off + c * cell_px, top + r * cell_px, cell_px, cloth[cell], (r + c) % 2, small)
    woven = last_cell(last)
    if woven is not None:  # the last move's cell, framed
        mark_last(draw, cell_box(*woven, cell_px=cell_px), width=4)

    y = top + cloth_px + 18
    if game.is_terminal():
        first, second = game.points
        winner = None if first == second else (0 if first > second else 1)
        draw.text((margin, y + 8), result(game), fill=INK if winner is None else SEAT_COLOURS[winner], font=big)
    else:
        _draw_throw(draw, game, margin, y, mid)
        draw.text((margin, y + 66), status(game), fill=INK, font=mid)
    x = margin
    draw.text((x, y + 96), "dyes:", fill=INK, font=small)
    x += 44
    for dye, colour in DYE_COLOURS.items():
        draw.rectangle((x, y + 95, x + 16, y + 111), fill=colour, outline=INK)
        draw.text((x + 22, y + 96), str(dye), fill=INK, font=small)
        x += 40
    draw.text((x + 6, y + 96), "moves: dye@cell, e.g. 5@b3", fill=INK, font=small)
    last_move_key(draw, (margin, y + 120), last, small)
    return to_array(image)


def _draw_cell(draw, x0: int, y0: int, size: int, dye: int, across: int, small) -> None:
    """An empty cell, or a woven thread: a band across (or down) the cell in its dye, the dye's
    digit in a white disc in the top-left corner, clear of the band."""
    draw.rectangle((x0, y0, x0 + size, y0 + size), fill=PAPER, outline=GRID)
    if not dye:
        return
    colour = DYE_COLOURS[dye]
    tint = tuple(int(v + (255 - v) * 0.7) for v in colour)
    draw.rectangle((x0 + 1, y0 + 1, x0 + size - 1, y0 + size - 1), fill=tint)
    low, high = size * 3 // 8, size * 5 // 8  # the band's middle quarter
    if across:
        draw.rectangle((x0 + 4, y0 + low, x0 + size - 4, y0 + high), fill=colour)
    else:
        draw.rectangle((x0 + low, y0 + 4, x0 + high, y0 + size - 4), fill=colour)
    radius = size // 8
    cx, cy = x0 + radius + 4, y0 + radius + 4
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=(255, 255, 255), outline=colour)
    draw.text((cx, cy), str(dye), fill=INK, font=small, anchor="mm")


def _draw_throw(draw, game: LoomGame, x: int, y: int, mid) -> None:
    """The two threads of the throw, thread 0 (lower) then thread 1; a taken one is greyed."""
    if game.is_chance_node():  # nothing on the table yet: the status line says so
        return
    draw.text((x, y + 14), "throw:", fill=INK, font=mid)
    for t, dye in enumerate(game.throws[game.round]):
        cx = x + 90 + t * 250
        available = game.taken < 0 or t == 1 - game.taken
        fill = DYE_COLOURS[dye] if available else GRID
        draw.ellipse((cx - 20, y + 4, cx + 20, y + 44), fill=fill, outline=INK, width=2)
        draw.ellipse((cx - 11, y + 13, cx + 11, y + 35), fill=(255, 255, 255))
        draw.text((cx, y + 24), str(dye), fill=INK, font=mid, anchor="mm")
        note = f"thread {t}" if available else f"thread {t}: taken by player_{game.drafter()}"
        draw.text((cx + 28, y + 16), note, fill=INK, font=font(13))


RULES_SUMMARY = """\
Loom: two weavers, a 4x4 cloth each, sixteen rounds. Each round two dyed threads are thrown
(two dice, 1-6; thread 0 is the lower dye). The drafter (player_0 in rounds 1, 3, ..., player_1
in rounds 2, 4, ...) weaves one of them into an empty cell of their own cloth; the rival then
weaves the leftover into theirs. Touching law: a dye may not go next to (edge to edge) the same
dye in the same cloth, unless no such clean cell is left for it. Every row and column scores the
sum of its distinct dyes, plus the bounty (8) when it is full with four different dyes. Full
cloths end the game: more points wins.
Moves: dye@cell, e.g. 5@b3 weaves the thread showing dye 5 into column b, row 3 (rows 1-4 from
the top, columns a-d from the left)."""


def narrate(before: LoomGame, action: int, after: LoomGame, viewer: int) -> str | None:
    """What a move did: the throw, or the weave with the points it made (new dyes in its row
    and column, a bounty for a line finished with four different dyes)."""
    if before.is_chance_node():
        low, high = after.throws[before.round]
        return f"the shuttle throws {low} and {high}"
    if before.is_terminal():
        return None
    player = before.current_player()
    t, cell = divmod(action, CELLS)
    dye = before.throws[before.round][t]
    row, col = divmod(cell, SIDE)
    name = f"{column_name(col)}{row + 1}"
    gained = after.points[player] - before.points[player]
    parts = []
    for line_name, cells in ((f"row {row + 1}", [row * SIDE + c for c in range(SIDE)]),
                             (f"column {column_name(col)}", [r * SIDE + col for r in range(SIDE)])):
        old = [before.cloths[player][c] for c in cells]
        new = [after.cloths[player][c] for c in cells]
        if dye not in old:
            finished = 0 not in new and len(set(new)) == SIDE
            bounty = f", four different dyes: bounty +{before.bounty}" if finished and before.bounty else ""
            parts.append(f"{dye} is new in {line_name}: +{dye}{bounty}")
    what = "; ".join(parts) if parts else f"{dye} is already in its row and column"
    if before.taken < 0:
        other = before.throws[before.round][1 - t]
        verb = f"drafts {dye} into {name}, leaving {other} to player_{1 - player}"
    else:
        verb = f"weaves the leftover {dye} into {name}"
    return f"player_{player} {verb}: +{gained} ({what})"
