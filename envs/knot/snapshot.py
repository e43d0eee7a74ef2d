"""Knot's copies and snapshots: ``clone`` generated from the declared state fields, the JSON
state dict, and its validating reader.

``STATE_FIELDS`` lists every attribute of a :class:`~envs.knot.rules.KnotGame` with how a copy
treats it; ``clone`` is generated from it (as :mod:`dataclasses` generates ``__init__``), so a
new field is declared once and the tests check that the table names every attribute a game
has. The snapshot's state dict is the public format (strands, hands, the pile, the turn),
smaller than the engine's incremental records: ``from_state_dict`` rebuilds those records
through the board's own code and checks every field, naming the one that is wrong.
"""

from __future__ import annotations

from typing import Any

from envs.core.game import int_field, int_list, require, short_repr
from envs.knot.geometry import FIT, KIND_NAMES
from envs.knot.options import BLIND, DEAL, DEALING, DRAW, HAND_SIZE, MAX_DECK, PENDING_NAMES, PHASE_NAMES, PLACE, place_limit

# How clone copies each attribute: "same" shares it (immutable, or replaced rather than changed
# in place: options, geometry, caches, the board token), "list" copies a flat list, "lists" a
# list of lists, "optional lists" a list of lists or None, "set" a set, "sets" a list of sets.
STATE_FIELDS: tuple[tuple[str, str], ...] = (
    ("options", "same"), ("n_players", "same"), ("size", "same"), ("geo", "same"), ("n", "same"),
    ("total", "same"), ("pile", "list"), ("pending", "same"),
    ("hands", "lists"), ("known", "lists"), ("market", "list"),
    ("geo_w", "list"), ("lu", "list"), ("port_strand", "list"),
    ("st_sq", "list"), ("st_slot", "list"), ("st_rib", "list"),
    ("rib_owner", "list"), ("rib_ends", "optional lists"), ("rib_strands", "optional lists"),
    ("rib_inside", "list"), ("rib_closed", "list"), ("closed_ribbons", "list"),
    ("ends", "sets"), ("own_cnt", "lists"), ("own_bb", "list"), ("banked", "list"), ("placed_any", "list"),
    ("turn", "same"), ("player", "same"), ("phase", "same"), ("placed", "same"), ("growable", "set"),
    ("_legal", "same"), ("_places", "same"), ("board_token", "same"),
)

_COPY = {
    "same": "self.{0}",
    "list": "self.{0}[:]",
    "lists": "[x[:] for x in self.{0}]",
    "optional lists": "[None if x is None else x[:] for x in self.{0}]",
    "set": "set(self.{0})",
    "sets": "[set(x) for x in self.{0}]",
}


def make_clone(cls: type):
    """``clone`` for ``cls``: a new instance with every ``STATE_FIELDS`` entry copied as the
    table says (straight-line code, as fast as a hand-written copy)."""
    lines = ["def clone(self):", "    o = _new(_cls)"]
    lines += [f"    o.{name} = {_COPY[how].format(name)}" for name, how in STATE_FIELDS]
    lines.append("    return o")
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    exec("\n".join(lines), namespace)  # noqa: S102 - code built from the table above only
    clone = namespace["clone"]
    clone.__doc__ = "A deep, independent copy (shares only immutable parts and caches)."
    clone.__qualname__ = f"{cls.__name__}.clone"
    return clone


class SnapshotMixin:
    """``state_dict``, ``from_state_dict`` and ``lay_out`` of a :class:`~envs.knot.rules.KnotGame`."""

    def state_dict(self) -> dict[str, Any]:
        strands = [
            [sq, slot >> 2, slot & 3, self.rib_owner[self.st_rib[s]]]
            for s, (sq, slot) in enumerate(zip(self.st_sq, self.st_slot))
        ]
        return {
            "pile": self.pile[:],
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
            "pending": PENDING_NAMES[self.pending] if 0 <= self.pending < len(PENDING_NAMES) else None,
        }

    @classmethod
    def lay_out(cls, options: dict[str, Any], rows, *, hand=None, market=None, placed_any=None,
                growable=()) -> "KnotGame":
        """A board holding ``rows`` ``(square, kind, turn, owner)`` and nothing else (no pile,
        closed ribbons in no particular order): what a bot rebuilds from what it sees. Player 0
        is to act in its placing phase, holding ``hand`` (counts per kind; none if not given)
        with ``growable`` its growable ends; ``market`` gives the two market slots (kinds, −1
        empty); ``placed_any`` (per player) replaces "has a strand on the board" as who has
        placed before."""
        game = cls._empty(options)
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
        if hand is not None:
            game.hands[0] = list(hand)
        if market is not None:
            game.market = list(market)
        if placed_any is not None:
            game.placed_any = list(placed_any)
        game.growable = set(growable)
        return game

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "KnotGame":
        game = cls._empty(options)
        n, n_players = game.n, game.n_players
        pile = int_list(state, "pile", 4, 0, 4 * MAX_DECK)  # strands per kind left in the pile
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
        counts = list(pile)
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
            tail = scripted[len(scripted) - sum(pile):]
            require(pile == [tail.count(k) for k in range(4)],
                    f"snapshot pile {pile} is not what is left of the scripted 'pile' option "
                    f"(its last {sum(pile)} strands hold {[tail.count(k) for k in range(4)]})")
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
        game.pile = pile
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
        require("pending" in state, "snapshot field 'pending' is missing (null when no draw waits for the pile)")
        pending = state["pending"]
        require(pending is None or pending in PENDING_NAMES,
                f"snapshot field 'pending' is {short_repr(pending)}; it must be null or one of {PENDING_NAMES}")
        game.pending = -1 if pending is None else PENDING_NAMES.index(pending)
        if game.pending >= 0:
            require(phase == DRAW, "snapshot field 'pending' names a draw outside the draw phase")
            require(sum(pile) > 0, "snapshot field 'pending' waits for a strand from an empty pile")
            hand = sum(hands[player])
            if game.pending == BLIND:
                require(hand < HAND_SIZE, f"snapshot field 'pending' draws blind into a full hand of player_{player}")
            else:
                require(market[game.pending] < 0,
                        f"snapshot field 'pending' refills market slot {game.pending}, which holds a strand")
        elif phase == DRAW:
            require(game._can_draw(), "snapshot is in the draw phase but nothing can be drawn")
        if phase == DEAL:
            _check_deal(game, strands)
            game.pending = DEALING
        return game


def _check_deal(game, strands) -> None:
    """A snapshot in the opening deal: nothing but dealt strands, dealt in order (5 to each
    player in turn, then market slot 0, then slot 1) and the deal not yet finished."""
    require(not strands and game.turn == 0 and game.player == 0 and not game.placed and not any(game.placed_any)
            and not any(map(any, game.known)) and not any(game.banked) and not game.growable,
            "snapshot in the 'deal' phase must be the game's start: no strand placed, turn 0, player_0, "
            "nothing known, no score")
    dealt = sum(map(sum, game.hands))
    for p, hand in enumerate(game.hands):
        want = min(HAND_SIZE, max(0, dealt - HAND_SIZE * p))
        require(sum(hand) == want,
                f"snapshot in the 'deal' phase: player_{p} holds {sum(hand)} strands, but the deal gives "
                f"{want} of {dealt} dealt (5 to each player in turn)")
    market = game.market
    hands_full = dealt == HAND_SIZE * game.n_players
    require((market[0] < 0 or hands_full) and (market[1] < 0 or market[0] >= 0),
            "snapshot in the 'deal' phase: the market is dealt after the hands, slot 0 before slot 1")
    require(sum(game.pile) > 0 and not (hands_full and market[1] >= 0),
            "snapshot in the 'deal' phase: the deal is over (hands and market dealt, or the pile empty)")
