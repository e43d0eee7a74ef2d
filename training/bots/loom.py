"""Loom's bots and search hooks.

* ``HeuristicLoomBot``: price both threads with the engine's gain for me and for the rival's
  leftover (``weave_values`` is the same price on an engine state, for the fit script);
* the search hooks (``KIT.search``): weaves priced by the fitted line values
  (:mod:`training.bots.loom_values`), the preferred weaves of play-outs and the root, and the
  evaluation of a play-out cut off mid-game.
"""

from __future__ import annotations

import math
import random
from typing import Any

from envs.loom.cloth import CELLS, DYES, EMPTY, LINE_WEIGHTS, allowed_cells, cloth_gain, touches
from envs.loom.observer import LoomObserver
from envs.loom.rules import ROUNDS, LoomGame
from training.agents.base import legal_from_mask
from training.bots import BotKit, LadderSpec, SearchHooks
from training.bots.loom_values import line_values, weave_deltas


def clean_room(cloth) -> int:
    """Empty cells summed over the six dyes where that dye would touch no twin."""
    empty = [c for c in range(CELLS) if cloth[c] == EMPTY]
    return sum(1 for dye in DYES for c in empty if not touches(cloth, c, dye))


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


def weave_values(state: LoomGame) -> tuple[list[int], list[int]]:
    """The heuristic's price of every legal weave on an engine state: its gain, minus (for a
    drafter) the rival's best gain with the leftover thread."""
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
    return legal, [gain(mine, a % CELLS, throw[a // CELLS]) - rival_best[a // CELLS] for a in legal]


# ----- search hooks (training.search.mcts) ------------------------------------------------------------
# The search prices weaves and cut-off play-outs with the fitted line values
# (training/bots/loom_values.py).

PREFERENCE_MARGIN = 1.0  # play-outs choose among weaves within this many expected points of the best
ROOT_MARGIN, ROOT_LIMIT = 3.0, 8  # the root weighs first the best 8 weaves within 3 points


def line_weave_values(state: LoomGame) -> tuple[list[int], list[float]]:
    """Every legal weave priced by the fitted line values (``weave_deltas``), minus (for a
    drafter) the rival's best weave of the leftover thread."""
    values, _ = line_values(state.bounty)
    legal = state.legal_actions()
    player = state.current_player()
    throw = state.throws[state.round]
    rival_best = [0.0, 0.0]
    if state.taken < 0:
        rival = state.cloths[1 - player]
        for t in (0, 1):
            leftover = throw[1 - t]
            rival_best[t] = max(weave_deltas(values, state, 1 - player, leftover, allowed_cells(rival, leftover)))
    cells_by_thread: dict[int, list[int]] = {}
    for action in legal:
        cells_by_thread.setdefault(action // CELLS, []).append(action % CELLS)
    prices = []  # legal lists thread 0's weaves, then thread 1's: price them a thread at a time
    for t, cells in cells_by_thread.items():
        prices.extend(delta - rival_best[t] for delta in weave_deltas(values, state, player, throw[t], cells))
    return legal, prices


def preferred_actions(state: LoomGame) -> list[int]:
    """The weaves within ``PREFERENCE_MARGIN`` expected points of the best (``line_weave_values``):
    MCTS plays out among them and tries them first. (At a chance node: every throw.)"""
    if state.is_chance_node():
        return state.legal_actions()
    legal, prices = line_weave_values(state)
    best = max(prices)
    return [a for a, v in zip(legal, prices) if v >= best - PREFERENCE_MARGIN]


def root_preferred_actions(state: LoomGame) -> list[int]:
    """The root's first candidates: a wider net than play-outs use (at most ``ROOT_LIMIT``
    weaves within ``ROOT_MARGIN`` points), so a weave that gives up points now for a better
    line later is in the search from the start."""
    legal, prices = line_weave_values(state)
    ranked = sorted(zip(prices, legal), key=lambda pair: -pair[0])
    best = ranked[0][0]
    return [a for v, a in ranked[:ROOT_LIMIT] if v >= best - ROOT_MARGIN]


def expected_points(state: LoomGame) -> list[float]:
    """Each cloth's expected final score by the fitted line values; a rival still to weave
    the leftover thread is credited with its best weave of it (``weave_deltas``). At a chance
    node (no throw on the table) the cloths alone."""
    values, _ = line_values(state.bounty)
    filled = [sum(1 for d in cloth if d) for cloth in state.cloths]
    expected = [values.cloth(filled[p], state.codes[p]) for p in (0, 1)]
    if state.taken >= 0 and state.round < ROUNDS:
        player = state.current_player()
        dye = state.throws[state.round][1 - state.taken]
        cells = [a % CELLS for a in state.legal_actions()]
        expected[player] += max(weave_deltas(values, state, player, dye, cells))
    return expected


def evaluate_state(state: LoomGame) -> list[float]:
    """A play-out cut off mid-game (MCTS ``depth``): the expected final margin by the fitted
    line values, turned into a win chance with the fitted spread of what is still to come,
    as 2·P(win) − 1 under a normal spread."""
    _, spread = line_values(state.bounty)
    mine, theirs = expected_points(state)
    sigma = max(spread[min(state.round, ROUNDS - 1)], 1.0)
    value = math.erf((mine - theirs) / (sigma * math.sqrt(2.0)))
    return [value, -value]


KIT = BotKit(
    heuristic=HeuristicLoomBot,
    search=SearchHooks(preferred=preferred_actions, root_preferred=root_preferred_actions,
                       evaluate=evaluate_state),
    ladders=(
        LadderSpec({}, mcts=":depth=2:margin=1", trained="checkpoints/loom/loom__maskppo__0.zip",
                   note="default options; play-outs cut after 2 moves and scored by the fitted line values"),
    ),
)
