"""The array work under Uzor's planes (``envs.uzor.planes``): per-cell joins and best-ofs of
the completing instances, the window around a placement, tile codes and neighbourhoods, each for
a whole batch of observations at once."""

from __future__ import annotations

import numpy as np

from envs.uzor.common import HAND, TYPES


def joined_per_cell(n: int, obs, cell, types) -> tuple[np.ndarray, np.ndarray]:
    """The one-short instances ``(obs, cell, types)`` grouped by where they end: per
    (observation, cell) ``obs * n + cell`` met, ascending, the instances' type sets joined per
    pattern (``(U, 15)``)."""
    key = obs * n + cell
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    if not len(starts):
        return key[:0], np.zeros((0, types.shape[1]), np.int64)
    return key[starts], np.bitwise_or.reduceat(types[order], starts, axis=0)


def best_per_cell(n_obs: int, n: int, unique, joined, worths) -> list[np.ndarray]:
    """Per worth (``(N, 15)``), per tile type and cell (``(N, 25, n)``): the most one placement
    there completes, from the one-short instances grouped by ``joined_per_cell``."""
    best = [np.zeros((n_obs, TYPES, n), np.float32) for _ in worths]
    at, k = np.nonzero(joined)  # (cell, pattern) pairs that complete for some type
    if len(at):
        has = (joined[at, k][:, None] >> np.arange(TYPES)) & 1 != 0  # (E, 25)
        runs = np.flatnonzero(np.r_[True, at[1:] != at[:-1]])
        target = unique[at[runs]]
        for out, worth in zip(best, worths):
            values = np.where(has, worth[unique[at] // n, k][:, None], 0)
            out[target // n, :, target % n] = np.maximum.reduceat(values, runs, axis=0)
    return best


def best_of(bits: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per entry of ``bits`` (``(N, S, n)`` 25-bit type sets), the largest of ``values``
    (``(N, 25, n)``, never negative) over its types. Only the cells where some value is not
    zero are looked at (few: those that complete something); elsewhere it is 0."""
    out = np.zeros(bits.shape, np.float32)
    cells = np.flatnonzero(values.any(axis=(0, 1)))
    if len(cells):
        has = (bits[:, :, None, cells] >> np.arange(TYPES)[:, None]) & 1 != 0  # (N, S, 25, cells)
        out[:, :, cells] = np.where(has, values[:, None, :, cells], np.float32(0)).max(axis=2)
    return out


def padded_best_of(bits: np.ndarray, usable: np.ndarray, values: np.ndarray, reach: int, size: int) -> np.ndarray:
    """``best_of(bits[:, :, None] & usable, values)`` (``bits`` ``(N, S)``, ``usable``
    ``(N, S or 1, n)``) as ``(N, S, B, B)`` boards padded with ``reach`` zeros on every side;
    only the cells where some value is not zero are looked at."""
    n_obs, slots = bits.shape
    out = np.zeros((n_obs, slots, size + 2 * reach, size + 2 * reach), np.float32)
    cells = np.flatnonzero(values.any(axis=(0, 1)))
    if len(cells):
        usable = bits[:, :, None] & usable[:, :, cells]  # (N, S, cells)
        has = (usable[:, :, None, :] >> np.arange(TYPES)[:, None]) & 1 != 0  # (N, S, 25, cells)
        best = np.where(has, values[:, None, :, cells], np.float32(0)).max(axis=2)
        out[:, :, reach + cells // size, reach + cells % size] = best
    return out


def window_best(far: np.ndarray, beside: np.ndarray, reach: int, size: int) -> np.ndarray:
    """``(N, S, B, B)``: per cell ``x``, the largest of ``beside`` over the four cells next to
    ``x`` and of ``far`` over the other cells of the window ``reach`` rows and columns around it
    (``x`` itself left out); both are padded by ``reach`` on each side, zeros there, and never
    negative. The window is taken a row and then a column at a time: along each row the best
    of the columns two or more away (each side), one away, and the cell itself, then the same
    over the rows (a maximum taken in any order is the same number)."""
    def cols(a, lo, hi):  # per padded row and cell column x: the best of columns x + lo … x + hi
        best = a[..., reach + lo:reach + lo + size]
        for dc in range(lo + 1, hi + 1):
            best = np.maximum(best, a[..., reach + dc:reach + dc + size])
        return best

    def rows(a, lo, hi):  # per cell row x: the best of padded rows x + lo … x + hi
        best = a[:, :, reach + lo:reach + lo + size]
        for dr in range(lo + 1, hi + 1):
            best = np.maximum(best, a[:, :, reach + dr:reach + dr + size])
        return best

    best = np.zeros(far.shape[:2] + (size, size), np.float32)
    if not reach:  # (a Map of single cells: no placement changes another cell)
        return best
    if reach >= 2:  # columns two or more away: on every row of the window
        two = np.maximum(cols(far, -reach, -2), cols(far, 2, reach))
        best = np.maximum(best, rows(two, -reach, reach))
    one = np.maximum(cols(far, -1, -1), cols(far, 1, 1))  # the columns next to x: on the rows but x's own
    same = cols(far, 0, 0)  # x's own column: on the rows two or more away
    for lo, hi in ((-reach, -1), (1, reach)):
        best = np.maximum(best, rows(one, lo, hi))
    for lo, hi in ((-reach, -2), (2, reach)):
        if hi >= lo:
            best = np.maximum(best, rows(same, lo, hi))
    # the four cells next to x: from ``beside``
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        best = np.maximum(best, beside[:, :, reach + dr:reach + dr + size, reach + dc:reach + dc + size])
    return best


def beyond(values: np.ndarray, reach: int) -> np.ndarray:
    """``(N, B, B)``: per cell, the largest of ``values`` more than ``reach`` rows or columns
    away (the four half-planes beyond its window, from running maxima)."""
    size = values.shape[-1]
    out = np.zeros_like(values)
    for axis in (1, 2):
        line = values.max(axis=3 - axis)  # (N, B): per row (axis 1) or column (axis 2)
        before = np.maximum.accumulate(line, axis=1)  # best of lines 0..i
        after = np.maximum.accumulate(line[:, ::-1], axis=1)[:, ::-1]  # best of lines i..B-1
        best = np.zeros_like(line)
        low = np.arange(size) - reach - 1  # the last line before the window
        high = np.arange(size) + reach + 1  # the first line after it
        best[:, low >= 0] = before[:, low[low >= 0]]
        best[:, high < size] = np.maximum(best[:, high < size], after[:, high[high < size]])
        out = np.maximum(out, best[:, :, None] if axis == 1 else best[:, None, :])
    return out


def priced(judged: np.ndarray, bits: np.ndarray, worth: np.ndarray) -> np.ndarray:
    """``(P, 5)``: the largest ``worth`` (``(P, 15)``) among the patterns whose completing types
    (``judged``, ``(P, 5 or 1, 15)``) meet the usable types ``bits`` (``(P, 5)``)."""
    return np.where(judged & bits[:, :, None] != 0, worth[:, None, :], 0).max(axis=2)


def tile_codes(motif: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """A tile's code for ``completing_types``: its motif bit, its colour bit << 5, its type bit
    << 10."""
    return (1 << motif) | (32 << colour) | (1024 << (5 * motif + colour))


def neighbourhood(empty, stone, motif, colour, is_open) -> tuple[np.ndarray, np.ndarray]:
    """``near`` (``(N, 12, B, B)``): the cells next to an open tile of each motif (0–4) and each
    colour (5–9), to any open tile (10), to any tile (11); and ``free``: the empty cells whose
    occupied neighbours are all stones, which take any tile."""
    layers = np.concatenate([np.moveaxis(motif, 3, 1), np.moveaxis(colour, 3, 1),
                             is_open[:, None], (is_open | stone)[:, None]], axis=1)
    near = _neighbours(layers)
    return near, empty & near[:, 11] & ~near[:, 10]


def _neighbours(layers: np.ndarray) -> np.ndarray:
    """Cells orthogonally next to a set cell of each layer (``(N, L, B, B)`` booleans)."""
    near = np.zeros_like(layers)
    near[..., 1:, :] |= layers[..., :-1, :]
    near[..., :-1, :] |= layers[..., 1:, :]
    near[..., 1:] |= layers[..., :-1]
    near[..., :-1] |= layers[..., 1:]
    return near


def hand_slots(counts: np.ndarray) -> np.ndarray:
    """Hand slots from per-type counts (``(N, 25)``), the hand sorted by type as the engine
    keeps it: ``(N, 5)`` tile types, -1 for an empty slot."""
    total = np.cumsum(counts, axis=1)
    types = (total[:, :, None] <= np.arange(HAND)[None, None, :]).sum(axis=1)
    return np.where(types < TYPES, types, -1)
