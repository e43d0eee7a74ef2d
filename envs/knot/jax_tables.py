"""Host-built constant tables for Knot's JAX engine (``envs/knot/jax_engine.py``).

Everything here is numpy, made once per board size from :mod:`envs.knot.geometry` (the same
tables the Python engine reads), so the two engines cannot disagree on the geometry. Inside
the JAX engine a port is numbered *port-major*, ``port*S + square`` (the observer's plane
order), not ``square*8 + port`` as in the Python engine and snapshots:

* per port: the port it is linked to (``link``) and whether that link is inside the board;
* per placement action ``slot*S + square``: its two ports, the ports they meet, whether each
  meeting is inside the board, and how it changes the squares' geometry words (a dense
  ``(16*S, S)`` table of bits to OR in: the square and its four neighbours);
* per square and slot: whether the slot is ever placeable there (a Flip facing the edge is not).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from envs.knot.geometry import SLOT_PORTS, SLOTS, geometry

SLOT_PA = tuple(SLOT_PORTS[s][0] for s in range(SLOTS))  # each slot's first port
SLOT_PB = tuple(SLOT_PORTS[s][1] for s in range(SLOTS))


@dataclass(frozen=True)
class Tables:
    size: int
    n: int  # squares
    link: np.ndarray  # int32 (8S,): the port (port-major) each port is linked to
    inside: np.ndarray  # int32 (8S,): 1 when that link crosses inside the board
    ga: np.ndarray  # int32 (16S,): per placement action, its first port (port-major)
    gb: np.ndarray  # int32 (16S,): its second
    la: np.ndarray  # int32 (16S,): the port ga meets (link[ga])
    lb: np.ndarray  # int32 (16S,)
    ins_a: np.ndarray  # int32 (16S,): inside[ga]
    ins_b: np.ndarray  # int32 (16S,): inside[gb]
    static: np.ndarray  # bool (16, S): the slot may ever lie in the square
    geo_delta: np.ndarray  # int16 (16S, S): bits a placement ORs into each square's geometry word


def to_port_major(global_port: int, n: int) -> int:
    """``square*8 + port`` (the Python engine's) -> ``port*S + square``."""
    return (global_port & 7) * n + (global_port >> 3)


@lru_cache(maxsize=None)
def tables(size: int) -> Tables:
    geo = geometry(size)
    n = geo.n
    link = np.zeros(8 * n, np.int32)
    inside = np.zeros(8 * n, np.int32)
    for gp in range(8 * n):
        link[to_port_major(gp, n)] = to_port_major(geo.link[gp], n)
        inside[to_port_major(gp, n)] = geo.inside[gp]
    slot, sq = np.divmod(np.arange(16 * n), n)
    ga = (np.asarray(SLOT_PA)[slot] * n + sq).astype(np.int32)
    gb = (np.asarray(SLOT_PB)[slot] * n + sq).astype(np.int32)
    static = np.array([[geo.static[q] >> s & 1 for q in range(n)] for s in range(SLOTS)], bool)
    delta = np.zeros((16 * n, n), np.int16)
    for action in range(16 * n):
        s, q = divmod(action, n)
        for square, bits in geo.geo_upd[q * 16 + s]:
            delta[action, square] |= bits
    return Tables(size=size, n=n, link=link, inside=inside, ga=ga, gb=gb, la=link[ga], lb=link[gb],
                  ins_a=inside[ga], ins_b=inside[gb], static=static, geo_delta=delta)


def quotients(count: int, divisor: float, cap: bool = False) -> np.ndarray:
    """float32 ``k / divisor`` for ``k`` in ``0…count``, each the float64 quotient rounded to
    float32 as the Python observer writes it (``min(…, 1)`` when ``cap``). XLA would multiply
    by a rounded reciprocal instead of dividing by a constant: one ulp off."""
    values = np.arange(count + 1, dtype=np.float64) / divisor
    return (np.minimum(values, 1.0) if cap else values).astype(np.float32)
