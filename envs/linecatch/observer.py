"""What a Linecatch seat sees: everything (perfect information), told from its own side."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from envs.core.observer import D4, Observer, PolicyLayout, Symmetry, as_vector, transform_grid
from envs.linecatch.rules import NO_MARK, Geometry, LinecatchGame, geometry

# The planes' channels (docs/observations.md, "Planes"): per-square facts, then constant planes.
PLANE_NAMES = ("black", "my_marks", "their_marks", "catch_now", "hands_over", "my_score", "their_score", "pro")
# Flat blocks copied square by square into the first five channels, in channel order.
_CELL_BLOCKS = ("BLACK", "MY_MARKS", "THEIR_MARKS", "CATCH_NOW", "HANDS_OVER")
_GLOBAL_BLOCKS = ("MY_SCORE", "THEIR_SCORE", "PRO")
# The symmetries of a rectangle keep its shape; a square has all eight of D4.
RECTANGLE = ("identity", "rot180", "flip_rows", "flip_cols")


@lru_cache(maxsize=64)
def _tables(geo: Geometry, offsets: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Per board (built once: bots and samplers make an observer per observation):

    * the square × line incidence weighted by line length: one matrix product prices every
      square in whole points (exact in float32, whatever the order of the lines), divided once
      by the scale, so a square's price does not depend on how the lines are numbered;
    * per count of white squares left on a line, whether it is 1 and whether it is 2 (the
      lines a square would catch, and those it would leave one short);
    * which flat entries fill the planes' per-square channels, and the constant ones.
    """
    incidence = np.zeros((geo.size, len(geo.lines)), np.float32)
    for cell, lines in enumerate(geo.cell_lines):
        incidence[cell, list(lines)] = 1.0
    priced = incidence * np.asarray(geo.line_length, np.float32)
    left_one_two = np.zeros((max(geo.line_length) + 1, 2), np.float32)
    left_one_two[1, 0] = left_one_two[2, 1] = 1.0
    cells = len(_CELL_BLOCKS)
    cell_index = np.stack([np.arange(geo.size) + start for start in offsets[:cells]], axis=-1)
    global_index = np.array(offsets[cells:])
    for array in (priced, left_one_two, cell_index, global_index):
        array.setflags(write=False)
    return priced, left_one_two, cell_index, global_index


class LinecatchObserver(Observer):
    """Layout (``n = rows*cols``, cells in action order; the offsets are attributes):

    ``BLACK`` ``[0, n)`` black squares · ``MY_MARKS`` ``[n, 2n)`` squares last caught by me ·
    ``THEIR_MARKS`` ``[2n, 3n)`` squares last caught by the opponent · ``MY_SCORE`` ``3n`` my
    score / total · ``THEIR_SCORE`` ``3n+1`` their score / total · ``PRO`` ``3n+2`` pro mode ·
    ``CATCH_NOW`` ``[3n+3, 4n+3)`` per square, the points blackening it would catch now ·
    ``HANDS_OVER`` ``[4n+3, 5n+3)`` per square, the points it would hand over (lines it would
    leave one square short). ``total`` is the sum of all line lengths (the most anyone can
    score); the two last blocks are divided by ``4 * max(rows, cols)``, more than any square
    can touch.

    The last two blocks are public arithmetic on the board: a square that almost completes a
    line gives the points to the other player, and the observation says so.

    Planes (``planes``): ``(rows, cols, 8)``, the five per-square blocks as channels 0–4, then
    my score, their score and pro mode as constant planes 5–7 (``PLANE_NAMES``).
    """

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.geo = geometry(options["rows"], options["cols"], options["pro"])
        self.n = n = self.geo.size
        self.lay_out(BLACK=n, MY_MARKS=n, THEIR_MARKS=n, MY_SCORE=1, THEIR_SCORE=1, PRO=1, CATCH_NOW=n, HANDS_OVER=n)
        self.scale = float(self.geo.total_points)
        self.square_scale = float(4 * max(self.geo.rows, self.geo.cols))
        self._priced, self._left_one_two, self._cell_index, self._global_index = _tables(self.geo, tuple(
            getattr(self, name) for name in _CELL_BLOCKS + _GLOBAL_BLOCKS))

    def observe(self, game: LinecatchGame, player: int) -> np.ndarray:
        n = self.n
        obs = np.zeros(self.size, np.float32)
        black = obs[self.BLACK:self.BLACK + n]
        black[:] = game.black
        marks = np.asarray(game.marks)
        obs[self.MY_MARKS:self.MY_MARKS + n] = marks == player
        obs[self.THEIR_MARKS:self.THEIR_MARKS + n] = (marks != NO_MARK) & (marks != player)
        obs[self.MY_SCORE] = game.points[player] / self.scale
        obs[self.THEIR_SCORE] = game.points[1 - player] / self.scale
        obs[self.PRO] = float(self.options["pro"])
        # Whole points per square (catch now, hand over): the lengths of its lines with one and
        # with two white squares left, in one product; divided once by the scale.
        prices = self._priced.dot(self._left_one_two[game.remaining])
        prices /= self.square_scale
        prices *= (black == 0)[:, None]
        obs[self.CATCH_NOW:self.CATCH_NOW + 2 * n].reshape(2, n)[:] = prices.T  # HANDS_OVER follows CATCH_NOW
        return obs

    def decode(self, observation) -> dict[str, Any]:
        vec = as_vector(observation)
        block = self.layout.view
        shape = (self.geo.rows, self.geo.cols)
        return {
            "black": block(vec, "BLACK").reshape(shape) > 0.5,
            "my_marks": block(vec, "MY_MARKS").reshape(shape) > 0.5,
            "their_marks": block(vec, "THEIR_MARKS").reshape(shape) > 0.5,
            "my_score": int(round(vec[self.MY_SCORE] * self.scale)),
            "their_score": int(round(vec[self.THEIR_SCORE] * self.scale)),
            "pro": bool(vec[self.PRO] > 0.5),
            "catch_now": np.rint(block(vec, "CATCH_NOW") * self.square_scale).astype(int).reshape(shape),
            "hands_over": np.rint(block(vec, "HANDS_OVER") * self.square_scale).astype(int).reshape(shape),
        }

    # ----- board-shaped observations ------------------------------------------------------------
    def planes_shape(self) -> tuple[int, int, int]:
        return (self.geo.rows, self.geo.cols, len(PLANE_NAMES))

    def planes(self, observation) -> np.ndarray:
        """``(rows, cols, 8)`` from one flat vector (or the env's dict), ``(N, rows, cols, 8)``
        from a batch ``(N, size)``: channels as ``PLANE_NAMES``; every entry is a flat entry
        (so in [0, 1]), copied, not recomputed."""
        vec = np.asarray(as_vector(observation), dtype=np.float32)
        if vec.ndim not in (1, 2) or vec.shape[-1] != self.size:
            raise ValueError(
                f"Linecatch {self.geo.rows}×{self.geo.cols} planes are built from flat observations of "
                f"{self.size} entries (one vector or a batch (N, {self.size})), not shape {vec.shape}"
            )
        rows, cols, channels = self.planes_shape()
        batch = vec.shape[:-1]
        out = np.empty(batch + (self.n, channels), np.float32)
        out[..., :len(_CELL_BLOCKS)] = vec[..., self._cell_index]
        out[..., len(_CELL_BLOCKS):] = vec[..., None, self._global_index]
        return out.reshape(batch + (rows, cols, channels))

    def policy_layout(self) -> PolicyLayout:
        """Every action is a square: one logit per square of a 1-channel per-cell head, action
        ``r*cols + c`` at ``(r, c)``; no global logits."""
        return PolicyLayout(cell_channels=1, global_actions=0, index=np.arange(self.n, dtype=np.int64))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The rectangle's four (identity, rot180, flip_rows, flip_cols) always; on a square
        board the eight of D4. Every line (row, column, and in pro mode each diagonal of 3 or
        more squares in either direction) maps onto a line of the same length, and the rules
        do not depend on names, so each of them maps a game onto an equally good one; channels
        stay as they are."""
        rows, cols = self.geo.rows, self.geo.cols
        transforms = D4 if rows == cols else RECTANGLE
        grid = np.arange(self.n).reshape(rows, cols, 1)
        out = []
        for name in transforms:
            moved = transform_grid(grid, name)[..., 0]  # moved[i, j] = the old square now at (i, j)
            actions = np.empty(self.n, np.int64)
            actions[moved.ravel()] = np.arange(self.n)
            out.append(Symmetry(name=name, transform=name, actions=actions))
        return tuple(out)
