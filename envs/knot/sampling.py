"""Full Knot states from one seat's point of view, for search bots and the bot protocol.

Hidden from a seat: each opponent's hand, apart from the strands it took face up and has not
placed since (``known``: public, they stay in that hand), and the order of the pile. Both are
drawn together: the strands not accounted for by what the seat sees (the deck's totals minus
the board, the seat's hand, the market and the opponents' known strands) are shuffled with the
rng given, the first ones fill the opponents' unknown hand places, the rest, in that order, is
the pile. Every arrangement of those strands is equally likely, except that one public fact is
kept: the game did not end at the start of this turn. When the player to act has placed nothing
yet and either has no legal placement or has already ended placing, some player must have
been able to place with the hand they hold (``placements`` with every open end growable), so a
draw that gives no such player a fitting strand is drawn again (the true hands always pass).
With a scripted ``pile`` option the pile is no secret: it is the tail of the scripted pile,
and only the opponents' hands are drawn (from what the scripted pile leaves; the deal's history
is not replayed).

``sampler(observation, options)`` decodes the vector once. Three things a full state needs are
public but are not in the observation:

* the seat's number: ``turn % players`` (``player_0`` acts on turn 0, turns go round);
* the order the strands were placed in: the state lists the strands holding the seat's growable
  ends first and ``placed`` of the seat's other strands last (as the ones placed this turn).
  The order decides nothing but which sentence ``why_illegal`` gives for a non-growable end;
* drawn anew per call: the order the closed ribbons closed in (a uniformly random order; it
  only breaks a tie for the longest-ribbon bonus), and the strands the seat itself took face
  up and still holds (``known`` of the seat, seen by the others): none before the seat's first
  draw, otherwise a count drawn uniformly from 0 to the most possible (the seat's hand; on its
  first turn, what it drew this turn), then that many of its strands chosen uniformly.

``complete_snapshot(partial, seat, rng)`` takes a snapshot in the engine's format in which only
these may be left out (every other field is public, and a missing one is an error naming it):

* ``state["pile"]``: missing or ``null``: the whole pile is drawn; its length is what the
  deck leaves once everything else is counted. Or a list in which any entry may be ``null``:
  the list's length is the pile's, the ``null`` entries are drawn, the others kept.
* ``state["hands"][p]`` for every ``p != seat``: ``null``, or an integer, the hand's size (its
  contents are drawn; the player's ``known`` strands stay in it). A ``null`` hand's size is
  inferred: while the market holds a strand every player holds 5, the player to act
  ``5 - placed`` before drawing; otherwise it is what the deck leaves, which answers for one
  unknown size at most (give the others as integers).

Given items are returned exactly as given (options and all); only the omitted ones are filled
in. The result passes ``KnotGame.from_snapshot``.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

from envs.core.game import SnapshotError, int_field, int_list
from envs.core.sampling import check_reproduces, read_observation
from envs.knot.geometry import KINDS, SLOT_PORTS
from envs.knot.observer import KnotObserver
from envs.knot.rules import DRAW, HAND_SIZE, OVER, PHASE_NAMES, PLACE, KnotGame

# Redraws allowed for the "game goes on" condition before giving up; the true hands pass it, so
# only a deck of thousands with a single fitting strand could come near.
MAX_REDRAWS = 100_000


def deck_totals(options: dict[str, Any]) -> list[int]:
    """Strands per kind in the whole game (resolved options)."""
    if options["pile"] is not None:
        return [options["pile"].count(k) for k in range(4)]
    return list(options["deck"])


class HiddenDeal:
    """The hidden strands of one position: checked and prepared once, drawn per call.

    ``state`` is an engine state dict in which each hidden hand holds only its fixed part (the
    strands the seat knows of) and the pile holds ``None`` for each unknown strand;
    ``hidden`` maps each hidden hand's player to the number of its strands to draw. ``base``
    is the state with a placeholder deal; :meth:`fill` overwrites the hidden parts of a clone.
    Inconsistencies raise :class:`SnapshotError` saying why.
    """

    def __init__(self, options: dict[str, Any], state: dict[str, Any], hidden: dict[int, int]):
        totals = deck_totals(options)
        seen = [0, 0, 0, 0]
        for item in state["strands"]:
            seen[item[1]] += 1
        for hand in state["hands"]:
            for k in range(4):
                seen[k] += hand[k]
        for k in list(state["market"]) + list(state["pile"]):
            if k is not None and k >= 0:
                seen[k] += 1
        pool_counts = [totals[k] - seen[k] for k in range(4)]
        for k in range(4):
            if pool_counts[k] < 0:
                raise SnapshotError(
                    f"the position shows {seen[k]} {KINDS[k]}s (board, hands, market, pile) "
                    f"but the game has only {totals[k]}"
                )
        unknown_pile = [i for i, k in enumerate(state["pile"]) if k is None]
        places = sum(hidden.values()) + len(unknown_pile)
        if sum(pool_counts) != places:
            raise SnapshotError(
                f"the game has {sum(pool_counts)} strands the position does not show, but its hidden "
                f"hand places and unknown pile entries number {places}"
            )
        self.pool = [k for k in range(4) for _ in range(pool_counts[k])]
        self.hidden = [(p, list(state["hands"][p]), n) for p, n in sorted(hidden.items())]
        self.hand_places = sum(hidden.values())
        # None: the pile is exactly the shuffled rest; else the pile with its unknown positions.
        self.pile_template = None if len(unknown_pile) == len(state["pile"]) else list(state["pile"])
        self.unknown_pile = unknown_pile
        self.base = KnotGame.from_state_dict(options, self._placeholder(state))
        self._prepare_condition()

    def _placeholder(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state with the pool dealt in kind order: valid, so the engine checks the rest."""
        filled = dict(state)
        hands = [list(h) for h in state["hands"]]
        pool = iter(self.pool)
        for p, _, n in self.hidden:
            for _ in range(n):
                hands[p][next(pool)] += 1
        filled["hands"] = hands
        filled["pile"] = [next(pool) if k is None else k for k in state["pile"]]
        return filled

    # ----- the game went on at the start of this turn -----------------------------------------
    def _prepare_condition(self) -> None:
        base = self.base
        players = range(base.n_players)
        self.mode = None
        if base.phase == OVER:
            self.mode, candidates = "none", list(players)
        elif base.placed == 0 and base.phase == PLACE:
            self.mode, candidates = "some", list(players)
        elif base.placed == 0 and base.phase == DRAW:
            # Ending at 0 placed means the player to act had no placement: someone else had.
            self.mode, candidates = "some", [p for p in players if p != base.player]
        if self.mode is None:
            return
        # Kinds that give each candidate a placement (kinds are tried independently, so a hand
        # can place iff it holds one of these).
        scratch = base.clone()
        fitting = {}
        for p in candidates:
            mask = 0
            for k in range(4):
                scratch.hands[p] = [int(k == j) for j in range(4)]
                if scratch.placements(p, scratch.ends[p]):
                    mask |= 1 << k
            fitting[p] = mask
        fixed = {p: list(base.hands[p]) for p in players}
        for p, part, _ in self.hidden:
            fixed[p] = part
        draws = dict((p, n) for p, _, n in self.hidden)
        pool_mask = sum(1 << k for k in set(self.pool))

        def holds(hand, mask):
            return any(hand[k] and mask >> k & 1 for k in range(4))

        if self.mode == "some":
            if any(holds(fixed[p], fitting[p]) for p in candidates):
                self.mode = None  # a strand everybody sees already keeps the game going
                return
            if not any(draws.get(p) and fitting[p] & pool_mask for p in candidates):
                raise SnapshotError(
                    "no player could place a strand at the start of this turn with any hands "
                    "consistent with the position, so the game would be over"
                )
        else:
            for p in candidates:
                if holds(fixed[p], fitting[p]):
                    raise SnapshotError(f"the game is over, yet player_{p} holds a strand that fits")
            # Hall's condition: every group of hidden hands can be filled with non-fitting kinds.
            counts = [self.pool.count(k) for k in range(4)]
            hidden_players = [p for p in candidates if draws.get(p)]
            for subset in range(1, 1 << len(hidden_players)):
                group = [p for i, p in enumerate(hidden_players) if subset >> i & 1]
                allowed = 0
                for p in group:
                    allowed |= 15 & ~fitting[p]
                if sum(draws[p] for p in group) > sum(counts[k] for k in range(4) if allowed >> k & 1):
                    raise SnapshotError(
                        "the game is over, but the hidden hands cannot all be filled with strands "
                        "that fit nowhere"
                    )
        self.check = [(i, fitting[p]) for i, (p, _, _) in enumerate(self.hidden) if p in fitting]

    def _passes(self, hands: list[list[int]]) -> bool:
        if self.mode == "some":
            return any(hands[i][k] for i, mask in self.check for k in range(4) if mask >> k & 1)
        return not any(hands[i][k] for i, mask in self.check for k in range(4) if mask >> k & 1)

    # ----- drawing ----------------------------------------------------------------------------------
    def fill(self, game: KnotGame, rng: random.Random) -> None:
        """Draw the hidden hands and the pile into ``game`` (a clone of ``base``)."""
        for _ in range(MAX_REDRAWS):
            items = self.pool[:]
            rng.shuffle(items)
            hands = []
            at = 0
            for _, part, n in self.hidden:
                hand = part[:]
                for k in items[at:at + n]:
                    hand[k] += 1
                at += n
                hands.append(hand)
            if self.mode is None or self._passes(hands):
                break
        else:
            raise SnapshotError(
                f"no hidden hands consistent with the position found in {MAX_REDRAWS} draws"
            )
        for (p, _, _), hand in zip(self.hidden, hands):
            game.hands[p] = hand
            if p == game.player:
                game._legal = game._places = None  # the cached moves were the placeholder's
        if self.pile_template is None:
            game.deal = tuple(items[at:])
        else:
            pile = self.pile_template[:]
            for i, k in zip(self.unknown_pile, items[at:]):
                pile[i] = k
            game.deal = tuple(pile)
        game.drawn = 0


# ----- from an observation ------------------------------------------------------------------------

def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], KnotGame]:
    """Decode one seat's observation once; each call returns a fresh full state consistent with
    it (hidden hands and pile drawn with the rng given; see the module docstring)."""
    resolved = KnotGame.resolve_options(dict(options))
    P = resolved["players"]
    try:
        view = read_observation(KnotGame, KnotObserver, observation, resolved)
    except ValueError as error:  # say which options the observation was checked against
        raise ValueError(f"{error} [checked against {P} players on {resolved['size']}×{resolved['size']}]") from None
    fields = view.fields
    if fields["phase"] == "over" or fields["actor"] != 0:
        raise ValueError("the observation's seat does not act now (the game is over or another seat acts)")
    turn = fields["turn"]
    seat = turn % P

    def absolute(j: int) -> int:
        return (seat + j) % P

    try:
        base_state, hidden = _state_from_fields(resolved, fields, seat, absolute)
        deal = HiddenDeal(resolved, base_state, hidden)
    except SnapshotError as error:
        raise ValueError(f"the observation cannot come from a Knot game with these options: {error}") from None
    base = deal.base
    check_reproduces(view, base, seat)

    own_hand = [k for k in range(4) for _ in range(base.hands[seat][k])]
    if turn < P:  # the seat's first turn: it holds the 5 dealt strands plus what it drew now
        most_known = 0 if base.phase == PLACE else max(0, len(own_hand) - (HAND_SIZE - base.placed))
    else:
        most_known = len(own_hand)
    closed = base.closed_ribbons

    def sample(rng: random.Random) -> KnotGame:
        game = base.clone()
        deal.fill(game, rng)
        if most_known:
            known = [0, 0, 0, 0]
            for k in rng.sample(own_hand, rng.randint(0, most_known)):
                known[k] += 1
            game.known[seat] = known
        if len(closed) > 1:
            order = closed[:]
            rng.shuffle(order)
            game.closed_ribbons = order
            for i, r in enumerate(order):
                game.rib_closed[r] = i
        return game

    return sample


def _state_from_fields(options, fields, seat, absolute):
    """The engine state dict the observation describes, hidden parts left for ``HiddenDeal``."""
    P = options["players"]
    rows = [[sq, k, t, absolute(j)] for sq, k, t, j, _ in fields["strands"]]
    growable = sorted(fields["growable"])
    holders = set()
    for i, (sq, k, t, _) in enumerate(rows):
        if any(sq * 8 + p in fields["growable"] for p in SLOT_PORTS[4 * k + t]):
            holders.add(i)
    placed = fields["placed"]
    this_turn = [i for i, row in enumerate(rows) if row[3] == seat and i not in holders][-placed:] if placed else []
    if len(this_turn) < placed:
        raise SnapshotError(f"the seat placed {placed} strands this turn but owns too few that could be those")
    order = [i for i in range(len(rows)) if i not in this_turn] + this_turn
    rows = [rows[i] for i in order]
    layout = KnotGame.lay_out(options, rows)
    closed = [min(layout.rib_strands[r]) for r in layout.closed_ribbons]
    hands, known, scores, placed_any = [None] * P, [None] * P, [0] * P, [False] * P
    hidden = {}
    for j in range(P):
        p = absolute(j)
        scores[p] = fields["scores"][j]
        placed_any[p] = fields["placed_any"][j]
        if j == 0:
            hands[p] = fields["hand"]
            known[p] = [0, 0, 0, 0]  # drawn per call
        else:
            known[p] = hands[p] = fields["known"][j]
            hidden[p] = fields["hand_sizes"][j] - sum(known[p])
            if hidden[p] < 0:
                raise SnapshotError(f"player_{p} holds {fields['hand_sizes'][j]} strands, fewer than its known ones")
    pile_size = fields["pile"]
    scripted = options["pile"]
    if scripted is None:
        pile = [None] * pile_size
    elif pile_size > len(scripted):
        raise SnapshotError(f"the pile holds {pile_size} strands, the scripted pile only {len(scripted)}")
    else:
        pile = list(scripted[len(scripted) - pile_size:])
    state = {
        "pile": pile,
        "hands": hands,
        "market": fields["market"],
        "known": known,
        "strands": rows,
        "closed": closed,
        "scores": scores,
        "turn": fields["turn"],
        "player": seat,
        "phase": fields["phase"],
        "placed": placed,
        "placed_any": placed_any,
        "growable": growable,
    }
    return state, hidden


# ----- from a partial snapshot --------------------------------------------------------------------

PUBLIC_FIELDS = ("market", "known", "strands", "closed", "scores", "turn", "player", "phase",
                 "placed", "placed_any", "growable")


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """``partial`` with the items hidden from ``seat`` that it leaves out drawn at random among
    those consistent with what it gives (see the module docstring for what may be left out)."""
    partial, options = KnotGame.read_snapshot(partial)
    P = options["players"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < P:
        raise ValueError(f"seat must be a player number 0…{P - 1}, not {seat!r}")
    state = partial["state"]
    for key in PUBLIC_FIELDS:
        if state.get(key) is None:
            raise SnapshotError(
                f"snapshot field {key!r} is missing; it is not hidden from player_{seat} "
                f"(only 'pile' and the other players' entries of 'hands' may be left out)"
            )
    hands_given = state.get("hands")
    if hands_given is None:
        raise SnapshotError(f"snapshot field 'hands' is missing; player_{seat}'s own hand in it is not hidden from it")
    if not isinstance(hands_given, list) or len(hands_given) != P:
        raise SnapshotError(f"snapshot field 'hands' must hold {P} entries")
    if hands_given[seat] is None:
        raise SnapshotError(f"snapshot field 'hands[{seat}]' is missing; player_{seat}'s own hand is not hidden from it")
    market = int_list(state, "market", 2, -1, 3)
    known_raw = state["known"]
    if not isinstance(known_raw, list) or len(known_raw) != P:
        raise SnapshotError(f"snapshot field 'known' must hold {P} lists")
    known = [int_list({"known": h}, "known", 4, 0, HAND_SIZE) for h in known_raw]
    strands = state["strands"]
    if not isinstance(strands, list) or not all(
        isinstance(item, list) and len(item) == 4 and isinstance(item[1], int) and 0 <= item[1] < 4
        for item in strands
    ):
        raise SnapshotError("snapshot field 'strands' must be a list of [square, kind, turn, owner]")
    player = int_field(state, "player", 0, P - 1)
    placed = int_field(state, "placed", 0, 3)
    phase = state["phase"]
    if phase not in PHASE_NAMES:
        raise SnapshotError(f"snapshot field 'phase' is {phase!r}; it must be one of {PHASE_NAMES}")

    hands: list[list[int]] = [None] * P
    sizes: dict[int, int | None] = {}
    for p, entry in enumerate(hands_given):
        if isinstance(entry, list):
            hands[p] = int_list({f"hands[{p}]": entry}, f"hands[{p}]", 4, 0, HAND_SIZE)
        elif p == seat:
            raise SnapshotError(f"snapshot field 'hands[{seat}]' must be 4 counts: player_{seat}'s own hand is not hidden from it")
        elif entry is None:
            sizes[p] = None
        elif isinstance(entry, int) and not isinstance(entry, bool) and 0 <= entry <= HAND_SIZE:
            sizes[p] = entry
        else:
            raise SnapshotError(
                f"snapshot field 'hands[{p}]' is {entry!r}; it must be 4 counts, a hand size 0…{HAND_SIZE} or null"
            )
    pile = state.get("pile")
    if pile is not None:
        if not isinstance(pile, list) or not all(
            k is None or (isinstance(k, int) and not isinstance(k, bool) and 0 <= k < 4) for k in pile
        ):
            raise SnapshotError("snapshot field 'pile' must be a list of kinds 0…3 or null entries")
    # Sizes the rules fix: a market strand means nobody ran out when last drawing.
    if any(k >= 0 for k in market):
        for p in sizes:
            if sizes[p] is None and p != player:
                sizes[p] = HAND_SIZE
            elif sizes[p] is None and phase != PHASE_NAMES[DRAW]:
                sizes[p] = HAND_SIZE - placed
    elif pile is None:
        pile = []  # an empty market slot means the pile ran out
    # What the deck leaves answers for one unknown count at most.
    shown = [0, 0, 0, 0]
    for item in strands:
        shown[item[1]] += 1
    for p in range(P):
        for k in range(4):
            shown[k] += hands[p][k] if hands[p] is not None else known[p][k]
    for k in market + (pile or []):
        if k is not None and k >= 0:
            shown[k] += 1
    left = sum(deck_totals(options)) - sum(shown)
    unknown = [p for p in sizes if sizes[p] is None] + (["pile"] if pile is None else [])
    if len(unknown) > 1:
        p = unknown[0]
        raise SnapshotError(
            f"cannot tell how many strands player_{p} holds: give 'hands[{p}]' as its size (an integer)"
        )
    if unknown:
        rest = left - sum(sizes[p] - sum(known[p]) for p in sizes if sizes[p] is not None)
        rest -= 0 if pile is None else pile.count(None)
        if unknown[0] == "pile":
            if rest < 0:
                raise SnapshotError(f"the position shows {-rest} more strands than the game has")
            pile = [None] * rest
        else:
            sizes[unknown[0]] = rest + sum(known[unknown[0]])
            if not sum(known[unknown[0]]) <= sizes[unknown[0]] <= HAND_SIZE:
                raise SnapshotError(
                    f"what the deck leaves gives player_{unknown[0]} {sizes[unknown[0]]} strands; "
                    f"a hand holds its known strands and at most {HAND_SIZE}"
                )
    scripted = options["pile"]
    if scripted is not None and None in pile:
        if len(pile) > len(scripted):
            raise SnapshotError(f"the pile holds {len(pile)} strands, the scripted pile only {len(scripted)}")
        tail = scripted[len(scripted) - len(pile):]
        pile = [tail[i] if k is None else k for i, k in enumerate(pile)]
    hidden = {}
    for p, size in sizes.items():
        if size < sum(known[p]):
            raise SnapshotError(f"hands[{p}] holds {size} strands, fewer than player_{p}'s known ones {known[p]}")
        hands[p] = known[p][:]
        hidden[p] = size - sum(known[p])
    deal_state = dict(state, hands=hands, pile=pile, market=market, known=known)
    deal = HiddenDeal(options, deal_state, hidden)
    game = deal.base.clone()
    deal.fill(game, rng)
    completed = copy.deepcopy(partial)
    completed["state"]["pile"] = list(game.deal)
    completed["state"]["hands"] = [
        game.hands[p] if p in hidden else copy.deepcopy(hands_given[p]) for p in range(P)
    ]
    KnotGame.from_snapshot(completed)
    return completed


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: each
    opponent's hand as its (public) size, the pile left out."""
    partial = copy.deepcopy(snapshot)
    state = partial["state"]
    for player in range(len(state["hands"])):
        if player != seat:
            state["hands"][player] = sum(state["hands"][player])
    state["pile"] = None
    return partial
