"""Bitboard helpers shared by the engines that keep cell sets as Python ints."""

from __future__ import annotations


def set_bits(mask: int) -> list[int]:
    """The set bit positions of ``mask``, ascending (``0b1010`` → ``[1, 3]``)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
