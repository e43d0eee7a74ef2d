"""Fill pictures and text boards, with the hints: live cells as squares, poisoned cells as
crosses, and a legend that says so.

Both take ``(game, seats, last=None)``: the seats whose hidden items they may show (``()`` a
spectator: no trap and no trap stock; ``(i,)`` seat ``i``'s own live trap, trap stock and phase;
``(0, 1)`` both, for replays), and the last move to mark (a magenta frame around its cell, ``( )``
in the text board, and a ``last move:`` line; the env never passes a trap to the other seat).
Public facts (board, gems, tokens, the last sprung trap, clocks) are shown to everybody. The picture is the board with its coordinates (column letters, row numbers, as the
notation writes cells) and a panel beside it: whose turn, the seat key, tokens, clocks, the
result at the end, and the legend.
"""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import (
    GRID, INK, PAPER, SEAT_COLOURS, LastMove, canvas, font, last_move_key, mark_last, to_array,
)
from envs.fill.rules import (
    CHOOSE, GEMS, KIND_TITLES, OVER, PHASE_NAMES, PLAYER_PHASES, ROCKS, SEED, STAY, FillGame,
)

GEM_LETTERS = "DPT"
GEM_COLOURS = [(210, 60, 150), (40, 170, 190), (150, 90, 30)]
FILLED = (60, 60, 70)
ROCK = (125, 115, 100)
LIVE = (40, 150, 70)
POISON = (200, 50, 50)
BOARD_PX = 372  # the board's side in pixels, whatever its size
PANEL_W = 330  # the panel beside the board
LEFT, TOP = 40, 44  # the board's top-left corner in the picture
LEGEND = [("filled", "#"), ("rock", "R"), ("live: legal now", "□"), ("poisoned: never legal", "×"),
          ("other empty cell", "·")]


def last_cell(last: LastMove | None) -> int:
    """The cell the last move seeded, trapped or filled (or tried to: a sprung trap cancels the
    fill); -1 for none, a choice or a token."""
    if last is None or last.before.phase >= ROCKS or last.action >= last.before.n:
        return -1
    return last.action


def shown_move(game: FillGame, last: LastMove | None) -> LastMove | None:
    """The last move to show: none when the game ended on time (the move that came too late
    was not played)."""
    return None if game.phase == OVER and game.end_reason == "time" else last


def cell_box(game: FillGame, index: int) -> tuple[int, int, int, int]:
    """The pixels of cell ``index`` in :func:`rgb`'s picture (x0, y0, x1, y1)."""
    size = game.options["size"]
    cell = BOARD_PX // size
    r, c = divmod(index, size)
    x0, y0 = LEFT + c * cell, TOP + r * cell
    return x0, y0, x0 + cell, y0 + cell


# ----- where the last move is marked (``Renderers``' last-move hooks) ----------------------------

def last_move_cell(last: LastMove) -> int | None:
    """The cell seeded, trapped or filled (:func:`last_cell`); ``None`` for a choice or a token."""
    cell = last_cell(last)
    return None if cell < 0 else cell


def last_move_text(game: FillGame, cell: int) -> tuple[int, int, int]:
    """``ansi``'s ``( )`` around a cell: its row's line, three characters a cell."""
    r, c = divmod(cell, game.options["size"])
    return 1 + r, 4 + 3 * c, 6 + 3 * c


def last_move_box(game: FillGame, cell: int) -> tuple[int, int, int, int]:
    return cell_box(game, cell)


def _seats(seats) -> tuple[int, ...]:
    """The renderers take the core's seat tuple; ``None`` is a spectator."""
    return tuple(seats) if seats is not None else ()


def turn_line(game: FillGame, seats=()) -> str:
    """Whose turn and (to its own seat only) the phase; at the end, the result."""
    seats = _seats(seats)
    if game.phase == OVER:
        scores = game.scores()
        how = "on time" if game.end_reason == "time" else f"(player_{1 - game.winner} has no legal cell)"
        return f"game over: player_{game.winner} wins {how}; scores {scores[0]} : {scores[1]}"
    if game.phase == ROCKS:
        return "rocks are being placed"
    if game.phase == GEMS:
        return "gems are being placed"
    if game.phase == SEED:
        return "player_0 (the seeder) fills any cell"
    if game.phase == CHOOSE:
        return "player_1 chooses: stay (move next) or swap (the seeder moves next)"
    mover = game.to_move
    text = f"player_{mover} to act, turn {game.turns[mover]}"
    if mover in seats:
        text += f": {PHASE_NAMES[game.phase]}"
    return text


def choice_line(game: FillGame) -> str:
    first = 1 if game.choice == STAY else 0
    how = "stay" if game.choice == STAY else "swap"
    return f"player_0 seeded {game._name(game.seed_cell)}; player_1 chose {how}: player_{first} moved first"


def seat_lines(game: FillGame, seats=()) -> list[str]:
    """Per player: tokens, the trap stock (viewer seats only), the clock."""
    seats = _seats(seats)
    lines = []
    for p in (0, 1):
        held = ", ".join(f"{KIND_TITLES[k]} {left}" for k, left, _ in sorted(game.tokens[p])) or "none"
        text = f"player_{p} tokens: {held}"
        if game.options["traps"] and p in seats:
            recharge = game.recharge_counts(p)
            text += f"; traps ready {game.ready_regular(p)}, extra {game.extra[p]}"
            if recharge:
                text += ", recharging " + " ".join(str(c) for c in recharge)
        if game.timed and game.clocked[p]:
            text += f"; clock {game.time_left[p]:.0f}s"
        lines.append(text)
    return lines


def status_lines(game: FillGame, seats=()) -> list[str]:
    lines = [turn_line(game, seats)]
    if game.choice >= 0:
        lines.append(choice_line(game))
    lines += seat_lines(game, seats)
    if game.last_sprung is not None:
        cell, owner = game.last_sprung
        lines.append(f"last sprung trap: {game._name(cell)} (player_{owner}'s)")
    return lines


def legend_line(game: FillGame, seats=(), last: LastMove | None = None) -> str:
    """The one-line key of the text board's symbols (those that can appear in it)."""
    seats = _seats(seats)
    parts = [f"{symbol} {words}" for words, symbol in LEGEND]
    if game.options["gems"]:
        parts.append("D/P/T gem: Double/Pass/Trap (d/p/t: not live now)")
    if any(game.live_trap[p] >= 0 for p in seats):
        parts.append("[ ] your live trap")
    if game.last_sprung is not None:
        parts.append("< > last sprung trap")
    if last_cell(last) >= 0:
        parts.append("( ) the last move")
    return "legend: " + ", ".join(parts)


def ansi(game: FillGame, seats=(), last: LastMove | None = None) -> str:
    """Text board (see :func:`legend_line`), then whose turn, tokens, the last move and the legend."""
    last = shown_move(game, last)
    size = game.options["size"]
    seats = _seats(seats)
    traps = {game.live_trap[p] for p in seats if game.live_trap[p] >= 0}
    sprung = game.last_sprung[0] if game.last_sprung else -1
    moved = last_cell(last)
    legal, poison = game.legal_mask(), game.poison
    out = ["    " + "".join(f" {column_name(c)} " for c in range(size))]
    for r in range(size):
        row = []
        for c in range(size):
            cell = r * size + c
            bit = 1 << cell
            if game.rock & bit:
                mark = "R"
            elif game.filled & bit:
                mark = "#"
            elif cell in game.gems:
                letter = GEM_LETTERS[game.gems[cell]]
                mark = letter if legal & bit else letter.lower()
            elif legal & bit:
                mark = "□"
            elif poison & bit:
                mark = "×"
            else:
                mark = "·"
            if cell in traps:
                row.append(f"[{mark}]")
            elif cell == sprung:
                row.append(f"<{mark}>")
            elif cell == moved:
                row.append(f"({mark})")
            else:
                row.append(f" {mark} ")
        out.append(f"{r + 1:>3} " + "".join(row))
    out.extend(status_lines(game, seats))
    if last is not None:
        out.append(last.text())
    out.append(legend_line(game, seats, last))
    return "\n".join(out)


# ----- the picture -----------------------------------------------------------------------------------

def _live_mark(draw, box, width=3):
    draw.rectangle(box, outline=LIVE, width=width)


def _cross(draw, box, width=3):
    x0, y0, x1, y1 = box
    draw.line((x0, y0, x1, y1), fill=POISON, width=width)
    draw.line((x0, y1, x1, y0), fill=POISON, width=width)


def _gem(draw, centre, half, kind, small_font):
    mx, my = centre
    draw.polygon([(mx, my - half), (mx + half, my), (mx, my + half), (mx - half, my)], fill=GEM_COLOURS[kind], outline=INK)
    letter = GEM_LETTERS[kind]
    w = draw.textlength(letter, font=small_font)
    draw.text((mx - w / 2, my - half * 0.62), letter, fill=(255, 255, 255), font=small_font)


def _trap(draw, box, colour, width):
    """A live trap: a thick ring in the setter's colour with teeth pointing in."""
    x0, y0, x1, y1 = box
    draw.ellipse(box, outline=colour, width=width)
    mx, my, r = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2
    for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
        tip = (mx + dx * r * 0.45, my + dy * r * 0.45)
        base = (mx + dx * r, my + dy * r)
        side = (-dy * r * 0.22, dx * r * 0.22)
        draw.polygon([tip, (base[0] + side[0], base[1] + side[1]), (base[0] - side[0], base[1] - side[1])], fill=colour)


def _wrap(draw, text: str, width: float, fnt) -> list[str]:
    words, lines, line = text.split(" "), [], ""
    for word in words:
        trial = f"{line} {word}".strip()
        if line and draw.textlength(trial, font=fnt) > width:
            lines.append(line)
            line = "  " + word
        else:
            line = trial
    return lines + [line]


def rgb(game: FillGame, seats=(), last: LastMove | None = None) -> np.ndarray:
    """The board with its coordinates, and a panel: whose turn (the phase only to its own seat),
    the seat key with tokens, traps (the viewer's) and clocks, the last move, the result at the
    end, and the legend of the marks. One frame size per board size (frames make a video)."""
    last = shown_move(game, last)
    seats = _seats(seats)
    size = game.options["size"]
    cell = BOARD_PX // size
    panel_x = LEFT + cell * size + 28
    height = TOP + cell * size + 40
    image, draw = canvas(panel_x + PANEL_W, height)
    _draw_coordinates(draw, size, cell)
    _draw_cells(draw, game, cell)
    _draw_marks(draw, game, seats, last, cell)
    y = _draw_panel(draw, game, seats, last, panel_x)
    _draw_legend(draw, game, seats, panel_x, y, height)
    return to_array(image)


def _draw_coordinates(draw, size: int, cell: int) -> None:
    """The coordinates as the notation writes them: column letter, then row number from 1 at the top."""
    label = font(15)
    board = cell * size
    for c in range(size):
        name = column_name(c)
        x = LEFT + c * cell + cell / 2 - draw.textlength(name, font=label) / 2
        draw.text((x, TOP - 22), name, fill=INK, font=label)
        draw.text((x, TOP + board + 6), name, fill=INK, font=label)
    for r in range(size):
        name = str(r + 1)
        y = TOP + r * cell + cell / 2 - 9
        draw.text((LEFT - 10 - draw.textlength(name, font=label), y), name, fill=INK, font=label)


def _draw_cells(draw, game: FillGame, cell: int) -> None:
    """Every cell: rock, filled, or empty with its live or poisoned mark and its gem."""
    size, small = game.options["size"], font(13)
    legal, poison = game.legal_mask(), game.poison
    q = cell // 7  # the live square's inset: outside a gem's diamond
    for index in range(size * size):
        r, c = divmod(index, size)
        x0, y0 = LEFT + c * cell, TOP + r * cell
        box = (x0, y0, x0 + cell, y0 + cell)
        bit = 1 << index
        if game.rock & bit:
            draw.rectangle(box, fill=PAPER, outline=GRID)
            draw.ellipse((x0 + cell * 0.14, y0 + cell * 0.2, x0 + cell * 0.86, y0 + cell * 0.86), fill=ROCK, outline=INK)
            continue
        if game.filled & bit:
            draw.rectangle(box, fill=FILLED, outline=GRID)
            continue
        draw.rectangle(box, fill=PAPER, outline=GRID)
        if legal & bit:
            _live_mark(draw, (x0 + q, y0 + q, x0 + cell - q, y0 + cell - q), width=max(2, cell // 18))
        elif poison & bit:
            pad = cell // 4
            _cross(draw, (x0 + pad, y0 + pad, x0 + cell - pad, y0 + cell - pad), width=max(2, cell // 16))
        if index in game.gems:
            _gem(draw, (x0 + cell / 2, y0 + cell / 2), cell * 0.26, game.gems[index], small)


def _draw_marks(draw, game: FillGame, seats: tuple[int, ...], last: LastMove | None, cell: int) -> None:
    """Over the cells: the last sprung trap, the viewers' live traps and the last move's frame."""
    size = game.options["size"]
    if game.last_sprung is not None:
        index, owner = game.last_sprung
        r, c = divmod(index, size)
        x0, y0 = LEFT + c * cell, TOP + r * cell
        draw.rectangle((x0 + 2, y0 + 2, x0 + cell - 2, y0 + cell - 2), outline=SEAT_COLOURS[owner], width=max(3, cell // 12))
        draw.text((x0 + 5, y0 + 2), "!", fill=SEAT_COLOURS[owner], font=font(15))
    for p in seats:
        index = game.live_trap[p]
        if index >= 0:
            r, c = divmod(index, size)
            x0, y0 = LEFT + c * cell, TOP + r * cell
            pad = cell * 0.1
            _trap(draw, (x0 + pad, y0 + pad, x0 + cell - pad, y0 + cell - pad), SEAT_COLOURS[p], max(3, cell // 12))
    moved = last_cell(last)
    if moved >= 0:  # the last move's cell, framed (outside a sprung trap's frame)
        x0, y0, x1, y1 = cell_box(game, moved)
        mark_last(draw, (x0 - 2, y0 - 2, x1 + 2, y1 + 2), width=4)


def _draw_panel(draw, game: FillGame, seats: tuple[int, ...], last: LastMove | None, x: int) -> int:
    """The panel: title, whose turn / the result, the seat key, the choice, the last sprung
    trap and the last move; where the legend may start."""
    title, text_font, small = font(20), font(14), font(13)
    finished = game.phase == OVER
    y = 10
    rules = [game.options["lines"] + " lines"] + [name for name in ("traps", "rocks", "gems") if game.options[name]]
    if game.timed:
        rules.append("clocks")
    draw.text((x, y), f"Fill {game.options['size']} x {game.options['size']}", fill=INK, font=title)
    y += 26
    draw.text((x, y), ", ".join(rules), fill=INK, font=small)
    y += 24
    headline = turn_line(game, seats)
    colour = SEAT_COLOURS[game.winner] if finished else (
        SEAT_COLOURS[game.to_move] if game.phase < PLAYER_PHASES else INK)
    for line in _wrap(draw, headline, PANEL_W - 12, text_font):
        draw.text((x, y), line, fill=colour, font=text_font)
        y += 18
    if finished:
        result = f"player_{game.winner} wins"
        draw.text((x, y + 2), result, fill=SEAT_COLOURS[game.winner], font=title)
        y += 28
    y += 6
    for p, line in enumerate(seat_lines(game, seats)):
        # the seat key: a swatch of the seat's colour (its traps' colour), an arrow at the one to act
        if not finished and game.phase < PLAYER_PHASES and game.to_move == p:
            draw.polygon([(x, y + 3), (x + 9, y + 9), (x, y + 15)], fill=SEAT_COLOURS[p])
            line += " (to act)"
        draw.rectangle((x + 13, y + 2, x + 27, y + 16), fill=SEAT_COLOURS[p], outline=INK)
        for part in _wrap(draw, line, PANEL_W - 40, small):
            draw.text((x + 33, y), part, fill=INK, font=small)
            y += 16
        y += 4
    if game.choice >= 0:
        for part in _wrap(draw, choice_line(game), PANEL_W - 12, small):
            draw.text((x, y), part, fill=INK, font=small)
            y += 16
        y += 2
    if game.last_sprung is not None:
        index, owner = game.last_sprung
        draw.text((x, y), f"last sprung trap: {game._name(index)} (player_{owner}'s)", fill=INK, font=small)
        y += 18
    if last is not None:
        last_move_key(draw, (x, y), last, small, size=14)
        y += 20
    return y


def _draw_legend(draw, game: FillGame, seats: tuple[int, ...], x: int, y: int, height: int) -> None:
    """The legend at the panel's foot, each mark drawn as on the board."""
    text_font, small = font(14), font(13)
    rows = 4 + sum(bool(game.options[name]) for name in ("rocks", "gems", "traps", "traps"))
    y = max(y + 8, height - 8 - 22 * rows)
    draw.text((x, y), "legend", fill=INK, font=text_font)
    y += 20
    icon = 18

    def item(words: str, paint, icons: int = 1) -> None:
        nonlocal y
        box = (x, y, x + icon, y + icon)
        paint(box)
        draw.text((x + icons * (icon + 3) + 6, y + 1), words, fill=INK, font=small)
        y += 22

    item("filled cell (belongs to nobody)", lambda b: draw.rectangle(b, fill=FILLED, outline=GRID))
    item("live: may be filled now", lambda b: (draw.rectangle(b, fill=PAPER, outline=GRID),
                                               _live_mark(draw, (b[0] + 3, b[1] + 3, b[2] - 3, b[3] - 3), 2)))
    item("poisoned: can never be filled", lambda b: (draw.rectangle(b, fill=PAPER, outline=GRID),
                                                     _cross(draw, (b[0] + 4, b[1] + 4, b[2] - 4, b[3] - 4), 2)))
    if game.options["rocks"]:
        item("rock", lambda b: draw.ellipse((b[0] + 1, b[1] + 3, b[2] - 1, b[3] - 1), fill=ROCK, outline=INK))
    if game.options["gems"]:
        kinds = 3 if game.options["traps"] else 2
        item(f"gem: {', '.join(KIND_TITLES[:kinds])} token", lambda b: [
            _gem(draw, (b[0] + icon / 2 + i * (icon + 3), b[1] + icon / 2), icon / 2, i, font(10)) for i in range(kinds)],
             icons=kinds)
    if game.options["traps"] and seats:
        words = "your live trap (in your colour)" if len(seats) == 1 else "a live trap (its setter's colour)"
        item(words, lambda b: _trap(draw, b, SEAT_COLOURS[seats[0]], 2))
    if game.options["traps"]:
        item("last sprung trap (its setter's colour)",
             lambda b: draw.rectangle(b, fill=PAPER, outline=SEAT_COLOURS[1], width=3))


__all__ = ["ansi", "rgb", "status_lines", "legend_line", "turn_line"]
