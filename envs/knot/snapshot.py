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
from envs.knot.options import (
    BLIND, DEAL, DEALING, DRAW, HAND_SIZE, MAX_DECK, OVER, PENDING_NAMES, PHASE_NAMES, PLACE, deck_totals,
    place_limit,
)

# A position may be built directly (a puzzle, a test), so the turn is bounded only loosely: a
# game that is played reaches at most max_turns_for(options) turns.
MAX_TURN = 10**9

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
        """A game from ``state_dict`` output, every field checked: a :class:`SnapshotError`
        names the field (or the fields whose values disagree) and what is wrong."""
        # (the state's keys, STATE_KEYS, are checked where every game's are: Game.read_snapshot)
        game = cls._empty(options)
        P = game.n_players
        pile = int_list(state, "pile", 4, 0, 4 * MAX_DECK)  # strands per kind left in the pile
        hands = _per_player(state, "hands", P, HAND_SIZE)
        for p, hand in enumerate(hands):
            require(sum(hand) <= HAND_SIZE, f"snapshot field 'hands': player_{p} holds {sum(hand)} strands; "
                                            f"a hand holds at most {HAND_SIZE}")
        market = int_list(state, "market", 2, -1, 3)
        known = _per_player(state, "known", P, HAND_SIZE)
        for p in range(P):
            require(all(known[p][k] <= hands[p][k] for k in range(4)),
                    f"snapshot fields 'known' and 'hands': player_{p} is known to hold {known[p]}, "
                    f"more than its hand {hands[p]}")
        turn = int_field(state, "turn", 0, MAX_TURN)
        player = int_field(state, "player", 0, P - 1)
        require(player == turn % P, f"snapshot fields 'player' and 'turn': turn {turn} is player_{turn % P}'s "
                                    f"(player_0 has turn 0 and turns go round), not player_{player}'s")
        phase_name = state["phase"]
        require(phase_name in PHASE_NAMES,
                f"snapshot field 'phase' is {short_repr(phase_name)}; it must be one of {', '.join(PHASE_NAMES)}")
        phase = PHASE_NAMES.index(phase_name)
        placed = int_field(state, "placed", 0, place_limit(turn))
        placed_any = state["placed_any"]
        require(isinstance(placed_any, list) and len(placed_any) == P and all(isinstance(x, bool) for x in placed_any),
                f"snapshot field 'placed_any' must hold {P} booleans, not {short_repr(placed_any)}")
        banked = int_list(state, "scores", P, 0, 10**6)
        owners = _lay_strands(game, state["strands"])
        require(placed <= len(owners), f"snapshot field 'placed' is {placed}, more strands than field 'strands' "
                                       f"lays on the board ({len(owners)})")
        _check_totals(options, pile, hands, market, game.st_slot)
        game._build_ribbons(owners)
        _read_closed(game, state["closed"], banked)
        for p in range(P):
            require(placed_any[p] or p not in owners,
                    f"snapshot fields 'placed_any' and 'strands': player_{p} owns strands but never placed one")
        game.pile = pile
        game.hands = hands
        game.known = known
        game.market = market
        game.banked = banked
        game.placed_any = list(placed_any)
        game.turn, game.player, game.phase, game.placed = turn, player, phase, placed
        _read_growable(game, state["growable"], len(owners))
        if phase == PLACE:
            require(placed < place_limit(turn),
                    f"snapshot field 'placed' is {placed}: the placing phase of turn {turn} has no placement left")
        _read_pending(game, state["pending"])
        if phase == DRAW and game.pending < 0:
            require(game._can_draw(), "snapshot field 'phase' is 'draw' but the player to act can draw nothing "
                                      "(a full hand, or an empty market and pile)")
        if phase == OVER:
            for p in range(P):
                require(not game.placements(p, game.ends[p]),
                        f"snapshot field 'phase' is 'over' but player_{p} can still place a strand "
                        "(fields 'hands' and 'strands')")
        if phase == DEAL:
            _check_deal(game, owners)
            game.pending = DEALING
        return game


STATE_KEYS = ("pile", "hands", "market", "known", "strands", "closed", "scores", "turn", "player", "phase",
              "placed", "placed_any", "growable", "pending")


def _per_player(state: dict, key: str, players: int, most: int) -> list[list[int]]:
    """``state[key]``: one list of 4 counts 0…``most`` per player."""
    value = state[key]
    require(isinstance(value, list) and len(value) == players,
            f"snapshot field {key!r} must hold {players} lists of 4 counts, not {short_repr(value)}")
    return [int_list({f"{key}[{p}]": v}, f"{key}[{p}]", 4, 0, most) for p, v in enumerate(value)]


def _lay_strands(game, strands) -> list[int]:
    """Lay the snapshot's strands on ``game``'s board in order; returns their owners."""
    require(isinstance(strands, list), f"snapshot field 'strands' must be a list, not {short_repr(strands)}")
    n, players, g = game.n, game.n_players, game.geo
    require(len(strands) <= 4 * n, f"snapshot field 'strands' holds {len(strands)} strands; the board has room "
                                   f"for {4 * n} at most")
    owners = []
    for i, item in enumerate(strands):
        require(isinstance(item, list) and len(item) == 4
                and all(isinstance(v, int) and not isinstance(v, bool) for v in item),
                f"snapshot field 'strands': strand {i} must be [square, kind, turn, owner] integers, "
                f"not {short_repr(item)}")
        sq, k, t, owner = item
        require(0 <= sq < n and 0 <= k < 4 and 0 <= t < 4 and 0 <= owner < players,
                f"snapshot field 'strands': strand {i} {short_repr(item)} is off the board or names no kind "
                f"(0…3), turn (0…3) or player (0…{players - 1})")
        slot = 4 * k + t
        require(FIT[game.geo_w[sq]] >> slot & 1 and g.static[sq] >> slot & 1,
                f"snapshot field 'strands': strand {i} ({KIND_NAMES[k]} in square {sq}) does not fit the board: "
                f"a corner is taken, a crossing is blocked, or a Flip faces the edge")
        game.st_sq.append(sq)
        game.st_slot.append(slot)
        game._lay(slot, sq, i)
        owners.append(owner)
    return owners


def _check_totals(options: dict, pile: list[int], hands, market, slots) -> None:
    """Every strand of the game is somewhere: the pile, a hand, the market or the board."""
    counts = list(pile)
    for hand in hands:
        for k in range(4):
            counts[k] += hand[k]
    for k in market:
        if k >= 0:
            counts[k] += 1
    for slot in slots:
        counts[slot >> 2] += 1
    totals = deck_totals(options)
    scripted = options["pile"]
    what = "the deck" if scripted is None else "the scripted pile"
    require(counts == totals, f"snapshot fields 'pile', 'hands', 'market' and 'strands' hold {counts} strands "
                              f"per kind; {what} holds {totals}")
    if scripted is not None:
        tail = scripted[len(scripted) - sum(pile):] if sum(pile) else []
        left = [tail.count(k) for k in range(4)]
        require(pile == left, f"snapshot field 'pile' is {pile}, not what is left of the scripted 'pile' option "
                              f"(its last {sum(pile)} strands hold {left})")


def _read_closed(game, closed, banked: list[int]) -> None:
    """The closing order of the closed ribbons (each named by one of its strands), and the
    banked points it implies."""
    require(isinstance(closed, list), f"snapshot field 'closed' must be a list of strand indices, not {short_repr(closed)}")
    count = len(game.st_sq)
    seen = set()
    for i in closed:
        require(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count,
                f"snapshot field 'closed' holds {short_repr(i)}; its entries are strand indices 0…{count - 1}")
        r = game.st_rib[i]
        require(game.rib_ends[r] is None, f"snapshot field 'closed' names strand {i}, whose ribbon is open")
        require(r not in seen, f"snapshot field 'closed' names the ribbon of strand {i} twice")
        seen.add(r)
        game.rib_closed[r] = len(game.closed_ribbons)
        game.closed_ribbons.append(r)
    every = {r for r in range(len(game.rib_owner)) if game.rib_ends[r] is None}
    require(seen == every, "snapshot field 'closed' must name every closed ribbon of 'strands' exactly once")
    recount = [0] * game.n_players
    for r in game.closed_ribbons:
        recount[game.rib_owner[r]] += game.rib_inside[r]
    require(banked == recount, f"snapshot field 'scores' is {banked}; the closed ribbons of 'strands' bank {recount}")


def _read_growable(game, growable, count: int) -> None:
    """The acting player's growable ends: open ends of theirs, none placed this turn, only
    while placing."""
    require(isinstance(growable, list), f"snapshot field 'growable' must be a list of ports, not {short_repr(growable)}")
    player = game.player
    for e in growable:
        require(isinstance(e, int) and not isinstance(e, bool) and e in game.ends[player],
                f"snapshot field 'growable' holds {short_repr(e)}, not an open end of player_{player}")
        require(game.port_strand[e] < count - game.placed,
                f"snapshot field 'growable' holds end {e}, placed this turn (field 'placed')")
    require(game.phase == PLACE or not growable, "snapshot field 'growable' holds ends outside the placing phase")
    game.growable = set(growable)


def _read_pending(game, pending) -> None:
    """The draw waiting for the pile: a market slot's refill or a blind draw, in the draw phase."""
    require(pending is None or pending in PENDING_NAMES,
            f"snapshot field 'pending' is {short_repr(pending)}; it must be null or one of {', '.join(PENDING_NAMES)}")
    game.pending = -1 if pending is None else PENDING_NAMES.index(pending)
    if game.pending < 0:
        return
    require(game.phase == DRAW, "snapshot field 'pending' names a draw outside the draw phase")
    require(sum(game.pile) > 0, "snapshot field 'pending' waits for a strand from an empty pile")
    if game.pending == BLIND:
        require(sum(game.hands[game.player]) < HAND_SIZE,
                f"snapshot field 'pending' draws blind into the full hand of player_{game.player}")
    else:
        require(game.market[game.pending] < 0,
                f"snapshot field 'pending' refills market slot {game.pending}, which holds a strand")


def _check_deal(game, owners) -> None:
    """A snapshot in the opening deal: nothing but dealt strands, dealt in order (5 to each
    player in turn, then market slot 0, then slot 1) and the deal not yet finished."""
    require(not owners and game.turn == 0 and not game.placed and not any(game.placed_any)
            and not any(map(any, game.known)) and not any(game.banked),
            "snapshot field 'phase' is 'deal', which must be the game's start: no strand placed ('strands', "
            "'placed_any'), turn 0, nothing 'known', no 'scores'")
    dealt = sum(map(sum, game.hands))
    for p, hand in enumerate(game.hands):
        want = min(HAND_SIZE, max(0, dealt - HAND_SIZE * p))
        require(sum(hand) == want,
                f"snapshot field 'hands' in the 'deal' phase: player_{p} holds {sum(hand)} strands, but the "
                f"deal gives {want} of {dealt} dealt (5 to each player in turn)")
    market = game.market
    hands_full = dealt == HAND_SIZE * game.n_players
    require((market[0] < 0 or hands_full) and (market[1] < 0 or market[0] >= 0),
            "snapshot field 'market' in the 'deal' phase: the market is dealt after the hands, slot 0 before slot 1")
    require(sum(game.pile) > 0 and not (hands_full and market[1] >= 0),
            "snapshot field 'phase' is 'deal' but the deal is over (hands and market dealt, or the pile empty)")
