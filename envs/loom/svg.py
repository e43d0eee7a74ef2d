"""Loom as SVG for front ends that click (``envs.core.svg``): both cloths with the notation's
coordinates, each framed in its seat's colour, the throw on the table (a taken thread greyed),
and, on the viewer's own cloth when the viewer weaves, the price of each weave (what each
thread would gain in each empty cell, as the seed's front end rings its cells). Every cell of
both cloths is an element, ``cloth<p>-<cell>``: the actions ``t*16 + cell`` of player ``p``
belong to it (the drafter's cell holds one action per thread it may weave there: a choice).
Loom hides nothing (future throws are not in the state), so every viewer sees the same board."""

from __future__ import annotations

from envs.core.game import CHANCE
from envs.core.notation import cell_name, column_name
from envs.core.svg import GRID, INK, PAPER, SEAT_COLOURS, Picture, colour, legal_now, pale, seat_key
from envs.loom.render import DYE_COLOURS, status as _status
from envs.loom.cloth import CELLS, SIDE
from envs.loom.rules import ROUNDS, LoomGame

CELL = 64
GAP = 60
MARGIN = 34


def _origin(player: int) -> tuple[float, float]:
    return MARGIN + player * (SIDE * CELL + GAP), 104


def _thread(picture: Picture, x0: float, y0: float, dye: int, across: bool, ghost: bool = False) -> None:
    """A woven thread: a tint over the cell, a band in its dye, its digit in a white disc."""
    tint = DYE_COLOURS[dye]
    extra = {"opacity": 0.6} if ghost else {}
    with picture.group(**extra):
        picture.rect(x0 + 1, y0 + 1, CELL - 2, CELL - 2, fill=pale(tint, 0.7))
        low, high = CELL * 3 / 8, CELL * 5 / 8
        if across:
            picture.rect(x0 + 4, y0 + low, CELL - 8, high - low, fill=tint)
        else:
            picture.rect(x0 + low, y0 + 4, high - low, CELL - 8, fill=tint)
        radius = CELL / 8
        picture.circle(x0 + radius + 5, y0 + radius + 5, radius, fill=(255, 255, 255), stroke=colour(tint))
        picture.centred_text(x0 + radius + 5, y0 + radius + 5, str(dye), size=12)
    if ghost:
        picture.rect(x0 + 2, y0 + 2, CELL - 4, CELL - 4, stroke=colour(INK), stroke_width=3, stroke_dasharray="6 4")


def svg(game: LoomGame, seats: tuple[int, ...] = (), preview: int | None = None) -> str:
    width = 2 * (MARGIN + SIDE * CELL) + GAP - MARGIN + 20
    height = 104 + SIDE * CELL + 116
    picture = Picture(width, height, "Loom")
    over = game.is_terminal()
    actor = game.current_player()
    round_text = "woven" if over else f"round {game.round + 1}/{ROUNDS}"
    picture.text(12, 24, f"Loom · {round_text} · bounty {game.bounty}", size=18, weight="bold")
    legal = legal_now(game, seats)
    for player, cloth in enumerate(game.cloths):
        x_off, top = _origin(player)
        tint = SEAT_COLOURS[player]
        seat_key(picture, x_off - 14, 56, player, f"player_{player}: {game.points[player]}", player == actor)
        frame = 4 if player == actor else 2
        picture.rect(x_off - frame / 2, top - frame / 2, SIDE * CELL + frame, SIDE * CELL + frame, stroke=colour(tint),
                     stroke_width=frame)
        for c in range(SIDE):
            picture.centred_text(x_off + c * CELL + CELL / 2, top - 12, column_name(c), size=14)
        for r in range(SIDE):
            picture.centred_text(x_off - 14, top + r * CELL + CELL / 2, str(r + 1), size=14)
        for cell in range(CELLS):
            r, c = divmod(cell, SIDE)
            x0, y0 = x_off + c * CELL, top + r * CELL
            picture.rect(x0, y0, CELL, CELL, fill=PAPER, stroke=colour(GRID))
            if cloth[cell]:
                _thread(picture, x0, y0, cloth[cell], (r + c) % 2 == 1)
        if player == actor and legal:
            _prices(picture, game, player, legal, x_off, top)
    if preview is not None and can_preview(game, preview):
        t, cell = divmod(preview, CELLS)
        x_off, top = _origin(actor)
        r, c = divmod(cell, SIDE)
        _thread(picture, x_off + c * CELL, top + r * CELL, game.throws[game.round][t], (r + c) % 2 == 1, ghost=True)
    _throw(picture, game, MARGIN, 104 + SIDE * CELL + 28)
    for player in (0, 1):
        x_off, top = _origin(player)
        for cell in range(CELLS):
            r, c = divmod(cell, SIDE)
            dye = game.cloths[player][cell]
            what = f"dye {dye}" if dye else "empty"
            picture.element(f"cloth{player}-{cell}", x_off + c * CELL, top + r * CELL, CELL, CELL,
                            f"player_{player}'s cloth, {cell_name(r, c)} ({what})")
    return picture.document()


def _prices(picture: Picture, game: LoomGame, player: int, legal: frozenset[int], x_off: float, top: float) -> None:
    """What each legal weave gains, written small in its cell, one line a thread: ``6 +12``."""
    low_high = game.throws[game.round]
    for cell in range(CELLS):
        words = [f"{low_high[t]} +{game.gain(player, cell, low_high[t])}" for t in (0, 1) if t * CELLS + cell in legal]
        r, c = divmod(cell, SIDE)
        for line, text in enumerate(reversed(words)):
            picture.text(x_off + c * CELL + CELL - 6, top + r * CELL + CELL - 7 - 14 * line, text, size=12,
                         fill=(80, 80, 80), anchor="end")


def _throw(picture: Picture, game: LoomGame, x: float, y: float) -> None:
    if game.is_terminal() or game.current_player() == CHANCE:
        picture.text(x, y + 20, status(game), size=15)
        return
    picture.text(x, y + 20, "throw:", size=15)
    for t, dye in enumerate(game.throws[game.round]):
        cx = x + 84 + t * 250
        available = game.taken < 0 or t == 1 - game.taken
        fill = DYE_COLOURS[dye] if available else GRID
        picture.circle(cx, y + 15, 19, fill=fill, stroke=colour(INK), stroke_width=2)
        picture.circle(cx, y + 15, 10, fill=(255, 255, 255))
        picture.centred_text(cx, y + 15, str(dye), size=14)
        note = f"thread {t}" if available else f"taken by player_{game.drafter()}"
        picture.text(cx + 27, y + 20, note, size=13)
    picture.text(x, y + 58, status(game), size=14)


def element(game: LoomGame, action: int) -> str | None:
    """``t*16 + cell`` weaves into the acting player's cloth: element ``cloth<p>-<cell>``."""
    player = game.current_player()
    if player < 0 or not 0 <= action < 2 * CELLS:
        return None
    return f"cloth{player}-{action % CELLS}"


def status(game: LoomGame, seats: tuple[int, ...] = ()) -> str:
    return _status(game)


def can_preview(game: LoomGame, action: int) -> bool:
    """A weave of the player to act (a drafter's cell may hold two)."""
    return game.current_player() >= 0 and 0 <= action < 2 * CELLS and game.why_illegal(action) is None


__all__ = ["can_preview", "element", "status", "svg"]
