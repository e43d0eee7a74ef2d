"""Small drawing helpers shared by the games' ``rgb_array`` pictures (Pillow under the hood),
and the last move the pictures and text boards mark (:class:`LastMove`)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFont

# One palette for the suite: seat colours first (orange, blue, green, purple), the colours the games' own boards use.
SEAT_COLOURS = [(230, 120, 30), (40, 110, 220), (40, 160, 80), (150, 70, 190)]
INK = (30, 30, 35)
PAPER = (245, 242, 235)
GRID = (160, 155, 145)
LAST_MOVE = (250, 60, 200)  # the last move's mark in every game's picture: a magenta frame


class LastMove(NamedTuple):
    """The last move a picture or text board marks: the seat that played it, its action, and
    the engine state it was played in (``before``: the notation and what the action touched are
    read from it). The env keeps the last move its viewer may see (a move of a secret phase,
    Fill's trap, is never shown to the other seats) and passes it to the game's ``ansi`` and
    ``rgb`` as ``last``; ``None`` before the first move and after a restore."""

    seat: int
    action: int
    before: Any

    def notation(self) -> str:
        return self.before.action_to_string(self.action)

    def text(self) -> str:
        """``last move: player_1 c3``: the line the pictures and text boards print."""
        return f"last move: player_{self.seat} {self.notation()}"


def pale(value: tuple[int, int, int], amount: float = 0.5) -> tuple[int, int, int]:
    """The colour mixed with white (``amount`` 1 is white)."""
    return tuple(int(c + (255 - c) * amount) for c in value)


def canvas(width: int, height: int, colour=PAPER) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), colour)
    return image, ImageDraw.Draw(image)


def font(size: int = 14):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has no sized default font
        return ImageFont.load_default()


def mark_last(draw: ImageDraw.ImageDraw, box, width: int = 3) -> None:
    """The last move's mark: a frame in :data:`LAST_MOVE` just inside ``box``."""
    x0, y0, x1, y1 = box
    draw.rectangle((x0 + 1, y0 + 1, x1 - 1, y1 - 1), outline=LAST_MOVE, width=width)


def last_move_key(draw: ImageDraw.ImageDraw, xy, last: LastMove | None, fnt, size: int = 16) -> None:
    """A key line for the mark: a small frame as on the board, then ``last move: …`` (nothing
    when there is no last move to show)."""
    if last is None:
        return
    x, y = xy
    mark_last(draw, (x, y + 1, x + size, y + 1 + size), width=3)
    draw.text((x + size + 6, y + max(0, (size - 13) // 2)), last.text(), fill=INK, font=fnt)


def to_array(image: Image.Image) -> np.ndarray:
    return np.asarray(image, dtype=np.uint8).copy()
