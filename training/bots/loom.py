"""Loom heuristic: price both threads with ``gain`` for me and for the rival's leftover."""

from __future__ import annotations

import math
import random
from typing import Any

from envs.loom.observer import LoomObserver
from envs.loom.rules import CELLS, EMPTY, LINE_WEIGHTS, LoomGame, allowed_cells, cloth_gain, touches
from training.agents import legal_from_mask


def clean_room(cloth) -> int:
    """Empty cells summed over the six dyes where that dye would touch no twin."""
    empty = [c for c in range(CELLS) if cloth[c] == EMPTY]
    return sum(1 for dye in range(1, 7) for c in empty if not touches(cloth, c, dye))


class HeuristicLoomBot:
    """Drafter: maximise my gain minus the rival's best gain with the leftover thread.

    Rival (or any forced weave): the cell with the best gain. Ties go to the cell that keeps
    the most clean room for the dyes still to come, then to the seeded generator.
    """

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = LoomGame.resolve_options(options)
        self.observer = LoomObserver(self.options)
        self.rng = random.Random(seed)

    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        seen = self.observer.decode(observation)
        mine, theirs, throw = seen["my_cloth"], seen["their_cloth"], seen["throw"]
        bounty = seen["bounty"]
        drafting = all(seen["available"])
        scored = []
        for action in legal:
            t, cell = divmod(action, CELLS)
            value = cloth_gain(mine, cell, throw[t], bounty)
            if drafting:
                leftover = throw[1 - t]
                value -= max(cloth_gain(theirs, c, leftover, bounty) for c in allowed_cells(theirs, leftover))
            woven = mine[:]
            woven[cell] = throw[t]
            room = clean_room(woven) / 100.0
            scored.append((value + room, action))
        best = max(v for v, _ in scored)
        return self.rng.choice([a for v, a in scored if v >= best - 1e-9])


def preferred_actions(state: LoomGame) -> list[int]:
    """The heuristic's pricing on an engine state, cheap enough for search: the weaves within
    one point of the best, where a drafter's weave is priced as its gain minus the rival's best
    gain with the leftover thread. MCTS plays out among them and tries them first."""
    legal = state.legal_actions()
    player = state.current_player()
    throw, gains = state.throws[state.round], state.gains

    def gain(codes, cell: int, dye: int) -> int:
        row, _, col, _ = LINE_WEIGHTS[cell]
        return gains[codes[row]][dye] + gains[codes[col]][dye]

    mine = state.codes[player]
    rival_best = [0, 0]
    if state.taken < 0:
        rival, rival_codes = state.cloths[1 - player], state.codes[1 - player]
        for t in (0, 1):
            leftover = throw[1 - t]
            rival_best[t] = max(gain(rival_codes, c, leftover) for c in allowed_cells(rival, leftover))
    values = [gain(mine, a % CELLS, throw[a // CELLS]) - rival_best[a // CELLS] for a in legal]
    best = max(values)
    return [a for a, v in zip(legal, values) if v >= best - 1]


EVALUATION_SCALE = 15.0  # points of lead that count as a near-certain win mid-game
POTENTIAL_WEIGHT = 0.3  # how much of the best gains still open in a cloth counts as points


def open_potential(state: LoomGame, player: int) -> int:
    """Sum over the player's empty cells of the best gain any dye could make there: room to
    score still open in the cloth (a line that already repeats dyes has less)."""
    cloth, codes, gains = state.cloths[player], state.codes[player], state.gains
    total = 0
    for cell in range(CELLS):
        if not cloth[cell]:
            row, _, col, _ = LINE_WEIGHTS[cell]
            by_row, by_col = gains[codes[row]], gains[codes[col]]
            total += max(by_row[d] + by_col[d] for d in range(1, 7))
    return total


def evaluate_state(state: LoomGame) -> list[float]:
    """A playout cut off mid-game (MCTS ``depth``): the lead in points plus a share of the lead
    in open potential, squashed to (−1, 1)."""
    lead = state.points[0] - state.points[1]
    lead += POTENTIAL_WEIGHT * (open_potential(state, 0) - open_potential(state, 1))
    value = math.tanh(lead / EVALUATION_SCALE)
    return [value, -value]


def chance_key(state: LoomGame) -> tuple[int, int] | None:
    """The throw on the table: MCTS keeps one subtree per throw it has sampled."""
    return state.throws[state.round] if state.round < len(state.throws) else None


BOTS = {"heuristic": HeuristicLoomBot}
