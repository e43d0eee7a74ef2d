"""Knot's fixed geometry: ports, links, the strand table and the bit tables the engine uses.

Everything here follows the geometry in ``docs/knot.md`` to the letter:

* squares ``r*size + c`` (row 0 at the top); sides 0 N, 1 E, 2 S, 3 W; corners 0 NE, 1 SE,
  2 SW, 3 NW (corner ``c`` lies between sides ``c`` and ``c+1``);
* port ``p = 2*side + half`` of a square; half 0 lies nearer corner ``side-1``, half 1 nearer
  corner ``side``; a *global* port is ``square*8 + p``;
* links: inside the board ``(q, side, half) <-> (neighbour across side, side+2, half)``; on the
  edge ``(q, side, half) <-> (q, side, 1-half)``;
* the strand table (kind ``k`` 0 Cut, 1 Run, 2 Hook, 3 Flip; turn ``t`` 0…3; ``slot = 4k+t``).

The module-level functions are the reference reading of the table; :class:`Geometry` turns
them into flat per-size tables (lists of ints and bit masks) for the hot path.
"""

from __future__ import annotations

from functools import lru_cache

KINDS = ("Cut", "Run", "Hook", "Flip")
KIND_NAMES = ("cut", "run", "hook", "flip")
CUT, RUN, HOOK, FLIP = range(4)
SIDE_NAMES = ("n", "e", "s", "w")
CORNER_NAMES = ("ne", "se", "sw", "nw")
PORT_NAMES = ("N-west", "N-east", "E-north", "E-south", "S-east", "S-west", "W-south", "W-north")
SLOTS = 16  # 4 kinds x 4 turns


def strand_ports(kind: int, turn: int) -> tuple[int, int]:
    """The two ports of a strand, as the table gives them (mod 8)."""
    t = turn
    if kind == CUT:
        return ((2 * t + 1) % 8, (2 * t + 2) % 8)
    if kind == RUN:
        return ((2 * t - 1) % 8, (2 * t + 2) % 8)
    if kind == HOOK:
        return ((2 * t) % 8, (2 * t + 3) % 8)
    return ((2 * t) % 8, (2 * t + 1) % 8)


def strand_corners(kind: int, turn: int) -> tuple[int, ...]:
    t = turn
    if kind == CUT:
        return (t,)
    if kind == RUN:
        return ((t - 1) % 4, t)
    if kind == HOOK:
        return tuple(c for c in range(4) if c != t)
    return (0, 1, 2, 3)


def strand_blocks(kind: int, turn: int) -> tuple[int, ...]:
    """The sides whose crossings the strand blocks."""
    t = turn
    if kind == CUT:
        return ()
    if kind == RUN:
        return (t,)
    if kind == HOOK:
        return ((t + 2) % 4, (t + 3) % 4)
    return tuple(s for s in range(4) if s != t)


def port_corner(port: int) -> int:
    """The corner a port lies beside: ``(side - 1 + half) mod 4``."""
    return (port // 2 - 1 + port % 2) % 4


def _mask(items) -> int:
    m = 0
    for i in items:
        m |= 1 << i
    return m


# Per-slot facts (slot = 4*kind + turn).
SLOT_PORTS = tuple(strand_ports(s // 4, s % 4) for s in range(SLOTS))
SLOT_CORNERS = tuple(_mask(strand_corners(s // 4, s % 4)) for s in range(SLOTS))
SLOT_BLOCKS = tuple(_mask(strand_blocks(s // 4, s % 4)) for s in range(SLOTS))
SLOT_PORT_SIDES = tuple(_mask(p // 2 for p in SLOT_PORTS[s]) for s in range(SLOTS))
SLOT_PORT_MASK = tuple(_mask(SLOT_PORTS[s]) for s in range(SLOTS))
# TURN_FOR_PORT[kind][port]: every kind uses each port in exactly one of its four turns.
TURN_FOR_PORT = tuple(
    tuple(next(t for t in range(4) if p in SLOT_PORTS[4 * k + t]) for p in range(8)) for k in range(4)
)
# OTHER_PORT[slot*8 + p]: the strand's other port (or -1 when p is not one of its ports).
OTHER_PORT = tuple(
    (SLOT_PORTS[s][1] if p == SLOT_PORTS[s][0] else SLOT_PORTS[s][0] if p == SLOT_PORTS[s][1] else -1)
    for s in range(SLOTS)
    for p in range(8)
)


def _slots_where(pred) -> int:
    return _mask(s for s in range(SLOTS) if pred(s))


# A placement fits a square (rules 2 and 3) when FIT[geo] has its bit, where
# geo = corners used | blocked sides << 4 | sides with a port in use << 8.
CORNER_OK = tuple(_slots_where(lambda s, u=u: not SLOT_CORNERS[s] & u) for u in range(16))
BLOCKED_OK = tuple(_slots_where(lambda s, b=b: not SLOT_PORT_SIDES[s] & b) for b in range(16))
USED_OK = tuple(_slots_where(lambda s, u=u: not SLOT_BLOCKS[s] & u) for u in range(16))
FIT = tuple(CORNER_OK[g & 15] & BLOCKED_OK[(g >> 4) & 15] & USED_OK[g >> 8] for g in range(4096))
# NO_LINK[lu]: slots none of whose ports is linked to a port in use (lu: bit p = port p's
# linked port is in use); such a placement meets no end.
NO_LINK = tuple(_slots_where(lambda s, u=u: not SLOT_PORT_MASK[s] & u) for u in range(256))
KIND_MASK = tuple(0xF << (4 * k) for k in range(4))


@lru_cache(maxsize=None)
def slots_of(mask: int) -> tuple[int, ...]:
    return tuple(s for s in range(SLOTS) if mask >> s & 1)


class Geometry:
    """Flat tables for one board size (shared, never mutated)."""

    def __init__(self, size: int):
        self.size = size
        n = self.n = size * size
        self.ports = 8 * n
        nbr = []
        for q in range(n):
            r, c = divmod(q, size)
            nbr.append((
                q - size if r > 0 else -1,
                q + 1 if c < size - 1 else -1,
                q + size if r < size - 1 else -1,
                q - 1 if c > 0 else -1,
            ))
        self.nbr = tuple(nbr)
        link, inside = [], []
        for q in range(n):
            for p in range(8):
                side, half = divmod(p, 2)
                other = nbr[q][side]
                if other >= 0:
                    link.append(other * 8 + 2 * ((side + 2) % 4) + half)
                    inside.append(1)
                else:
                    link.append(q * 8 + 2 * side + 1 - half)
                    inside.append(0)
        self.link = tuple(link)
        self.inside = tuple(inside)
        # Flips facing the board's edge link to themselves: never placeable (rule 7).
        static = []
        for q in range(n):
            m = 0xFFFF
            for t in range(4):
                if nbr[q][t] < 0:
                    m &= ~(1 << (12 + t))
            static.append(m)
        self.static = tuple(static)
        # Per (square, slot): how a placement changes the geo words and the link-use words.
        geo_upd, lu_upd = [], []
        for q in range(n):
            for s in range(SLOTS):
                upd: dict[int, int] = {q: SLOT_CORNERS[s] | SLOT_BLOCKS[s] << 4}
                for side in range(4):
                    bits = 0
                    if SLOT_BLOCKS[s] >> side & 1:
                        bits |= 1 << (4 + side)
                    if SLOT_PORT_SIDES[s] >> side & 1:
                        bits |= 1 << (8 + side)
                    if not bits:
                        continue
                    upd[q] |= bits
                    other = nbr[q][side]
                    if other >= 0:
                        opp = (side + 2) % 4
                        ob = 0
                        if bits & (1 << (4 + side)):
                            ob |= 1 << (4 + opp)
                        if bits & (1 << (8 + side)):
                            ob |= 1 << (8 + opp)
                        upd[other] = upd.get(other, 0) | ob
                geo_upd.append(tuple(upd.items()))
                lus = []
                for p in SLOT_PORTS[s]:
                    lk = link[q * 8 + p]
                    lus.append((lk >> 3, 1 << (lk & 7)))
                lu_upd.append(tuple(lus))
        self.geo_upd = tuple(geo_upd)
        self.lu_upd = tuple(lu_upd)
        # Bitboards for "on or orthogonally next to".
        self.full = (1 << n) - 1
        not_first = not_last = 0
        for q in range(n):
            if q % size:
                not_first |= 1 << q
            if q % size != size - 1:
                not_last |= 1 << q
        self.not_first_col = not_first
        self.not_last_col = not_last
        # Points of a fully inside-linked board: each inside crossing carries two links.
        self.inside_links = 4 * size * (size - 1)

    def zone(self, bb: int) -> int:
        """Squares in ``bb`` or orthogonally next to one."""
        size = self.size
        return (
            bb
            | ((bb << 1) & self.not_first_col)
            | ((bb >> 1) & self.not_last_col)
            | ((bb << size) & self.full)
            | (bb >> size)
        )


@lru_cache(maxsize=None)
def geometry(size: int) -> Geometry:
    return Geometry(size)
