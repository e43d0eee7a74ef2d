"""Full states from one seat's observation, for search bots; future throws are the unknown.

Loom hides nothing but the dice still to come. ``sampler(observation, options)`` decodes the
vector once (cloths, scores, round, the current throw and which thread is taken) and returns a
function that, per call, draws the rounds after the current one afresh — each throw two fair
dice, sorted, as the engine draws them — so a search samples chance instead of knowing it.
Rounds already played do not matter to the rest of the game; they are filled with the current
throw. With scripted ``throws`` in the options the future is part of the rules everyone was
given, and the sampler uses it.

``complete_snapshot(partial, seat, rng)``: in the snapshot's ``state``, ``throws`` may be
missing, shorter than 16 rounds, or hold ``null`` for any round after the current one; those
rounds are drawn. The current round's throw is public: missing, it is an error.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

from envs.core.game import SnapshotError
from envs.core.sampling import check_reproduces, read_observation
from envs.loom.observer import LoomObserver
from envs.loom.rules import ROUNDS, LoomGame


def draw_throw(rng: random.Random) -> tuple[int, int]:
    low, high = rng.randint(1, 6), rng.randint(1, 6)
    return (low, high) if low <= high else (high, low)


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
    scripted = resolved["throws"]
    throws = [list(t) for t in scripted] if scripted is not None else [list(throw)] * ROUNDS
    state = {"throws": throws, "cloths": cloths, "scores": scores, "round": rnd, "taken": taken}
    try:
        base = LoomGame.from_state_dict(resolved, state)
    except ValueError as error:
        raise ValueError(f"the observation is not a Loom position: {error}") from None
    check_reproduces(view, base, seat)
    if scripted is not None:
        return lambda rng: base.clone()
    past = [throw] * (rnd + 1)

    def sample(rng: random.Random) -> LoomGame:
        game = base.clone()
        game.throws = past + [draw_throw(rng) for _ in range(ROUNDS - rnd - 1)]
        return game

    return sample


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    if not isinstance(partial, dict) or not isinstance(partial.get("state"), dict):
        raise SnapshotError("a snapshot is a dict with a 'state' dict")
    state = dict(partial["state"])
    rnd = state.get("round")
    if not isinstance(rnd, int) or not 0 <= rnd <= ROUNDS:
        raise SnapshotError(f"snapshot field 'round' must be an integer 0…{ROUNDS}, not {rnd!r}")
    throws = state.get("throws")
    throws = [] if throws is None else throws
    if not isinstance(throws, list) or len(throws) > ROUNDS:
        raise SnapshotError(f"snapshot field 'throws' must be a list of at most {ROUNDS} throws")
    throws = throws + [None] * (ROUNDS - len(throws))
    for index, throw in enumerate(throws):
        if throw is None:
            if index <= rnd < ROUNDS:
                raise SnapshotError(
                    f"snapshot field 'throws' lacks round {index}'s throw, which is public "
                    f"(the game is in round {rnd}); only later rounds may be left out"
                )
            throws[index] = list(draw_throw(rng))
    state["throws"] = throws
    completed = dict(partial, state=state)
    return LoomGame.from_snapshot(completed).snapshot()


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: every
    throw after the current round left out (``null``; unknown to everybody)."""
    partial = copy.deepcopy(snapshot)
    state = partial["state"]
    for index in range(state["round"] + 1, len(state["throws"])):
        state["throws"][index] = None
    return partial
