"""Knot's board: strands laid on the geometry, ribbons kept as explicit records.

The board state is kept incrementally so that legal moves never need a rebuild:

* per square a *geo word*: corners in use | blocked sides << 4 | sides whose crossing has a
  port in use (either side) << 8, and a *link word*: bit ``p`` set when the port linked to
  port ``p`` is in use. Rules 2 and 3 for all 16 placements of a square are one table look-up
  (:data:`~envs.knot.geometry.FIT`), "meets no end" another (:data:`~envs.knot.geometry.NO_LINK`);
* explicit ribbon records (owner, the two open ends, strands, inside links, closing order),
  merged smaller-into-larger on joins and captures;
* per player the set of open ends, per-square strand counts and a bitboard of owned squares
  (for "on or orthogonally next to").

:class:`BoardMixin` is one part of :class:`~envs.knot.rules.KnotGame` (the turn machine lives
there); global ports are ``square*8 + port`` and ``slot = 4*kind + turn``.
"""

from __future__ import annotations

from typing import Any

from envs.core.bits import set_bits
from envs.core.game import require
from envs.knot.geometry import FIT, KIND_MASK, NO_LINK, OTHER_PORT, SLOT_PORTS, TURN_FOR_PORT, slots_of


# PORT_SLOTS[p]: per kind, the slot of its strand through port p and that strand's other port.
PORT_SLOTS = tuple(
    tuple((4 * k + TURN_FOR_PORT[k][p], OTHER_PORT[(4 * k + TURN_FOR_PORT[k][p]) * 8 + p]) for k in range(4))
    for p in range(8)
)
# Per board size, per square: slot mask -> the placement actions of those slots in that square,
# ascending (filled as masks are met; a pure function of its keys).
_SQUARE_ACTIONS: dict[int, list[dict[int, tuple[int, ...]]]] = {}


class BoardMixin:
    """Strands, ribbons and placements of a :class:`~envs.knot.rules.KnotGame`."""

    def _init_board(self, n: int, n_players: int) -> None:
        """An empty board of ``n`` squares (no strand, no ribbon, nobody has placed)."""
        self.geo_w = [0] * n
        self.lu = [0] * n
        self.port_strand = [-1] * (8 * n)
        # strands in placement order
        self.st_sq: list[int] = []
        self.st_slot: list[int] = []
        self.st_rib: list[int] = []
        # ribbons
        self.rib_owner: list[int] = []
        self.rib_ends: list[list[int] | None] = []
        self.rib_strands: list[list[int] | None] = []
        self.rib_inside: list[int] = []
        self.rib_closed: list[int] = []  # closing order, -1 while open (or merged away)
        self.closed_ribbons: list[int] = []  # ribbon ids in closing order
        # per player
        self.ends: list[set[int]] = [set() for _ in range(n_players)]
        self.own_cnt = [[0] * n for _ in range(n_players)]
        self.own_bb = [0] * n_players
        self.banked = [0] * n_players
        self.placed_any = [False] * n_players
        self.board_token = object()  # replaced at every placement (observers cache by it)

    # ----- where a strand can go ------------------------------------------------------------------
    def placements(self, player: int | None = None, growable: set[int] | None = None) -> list[int]:
        """Placement actions legal for ``player`` now (unsorted), rules 2–7.

        ``growable`` defaults to the acting player's growable ends; pass ``self.ends[p]`` to
        treat every open end as growable (the end-of-game test).
        """
        if player is None:
            player = self.player
        if growable is None:
            growable = self.growable
        hand = self.hands[player]
        hm = 0
        for k in range(4):
            if hand[k]:
                hm |= KIND_MASK[k]
        if not hm:
            return []
        g = self.geo
        n = self.n
        geo_w, lu, static = self.geo_w, self.lu, g.static
        acts: list[int] = []
        # New ribbons: E empty, on or next to an owned square (anywhere for a first strand).
        if self.placed_any[player]:
            bb = g.zone(self.own_bb[player]) if self.own_bb[player] else 0
        else:
            bb = g.full
        memo = _SQUARE_ACTIONS.get(n)
        if memo is None:
            memo = _SQUARE_ACTIONS[n] = [{} for _ in range(n)]
        for sq in set_bits(bb):
            m = FIT[geo_w[sq]] & static[sq] & NO_LINK[lu[sq]] & hm
            if m:
                found = memo[sq].get(m)
                if found is None:
                    found = memo[sq][m] = tuple(s * n + sq for s in slots_of(m))
                acts += found
        # Strands meeting one of the player's ends: grow, join, capture, close.
        ends = self.ends[player]
        if ends:
            link, inside, port_strand = g.link, g.inside, self.port_strand
            st_rib, rib_owner, rib_inside = self.st_rib, self.rib_owner, self.rib_inside
            found = set()
            for e in ends:
                lk = link[e]
                sq = lk >> 3
                fm = FIT[geo_w[sq]] & static[sq] & hm
                if not fm:
                    continue
                for slot, other in PORT_SLOTS[lk & 7]:  # (fm holds only the kinds in hand)
                    if not fm >> slot & 1:
                        continue
                    gq = (lk & ~7) + other
                    lq = link[gq]
                    s2 = port_strand[lq]
                    if s2 < 0:
                        ok = e in growable
                    else:
                        r1 = st_rib[port_strand[e]]
                        r2 = st_rib[s2]
                        if r1 == r2:
                            ok = rib_inside[r1] + inside[lk] + inside[gq] > 0
                        elif rib_owner[r2] == player:
                            ok = e in growable and lq in growable
                        else:
                            ok = e in growable
                    if ok:
                        found.add(slot * n + sq)
            acts.extend(found)
        return acts

    def _owner_of_end(self, port: int) -> int:
        return self.rib_owner[self.st_rib[self.port_strand[port]]]

    # ----- laying strands -----------------------------------------------------------------------------
    def _lay(self, slot: int, sq: int, s: int) -> tuple[int, int]:
        """Put strand ``s`` on the board's geometry (no ribbon logic); returns its global ports."""
        g = self.geo
        geo_w, lu = self.geo_w, self.lu
        idx = sq * 16 + slot
        for q, bits in g.geo_upd[idx]:
            geo_w[q] |= bits
        for q, bit in g.lu_upd[idx]:
            lu[q] |= bit
        pa, pb = SLOT_PORTS[slot]
        ga, gb = sq * 8 + pa, sq * 8 + pb
        self.port_strand[ga] = s
        self.port_strand[gb] = s
        return ga, gb

    def _put(self, player: int, slot: int, sq: int) -> None:
        """Lay a strand of ``player``'s (a legal placement) and update the ribbons: a new
        ribbon, a grown one, a join, a capture or a close (which banks its points). The strand
        comes from the turn machine (:meth:`KnotGame._place`), which keeps hands and turns."""
        g = self.geo
        link, inside = g.link, g.inside
        s = len(self.st_sq)
        self.st_sq.append(sq)
        self.st_slot.append(slot)
        ga, gb = self._lay(slot, sq, s)
        self.own_cnt[player][sq] += 1
        self.own_bb[player] |= 1 << sq
        self.placed_any[player] = True
        la, lb = link[ga], link[gb]
        sa, sb = self.port_strand[la], self.port_strand[lb]
        ends = self.ends[player]
        growable = self.growable
        if sa < 0 and sb < 0:
            r = len(self.rib_owner)
            self.rib_owner.append(player)
            self.rib_ends.append([ga, gb])
            self.rib_strands.append([s])
            self.rib_inside.append(0)
            self.rib_closed.append(-1)
            self.st_rib.append(r)
            ends.add(ga)
            ends.add(gb)
        elif sa < 0 or sb < 0:
            if sa < 0:  # orient: the met end is on port a
                ga, gb, la, lb, sa, sb = gb, ga, lb, la, sb, sa
            r = self.st_rib[sa]
            re_ = self.rib_ends[r]
            re_[re_.index(la)] = gb
            self.rib_inside[r] += inside[ga]
            self.rib_strands[r].append(s)
            self.st_rib.append(r)
            ends.discard(la)
            ends.add(gb)
            growable.discard(la)
        else:
            ra, rb = self.st_rib[sa], self.st_rib[sb]
            growable.discard(la)
            growable.discard(lb)
            if ra == rb:
                self.st_rib.append(ra)
                self.rib_strands[ra].append(s)
                pts = self.rib_inside[ra] + inside[ga] + inside[gb]
                self.rib_inside[ra] = pts
                self.rib_ends[ra] = None
                self.rib_closed[ra] = len(self.closed_ribbons)
                self.closed_ribbons.append(ra)
                ends.discard(la)
                ends.discard(lb)
                self.banked[player] += pts
            else:
                far_a = [e for e in self.rib_ends[ra] if e != la][0]
                far_b = [e for e in self.rib_ends[rb] if e != lb][0]
                for r in (ra, rb):
                    old = self.rib_owner[r]
                    if old != player:
                        self._transfer(r, old, player)
                ends.discard(la)
                ends.discard(lb)
                if len(self.rib_strands[ra]) < len(self.rib_strands[rb]):
                    ra, rb = rb, ra
                keep, gone = ra, rb
                st_rib = self.st_rib
                moved = self.rib_strands[gone]
                for t in moved:
                    st_rib[t] = keep
                self.rib_strands[keep].extend(moved)
                self.rib_strands[keep].append(s)
                st_rib.append(keep)
                self.rib_inside[keep] += self.rib_inside[gone] + inside[ga] + inside[gb]
                self.rib_ends[keep] = [far_a, far_b]
                self.rib_owner[gone] = -1
                self.rib_ends[gone] = None
                self.rib_strands[gone] = None
                self.rib_inside[gone] = 0
        self.board_token = object()

    def _transfer(self, r: int, old: int, new: int) -> None:
        """A capture: ribbon ``r`` (open) passes from ``old`` to ``new`` with all its strands."""
        self.rib_owner[r] = new
        oc, nc = self.own_cnt[old], self.own_cnt[new]
        obb, nbb = self.own_bb[old], self.own_bb[new]
        st_sq = self.st_sq
        for t in self.rib_strands[r]:
            q = st_sq[t]
            oc[q] -= 1
            if not oc[q]:
                obb &= ~(1 << q)
            nc[q] += 1
            nbb |= 1 << q
        self.own_bb[old], self.own_bb[new] = obb, nbb
        for e in self.rib_ends[r]:
            self.ends[old].discard(e)
            self.ends[new].add(e)

    def _build_ribbons(self, owners: list[int]) -> None:
        """Ribbon records from laid strands (``st_sq``, ``st_slot``, ports) and their owners."""
        g = self.geo
        # Ribbons: the connected components of strands through links.
        parent = list(range(len(owners)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for s in range(len(owners)):
            for p in SLOT_PORTS[self.st_slot[s]]:
                other = self.port_strand[g.link[self.st_sq[s] * 8 + p]]
                if other >= 0:
                    a, b = find(s), find(other)
                    if a != b:
                        parent[a] = b
        rib_of_root: dict[int, int] = {}
        for s in range(len(owners)):
            root = find(s)
            if root not in rib_of_root:
                rib_of_root[root] = len(self.rib_owner)
                self.rib_owner.append(owners[s])
                self.rib_ends.append([])
                self.rib_strands.append([])
                self.rib_inside.append(0)
                self.rib_closed.append(-1)
            r = rib_of_root[root]
            require(self.rib_owner[r] == owners[s],
                    f"snapshot field 'strands': strand {s} is owned by player_{owners[s]}, but a strand of its "
                    f"ribbon by player_{self.rib_owner[r]} (a ribbon has one owner)")
            self.st_rib.append(r)
            self.rib_strands[r].append(s)
            sq = self.st_sq[s]
            self.own_cnt[owners[s]][sq] += 1
            self.own_bb[owners[s]] |= 1 << sq
            for p in SLOT_PORTS[self.st_slot[s]]:
                gp = sq * 8 + p
                if self.port_strand[g.link[gp]] < 0:
                    self.rib_ends[r].append(gp)
                elif g.inside[gp]:
                    self.rib_inside[r] += 1  # each inside link is counted from both sides
        for r in range(len(self.rib_owner)):
            self.rib_inside[r] //= 2
            ends = self.rib_ends[r]
            require(len(ends) in (0, 2), "snapshot field 'strands' holds a ribbon with an odd number of open ends")
            if ends:
                self.ends[self.rib_owner[r]].update(ends)
            else:
                self.rib_ends[r] = None
                require(self.rib_inside[r] > 0,
                        "snapshot field 'strands' holds a ribbon closed through edge links only (a ribbon "
                        "closes through a crossing inside the board)")

    # ----- read-only views for observers, pictures, bots and tests ---------------------------------
    def bonus_owner(self) -> int:
        """Who holds the longest-ribbon bonus (earliest closer on a tie), -1 if none closed."""
        best, who = 0, -1
        for r in self.closed_ribbons:
            if self.rib_inside[r] > best:
                best, who = self.rib_inside[r], self.rib_owner[r]
        return who

    def strands(self) -> list[tuple[int, int, int, int, bool]]:
        """Every strand as ``(square, kind, turn, owner, closed)`` in placement order."""
        out = []
        for s, (sq, slot) in enumerate(zip(self.st_sq, self.st_slot)):
            r = self.st_rib[s]
            out.append((sq, slot >> 2, slot & 3, self.rib_owner[r], self.rib_closed[r] >= 0))
        return out

    def ribbons(self) -> list[dict[str, Any]]:
        """Live ribbons: owner, strands, ends (None when closed), points (inside links), closed."""
        out = []
        for r, owner in enumerate(self.rib_owner):
            if owner < 0:
                continue
            out.append({
                "owner": owner,
                "strands": sorted(self.rib_strands[r]),
                "ends": None if self.rib_ends[r] is None else sorted(self.rib_ends[r]),
                "points": self.rib_inside[r],
                "closed": self.rib_closed[r] >= 0,
                "order": self.rib_closed[r],
            })
        return out

    def blocked_sides(self, sq: int) -> int:
        """Bit ``side`` set: the crossing on that side of square ``sq`` is blocked."""
        return (self.geo_w[sq] >> 4) & 15

