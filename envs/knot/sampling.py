"""Full Knot states from one seat's point of view, for search bots and the bot protocol.

What is hidden from a seat and how it is drawn: :mod:`envs.knot.hidden` (the opponents'
unknown hand strands; the pile holds what they leave, and its order is chance's, not part of
any state). This module reads what the seat knows, from an observation or a partial snapshot,
into the state the hidden strands complete.

``sampler(observation, options)`` decodes the vector once (:func:`read_observation`) and
checks that the state it rebuilt shows the seat exactly that observation and mask
(:func:`check_reproduces`). Three things a full state needs are public but are not in the
observation:

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

* ``state["pile"]`` (the pile's counts per kind): missing or ``null``: drawn with the hands;
  the pile's size is what the deck leaves once everything else is counted. Given, it is kept.
* ``state["hands"][p]`` for every ``p != seat``: ``null``, or an integer, the hand's size (its
  contents are drawn; the player's ``known`` strands stay in it). A ``null`` hand's size is
  inferred: while the market holds a strand every player holds 5, the player to act
  ``5 - placed`` before drawing; otherwise it is what the deck leaves, which answers for one
  unknown size at most (give the others as integers).

Given items are returned exactly as given (options and all); only the omitted ones are filled
in. The result passes ``KnotGame.from_snapshot``. ``strip_hidden`` makes such a partial
snapshot from a full one.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

from envs.core.game import SnapshotError, int_field, int_list, is_int
from envs.core.sampling import check_reproduces, read_observation
from envs.knot.geometry import SLOT_PORTS
from envs.knot.hidden import HiddenDeal
from envs.knot.observer import KnotObserver
from envs.knot.options import MAX_DECK
from envs.knot.options import DEAL, DRAW, HAND_SIZE, PHASE_NAMES, PLACE, deck_totals
from envs.knot.rules import KnotGame


# ----- from an observation ------------------------------------------------------------------------

def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], KnotGame]:
    """Decode one seat's observation once; each call returns a fresh full state consistent with
    it (the opponents' unknown strands drawn with the rng given, the pile holding the rest;
    see the module docstring)."""
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
        deal = HiddenDeal(resolved, base_state, hidden, pile_size=fields["pile"])
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
    pile = _scripted_pile(options, fields["pile"])  # None: its contents are hidden
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
        "pending": None,
    }
    return state, hidden


def _scripted_pile(options: dict[str, Any], size: int) -> list[int] | None:
    """The pile's counts when the ``pile`` option scripts it (its last ``size`` strands), else
    None: what the pile holds is then hidden."""
    scripted = options["pile"]
    if scripted is None:
        return None
    if size > len(scripted):
        raise SnapshotError(f"the pile holds {size} strands, the scripted pile only {len(scripted)}")
    tail = scripted[len(scripted) - size:]
    return [tail.count(k) for k in range(4)]


# ----- from a partial snapshot --------------------------------------------------------------------

# ----- from a partial snapshot --------------------------------------------------------------------

PUBLIC_FIELDS = ("market", "known", "strands", "closed", "scores", "turn", "player", "phase",
                 "placed", "placed_any", "growable")


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """``partial`` with the items hidden from ``seat`` that it leaves out drawn at random among
    those consistent with what it gives (see the module docstring for what may be left out)."""
    partial, options = KnotGame.read_snapshot(partial)
    P = options["players"]
    if not is_int(seat, 0, P - 1):
        raise ValueError(f"seat must be a player number 0…{P - 1}, not {seat!r}")
    state = partial["state"]
    market, known = _read_given(state, seat, P)
    hands_given = state["hands"]
    hands, sizes = _given_hands(hands_given, seat)
    pile = state.get("pile")
    if pile is not None:
        pile = int_list(state, "pile", 4, 0, 4 * MAX_DECK)
    # Sizes the rules fix (after the deal): a market strand means nobody ran out when last
    # drawing; an empty market means the pile ran out.
    phase, player, placed = state["phase"], state["player"], state["placed"]
    if phase == PHASE_NAMES[DEAL]:
        pass
    elif any(k >= 0 for k in market):
        for p in sizes:
            if sizes[p] is None and p != player:
                sizes[p] = HAND_SIZE
            elif sizes[p] is None and phase != PHASE_NAMES[DRAW]:
                sizes[p] = HAND_SIZE - placed
    elif pile is None:
        pile = [0, 0, 0, 0]
    pile_size = _settle_unknown(options, state, hands, known, market, sizes, pile)
    if pile is None:
        pile = _scripted_pile(options, pile_size)
    hidden = {}
    for p, size in sizes.items():
        if size < sum(known[p]):
            raise SnapshotError(f"hands[{p}] holds {size} strands, fewer than player_{p}'s known ones {known[p]}")
        hands[p] = known[p][:]
        hidden[p] = size - sum(known[p])
    deal_state = dict(state, hands=hands, pile=pile, market=market, known=known)
    deal = HiddenDeal(options, deal_state, hidden, pile_size=pile_size)
    game = deal.base.clone()
    deal.fill(game, rng)
    completed = copy.deepcopy(partial)
    completed["state"]["pile"] = game.pile[:]
    completed["state"]["hands"] = [
        game.hands[p] if p in hidden else copy.deepcopy(hands_given[p]) for p in range(P)
    ]
    KnotGame.from_snapshot(completed)
    return completed


def _read_given(state: dict, seat: int, P: int) -> tuple[list[int], list[list[int]]]:
    """The fields a partial snapshot must give ``seat`` (all but 'pile' and the other players'
    hands), checked; the market and each player's known strands."""
    for key in PUBLIC_FIELDS + ("pending",):
        if state.get(key) is None and (key != "pending" or key not in state):
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
    int_field(state, "player", 0, P - 1)
    int_field(state, "placed", 0, 3)
    phase = state["phase"]
    if phase not in PHASE_NAMES:
        raise SnapshotError(f"snapshot field 'phase' is {phase!r}; it must be one of {PHASE_NAMES}")
    return market, known


def _given_hands(hands_given: list, seat: int) -> tuple[list[list[int] | None], dict[int, int | None]]:
    """The hands given as counts (``None`` where left out), and the sizes of those left out
    (``None`` where the size is left out too)."""
    hands: list[list[int] | None] = [None] * len(hands_given)
    sizes: dict[int, int | None] = {}
    for p, entry in enumerate(hands_given):
        if isinstance(entry, list):
            hands[p] = int_list({f"hands[{p}]": entry}, f"hands[{p}]", 4, 0, HAND_SIZE)
        elif p == seat:
            raise SnapshotError(f"snapshot field 'hands[{seat}]' must be 4 counts: player_{seat}'s own hand is not hidden from it")
        elif entry is None:
            sizes[p] = None
        elif is_int(entry, 0, HAND_SIZE):
            sizes[p] = entry
        else:
            raise SnapshotError(
                f"snapshot field 'hands[{p}]' is {entry!r}; it must be 4 counts, a hand size 0…{HAND_SIZE} or null"
            )
    return hands, sizes


def _settle_unknown(options: dict[str, Any], state: dict, hands: list, known: list[list[int]], market: list[int],
                    sizes: dict[int, int | None], pile: list[int] | None) -> int:
    """What the deck leaves answers for one unknown count at most (a hand's size, filled into
    ``sizes``, or the pile's); the pile's size where the pile is left out (else 0)."""
    P = len(hands)
    shown = [0, 0, 0, 0]
    for item in state["strands"]:
        shown[item[1]] += 1
    for p in range(P):
        for k in range(4):
            shown[k] += hands[p][k] if hands[p] is not None else known[p][k]
    for k in market:
        if k >= 0:
            shown[k] += 1
    left = sum(deck_totals(options)) - sum(shown) - (sum(pile) if pile is not None else 0)
    unknown = [p for p in sizes if sizes[p] is None] + (["pile"] if pile is None else [])
    if len(unknown) > 1:
        p = unknown[0]
        raise SnapshotError(
            f"cannot tell how many strands player_{p} holds: give 'hands[{p}]' as its size (an integer)"
        )
    pile_size = 0
    if unknown:
        rest = left - sum(sizes[p] - sum(known[p]) for p in sizes if sizes[p] is not None)
        if unknown[0] == "pile":
            if rest < 0:
                raise SnapshotError(f"the position shows {-rest} more strands than the game has")
            pile_size = rest
        else:
            sizes[unknown[0]] = rest + sum(known[unknown[0]])
            if not sum(known[unknown[0]]) <= sizes[unknown[0]] <= HAND_SIZE:
                raise SnapshotError(
                    f"what the deck leaves gives player_{unknown[0]} {sizes[unknown[0]]} strands; "
                    f"a hand holds its known strands and at most {HAND_SIZE}"
                )
    return pile_size


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: each
    opponent's hand as its (public) size, the pile's contents left out."""
    partial = copy.deepcopy(snapshot)
    state = partial["state"]
    for player in range(len(state["hands"])):
        if player != seat:
            state["hands"][player] = sum(state["hands"][player])
    state["pile"] = None
    return partial
