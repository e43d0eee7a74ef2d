"""Bitboard helpers shared by the engines that keep cell sets as Python ints."""

from __future__ import annotations

import numpy as np


def set_bits(mask: int) -> list[int]:
    """The set bit positions of ``mask``, ascending (``0b1010`` → ``[1, 3]``)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def bits_mask(mask: int, length: int) -> np.ndarray:
    """Bit ``i`` of ``mask`` as entry ``i`` of an ``int8`` array of ``length`` entries (0 or 1):
    an action mask from a bit set in one pass, without listing the set bits."""
    packed = np.frombuffer(mask.to_bytes((length + 7) // 8, "little"), np.uint8)
    return np.unpackbits(packed, count=length, bitorder="little").view(np.int8)
