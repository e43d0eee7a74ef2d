"""Small drawing helpers shared by the games' ``rgb_array`` pictures (Pillow under the hood)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

# One palette for the suite: seat colours first (orange, blue, green, purple), the colours the games' own boards use.
SEAT_COLOURS = [(230, 120, 30), (40, 110, 220), (40, 160, 80), (150, 70, 190)]
INK = (30, 30, 35)
PAPER = (245, 242, 235)
GRID = (160, 155, 145)


def canvas(width: int, height: int, colour=PAPER) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), colour)
    return image, ImageDraw.Draw(image)


def font(size: int = 14):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has no sized default font
        return ImageFont.load_default()


def to_array(image: Image.Image) -> np.ndarray:
    return np.asarray(image, dtype=np.uint8).copy()
