"""High card's hidden item is the opponent's card this round: drawn from the cards the seat
does not hold (every one is as likely: the betting tells nothing for certain)."""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

from envs.core.game import SnapshotError
from envs.core.sampling import check_reproduces, read_observation
from tests.toy.highcard.observer import HighCardObserver
from tests.toy.highcard.rules import HighCardGame


def other_card(cards: int, mine: int, rng: random.Random) -> int:
    left = [card for card in range(cards) if card != mine]
    return left[int(rng.random() * len(left))]


def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], HighCardGame]:
    view = read_observation(HighCardGame, HighCardObserver, observation, options)
    fields, resolved = view.fields, view.options
    if fields["card"] < 0 or fields["history"] is None or fields["seat"] < 0:
        raise ValueError("the observation is not of a seat holding its card with a bet to make")
    seat = fields["seat"]
    mine, theirs = fields["chips"]

    def draw(rng: random.Random) -> HighCardGame:
        hands = [fields["card"], other_card(resolved["cards"], fields["card"], rng)]
        state = {"round": fields["round"], "hands": hands if seat == 0 else hands[::-1],
                 "history": list(fields["history"]), "chips": [mine, theirs] if seat == 0 else [theirs, mine]}
        return HighCardGame.from_state_dict(resolved, state)

    check_reproduces(view, draw(random.Random(0)), seat)
    return draw


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    if seat not in (0, 1):
        raise SnapshotError(f"seat {seat!r} is not a seat of this game (0 or 1)")
    snapshot, options = HighCardGame.read_snapshot(partial)
    state = copy.deepcopy(snapshot["state"])
    hands = state.get("hands")
    if isinstance(hands, list) and len(hands) == 2 and hands[1 - seat] is None:
        mine = hands[seat] if isinstance(hands[seat], int) else -1
        hands[1 - seat] = other_card(options["cards"], mine, rng) if (seat == 1 or mine >= 0) else -1
    return HighCardGame.from_snapshot({**snapshot, "state": state}).snapshot()


def strip_hidden(snapshot: dict, seat: int) -> dict:
    partial = copy.deepcopy(snapshot)
    if partial["state"]["hands"][1 - seat] >= 0:
        partial["state"]["hands"][1 - seat] = None
    return partial
