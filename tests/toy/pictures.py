"""The toy games' ``rgb_array`` pictures: their text, drawn on the suite's paper."""

from __future__ import annotations

import numpy as np

from envs.core.render import INK, canvas, font, to_array


def text_picture(text: str) -> np.ndarray:
    lines = text.splitlines() or [""]
    image, draw = canvas(16 + 9 * max(len(line) for line in lines), 16 + 18 * len(lines))
    for index, line in enumerate(lines):
        draw.text((8, 8 + 18 * index), line, fill=INK, font=font(14))
    return to_array(image)
