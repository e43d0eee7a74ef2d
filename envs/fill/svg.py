"""Fill as SVG for front ends that click (``envs.core.svg``), from one viewer's seats.

The board with its coordinates and the hints (live cells ringed green, poisoned cells crossed),
rocks, gems, the last sprung trap, and the viewer's own live trap only; beside it whose turn it
is (the phase to its own seat only), each seat's tokens, the viewer's own trap stock, and the
buttons of the viewer's turn. Elements: every cell, ``cell-<i>`` (to seed, to trap or to fill,
by phase), and the buttons ``stay``, ``swap``, ``no-token``, ``double``, ``pass``,
``trap-token``, ``no-trap``, drawn only while the viewer may press them: a picture never shows
the opponent's phase, traps or trap stock.
"""

from __future__ import annotations

from envs.core.notation import cell_name
from envs.core.svg import GRID, INK, PAPER, SEAT_COLOURS, Picture, colour, coordinates, legal_now, seat_key, wrap_words
from envs.fill.facts import KIND_TITLES, OVER, PLAYER_PHASES, SPECIAL_NAMES
from envs.fill.render import FILLED, GEM_COLOURS, GEM_LETTERS, LIVE, POISON, ROCK, seat_lines, turn_line, choice_line
from envs.fill.rules import FillGame

BOARD_PX = 396
PANEL_W = 330
BUTTON_WORDS = {"stay": "stay (I move next)", "swap": "swap (seeder moves)", "no-token": "no token",
                "double": "use Double", "pass": "use Pass", "trap-token": "use Trap token", "no-trap": "no trap"}


def _trap(picture: Picture, x0: float, y0: float, cell: float, tint) -> None:
    """A live trap: a thick ring in the setter's colour with teeth pointing in."""
    mx, my, r = x0 + cell / 2, y0 + cell / 2, cell * 0.4
    picture.circle(mx, my, r, stroke=colour(tint), stroke_width=max(3, cell / 12))
    for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
        tip = (mx + dx * r * 0.45, my + dy * r * 0.45)
        base = (mx + dx * r, my + dy * r)
        side = (-dy * r * 0.22, dx * r * 0.22)
        picture.polygon([tip, (base[0] + side[0], base[1] + side[1]), (base[0] - side[0], base[1] - side[1])], fill=tint)


def svg(game: FillGame, seats: tuple[int, ...] = (), preview: int | None = None) -> str:
    seats = tuple(seats)
    size = game.options["size"]
    cell = BOARD_PX // size
    left, top = 40, 44
    panel_x = left + cell * size + 34
    height = top + cell * size + 44
    picture = Picture(panel_x + PANEL_W, height, f"Fill {size} x {size}")
    _svg_cells(picture, game, cell, left, top)
    _svg_traps(picture, game, seats, cell, left, top)
    coordinates(picture, left, top, cell, size, size, size=14, both_sides=False)
    y = _svg_panel(picture, game, seats, panel_x)
    _svg_legend(picture, game, panel_x, y, height)
    legal = game.legal_mask()
    for index in range(size * size):
        r, c = divmod(index, size)
        bit = 1 << index
        what = ("rock" if game.rock & bit else "filled" if game.filled & bit else "live" if legal & bit
                else "poisoned" if game.poison & bit else "empty")
        picture.element(f"cell-{index}", left + c * cell, top + r * cell, cell, cell, f"{cell_name(r, c)} ({what})")
    return picture.document()


def _svg_cells(picture: Picture, game: FillGame, cell: float, left: int, top: int) -> None:
    """Every cell: rock, filled, or empty with its live or poisoned mark and its gem."""
    size = game.options["size"]
    legal, poison = game.legal_mask(), game.poison
    for index in range(size * size):
        r, c = divmod(index, size)
        x0, y0 = left + c * cell, top + r * cell
        bit = 1 << index
        if game.rock & bit:
            picture.rect(x0, y0, cell, cell, fill=PAPER, stroke=colour(GRID))
            picture.add("ellipse", cx=x0 + cell / 2, cy=y0 + cell * 0.53, rx=cell * 0.36, ry=cell * 0.33,
                        fill=colour(ROCK), stroke=colour(INK))
            continue
        if game.filled & bit:
            picture.rect(x0, y0, cell, cell, fill=FILLED, stroke=colour(GRID))
            continue
        picture.rect(x0, y0, cell, cell, fill=PAPER, stroke=colour(GRID))
        q = cell / 7
        if legal & bit:
            picture.rect(x0 + q, y0 + q, cell - 2 * q, cell - 2 * q, stroke=colour(LIVE), stroke_width=max(2, cell / 18))
        elif poison & bit:
            pad = cell / 4
            for a, b in (((x0 + pad, y0 + pad), (x0 + cell - pad, y0 + cell - pad)),
                         ((x0 + pad, y0 + cell - pad), (x0 + cell - pad, y0 + pad))):
                picture.line(*a, *b, stroke=POISON, stroke_width=max(2, cell / 16), stroke_linecap="round")
        if index in game.gems:
            mx, my, half = x0 + cell / 2, y0 + cell / 2, cell * 0.26
            kind = game.gems[index]
            picture.polygon([(mx, my - half), (mx + half, my), (mx, my + half), (mx - half, my)], fill=GEM_COLOURS[kind],
                            stroke=colour(INK))
            picture.centred_text(mx, my, GEM_LETTERS[kind], size=cell * 0.22, fill=(255, 255, 255), weight="bold")


def _svg_traps(picture: Picture, game: FillGame, seats: tuple[int, ...], cell: float, left: int, top: int) -> None:
    """The last sprung trap (public) and the viewers' live traps."""
    size = game.options["size"]
    if game.last_sprung is not None:
        index, owner = game.last_sprung
        r, c = divmod(index, size)
        x0, y0 = left + c * cell, top + r * cell
        picture.rect(x0 + 2, y0 + 2, cell - 4, cell - 4, stroke=colour(SEAT_COLOURS[owner]), stroke_width=max(3, cell / 12))
        picture.text(x0 + 6, y0 + 18, "!", size=16, fill=SEAT_COLOURS[owner], weight="bold")
    for p in seats:
        index = game.live_trap[p]
        if index >= 0:
            r, c = divmod(index, size)
            _trap(picture, left + c * cell, top + r * cell, cell, SEAT_COLOURS[p])


def _svg_panel(picture: Picture, game: FillGame, seats: tuple[int, ...], x: int) -> int:
    """The panel: title, whose turn (the phase only to its own seat), seats, the choice, the
    last sprung trap, the buttons; where the legend may start."""
    finished = game.phase == OVER
    size = game.options["size"]
    y = 26
    rules = [game.options["lines"] + " lines"] + [name for name in ("traps", "rocks", "gems") if game.options[name]]
    if game.timed:
        rules.append("clocks")
    picture.text(x, y, f"Fill {size} x {size}", size=20, weight="bold")
    y += 22
    picture.text(x, y, ", ".join(rules), size=13)
    y += 26
    tint = SEAT_COLOURS[game.winner] if finished else (SEAT_COLOURS[game.to_move] if game.phase < PLAYER_PHASES else INK)
    for line in wrap_words(turn_line(game, seats), 40, indent_once=True):
        picture.text(x, y, line, size=14, fill=tint)
        y += 18
    y += 8
    acting = not finished and game.phase < PLAYER_PHASES
    for p, line in enumerate(seat_lines(game, seats)):
        words = wrap_words(line, 36, indent_once=True)
        seat_key(picture, x, y, p, words[0], acting and game.to_move == p, size=13)
        for more in words[1:]:
            y += 16
            picture.text(x + 33, y, more, size=13)
        y += 22
    if game.choice >= 0:
        for line in wrap_words(choice_line(game), 42, indent_once=True):
            picture.text(x, y, line, size=13)
            y += 16
        y += 4
    if game.last_sprung is not None:
        index, owner = game.last_sprung
        picture.text(x, y, f"last sprung trap: {game._name(index)} (player_{owner}'s)", size=13)
        y += 18
    legal_actions = legal_now(game, seats)
    buttons = [name for offset, name in enumerate(SPECIAL_NAMES) if size * size + offset in legal_actions]
    if buttons:
        y += 6
        for i, name in enumerate(buttons):
            bx = x + (i % 2) * 160
            picture.button(name, bx, y, 150, 32, BUTTON_WORDS[name])
            if i % 2 == 1 or i == len(buttons) - 1:
                y += 40
    return y


def _svg_legend(picture: Picture, game: FillGame, x: int, y: int, height: int) -> None:
    """The legend at the panel's foot (the picture grows to hold it)."""
    y = max(y + 10, height - 4 - 20 * (3 if game.options["gems"] else 2))
    picture.rect(x, y - 12, 14, 14, fill=PAPER, stroke=colour(LIVE), stroke_width=2)
    picture.text(x + 22, y, "live: may be filled now", size=12)
    y += 20
    picture.line(x + 2, y - 10, x + 12, y, stroke=POISON, stroke_width=2)
    picture.line(x + 2, y, x + 12, y - 10, stroke=POISON, stroke_width=2)
    picture.text(x + 22, y, "poisoned: can never be filled", size=12)
    if game.options["gems"]:
        kinds = ", ".join(f"{GEM_LETTERS[k]} {KIND_TITLES[k]}" for k in range(3 if game.options["traps"] else 2))
        picture.text(x, y + 20, f"gems: {kinds} token", size=12)
        y += 20
    picture.height = max(picture.height, y + 16)


def element(game: FillGame, action: int) -> str | None:
    """A cell's action (seed, trap, fill) is ``cell-<i>``; the specials are their buttons."""
    n = game.n
    if 0 <= action < n:
        return f"cell-{action}"
    if n <= action < n + len(SPECIAL_NAMES):
        return SPECIAL_NAMES[action - n]
    return None


def status(game: FillGame, seats: tuple[int, ...] = ()) -> str:
    return turn_line(game, tuple(seats))


def can_preview(game: FillGame, action: int) -> bool:
    return False  # one action an element: never a choice (and a fill may spring a hidden trap)


__all__ = ["can_preview", "element", "status", "svg"]
