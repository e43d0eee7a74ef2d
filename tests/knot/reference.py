"""A slow, independent reading of the rules (``docs/knot.md``) for cross-checking the engine.

Nothing here uses the engine's tables: ports, links, the strand table and the placement rules
are written again from the page's words, on plain tuples, and everything is recomputed from
the list of strands on every call.
"""

from __future__ import annotations

N, E, S, W = range(4)


def ports_of(kind: int, t: int) -> tuple[int, int]:
    # The table: Cut 2t+1, 2t+2 · Run 2t-1, 2t+2 · Hook 2t, 2t+3 · Flip 2t, 2t+1 (mod 8)
    pairs = {0: (2 * t + 1, 2 * t + 2), 1: (2 * t - 1, 2 * t + 2), 2: (2 * t, 2 * t + 3), 3: (2 * t, 2 * t + 1)}
    a, b = pairs[kind]
    return a % 8, b % 8


def corners_of(kind: int, t: int) -> set[int]:
    if kind == 0:
        return {t}
    if kind == 1:
        return {(t - 1) % 4, t}
    if kind == 2:
        return {0, 1, 2, 3} - {t}
    return {0, 1, 2, 3}


def blocks_of(kind: int, t: int) -> set[int]:
    if kind == 0:
        return set()
    if kind == 1:
        return {t}
    if kind == 2:
        return {(t + 2) % 4, (t + 3) % 4}
    return {0, 1, 2, 3} - {t}


def neighbour(size: int, sq: int, side: int) -> int | None:
    r, c = divmod(sq, size)
    dr, dc = [(-1, 0), (0, 1), (1, 0), (0, -1)][side]
    r, c = r + dr, c + dc
    if 0 <= r < size and 0 <= c < size:
        return r * size + c
    return None


def link(size: int, sq: int, port: int) -> tuple[tuple[int, int], bool]:
    """((square, port), inside?) linked to (sq, port)."""
    side, half = divmod(port, 2)
    other = neighbour(size, sq, side)
    if other is not None:
        return (other, 2 * ((side + 2) % 4) + half), True
    return (sq, 2 * side + 1 - half), False


def crossing(size: int, sq: int, side: int):
    other = neighbour(size, sq, side)
    if other is None:
        return ((sq, side),)
    return tuple(sorted([(sq, side), (other, (side + 2) % 4)]))


class Board:
    """Strands ``(square, kind, turn, owner)``; ribbons recomputed from scratch."""

    def __init__(self, size: int, strands):
        self.size = size
        self.strands = [tuple(s) for s in strands]
        self.port_use = {}
        for i, (sq, k, t, _) in enumerate(self.strands):
            for p in ports_of(k, t):
                assert (sq, p) not in self.port_use, "two strands on one port"
                self.port_use[(sq, p)] = i
        # components
        self.comp = list(range(len(self.strands)))

        def find(x):
            while self.comp[x] != x:
                x = self.comp[x]
            return x

        for (sq, p), i in self.port_use.items():
            (osq, op), _ = link(size, sq, p)
            j = self.port_use.get((osq, op))
            if j is not None:
                a, b = find(i), find(j)
                if a != b:
                    self.comp[a] = b
        self.comp = [find(i) for i in range(len(self.strands))]

    def ribbon_ends(self, c):
        ends = []
        for (sq, p), i in self.port_use.items():
            if self.comp[i] == c and self.link_used(sq, p) is None:
                ends.append((sq, p))
        return ends

    def link_used(self, sq, p):
        (osq, op), _ = link(self.size, sq, p)
        return self.port_use.get((osq, op))

    def inside_links(self, c):
        count = 0
        for (sq, p), i in self.port_use.items():
            if self.comp[i] == c:
                (osq, op), inside = link(self.size, sq, p)
                if inside and (osq, op) in self.port_use:
                    count += 1
        return count // 2

    def owner(self, i):
        return self.strands[i][3]

    def blocked(self, sq, side):
        for (q, s) in crossing(self.size, sq, side):
            for (sq2, k, t, _) in self.strands:
                if sq2 == q and s in blocks_of(k, t):
                    return True
        return False

    def crossing_used(self, sq, side):
        for (q, s) in crossing(self.size, sq, side):
            if (q, 2 * s) in self.port_use or (q, 2 * s + 1) in self.port_use:
                return True
        return False

    def why(self, player, kind, t, sq, hand, placed_any, growable):
        """None if legal by the page's rules 1–7 (rule 1's phase and limit left to the caller)."""
        if hand[kind] <= 0:
            return "hand"
        used = set()
        for (q, k, tt, _) in self.strands:
            if q == sq:
                used |= corners_of(k, tt)
        if used & corners_of(kind, t):
            return "corner"
        pa, pb = ports_of(kind, t)
        for p in (pa, pb):
            if self.blocked(sq, p // 2):
                return "blocked"
        for side in blocks_of(kind, t):
            if self.crossing_used(sq, side):
                return "blocks used"
        if link(self.size, sq, pa)[0] == (sq, pb):
            return "self-linked"
        met = []
        for p in (pa, pb):
            j = self.port_use.get(link(self.size, sq, p)[0])
            if j is not None:
                met.append((link(self.size, sq, p)[0], j))
        mine = [(port, j) for port, j in met if self.owner(j) == player]
        if not met:
            if not placed_any:
                return None
            near = False
            for (q, _, _, o) in self.strands:
                if o == player and (q == sq or q in [neighbour(self.size, sq, s) for s in range(4)]):
                    near = True
            return None if near else "not near"
        if not mine:
            return "touches other"
        if len(mine) == 2 and self.comp[mine[0][1]] == self.comp[mine[1][1]]:
            c = self.comp[mine[0][1]]
            extra = sum(1 for p in (pa, pb) if link(self.size, sq, p)[1])
            if self.inside_links(c) + extra == 0:
                return "edge-only close"
            return None
        for port, _ in mine:
            if port not in growable:
                return "not growable"
        return None

    def open_ends(self, player):
        out = set()
        for (sq, p), i in self.port_use.items():
            if self.owner(i) == player and self.link_used(sq, p) is None:
                out.add((sq, p))
        return out

    def closed_points(self):
        """{component: (owner, inside links)} of closed ribbons."""
        out = {}
        for c in set(self.comp):
            if not self.ribbon_ends(c):
                members = [i for i in range(len(self.strands)) if self.comp[i] == c]
                out[c] = (self.owner(members[0]), self.inside_links(c))
        return out
