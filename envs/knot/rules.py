"""Knot rules engine: strands, ribbons, capture and closing (``../shared/rules/knot.md``).

The board state is kept incrementally so that legal moves never need a rebuild:

* per square a *geo word*: corners in use | blocked sides << 4 | sides whose crossing has a
  port in use (either side) << 8, and a *link word*: bit ``p`` set when the port linked to
  port ``p`` is in use. Rules 2 and 3 for all 16 placements of a square are one table look-up
  (:data:`~envs.knot.geometry.FIT`), "meets no end" another (:data:`~envs.knot.geometry.NO_LINK`);
* explicit ribbon records (owner, the two open ends, strands, inside links, closing order),
  merged smaller-into-larger on joins and captures;
* per player the set of open ends, per-square strand counts and a bitboard of owned squares
  (for "on or orthogonally next to");
* the growable ends of the player to act (their open ends at the start of the turn, minus the
  ones used since).

Global ports are ``square*8 + port``. ``slot = 4*kind + turn``. Actions: ``slot*S + square``
to place, ``16*S`` END, ``16*S+1`` / ``16*S+2`` draw market slot 0 / 1, ``16*S+3`` draw blind.
"""

from __future__ import annotations

import re
from typing import Any

from envs.core.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    OptionError,
    int_field,
    int_list,
    require,
)
from envs.core.notation import cell_name, parse_cell
from envs.core.options import check_int
from envs.knot.geometry import (
    CORNER_NAMES,
    FIT,
    KIND_MASK,
    KIND_NAMES,
    KINDS,
    NO_LINK,
    OTHER_PORT,
    SIDE_NAMES,
    SLOT_BLOCKS,
    SLOT_CORNERS,
    SLOT_PORT_SIDES,
    SLOT_PORTS,
    TURN_FOR_PORT,
    geometry,
    slots_of,
)

HAND_SIZE = 5
DECK_PER_PLAYER = (12, 9, 9, 6)  # Cut, Run, Hook, Flip
PLACE, DRAW, OVER = 0, 1, 2
PHASE_NAMES = ("place", "draw", "over")
BONUS = 5
MAX_DECK = 10_000


def place_limit(turn: int) -> int:
    """Strands a turn allows: 1 on the game's first turn, 2 on its second and third, then 3."""
    return 1 if turn == 0 else 2 if turn < 3 else 3


def default_size(players: int) -> int:
    return 6 if players == 2 else 8


def _kind_of(value: Any, what: str) -> int:
    if isinstance(value, str) and value.strip().lower() in KIND_NAMES:
        return KIND_NAMES.index(value.strip().lower())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 4:
        return value
    raise OptionError(
        f"{what} holds {value!r}; a strand kind is 0 Cut, 1 Run, 2 Hook, 3 Flip "
        f"(or its name: 'cut', 'run', 'hook', 'flip')"
    )


class KnotGame(Game):
    """A game of Knot for 2–4 players (see the module docstring for the state's shape)."""

    NAME = "knot_v0"
    OPTIONS = {"players": 2, "size": None, "deck": None, "pile": None}

    # ----- options ------------------------------------------------------------------------------
    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        players = check_int(options, "players", 2, 4)
        if options["size"] is None:
            options["size"] = default_size(players)
        check_int(options, "size", 4, 10)
        deck = options["deck"]
        need = HAND_SIZE * players
        if deck is None:
            options["deck"] = [n * players for n in DECK_PER_PLAYER]
        else:
            if isinstance(deck, (str, bytes)) or not isinstance(deck, (list, tuple)) or len(deck) != 4:
                raise OptionError(
                    f"option 'deck' must be None or a list [Cut, Run, Hook, Flip] of 4 totals, not {deck!r}"
                )
            for n in deck:
                if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_DECK:
                    raise OptionError(
                        f"option 'deck' must hold non-negative integer totals (at most {MAX_DECK}), not {deck!r}"
                    )
            if sum(deck) < need:
                raise OptionError(
                    f"option 'deck' must total at least 5 × players = {need} strands, not {sum(deck)}"
                )
            options["deck"] = list(deck)
        pile = options["pile"]
        if pile is not None:
            if isinstance(pile, (str, bytes)) or not isinstance(pile, (list, tuple)):
                raise OptionError(f"option 'pile' must be None or a list of strand kinds, top first, not {pile!r}")
            kinds = [_kind_of(k, "option 'pile'") for k in pile]
            if len(kinds) < need:
                raise OptionError(
                    f"option 'pile' must hold at least 5 × players = {need} strands, not {len(kinds)}"
                )
            if len(kinds) > MAX_DECK * 4:
                raise OptionError(f"option 'pile' may hold at most {MAX_DECK * 4} strands")
            options["pile"] = kinds
        return options

    @classmethod
    def num_players_for(cls, options: dict[str, Any]) -> int:
        return options.get("players", 2)

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        size = options.get("size") or default_size(options.get("players", 2))
        return 16 * size * size + 4

    # ----- setup ----------------------------------------------------------------------------------
    def __init__(self, options: dict[str, Any], rng=None):
        self._init_empty(options)
        if options["pile"] is not None:
            deal = list(options["pile"])
        else:
            if rng is None:
                raise ValueError("KnotGame needs an rng (random.Random) when the pile is not scripted")
            deal = [k for k in range(4) for _ in range(options["deck"][k])]
            rng.shuffle(deal)
        self.deal = tuple(deal)
        self.drawn = 0
        for p in range(self.n_players):
            for _ in range(HAND_SIZE):
                self.hands[p][self.deal[self.drawn]] += 1
                self.drawn += 1
        for slot in (0, 1):
            if self.drawn < len(self.deal):
                self.market[slot] = self.deal[self.drawn]
                self.drawn += 1
        self._start_turn()

    def _init_empty(self, options: dict[str, Any]) -> None:
        self.options = options
        n_players = self.n_players = options["players"]
        size = self.size = options["size"]
        g = self.geo = geometry(size)
        n = self.n = g.n
        self.total = sum(options["deck"]) if options["pile"] is None else len(options["pile"])
        self.deal: tuple[int, ...] = ()
        self.drawn = 0
        self.hands = [[0, 0, 0, 0] for _ in range(n_players)]
        self.known = [[0, 0, 0, 0] for _ in range(n_players)]
        self.market = [-1, -1]
        # board
        self.geo_w = [0] * n
        self.lu = [0] * n
        self.port_strand = [-1] * (8 * n)
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
        # turn
        self.turn = 0
        self.player = 0
        self.phase = PLACE
        self.placed = 0
        self.growable: set[int] = set()
        self._legal: list[int] | None = None
        self._places: list[int] | None = None
        self.board_token = object()  # replaced at every placement (observers cache by it)

    # ----- the state interface --------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.player

    def limit(self) -> int:
        return place_limit(self.turn)

    def pile_size(self) -> int:
        return len(self.deal) - self.drawn

    def _can_draw(self) -> bool:
        return sum(self.hands[self.player]) < HAND_SIZE and (
            self.market[0] >= 0 or self.market[1] >= 0 or self.drawn < len(self.deal)
        )

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
        while bb:
            low = bb & -bb
            sq = low.bit_length() - 1
            bb ^= low
            m = FIT[geo_w[sq]] & static[sq] & NO_LINK[lu[sq]] & hm
            if m:
                for s in slots_of(m):
                    acts.append(s * n + sq)
        # Strands meeting one of the player's ends: grow, join, capture, close.
        ends = self.ends[player]
        if ends:
            link, inside, port_strand = g.link, g.inside, self.port_strand
            st_rib, rib_owner, rib_inside = self.st_rib, self.rib_owner, self.rib_inside
            kinds = [k for k in range(4) if hand[k]]
            found = set()
            for e in ends:
                lk = link[e]
                sq = lk >> 3
                fm = FIT[geo_w[sq]] & static[sq] & hm
                if not fm:
                    continue
                p = lk & 7
                for k in kinds:
                    slot = 4 * k + TURN_FOR_PORT[k][p]
                    if not fm >> slot & 1:
                        continue
                    gq = sq * 8 + OTHER_PORT[slot * 8 + p]
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

    def _placement_actions(self) -> list[int]:
        if self._places is None:
            self._places = self.placements() if self.phase == PLACE else []
        return self._places

    def legal_actions(self) -> list[int]:
        if self._legal is not None:
            return self._legal[:]
        base = 16 * self.n
        if self.phase == PLACE:
            acts = sorted(self._placement_actions())
            if self.placed or not acts:
                acts.append(base)
        elif self.phase == DRAW:
            acts = []
            if self.market[0] >= 0:
                acts.append(base + 1)
            if self.market[1] >= 0:
                acts.append(base + 2)
            if self.drawn < len(self.deal):
                acts.append(base + 3)
        else:
            acts = []
        self._legal = acts
        return acts[:]

    # ----- legality with reasons -----------------------------------------------------------------
    def _owner_of_end(self, port: int) -> int:
        return self.rib_owner[self.st_rib[self.port_strand[port]]]

    def _blocker(self, sq: int, side: int) -> str:
        """The kind of a strand blocking the crossing on ``side`` of ``sq`` (for reasons)."""
        other = self.geo.nbr[sq][side]
        for s, (q, slot) in enumerate(zip(self.st_sq, self.st_slot)):
            if q == sq and SLOT_BLOCKS[slot] >> side & 1:
                return KINDS[slot >> 2]
            if q == other and other >= 0 and SLOT_BLOCKS[slot] >> ((side + 2) % 4) & 1:
                return KINDS[slot >> 2]
        return "a strand"

    def place_problem(self, player: int, slot: int, sq: int, growable: set[int] | None = None) -> str | None:
        """Why ``player`` may not place ``slot`` in ``sq`` now (rules 2–7), or None."""
        if growable is None:
            growable = self.growable
        k = slot >> 2
        if not self.hands[player][k]:
            return f"you hold no {KINDS[k]}"
        g = self.geo
        w = self.geo_w[sq]
        if SLOT_CORNERS[slot] & w:
            if k == 3:
                return "that corner is taken: a Flip needs its square to itself"
            return "that corner is taken"
        blocked = SLOT_PORT_SIDES[slot] & (w >> 4) & 15
        if blocked:
            side = (blocked & -blocked).bit_length() - 1
            return f"that crossing is blocked by a {self._blocker(sq, side)}"
        if SLOT_BLOCKS[slot] & (w >> 8):
            return f"a {KINDS[k]} here would block a crossing that a ribbon already uses"
        if not g.static[sq] >> slot & 1:
            return (
                "a Flip facing the board's edge would close on itself at the edge: "
                "a ribbon must close through a crossing inside the board"
            )
        pa, pb = SLOT_PORTS[slot]
        ga, gb = sq * 8 + pa, sq * 8 + pb
        met = [lk for lk in (g.link[ga], g.link[gb]) if self.port_strand[lk] >= 0]
        mine = [e for e in met if self._owner_of_end(e) == player]
        if not met:
            if not self.placed_any[player]:
                return None
            if not self.own_bb[player]:
                return "you own no strand any more, so you can start no new ribbon"
            if not g.zone(self.own_bb[player]) >> sq & 1:
                return "a new ribbon must start on or next to a square holding one of your strands"
            return None
        if not mine:
            return "a new ribbon may not touch another player's open end"
        if len(mine) == 2 and self.st_rib[self.port_strand[mine[0]]] == self.st_rib[self.port_strand[mine[1]]]:
            r = self.st_rib[self.port_strand[mine[0]]]
            if self.rib_inside[r] + g.inside[ga] + g.inside[gb] == 0:
                return (
                    "a ribbon must close through a crossing inside the board: "
                    "this one would close through edge links only"
                )
            return None
        first_this_turn = len(self.st_sq) - self.placed
        for e in mine:
            if e not in growable:
                if self.port_strand[e] >= first_this_turn:
                    return "this end was placed this turn: it grows from next turn"
                return "this end was captured this turn: it grows from your next turn"
        return None

    def why_illegal(self, action: Any) -> str | None:
        try:
            action = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        base = 16 * self.n
        if not 0 <= action <= base + 3:
            return f"action {action} is outside 0…{base + 3}"
        if self.phase == OVER:
            return "the game is over: nobody can place a strand"
        if action < base:
            if self.phase != PLACE:
                return "you have drawn or ended placing: placing is over for this turn"
            slot, sq = divmod(action, self.n)
            return self.place_problem(self.player, slot, sq)
        if action == base:
            if self.phase != PLACE:
                return "placing is over: draw back up to 5 (market slot 0, slot 1 or the pile)"
            if self.placed or not self._placement_actions():
                return None
            return "you must place at least one strand this turn: one of yours fits"
        if self.phase != DRAW:
            return "draw only after placing: place a strand or END placing first"
        if action == base + 3:
            return None if self.drawn < len(self.deal) else "the pile is empty"
        slot = action - base - 1
        return None if self.market[slot] >= 0 else f"market slot {slot} is empty"

    # ----- applying actions ------------------------------------------------------------------------
    def apply(self, action: Any) -> None:
        action = action if type(action) is int else self._check_action(action)
        base = 16 * self.n
        if self.phase == PLACE and 0 <= action < base:
            slot, sq = divmod(action, self.n)
            # Search applies moves it took from the legal list: when that list is cached,
            # membership is the same test as place_problem, at a fraction of the cost.
            places = self._places
            ok = action in places if places is not None else self.place_problem(self.player, slot, sq) is None
            if not ok:
                self._raise_illegal(action)
            self._place(slot, sq)
            return
        if self.why_illegal(action) is not None:
            self._raise_illegal(action)
        self._legal = self._places = None
        if action == base:
            self._end_placing()
            return
        self._draw(action - base - 1)

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

    def _place(self, slot: int, sq: int) -> None:
        player = self.player
        g = self.geo
        link, inside = g.link, g.inside
        s = len(self.st_sq)
        self.st_sq.append(sq)
        self.st_slot.append(slot)
        k = slot >> 2
        self.hands[player][k] -= 1
        if self.known[player][k]:
            self.known[player][k] -= 1
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
        self.placed += 1
        self._legal = self._places = None
        self.board_token = object()
        if self.placed >= place_limit(self.turn):
            self._end_placing()

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

    def _end_placing(self) -> None:
        self.phase = DRAW
        self.growable = set()
        self._legal = self._places = None
        if not self._can_draw():
            self._next_turn()

    def _draw(self, which: int) -> None:
        player = self.player
        if which == 2:
            k = self.deal[self.drawn]
            self.drawn += 1
        else:
            k = self.market[which]
            self.known[player][k] += 1
            if self.drawn < len(self.deal):
                self.market[which] = self.deal[self.drawn]
                self.drawn += 1
            else:
                self.market[which] = -1
        self.hands[player][k] += 1
        if not self._can_draw():
            self._next_turn()

    def _next_turn(self) -> None:
        self.turn += 1
        self.player = (self.player + 1) % self.n_players
        self._start_turn()

    def _start_turn(self) -> None:
        self.phase = PLACE
        self.placed = 0
        self.growable = set(self.ends[self.player])
        self._legal = self._places = None
        if self._placement_actions():
            return
        for p in range(self.n_players):
            if p != self.player and self.placements(p, self.ends[p]):
                return
        self.phase = OVER
        self.growable = set()
        self._places = []

    # ----- scores ------------------------------------------------------------------------------------
    def bonus_owner(self) -> int:
        """Who holds the longest-ribbon bonus (earliest closer on a tie), -1 if none closed."""
        best, who = 0, -1
        for r in self.closed_ribbons:
            if self.rib_inside[r] > best:
                best, who = self.rib_inside[r], self.rib_owner[r]
        return who

    def scores(self) -> list[int]:
        points = list(self.banked)
        if self.phase == OVER:
            who = self.bonus_owner()
            if who >= 0:
                points[who] += BONUS
        return points

    # ----- read-only views for observers, pictures and tests ---------------------------------------------
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
        return (self.geo_w[sq] >> 4) & 15

    # ----- notation ------------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        action = self._check_action(action)
        n = self.n
        base = 16 * n
        if not 0 <= action <= base + 3:
            raise ValueError(f"action {action} is outside 0…{base + 3}")
        if action == base:
            return "end"
        if action > base:
            return ("draw 0", "draw 1", "draw pile")[action - base - 1]
        slot, sq = divmod(action, n)
        k, t = divmod(slot, 4)
        way = CORNER_NAMES[t] if k in (0, 2) else SIDE_NAMES[t]
        return f"{KIND_NAMES[k]}/{way}@{cell_name(*divmod(sq, self.size))}"

    _PLACE_RE = re.compile(r"^\s*([a-z]+)\s*/\s*([a-z]+)\s*@\s*([a-z]+[0-9]+)\s*$")

    def string_to_action(self, text: str) -> int:
        if not isinstance(text, str):
            raise ValueError(f"{text!r} is not a move: write e.g. 'cut/ne@c4', 'end', 'draw 0' or 'draw pile'")
        low = " ".join(text.strip().lower().split())
        base = 16 * self.n
        if low == "end":
            return base
        if low in ("draw 0", "draw 1", "draw pile"):
            return base + 1 + ("draw 0", "draw 1", "draw pile").index(low)
        match = self._PLACE_RE.match(low)
        if not match:
            raise ValueError(
                f"{text!r} is not a move: write e.g. 'cut/ne@c4', 'run/n@c4', 'hook/ne@c4', "
                f"'flip/w@c4', 'end', 'draw 0', 'draw 1' or 'draw pile'"
            )
        kind_name, way, cell = match.groups()
        if kind_name not in KIND_NAMES:
            raise ValueError(f"{kind_name!r} is not a strand: the strands are cut, run, hook, flip")
        k = KIND_NAMES.index(kind_name)
        names = CORNER_NAMES if k in (0, 2) else SIDE_NAMES
        if way not in names:
            what = "a corner" if k in (0, 2) else "a side"
            raise ValueError(f"a {kind_name} is turned by {what}: one of {', '.join(names)}, not {way!r}")
        row, col = parse_cell(cell, self.size, self.size)
        return (4 * k + names.index(way)) * self.n + row * self.size + col

    # ----- copies and snapshots --------------------------------------------------------------------------
    def clone(self) -> "KnotGame":
        o = object.__new__(KnotGame)
        o.options = self.options
        o.n_players, o.size, o.geo, o.n, o.total = self.n_players, self.size, self.geo, self.n, self.total
        o.deal, o.drawn = self.deal, self.drawn
        o.hands = [h[:] for h in self.hands]
        o.known = [h[:] for h in self.known]
        o.market = self.market[:]
        o.geo_w = self.geo_w[:]
        o.lu = self.lu[:]
        o.port_strand = self.port_strand[:]
        o.st_sq = self.st_sq[:]
        o.st_slot = self.st_slot[:]
        o.st_rib = self.st_rib[:]
        o.rib_owner = self.rib_owner[:]
        o.rib_ends = [e[:] if e is not None else None for e in self.rib_ends]
        o.rib_strands = [e[:] if e is not None else None for e in self.rib_strands]
        o.rib_inside = self.rib_inside[:]
        o.rib_closed = self.rib_closed[:]
        o.closed_ribbons = self.closed_ribbons[:]
        o.ends = [set(e) for e in self.ends]
        o.own_cnt = [c[:] for c in self.own_cnt]
        o.own_bb = self.own_bb[:]
        o.banked = self.banked[:]
        o.placed_any = self.placed_any[:]
        o.turn, o.player, o.phase, o.placed = self.turn, self.player, self.phase, self.placed
        o.growable = set(self.growable)
        o._legal = self._legal
        o._places = self._places
        o.board_token = self.board_token  # same board; either copy gets a new token on change
        return o

    def state_dict(self) -> dict[str, Any]:
        strands = [
            [sq, slot >> 2, slot & 3, self.rib_owner[self.st_rib[s]]]
            for s, (sq, slot) in enumerate(zip(self.st_sq, self.st_slot))
        ]
        return {
            "pile": list(self.deal[self.drawn:]),
            "hands": [h[:] for h in self.hands],
            "market": self.market[:],
            "known": [h[:] for h in self.known],
            "strands": strands,
            "closed": [min(self.rib_strands[r]) for r in self.closed_ribbons],
            "scores": self.banked[:],
            "turn": self.turn,
            "player": self.player,
            "phase": PHASE_NAMES[self.phase],
            "placed": self.placed,
            "placed_any": self.placed_any[:],
            "growable": sorted(self.growable),
        }

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
                    f"snapshot strand {s} is owned by player_{owners[s]} but its ribbon by player_{self.rib_owner[r]}")
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
            require(len(ends) in (0, 2), "snapshot ribbon with an odd number of open ends")
            if ends:
                self.ends[self.rib_owner[r]].update(ends)
            else:
                self.rib_ends[r] = None
                require(self.rib_inside[r] > 0, "snapshot holds a ribbon closed through edge links only")

    @classmethod
    def lay_out(cls, options: dict[str, Any], rows) -> "KnotGame":
        """A board holding ``rows`` ``(square, kind, turn, owner)`` and nothing else (no hands,
        no pile, closed ribbons in no particular order): what a bot rebuilds from what it sees."""
        game = object.__new__(cls)
        game._init_empty(options)
        owners = []
        for i, (sq, k, t, owner) in enumerate(rows):
            slot = 4 * k + t
            require(FIT[game.geo_w[sq]] >> slot & 1 and game.geo.static[sq] >> slot & 1,
                    f"strand {i} ({KIND_NAMES[k]} in square {sq}) does not fit the board")
            game.st_sq.append(sq)
            game.st_slot.append(slot)
            game._lay(slot, sq, i)
            owners.append(owner)
            game.placed_any[owner] = True
        game._build_ribbons(owners)
        for r in range(len(game.rib_owner)):
            if game.rib_ends[r] is None:
                game.rib_closed[r] = len(game.closed_ribbons)
                game.closed_ribbons.append(r)
        return game

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "KnotGame":
        game = object.__new__(cls)
        game._init_empty(options)
        n, n_players = game.n, game.n_players
        pile = state.get("pile")
        require(isinstance(pile, list), "snapshot field 'pile' must be a list of kinds 0…3")
        pile = int_list(state, "pile", len(pile), 0, 3)
        hands_raw = state.get("hands")
        require(isinstance(hands_raw, list) and len(hands_raw) == n_players,
                f"snapshot field 'hands' must hold {n_players} hands")
        hands = [int_list({"hand": h}, "hand", 4, 0, HAND_SIZE) for h in hands_raw]
        for p, h in enumerate(hands):
            require(sum(h) <= HAND_SIZE, f"snapshot hand of player_{p} holds {sum(h)} strands; at most {HAND_SIZE}")
        market = int_list(state, "market", 2, -1, 3)
        known_raw = state.get("known")
        require(isinstance(known_raw, list) and len(known_raw) == n_players,
                f"snapshot field 'known' must hold {n_players} lists")
        known = [int_list({"known": h}, "known", 4, 0, HAND_SIZE) for h in known_raw]
        for p in range(n_players):
            require(all(known[p][k] <= hands[p][k] for k in range(4)),
                    f"snapshot known strands of player_{p} exceed that player's hand")
        strands = state.get("strands")
        require(isinstance(strands, list), "snapshot field 'strands' must be a list")
        turn = int_field(state, "turn", 0, 10**9)
        player = int_field(state, "player", 0, n_players - 1)
        phase_name = state.get("phase")
        require(phase_name in PHASE_NAMES, f"snapshot field 'phase' is {phase_name!r}; it must be one of {PHASE_NAMES}")
        phase = PHASE_NAMES.index(phase_name)
        placed = int_field(state, "placed", 0, place_limit(turn))
        placed_any = state.get("placed_any")
        require(isinstance(placed_any, list) and len(placed_any) == n_players
                and all(isinstance(x, bool) for x in placed_any),
                f"snapshot field 'placed_any' must hold {n_players} booleans")
        banked = int_list(state, "scores", n_players, 0, 10**6)
        require(placed <= len(strands), "snapshot placed more strands this turn than the board holds")
        # Conservation of strands.
        counts = [0, 0, 0, 0]
        for k in pile:
            counts[k] += 1
        for h in hands:
            for k in range(4):
                counts[k] += h[k]
        for k in market:
            if k >= 0:
                counts[k] += 1
        owners = []
        g = game.geo
        for i, item in enumerate(strands):
            require(isinstance(item, list) and len(item) == 4
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in item),
                    f"snapshot strand {i} must be [square, kind, turn, owner] integers, not {item!r}")
            sq, k, t, owner = item
            require(0 <= sq < n and 0 <= k < 4 and 0 <= t < 4 and 0 <= owner < n_players,
                    f"snapshot strand {i} {item!r} is off the board or names no kind, turn or player")
            slot = 4 * k + t
            require(FIT[game.geo_w[sq]] >> slot & 1 and g.static[sq] >> slot & 1,
                    f"snapshot strand {i} ({KIND_NAMES[k]} in square {sq}) does not fit the board: "
                    f"a corner is taken or a crossing is blocked")
            counts[k] += 1
            game.st_sq.append(sq)
            game.st_slot.append(slot)
            game._lay(slot, sq, i)
            owners.append(owner)
        if options["pile"] is None:
            require(counts == list(options["deck"]),
                    f"snapshot strands per kind {counts} differ from the deck {options['deck']}")
        else:
            scripted = options["pile"]
            require(len(pile) <= len(scripted) and list(scripted[len(scripted) - len(pile):]) == pile,
                    "snapshot pile is not what is left of the scripted 'pile' option")
            totals = [scripted.count(k) for k in range(4)]
            require(counts == totals, f"snapshot strands per kind {counts} differ from the scripted pile's {totals}")
        game._build_ribbons(owners)
        closed = state.get("closed")
        require(isinstance(closed, list), "snapshot field 'closed' must be a list of strand indices")
        seen = set()
        for i in closed:
            require(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(strands),
                    f"snapshot field 'closed' holds {i!r}; entries are strand indices")
            r = game.st_rib[i]
            require(game.rib_ends[r] is None, f"snapshot field 'closed' names strand {i}, whose ribbon is open")
            require(r not in seen, f"snapshot field 'closed' names the ribbon of strand {i} twice")
            seen.add(r)
            game.rib_closed[r] = len(game.closed_ribbons)
            game.closed_ribbons.append(r)
        all_closed = {r for r in range(len(game.rib_owner)) if game.rib_ends[r] is None}
        require(seen == all_closed, "snapshot field 'closed' must name every closed ribbon exactly once")
        recount = [0] * n_players
        for r in game.closed_ribbons:
            recount[game.rib_owner[r]] += game.rib_inside[r]
        require(banked == recount, f"snapshot scores {banked} differ from the closed ribbons' recount {recount}")
        for p in range(n_players):
            require(placed_any[p] or p not in owners, f"snapshot: player_{p} owns strands but never placed one")
        game.deal = tuple(pile)
        game.drawn = 0
        game.hands = hands
        game.known = known
        game.market = market
        game.banked = banked
        game.placed_any = list(placed_any)
        game.turn, game.player, game.phase, game.placed = turn, player, phase, placed
        growable = state.get("growable")
        require(isinstance(growable, list), "snapshot field 'growable' must be a list of ports")
        for e in growable:
            require(isinstance(e, int) and not isinstance(e, bool) and e in game.ends[player],
                    f"snapshot growable end {e!r} is not an open end of player_{player}")
            require(game.port_strand[e] < len(strands) - placed,
                    f"snapshot growable end {e!r} was placed this turn")
        require(phase == PLACE or not growable, "snapshot has growable ends outside the placing phase")
        game.growable = set(growable)
        if phase == PLACE:
            require(placed < place_limit(turn), "snapshot placing phase has no placement left this turn")
        if phase == DRAW:
            require(game._can_draw(), "snapshot is in the draw phase but nothing can be drawn")
        return game
