"""Exact Linecatch solver for boards of up to 16 squares.

The future depends only on the set of black squares (who is to move is part of the value's
sign convention, the scores so far only add a constant), so one table over all ``2**n`` sets
holds the best achievable (mover's future points − opponent's future points). It is filled
in one backward sweep: adding a square makes the set's number larger, so every successor is
known before its predecessors.
"""

from __future__ import annotations

from functools import lru_cache

from envs.linecatch.rules import Geometry, geometry

MAX_SQUARES = 16


class LinecatchSolver:
    def __init__(self, rows: int, cols: int, pro: bool):
        geo = geometry(rows, cols, pro)
        if geo.size > MAX_SQUARES:
            raise ValueError(
                f"the exact solver handles boards of up to {MAX_SQUARES} squares, "
                f"not {rows}×{cols} = {geo.size}"
            )
        self.geo = geo
        self.values = _solve(geo)

    def action_values(self, black_mask: int) -> dict[int, int]:
        """Value (mover's future point margin) of each white square from ``black_mask``."""
        full = (1 << self.geo.size) - 1
        out = {}
        for cell in range(self.geo.size):
            if black_mask >> cell & 1:
                continue
            after = black_mask | (1 << cell)
            g = self.geo.catch_points(black_mask, cell)
            rest = self.values[after]
            out[cell] = g + rest if (g and after != full) else g - rest
        return out

    def value(self, black_mask: int) -> int:
        return self.values[black_mask]


@lru_cache(maxsize=8)
def _solve(geo: Geometry) -> list[int]:
    n = geo.size
    full = (1 << n) - 1
    values = [0] * (1 << n)
    # Per cell: (bit, [(line mask, length), ...]) so the sweep touches only plain ints.
    cell_info = [
        (1 << c, [(geo.line_mask[line], geo.line_length[line]) for line in geo.cell_lines[c]])
        for c in range(n)
    ]
    for mask in range(full - 1, -1, -1):
        best = None
        for bit, lines in cell_info:
            if mask & bit:
                continue
            after = mask | bit
            gained = 0
            for line_mask, length in lines:
                if after & line_mask == line_mask:
                    gained += length
            v = gained + values[after] if (gained and after != full) else gained - values[after]
            if best is None or v > best:
                best = v
        values[mask] = best
    return values
