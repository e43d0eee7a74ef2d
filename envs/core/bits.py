"""Bitboard helpers shared by the engines that keep cell sets as Python ints."""

from __future__ import annotations

import threading

import numpy as np


# _BYTE_BITS[c][b]: the positions of the set bits of byte ``b`` at byte ``c`` of a mask
# (grown as longer masks are met). Threads share it: a longer table is built whole, under a
# lock, and then published by one assignment, so no reader ever sees a half-grown one (two
# threads appending row ``c`` at once would shift every later row for the rest of the process).
_BYTE_BITS: list[list[tuple[int, ...]]] = []
_BYTE_BITS_LOCK = threading.Lock()


def _byte_bits(size: int) -> list[list[tuple[int, ...]]]:
    """A table of at least ``size`` bytes' rows, published whole."""
    global _BYTE_BITS
    with _BYTE_BITS_LOCK:
        table = _BYTE_BITS
        if len(table) < size:
            table = table + [[tuple(8 * c + i for i in range(8) if b >> i & 1) for b in range(256)]
                             for c in range(len(table), size)]
            _BYTE_BITS = table
        return table


def set_bits(mask: int) -> list[int]:
    """The set bit positions of ``mask`` (not negative), ascending (``0b1010`` → ``[1, 3]``).

    A few bits are taken one at a time (lowest first); more are read a byte at a time from
    the mask's bytes, each byte's positions from a table, which costs less once there are more
    bits than about a fifth of the bytes."""
    size = (mask.bit_length() + 7) >> 3
    if mask.bit_count() * 5 <= 13 + size:
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out
    table = _BYTE_BITS
    if len(table) < size:
        table = _byte_bits(size)
    out = []
    for c, b in enumerate(mask.to_bytes(size, "little")):
        if b:
            out += table[c][b]
    return out


def bits_mask(mask: int, length: int) -> np.ndarray:
    """Bit ``i`` of ``mask`` as entry ``i`` of an ``int8`` array of ``length`` entries (0 or 1):
    an action mask from a bit set in one pass, without listing the set bits."""
    packed = np.frombuffer(mask.to_bytes((length + 7) // 8, "little"), np.uint8)
    return np.unpackbits(packed, count=length, bitorder="little").view(np.int8)
