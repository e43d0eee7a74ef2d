"""Full states from one seat's observation, for search bots and the bot server.

Loom hides nothing: the state holds no future throws (each round's throw is a chance node), so
``sampler(observation, options)`` rebuilds the one position the observation shows and hands out
a fresh clone per call. The observation does not list past throws (they change nothing to
come); the rebuilt state takes throws that give each cloth its dyes (``throws.pair_up``), or the
scripted ``throws`` option's when the options script them.

``complete_snapshot(partial, seat, rng)`` reads a snapshot as front ends write it: nothing may
be left out except past throws, which may be ``null`` (they are filled with throws that give
each cloth its dyes). The current round's throw, once listed, must show its dice: a ``null``
there is refused. Entries of ``throws`` after the round's are dropped: older snapshots listed
all 16 rounds, with ``null`` for the rounds to come.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

from envs.core.game import SnapshotError, short_repr
from envs.core.sampling import check_reproduces, read_observation
from envs.loom.observer import LoomObserver
from envs.loom.rules import ROUNDS, LoomGame
from envs.loom.throws import assign_threads, pair_up


def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], LoomGame]:
    view = read_observation(LoomGame, LoomObserver, observation, options)
    resolved, fields = view.options, view.fields
    if fields["bounty"] != resolved["bounty"]:
        raise ValueError(f"the observation is of bounty {fields['bounty']}, the options say {resolved['bounty']}")
    rnd, throw = fields["round"], fields["throw"]
    if rnd >= ROUNDS or throw is None:
        raise ValueError("the observation is of a finished game: there is no seat to act")
    drafter = rnd % 2
    seat = drafter if fields["drafter"] else 1 - drafter
    first, second = fields["available"]
    taken = -1 if first and second else (1 if first else 0)
    if (taken < 0) != (seat == drafter):
        raise ValueError("the observation's seat is not the one to act (its mask would be empty)")
    cloths = [None, None]
    cloths[seat], cloths[1 - seat] = fields["my_cloth"], fields["their_cloth"]
    scores = [0, 0]
    scores[seat], scores[1 - seat] = fields["my_score"], fields["their_score"]
    throws = [None] * rnd + [list(throw)]
    state = {"throws": throws, "cloths": cloths, "scores": scores, "round": rnd, "taken": taken}
    try:
        base = LoomGame.from_state_dict(resolved, fill_past_throws(state, resolved))
    except ValueError as error:
        raise ValueError(f"the observation is not a Loom position: {error}") from None
    check_reproduces(view, base, seat)
    return lambda rng: base.clone()


def fill_past_throws(state: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``state`` with its ``null`` past throws filled: from the scripted ``throws`` option, or
    with throws that give each cloth the dyes the known throws leave it (a ``SnapshotError`` if
    the known throws cannot have given the cloths their dyes). Anything else malformed is left
    for ``from_state_dict`` to name."""
    throws, cloths, rnd, taken = state.get("throws"), state.get("cloths"), state.get("round"), state.get("taken")
    if not isinstance(throws, list) or None not in throws:
        return state
    if options["throws"] is not None:
        scripted = options["throws"]
        return dict(state, throws=[list(scripted[i]) if pair is None and i < ROUNDS else pair
                                   for i, pair in enumerate(throws)])
    if not (isinstance(rnd, int) and 0 <= rnd <= ROUNDS and isinstance(cloths, list) and len(cloths) == 2
            and all(isinstance(c, list) for c in cloths) and rnd <= len(throws)):
        return state
    if rnd < len(throws) and throws[rnd] is None:
        raise SnapshotError(f"snapshot field 'throws' lacks round {rnd}'s throw, the one on the table")
    past = throws[:rnd]
    known = [pair for pair in past if pair is not None]
    if not all(_is_throw(pair) for pair in known):
        return state
    dyes = [[d for d in cloth if isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6] for cloth in cloths]
    if rnd < len(throws) and taken in (0, 1) and _is_throw(throws[rnd]):
        drafted = sorted(throws[rnd])[taken]  # this round's thread in the drafter's cloth
        if drafted in dyes[rnd % 2]:
            dyes[rnd % 2].remove(drafted)
    if len(dyes[0]) != rnd or len(dyes[1]) != rnd:
        return state  # the cloths do not fit the round: from_state_dict says so
    pairs = [tuple(sorted(pair)) for pair in known]
    choices = assign_threads(pairs, dyes, complete=False)
    if choices is None:
        raise SnapshotError("snapshot field 'throws': the throws given cannot have given the cloths their dyes")
    for (low, high), who in zip(pairs, choices):
        dyes[0].remove(low if who == 0 else high)
        dyes[1].remove(high if who == 0 else low)
    made = iter(pair_up(dyes[0], dyes[1]))
    return dict(state, throws=[list(next(made)) if pair is None else pair for pair in past] + throws[rnd:])


def _is_throw(pair: Any) -> bool:
    return (isinstance(pair, list) and len(pair) == 2
            and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in pair))


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """A complete snapshot from a front end's: past throws may be ``null``; entries of
    ``throws`` after the position's last throw are dropped (see the module docstring)."""
    if not isinstance(partial, dict) or not isinstance(partial.get("state"), dict):
        raise SnapshotError("a snapshot is a dict with a 'state' dict")
    snapshot, options = LoomGame.read_snapshot(partial)
    state = dict(snapshot["state"])
    rnd, throws = state.get("round"), state.get("throws")
    if not isinstance(rnd, int) or isinstance(rnd, bool) or not 0 <= rnd <= ROUNDS:
        raise SnapshotError(f"snapshot field 'round' must be an integer 0…{ROUNDS}, not {short_repr(rnd)}")
    if not isinstance(throws, list) or len(throws) > ROUNDS:
        raise SnapshotError(f"snapshot field 'throws' must be a list of at most {ROUNDS} throws, not {short_repr(throws)}")
    if rnd < ROUNDS and len(throws) > rnd:
        # An entry for the round means its throw is on the table: it must show the dice (a null
        # there would have the bot answer for dice drawn anew, which the table does not show).
        # Every later entry is the future: dropped.
        if throws[rnd] is None:
            taken = state.get("taken")
            what = (f"the drafter took thread {taken}" if taken in (0, 1)
                    else "the drafter chooses from it: give its two dyes")
            raise SnapshotError(f"snapshot field 'throws' lacks round {rnd}'s throw, which is on the table ({what})")
        throws = throws[:rnd + 1]
    state["throws"] = throws
    state = fill_past_throws(state, options)
    return LoomGame.from_snapshot(dict(snapshot, state=state)).snapshot()


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: Loom
    hides nothing (future throws are not in the state), so a copy."""
    return copy.deepcopy(snapshot)
