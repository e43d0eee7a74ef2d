"""Fill pictures with the seed's hints: live cells as squares, poisoned cells as crosses.

A picture is drawn for a viewer: ``None`` (a spectator: no trap is shown), a seat ``0`` / ``1``
(that player's own live trap and trap stock, as on their screen) or ``"all"`` (both players'
traps: replays and debugging). Public facts (board, gems, tokens, the last sprung trap, clocks)
are shown to everybody.
"""

from __future__ import annotations

import numpy as np

from envs.core.notation import column_name
from envs.core.render import GRID, INK, PAPER, SEAT_COLOURS, canvas, font, to_array
from envs.fill.rules import (
    CHOOSE, KIND_NAMES, KIND_TITLES, OVER, PHASE_NAMES, SEED, STAY, FillGame,
)

GEM_LETTERS = "DPT"
GEM_COLOURS = [(210, 60, 150), (40, 170, 190), (150, 90, 30)]
FILLED = (60, 60, 70)
ROCK = (125, 115, 100)
LIVE = (40, 150, 70)
POISON = (200, 50, 50)
STATUS_LINES = 7  # rows of status text under the board in pictures


def viewer_seats(viewer) -> tuple[int, ...]:
    if isinstance(viewer, tuple):  # already the seats (the env's viewer_seats)
        return viewer
    if viewer is None:
        return ()
    if viewer == "all":
        return (0, 1)
    if viewer in ("player_0", "player_1"):
        return (int(viewer[-1]),)
    if viewer in (0, 1) and not isinstance(viewer, bool):
        return (viewer,)
    raise ValueError(f"viewer must be None, 0, 1, 'player_0', 'player_1' or 'all', not {viewer!r}")


def status_lines(game: FillGame, viewer=None) -> list[str]:
    lines = []
    if game.phase == OVER:
        how = "on time" if game.end_reason == "time" else "(no legal cell for player_%d)" % (1 - game.winner)
        lines.append(f"game over: player_{game.winner} wins {how}")
    elif game.phase == SEED:
        lines.append("player_0 (the seeder) fills any cell")
    elif game.phase == CHOOSE:
        lines.append("player_1 chooses: stay (move next) or swap (the seeder moves next)")
    else:
        turn = game.turns[game.to_move]
        if game.to_move in viewer_seats(viewer):
            lines.append(f"player_{game.to_move} to act, turn {turn}: {PHASE_NAMES[game.phase]}")
        else:
            lines.append(f"player_{game.to_move} to act, turn {turn}")
    if game.choice >= 0:
        lines.append("chooser chose " + ("stay" if game.choice == STAY else "swap"))
    for p in (0, 1):
        held = ", ".join(f"{KIND_TITLES[k]} {left}" for k, left, _ in sorted(game.tokens[p])) or "none"
        text = f"player_{p} tokens: {held}"
        if game.options["traps"] and p in viewer_seats(viewer):
            recharge = game.recharge_counts(p)
            text += f"; traps ready {game.ready_regular(p)}, extra {game.extra[p]}"
            if recharge:
                text += ", recharging " + " ".join(str(c) for c in recharge)
        if game.timed and game.clocked[p]:
            text += f"; clock {game.time_left[p]:.0f}s"
        lines.append(text)
    if game.last_sprung is not None:
        cell, owner = game.last_sprung
        lines.append(f"last sprung trap: {game._name(cell)} (player_{owner}'s)")
    return lines


def ansi(game: FillGame, viewer=None) -> str:
    """Text board: ``#`` filled, ``R`` rock, ``□`` live, ``×`` poisoned, ``·`` other empty;
    gems as ``D``/``P``/``T`` (``d``/``p``/``t`` when not live now); ``[ ]`` the viewer's live
    trap, ``< >`` the last sprung trap."""
    size = game.options["size"]
    seats = viewer_seats(viewer)
    traps = {game.live_trap[p] for p in seats if game.live_trap[p] >= 0}
    sprung = game.last_sprung[0] if game.last_sprung else -1
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
            else:
                row.append(f" {mark} ")
        out.append(f"{r + 1:>3} " + "".join(row))
    out.extend(status_lines(game, viewer))
    return "\n".join(out)


def rgb(game: FillGame, viewer=None, cell_px: int = 48) -> np.ndarray:
    size = game.options["size"]
    seats = viewer_seats(viewer)
    margin, top = 26, 26
    board_px = size * cell_px
    status = status_lines(game, viewer)
    small, tiny = font(14), font(11)
    # One frame size per board size (videos need it): status lines wrap at "; " to fit.
    width = max(board_px + 2 * margin, 640)
    _, measure = canvas(1, 1)
    wrapped: list[str] = []
    for line in status:
        while measure.textlength(line, font=small) > width - 2 * margin and "; " in line:
            cut = line.rfind("; ")
            while measure.textlength(line[:cut], font=small) > width - 2 * margin and line.rfind("; ", 0, cut) > 0:
                cut = line.rfind("; ", 0, cut)
            wrapped.append(line[:cut])
            line = "    " + line[cut + 2:]
        wrapped.append(line)
    status = wrapped[:STATUS_LINES]
    height = top + board_px + 16 + 18 * STATUS_LINES
    image, draw = canvas(width, height)
    legal, poison = game.legal_mask(), game.poison
    for c in range(size):
        draw.text((margin + c * cell_px + cell_px // 2 - 4, 6), column_name(c), fill=INK, font=tiny)
    for r in range(size):
        draw.text((6, top + r * cell_px + cell_px // 2 - 6), str(r + 1), fill=INK, font=tiny)
    q = cell_px // 4
    for cell in range(size * size):
        r, c = divmod(cell, size)
        x0, y0 = margin + c * cell_px, top + r * cell_px
        x1, y1 = x0 + cell_px, y0 + cell_px
        bit = 1 << cell
        if game.rock & bit:
            draw.rectangle((x0, y0, x1, y1), fill=PAPER, outline=GRID)
            draw.ellipse((x0 + 6, y0 + 8, x1 - 6, y1 - 6), fill=ROCK, outline=INK)
            continue
        if game.filled & bit:
            draw.rectangle((x0, y0, x1, y1), fill=FILLED, outline=GRID)
            continue
        draw.rectangle((x0, y0, x1, y1), fill=PAPER, outline=GRID)
        if legal & bit:  # the seed's square hint
            draw.rectangle((x0 + q, y0 + q, x1 - q, y1 - q), outline=LIVE, width=3)
        elif poison & bit:  # the seed's cross hint
            draw.line((x0 + q, y0 + q, x1 - q, y1 - q), fill=POISON, width=3)
            draw.line((x0 + q, y1 - q, x1 - q, y0 + q), fill=POISON, width=3)
        if cell in game.gems:
            kind = game.gems[cell]
            mx, my, h = (x0 + x1) // 2, (y0 + y1) // 2, cell_px // 3
            draw.polygon([(mx, my - h), (mx + h, my), (mx, my + h), (mx - h, my)], fill=GEM_COLOURS[kind], outline=INK)
            draw.text((mx - 4, my - 7), GEM_LETTERS[kind], fill=(255, 255, 255), font=small)
    if game.last_sprung is not None:
        cell, owner = game.last_sprung
        r, c = divmod(cell, size)
        x0, y0 = margin + c * cell_px, top + r * cell_px
        draw.rectangle((x0 + 2, y0 + 2, x0 + cell_px - 2, y0 + cell_px - 2), outline=SEAT_COLOURS[owner], width=2)
        draw.text((x0 + 4, y0 + 2), "!", fill=SEAT_COLOURS[owner], font=small)
    for p in seats:
        cell = game.live_trap[p]
        if cell >= 0:
            r, c = divmod(cell, size)
            x0, y0 = margin + c * cell_px, top + r * cell_px
            # a trap: a seat-coloured triangle in the cell's corner
            draw.polygon([(x0 + cell_px - 18, y0 + cell_px - 4), (x0 + cell_px - 4, y0 + cell_px - 4),
                          (x0 + cell_px - 11, y0 + cell_px - 18)], fill=SEAT_COLOURS[p], outline=INK)
    y = top + board_px + 10
    for line in status:
        draw.text((margin, y), line, fill=INK, font=small)
        y += 18
    return to_array(image)


__all__ = ["ansi", "rgb", "status_lines", "viewer_seats", "KIND_NAMES"]
