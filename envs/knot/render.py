"""Knot pictures: a text board, and the board drawn as a woven Celtic knot.

The picture follows the page's geometry: every port sits at its side's midpoint and leaves it
diagonally towards its corner, so two linked strands meet in a straight diagonal through the
crossing and the two diagonals of an inside crossing form an X. The weave rule says a strand
passes over at its odd port: at every inside crossing the half-1 diagonal is drawn on top.
Ribbons are bands in their owner's colour; closed ribbons are full colour with a light centre
line, open ribbons are paler; open ends carry a white dot ringed in the owner's colour; blocked
crossings are short grey bars along the side.
"""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import GRID, INK, SEAT_COLOURS, canvas, font, to_array
from envs.knot.geometry import KINDS, SLOT_CORNERS, SLOT_PORTS
from envs.knot.rules import OVER, PLACE, KnotGame, place_limit

KIND_LETTER = "CRHF"


def _status_lines(game: KnotGame) -> list[str]:
    names = [f"player_{p}" for p in range(game.n_players)]
    scores = game.scores()
    lines = ["scores: " + "  ".join(f"{names[p]} {scores[p]}" for p in range(game.n_players))]
    lines.append("hands: " + "  ".join(f"{names[p]} {sum(game.hands[p])}" for p in range(game.n_players)))
    market = " ".join(KINDS[k] if k >= 0 else "-" for k in game.market)
    lines.append(f"market: {market}   pile: {game.pile_size()}")
    if game.phase == OVER:
        lines.append(f"turn {game.turn + 1}: game over, nobody can place a strand")
    else:
        hand = ", ".join(f"{KINDS[k]} {game.hands[game.player][k]}" for k in range(4) if game.hands[game.player][k])
        what = (
            f"place {game.placed}/{place_limit(game.turn)}" if game.phase == PLACE else "draw"
        )
        lines.append(f"turn {game.turn + 1}: {names[game.player]} to {what}; hand: {hand or 'empty'}")
    return lines


def ansi(game: KnotGame, seats: tuple[int, ...] = ()) -> str:
    """Each square is 3×3 characters: corners show who fills them (digit = open ribbon's owner,
    letter A–D = closed ribbon's owner), sides show ``#`` for a blocked crossing and ``*`` for
    an open end, the centre the kind letter (C R H F) or the number of strands."""
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
        lines.append("    " + rows[0])
        lines.append(f"{r + 1:>3} " + rows[1])
        lines.append("    " + rows[2])
    lines.extend(_status_lines(game))
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


def _pale(colour, amount=0.5):
    return tuple(int(c + (255 - c) * amount) for c in colour)


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


def rgb(game: KnotGame, seats: tuple[int, ...] = (), cell: int = 64) -> np.ndarray:
    size = game.size
    margin, top = 24, 24
    board = size * cell
    lines = _status_lines(game)
    width = max(board + 2 * margin, 420)
    height = top + board + margin + 18 * len(lines) + 8
    image, draw = canvas(width, height)
    small = font(13)
    ox, oy = margin, top
    # grid, coordinates and crossing dots
    for i in range(size + 1):
        draw.line((ox, oy + i * cell, ox + board, oy + i * cell), fill=_pale(GRID, 0.6), width=1)
        draw.line((ox + i * cell, oy, ox + i * cell, oy + board), fill=_pale(GRID, 0.6), width=1)
    for c in range(size):
        draw.text((ox + c * cell + cell // 2 - 3, 4), column_name(c), fill=INK, font=small)
    for r in range(size):
        draw.text((4, oy + r * cell + cell // 2 - 7), str(r + 1), fill=INK, font=small)
    for q in range(game.n):
        r, c = divmod(q, size)
        x0, y0 = ox + c * cell, oy + r * cell
        b = game.blocked_sides(q)
        for side in range(4):
            mx, my = _MID[side]
            px, py = x0 + mx * cell, y0 + my * cell
            if b >> side & 1:
                dx, dy = (cell * 0.22, 0) if side in (0, 2) else (0, cell * 0.22)
                draw.line((px - dx, py - dy, px + dx, py + dy), fill=GRID, width=3)
            else:
                draw.ellipse((px - 1.5, py - 1.5, px + 1.5, py + 1.5), fill=_pale(GRID, 0.3))
    band = max(6, cell // 6)
    strands = game.strands()
    paths = []
    for sq, k, t, owner, closed in strands:
        r, c = divmod(sq, size)
        pts = strand_path(4 * k + t, ox + c * cell, oy + r * cell, cell)
        colour = SEAT_COLOURS[owner] if closed else _pale(SEAT_COLOURS[owner], 0.45)
        paths.append((pts, colour, closed, 4 * k + t))

    def draw_band(pts, colour, closed):
        draw.line(pts, fill=INK, width=band + 4, joint="curve")
        draw.line(pts, fill=colour, width=band, joint="curve")
        if closed:
            draw.line(pts, fill=_pale(colour, 0.75), width=max(1, band // 4), joint="curve")

    for pts, colour, closed, slot in paths:
        draw_band(pts, colour, closed)
    # over-passes: the part of each strand near its odd port goes on top (outlines first, so
    # the two halves of an over-pass meeting at a crossing join without a seam)
    pieces = []
    for pts, colour, closed, slot in paths:
        odd_first = SLOT_PORTS[slot][0] % 2
        pieces.append((pts[:8] if odd_first else pts[-8:], pts[:10] if odd_first else pts[-10:], colour, closed))
    for piece, _, _, _ in pieces:
        draw.line(piece, fill=INK, width=band + 4, joint="curve")
    for _, longer, colour, closed in pieces:
        draw.line(longer, fill=colour, width=band, joint="curve")
        if closed:
            draw.line(longer, fill=_pale(colour, 0.75), width=max(1, band // 4), joint="curve")
    # open ends
    for p in range(game.n_players):
        for e in game.ends[p]:
            sq, port = e >> 3, e & 7
            r, c = divmod(sq, size)
            mx, my = _MID[port // 2]
            dx, dy = _port_dir(port)
            px = ox + c * cell + mx * cell - dx * cell * 0.06
            py = oy + r * cell + my * cell - dy * cell * 0.06
            rad = band * 0.75
            draw.ellipse((px - rad, py - rad, px + rad, py + rad), fill=(255, 255, 255),
                         outline=SEAT_COLOURS[p], width=3)
    y = oy + board + margin // 2
    for line in lines:
        draw.text((margin, y), line, fill=INK, font=small)
        y += 18
    return to_array(image)
