"""The README's pictures (``docs/images/<game>.png``) are what ``scripts/render_gallery.py``
draws now, pixel for pixel: a renderer change that leaves a picture stale fails here.

Pixel-exact, because the drawing is deterministic: the positions are seeded heuristic games
and the text uses Pillow's bundled font, so the same Pillow draws the same pixels on every run
(checked by drawing each picture twice). A failure names the game and how many pixels differ;
``python scripts/render_gallery.py`` draws the pictures again.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import envs
from tests.docs.markdown import ROOT
from tests.scripts import import_script

PUBLISHED = [game for game in envs.GAMES if envs.describe(game).docs]  # games with pages have a README picture
IMAGES = ROOT / "docs" / "images"


@pytest.fixture
def gallery(monkeypatch):
    return import_script(monkeypatch, "render_gallery")


def pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


@pytest.mark.parametrize("game", PUBLISHED)
def test_the_committed_picture_is_what_the_renderer_draws_now(gallery, game, tmp_path):
    short = envs.describe(game).short_name
    drawn = pixels(gallery.render(game, tmp_path))
    committed = pixels(IMAGES / f"{short}.png")
    stale = f"docs/images/{short}.png is stale: run python scripts/render_gallery.py --games {short}"
    assert committed.shape == drawn.shape, f"{stale} (it is {committed.shape[1]}×{committed.shape[0]}, " \
                                           f"the renderer draws {drawn.shape[1]}×{drawn.shape[0]})"
    differ = int(np.any(committed != drawn, axis=-1).sum())
    assert differ == 0, f"{stale} ({differ} pixels differ)"


def test_the_gallery_draws_the_same_picture_twice(gallery, tmp_path):
    """The premise of the pixel-exact comparison: drawing is deterministic."""
    for game in PUBLISHED:
        first = pixels(gallery.render(game, tmp_path))
        assert np.array_equal(first, pixels(gallery.render(game, tmp_path))), game


def test_every_game_has_a_picture_and_no_picture_is_left_over():
    shorts = {envs.describe(game).short_name for game in PUBLISHED}
    drawn = {path.stem for path in IMAGES.glob("*.png") if not path.stem.startswith("web_")}  # web_*: the browser tests' screenshots
    assert drawn == shorts
