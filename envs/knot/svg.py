"""Knot as SVG for front ends that click (``envs.core.svg``), from one viewer's seats.

The board as a woven Celtic knot, drawn as the ``rgb_array`` picture draws it (``render``):
ribbons as bands in their owner's colour (closed ones full colour with a light centre line,
open ones paler), the half-1 diagonal on top at every inside crossing, open ends as white dots
ringed in the owner's colour, blocked crossings as grey bars. Beside it: each seat's points and
hand (its strands for the viewer's own seat; for the others only how many, and the strands
publicly taken face up), the market, the pile's size, whose turn it is, and the END button
while the viewer may press it. Elements:

* ``sq-<square>`` — every square: the placements there (kinds and turns: a choice);
* ``market-0``, ``market-1`` — draw from a market slot;
* ``pile`` — draw blind from the pile;
* ``end`` — end the placing phase (a button, drawn only while legal for the viewer).
"""

from __future__ import annotations

from envs.core.game import CHANCE
from envs.core.notation import cell_name, column_name
from envs.core.svg import GRID, INK, SEAT_COLOURS, Picture, colour, legal_now, pale, seat_key, smooth_path, wrap_words
from envs.knot.geometry import KINDS
from envs.knot.render import crossing_marks, end_point, strand_path, turn_line, woven_strands
from envs.knot.rules import KnotGame

CELL = 64
MARGIN = 44
PANEL_W = 370
ICON = 44


def _band(picture: Picture, points, tint, closed: bool, band: float, **attrs) -> None:
    d = smooth_path(points)
    picture.path(d, stroke=INK, stroke_width=band + 4, stroke_linecap="butt", stroke_linejoin="round", **attrs)
    picture.path(d, stroke=tint, stroke_width=band, stroke_linecap="butt", stroke_linejoin="round", **attrs)
    if closed:
        picture.path(d, stroke=pale(tint, 0.75), stroke_width=max(1, band / 4), **attrs)


def _strands(picture: Picture, strands, ox: float, oy: float, size: int, cell: float) -> None:
    """The bands, then the over-passes on top (the part of each strand near its odd port)."""
    band = max(6, cell / 6)
    bands, over = woven_strands(strands, ox, oy, size, cell)
    for points, tint, closed in bands:
        _band(picture, points, tint, closed, band)
    for piece, _, _, _ in over:
        picture.path(smooth_path(piece), stroke=INK, stroke_width=band + 4, stroke_linejoin="round")
    for _, longer, tint, closed in over:
        d = smooth_path(longer)
        picture.path(d, stroke=tint, stroke_width=band, stroke_linejoin="round")
        if closed:
            picture.path(d, stroke=pale(tint, 0.75), stroke_width=max(1, band / 4))


def _icon(picture: Picture, kind: int, x0: float, y0: float, tint=(120, 120, 120)) -> None:
    """A strand kind as a small square with its turn-0 strand."""
    picture.rect(x0, y0, ICON, ICON, fill=(252, 250, 245), stroke=colour(GRID), rx=4)
    points = strand_path(4 * kind, x0, y0, ICON)
    _band(picture, points, tint, False, 5)


def svg(game: KnotGame, seats: tuple[int, ...] = (), preview: int | None = None) -> str:
    size = game.size
    board = size * CELL
    ox, oy = MARGIN, MARGIN
    px = ox + board + MARGIN + 10
    width = px + PANEL_W
    picture = Picture(width, max(oy + board + MARGIN, 560), "Knot")
    for i in range(size + 1):
        picture.line(ox, oy + i * CELL, ox + board, oy + i * CELL, stroke=pale(GRID, 0.6))
        picture.line(ox + i * CELL, oy, ox + i * CELL, oy + board, stroke=pale(GRID, 0.6))
    for i in range(size):
        picture.centred_text(ox + i * CELL + CELL / 2, 14, column_name(i), size=13)
        picture.centred_text(ox + i * CELL + CELL / 2, oy + board + MARGIN - 14, column_name(i), size=13)
        picture.centred_text(14, oy + i * CELL + CELL / 2, str(i + 1), size=13)
        picture.centred_text(ox + board + MARGIN - 14, oy + i * CELL + CELL / 2, str(i + 1), size=13)
    for x, y, bar in crossing_marks(game, ox, oy, CELL):
        if bar:
            dx, dy = bar
            picture.line(x - dx, y - dy, x + dx, y + dy, stroke=GRID, stroke_width=3)
        else:
            picture.circle(x, y, 1.5, fill=pale(GRID, 0.3))
    _strands(picture, game.strands(), ox, oy, size, CELL)
    for p in range(game.n_players):
        for e in sorted(game.ends[p]):
            x, y = end_point(e, ox, oy, size, CELL)
            picture.circle(x, y, max(6, CELL / 6) * 0.75, fill=(255, 255, 255), stroke=colour(SEAT_COLOURS[p]),
                           stroke_width=3)
    if preview is not None and can_preview(game, preview):
        slot, sq = divmod(preview, game.n)
        r, c = divmod(sq, size)
        with picture.group(opacity=0.8):
            _band(picture, strand_path(slot, ox + c * CELL, oy + r * CELL, CELL), SEAT_COLOURS[game.player], False,
                  max(6, CELL / 6))
        picture.rect(ox + c * CELL + 2, oy + r * CELL + 2, CELL - 4, CELL - 4, stroke=colour(INK), stroke_width=2,
                     stroke_dasharray="5 3")
    _panel(picture, game, seats, px)
    for q in range(game.n):
        r, c = divmod(q, size)
        picture.element(f"sq-{q}", ox + c * CELL, oy + r * CELL, CELL, CELL, f"square {cell_name(r, c)}")
    return picture.document()


def _panel(picture: Picture, game: KnotGame, seats: tuple[int, ...], px: float) -> None:
    y = 24
    picture.text(px, y, f"Knot, {game.n_players} players", size=18, weight="bold")
    y += 30
    actor = game.current_player()
    for p in range(game.n_players):
        hand = game.hands[p]
        # the scores themselves: at the end they hold the longest-ribbon bonus, as the result does
        seat_key(picture, px, y, p, f"player_{p}: {game.scores()[p]} points", p == actor)
        y += 10
        if p in seats:
            x = px + 33
            for k in range(4):
                if hand[k]:
                    _icon(picture, k, x, y, pale(SEAT_COLOURS[p], 0.2))
                    picture.text(x + ICON + 3, y + ICON - 4, f"×{hand[k]}", size=13)
                    x += ICON + 30
            if not sum(hand):
                picture.text(px + 33, y + 18, "hand: empty", size=13)
            y += ICON + 14
        else:
            known = [KINDS[k] for k in range(4) for _ in range(game.known[p][k])]
            words = f"hand: {sum(hand)} strands" + (f" (taken face up: {', '.join(known)})" if known else "")
            for line in wrap_words(words, 44):
                picture.text(px + 33, y + 14, line, size=13)
                y += 17
            y += 13
    y += 6
    picture.text(px, y, "market", size=14, weight="bold")
    picture.text(px + 2 * (ICON + 14) + 10, y, "pile", size=14, weight="bold")
    y += 8
    for slot in (0, 1):
        x0 = px + slot * (ICON + 14)
        kind = game.market[slot]
        if kind >= 0:
            _icon(picture, kind, x0, y)
        else:
            picture.rect(x0, y, ICON, ICON, stroke=colour(GRID), stroke_dasharray="3 3", rx=4)
        what = KINDS[kind] if kind >= 0 else "empty"
        picture.element(f"market-{slot}", x0, y, ICON, ICON, f"market slot {slot} ({what})")
    x0 = px + 2 * (ICON + 14) + 10
    count = game.pile_size()
    for i in range(3):
        picture.rect(x0 + i * 3, y + i * 3, ICON, ICON, fill=(120, 100, 80), stroke=colour(INK), rx=4)
    picture.centred_text(x0 + 6 + ICON / 2, y + 6 + ICON / 2, str(count), size=15, fill=(255, 255, 255), weight="bold")
    picture.element("pile", x0, y, ICON + 6, ICON + 6, f"the pile ({count} strands)")
    y += ICON + 30
    for line in wrap_words(turn_line(game), 44):
        picture.text(px, y, line, size=13)
        y += 17
    legal = legal_now(game, seats)
    if 16 * game.n in legal:
        y += 8
        picture.button("end", px, y, 200, 32, "end placing")
        y += 40
    y += 10
    for line in ("white dots: open ends", "grey bars: blocked crossings", "full colour: closed ribbons"):
        picture.text(px, y, line, size=12, fill=(110, 110, 110))
        y += 16
    picture.height = max(picture.height, y + 10)


def element(game: KnotGame, action: int) -> str | None:
    n = game.n
    if game.current_player() == CHANCE or not 0 <= action <= 16 * n + 3:
        return None
    if action < 16 * n:
        return f"sq-{action % n}"
    return ("end", "market-0", "market-1", "pile")[action - 16 * n]


def status(game: KnotGame, seats: tuple[int, ...] = ()) -> str:
    return turn_line(game)


def can_preview(game: KnotGame, action: int) -> bool:
    """A placement of the player to act (a square usually holds several: a choice)."""
    return game.current_player() >= 0 and 0 <= action < 16 * game.n and game.why_illegal(action) is None


__all__ = ["can_preview", "element", "status", "svg"]
