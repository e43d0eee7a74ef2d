"""Knot pictures: a text board, and the board drawn as a woven Celtic knot.

The picture follows the page's geometry: every port sits at its side's midpoint and leaves it
diagonally towards its corner, so two linked strands meet in a straight diagonal through the
crossing and the two diagonals of an inside crossing form an X. The weave rule says a strand
passes over at its odd port: at every inside crossing the half-1 diagonal is drawn on top.
Ribbons are bands in their owner's colour; closed ribbons are full colour with a light centre
line, open ribbons are paler; open ends carry a white dot ringed in the owner's colour; blocked
crossings are short grey bars along the side. Column letters and row numbers stand clear of
the bands (a ribbon turning back at the board's edge bulges past it), a key beside each seat's
colour says its score and hand, whose turn it is, and at the end the final scores and the
winner. The last move (``last``) is named under the key, and a placement's square framed in
magenta (``[ ]`` around its middle row in the text board).

Hidden items: a picture shows the hands of the seats it is for (``seats``) and only their sizes
for the others; a spectator (``()``) sees no hand. Taken-face-up strands are public.
"""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import GRID, INK, SEAT_COLOURS, LastMove, canvas, font, last_move_key, mark_last, pale, to_array
from envs.knot.geometry import KINDS, SLOT_CORNERS, SLOT_PORTS
from envs.core.game import CHANCE
from envs.knot.options import BONUS, DEAL, OVER, PLACE, place_limit
from envs.knot.rules import KnotGame

KIND_LETTER = "CRHF"
LEGEND = ("legend: corners . empty, 0-3 owner of an open ribbon, A-D of a closed one; sides # blocked, "
          "* open end; centre C/R/H/F or a count")


def last_square(last: LastMove | None) -> int:
    """The square the last move placed a strand on; -1 for none (no move, a draw, an end)."""
    if last is None or last.before.current_player() == CHANCE or last.action >= 16 * last.before.n:
        return -1
    return last.action % last.before.n


def result(game: KnotGame) -> str:
    """The final line: every seat's points, the longest-ribbon bonus, who won."""
    scores = game.scores()
    points = ", ".join(f"player_{p} {scores[p]}" for p in range(game.n_players))
    who = game.bonus_owner()
    bonus = f" (longest closed ribbon: player_{who} +{BONUS})" if who >= 0 else " (no closed ribbon, no bonus)"
    best = max(scores)
    leaders = [p for p in range(game.n_players) if scores[p] == best]
    outcome = f"player_{leaders[0]} wins" if len(leaders) == 1 else "a tie: " + " and ".join(
        f"player_{p}" for p in leaders) + " share first place"
    return f"final: {points}{bonus}: {outcome}"


def turn_line(game: KnotGame) -> str:
    """Whose turn it is and what they do now (or the result once the game is over)."""
    if game.phase == OVER:
        return result(game)
    if game.phase == DEAL:
        return "dealing: 5 strands to each player, then the two market slots"
    what = f"to place ({game.placed} of {place_limit(game.turn)} placed)" if game.phase == PLACE else "to draw back up to 5"
    chance = " — a strand is coming from the pile" if game.current_player() == CHANCE else ""
    return f"turn {game.turn + 1}: player_{game.player} {what}{chance}"


def seat_line(game: KnotGame, player: int, seats: tuple[int, ...]) -> str:
    """A seat's points and hand: its contents for the seats the picture is for, else its size."""
    hand = game.hands[player]
    if player in seats:
        held = ", ".join(f"{KINDS[k]} {hand[k]}" for k in range(4) if hand[k]) or "empty"
        shown = f"hand: {held}"
    else:
        shown = f"hand: {sum(hand)} strands"
        known = [KINDS[k] for k in range(4) for _ in range(game.known[player][k])]
        if known:
            shown += f" (taken face up: {', '.join(known)})"
    mark = ">" if game.current_player() == player else " "
    return f"{mark}player_{player}: {game.banked[player]} banked; {shown}"


def _status_lines(game: KnotGame, seats: tuple[int, ...]) -> list[str]:
    lines = [seat_line(game, p, seats) for p in range(game.n_players)]
    market = " ".join(KINDS[k] if k >= 0 else "-" for k in game.market)
    lines.append(f"market: {market}   pile: {game.pile_size()} strands")
    lines.append(turn_line(game))
    return lines


def ansi(game: KnotGame, seats: tuple[int, ...] = (), last: LastMove | None = None) -> str:
    """Each square is 3×3 characters: corners show who fills them (digit = open ribbon's owner,
    letter A–D = closed ribbon's owner), sides show ``#`` for a blocked crossing and ``*`` for
    an open end, the centre the kind letter (C R H F) or the number of strands; then the
    legend, the seats (``>`` marks the player to act; hands only for ``seats``), the market and
    whose turn it is (or the result), and the last move."""
    size = game.size
    n = game.n
    corner_char = [["."] * 4 for _ in range(n)]
    centre = [[] for _ in range(n)]
    for sq, k, t, owner, closed in game.strands():
        ch = "ABCD"[owner] if closed else str(owner)
        for c in range(4):
            if SLOT_CORNERS[4 * k + t] >> c & 1:
                corner_char[sq][c] = ch
        centre[sq].append(KIND_LETTER[k])
    end_sides = [set() for _ in range(n)]
    for p in range(game.n_players):
        for e in game.ends[p]:
            end_sides[e >> 3].add((e & 7) // 2)
    lines = ["    " + "".join(f" {column_name(c):^3}" for c in range(size))]
    placed = last_square(last)
    for r in range(size):
        rows = ["", "", ""]
        for c in range(size):
            q = r * size + c
            b = game.blocked_sides(q)

            def side(s: int, plain: str) -> str:
                if b >> s & 1:
                    return "#"
                return "*" if s in end_sides[q] else plain

            cc = corner_char[q]
            mid = centre[q][0] if len(centre[q]) == 1 else (str(len(centre[q])) if centre[q] else " ")
            rows[0] += " " + cc[3] + side(0, "-") + cc[0]
            rows[1] += " " + side(3, "|") + mid + side(1, "|")
            rows[2] += " " + cc[2] + side(2, "-") + cc[1]
            if q == placed:  # brackets in the spaces either side of the square's middle row
                rows[1] = rows[1][:-4] + "[" + rows[1][-3:] + "]"
            elif q - 1 == placed and c > 0:
                rows[1] = rows[1][:-4] + rows[1][-3:]  # the bracket took this square's space
        lines.append("    " + rows[0])
        lines.append(f"{r + 1:>3} " + rows[1])
        lines.append("    " + rows[2])
    lines.append(LEGEND)
    lines.extend(_status_lines(game, seats))
    if last is not None:
        lines.append(last.text() + ("  ([ ] on the board)" if placed >= 0 else ""))
    return "\n".join(lines)


# ----- the woven picture -----------------------------------------------------------------------------

# Side midpoints (unit square, y down) and the inward diagonal of each port.
_MID = ((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5))
_NORMAL = ((0, 1), (-1, 0), (0, -1), (1, 0))
_TOWARD = (((-1, 0), (1, 0)), ((0, -1), (0, 1)), ((1, 0), (-1, 0)), ((0, 1), (0, -1)))


def _port_dir(port: int) -> tuple[float, float]:
    side, half = divmod(port, 2)
    nx, ny = _NORMAL[side]
    tx, ty = _TOWARD[side][half]
    return (nx + tx, ny + ty)


def _bezier(p0, p1, p2, p3, steps=24):
    pts = []
    for i in range(steps + 1):
        u = i / steps
        a, b, c, d = (1 - u) ** 3, 3 * u * (1 - u) ** 2, 3 * u * u * (1 - u), u ** 3
        pts.append((a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0], a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1]))
    return pts


def strand_path(slot: int, x0: float, y0: float, cell: float) -> list[tuple[float, float]]:
    """Points of a strand's centre line from its first port to its second (screen coords)."""
    pa, pb = SLOT_PORTS[slot]
    kind = slot >> 2
    reach = {0: 0.35, 1: 0.38, 2: 0.62, 3: 0.62}[kind] * cell
    (mx, my), (nx, ny) = _MID[pa // 2], _MID[pb // 2]
    a = (x0 + mx * cell, y0 + my * cell)
    b = (x0 + nx * cell, y0 + ny * cell)
    da, db = _port_dir(pa), _port_dir(pb)
    pts = _bezier(a, (a[0] + da[0] * reach, a[1] + da[1] * reach), (b[0] + db[0] * reach, b[1] + db[1] * reach), b)
    # Run a hair past each crossing so the two halves of a link overlap instead of leaving a
    # seam at the midpoint.
    ext = 0.03 * cell / 1.4142
    pts.insert(0, (a[0] - da[0] * ext, a[1] - da[1] * ext))
    pts.append((b[0] - db[0] * ext, b[1] - db[1] * ext))
    return pts


def crossing_marks(game: KnotGame, ox: float, oy: float, cell: float):
    """Every side of every square as both pictures mark it: ``(x, y, bar)`` at the side's
    midpoint, ``bar`` the half-length ``(dx, dy)`` of a blocked crossing's grey bar along the
    side, ``None`` for an open crossing (a small dot)."""
    for q in range(game.n):
        r, c = divmod(q, game.size)
        x0, y0 = ox + c * cell, oy + r * cell
        blocked = game.blocked_sides(q)
        for side in range(4):
            mx, my = _MID[side]
            x, y = x0 + mx * cell, y0 + my * cell
            if blocked >> side & 1:
                yield x, y, ((cell * 0.22, 0) if side in (0, 2) else (0, cell * 0.22))
            else:
                yield x, y, None


def woven_strands(strands, ox: float, oy: float, size: int, cell: float):
    """The strands as both pictures weave them: ``bands``, one ``(points, tint, closed)`` a
    strand, drawn first; then ``over``, the part of each strand near its odd port that passes
    on top, as ``(outline, longer, tint, closed)``: every outline before every longer band, so
    the two halves of an over-pass meeting at a crossing join without a seam."""
    bands, over = [], []
    for sq, k, t, owner, closed in strands:
        r, c = divmod(sq, size)
        points = strand_path(4 * k + t, ox + c * cell, oy + r * cell, cell)
        tint = SEAT_COLOURS[owner] if closed else pale(SEAT_COLOURS[owner], 0.45)
        bands.append((points, tint, closed))
        odd_first = SLOT_PORTS[4 * k + t][0] % 2
        over.append((points[:8] if odd_first else points[-8:], points[:10] if odd_first else points[-10:], tint, closed))
    return bands, over


def end_point(end: int, ox: float, oy: float, size: int, cell: float) -> tuple[float, float]:
    """Where an open end's dot sits: at its side's midpoint, a little inside its square."""
    sq, port = end >> 3, end & 7
    r, c = divmod(sq, size)
    mx, my = _MID[port // 2]
    dx, dy = _port_dir(port)
    return ox + c * cell + mx * cell - dx * cell * 0.06, oy + r * cell + my * cell - dy * cell * 0.06


MARGIN = 44  # room for the coordinates outside the bands that bulge past the board's edge
KEY_LINE = 20


def board_origin(cell: int = 64) -> tuple[int, int]:
    """Where the board's top-left corner lies in :func:`rgb`'s picture."""
    return MARGIN, MARGIN


# ----- where the last move is marked (``Renderers``' last-move hooks) ----------------------------

def last_move_cell(last: LastMove) -> int | None:
    """The square a strand was placed on (:func:`last_square`); ``None`` for a draw or an end."""
    square = last_square(last)
    return None if square < 0 else square


def last_move_text(game: KnotGame, cell: int) -> tuple[int, int, int]:
    """``ansi``'s brackets either side of the square's middle row (four characters a square)."""
    r, c = divmod(cell, game.size)
    return 2 + 3 * r, 4 + 4 * c, 8 + 4 * c


def last_move_box(game: KnotGame, cell: int, size: int = 64) -> tuple[int, int, int, int]:
    """The square's pixels in ``rgb``'s picture (``size``: its ``cell`` pixels)."""
    ox, oy = board_origin(size)
    r, c = divmod(cell, game.size)
    return ox + c * size, oy + r * size, ox + (c + 1) * size, oy + (r + 1) * size


def rgb(game: KnotGame, seats: tuple[int, ...] = (), cell: int = 64, last: LastMove | None = None) -> np.ndarray:
    """The board as a woven knot, its coordinates, a key (each seat's colour, points and hand;
    the player to act marked), the market and whose turn it is, or at the end the result."""
    size = game.size
    board = size * cell
    oy = board_origin(cell)[1]
    keys = [seat_line(game, p, seats)[1:] for p in range(game.n_players)]
    market = " ".join(KINDS[k] if k >= 0 else "-" for k in game.market)
    tail = [f"market: {market}   pile: {game.pile_size()} strands", turn_line(game),
            "white dots: open ends; grey bars: blocked crossings; full colour with a light line: closed ribbons"]
    if last is not None:
        tail.append(last.text())  # drawn after its key's frame
    actor = game.current_player()
    if 0 <= actor < game.n_players:
        keys[actor] += "   <- to act"
    _, measure = canvas(1, 1)
    text = max(measure.textlength(line, font=font(13)) for line in keys + tail)
    width = int(max(board + 2 * MARGIN, 480, MARGIN + 24 + text + 12))
    height = oy + board + MARGIN + KEY_LINE * (len(keys) + len(tail)) + 10
    image, draw = canvas(width, height)
    _draw_grid(draw, game, cell)
    placed = last_square(last)
    if placed >= 0:  # the last placement's square, framed under the ribbons
        mark_last(draw, last_move_box(game, placed, cell), width=3)
    _draw_ribbons(draw, game, cell)
    _draw_key(draw, game, keys, tail, actor, last, oy + board + MARGIN + 4)
    return to_array(image)


def _draw_grid(draw, game: KnotGame, cell: int) -> None:
    """The grid, the coordinates on all four sides and the crossing dots (bars where blocked)."""
    size, small = game.size, font(13)
    board = size * cell
    ox, oy = board_origin(cell)
    for i in range(size + 1):
        draw.line((ox, oy + i * cell, ox + board, oy + i * cell), fill=pale(GRID, 0.6), width=1)
        draw.line((ox + i * cell, oy, ox + i * cell, oy + board), fill=pale(GRID, 0.6), width=1)
    for c in range(size):
        x = ox + c * cell + cell // 2 - 3
        draw.text((x, 4), column_name(c), fill=INK, font=small)
        draw.text((x, oy + board + MARGIN - 18), column_name(c), fill=INK, font=small)
    for r in range(size):
        y = oy + r * cell + cell // 2 - 7
        draw.text((6, y), str(r + 1), fill=INK, font=small)
        draw.text((ox + board + MARGIN - 20, y), str(r + 1), fill=INK, font=small)
    for px, py, bar in crossing_marks(game, ox, oy, cell):
        if bar:
            dx, dy = bar
            draw.line((px - dx, py - dy, px + dx, py + dy), fill=GRID, width=3)
        else:
            draw.ellipse((px - 1.5, py - 1.5, px + 1.5, py + 1.5), fill=pale(GRID, 0.3))


def _draw_ribbons(draw, game: KnotGame, cell: int) -> None:
    """The woven strands (over-passes on top, closed ribbons with a light line) and the open ends."""
    size = game.size
    ox, oy = board_origin(cell)
    band = max(6, cell // 6)
    bands, over = woven_strands(game.strands(), ox, oy, size, cell)
    for pts, colour, closed in bands:
        draw.line(pts, fill=INK, width=band + 4, joint="curve")
        draw.line(pts, fill=colour, width=band, joint="curve")
        if closed:
            draw.line(pts, fill=pale(colour, 0.75), width=max(1, band // 4), joint="curve")
    for piece, _, _, _ in over:  # the over-passes on top (woven_strands)
        draw.line(piece, fill=INK, width=band + 4, joint="curve")
    for _, longer, colour, closed in over:
        draw.line(longer, fill=colour, width=band, joint="curve")
        if closed:
            draw.line(longer, fill=pale(colour, 0.75), width=max(1, band // 4), joint="curve")
    for p in range(game.n_players):
        for e in game.ends[p]:
            px, py = end_point(e, ox, oy, size, cell)
            rad = band * 0.75
            draw.ellipse((px - rad, py - rad, px + rad, py + rad), fill=(255, 255, 255),
                         outline=SEAT_COLOURS[p], width=3)


def _draw_key(draw, game: KnotGame, keys: list[str], tail: list[str], actor: int, last: LastMove | None, y: int) -> None:
    """The key: a swatch per seat (ringed when it is that seat's turn), then the market, whose
    turn or the result (underlined in the winner's colour), the legend and the last move."""
    small = font(13)
    for p, line in enumerate(keys):
        colour = SEAT_COLOURS[p]
        if p == actor:
            draw.rectangle((MARGIN - 4, y - 2, MARGIN + 18, y + 16), outline=INK, width=2)
        draw.rectangle((MARGIN, y + 2, MARGIN + 14, y + 12), fill=colour, outline=INK)
        draw.text((MARGIN + 24, y), line, fill=INK, font=small)
        y += KEY_LINE
    for i, line in enumerate(tail):
        over = game.phase == OVER and i == 1
        if over:  # the result line, underlined in the winner's colour
            scores = game.scores()
            leaders = [p for p in range(game.n_players) if scores[p] == max(scores)]
            if len(leaders) == 1:
                draw.rectangle((MARGIN - 4, y - 2, MARGIN + 18, y + 16), fill=SEAT_COLOURS[leaders[0]], outline=INK)
            draw.text((MARGIN + 24, y), line, fill=INK, font=small)
        elif last is not None and i == 3:  # the last move: its frame, then its words
            last_move_key(draw, (MARGIN - 1, y - 1), last, small, size=16)
        else:
            draw.text((MARGIN, y), line, fill=INK, font=small)
        y += KEY_LINE
