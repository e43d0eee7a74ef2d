"""Loom heuristic: price both threads with ``gain`` for me and for the rival's leftover."""

from __future__ import annotations

import json
import math
import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from envs.loom.observer import LoomObserver
from envs.loom.rules import (CELLS, EMPTY, LINE_CODES, LINE_WEIGHTS, ROUNDS, LoomGame, allowed_cells, cloth_gain,
                             line_dyes, line_score, touches)
from training.agents import legal_from_mask
from training.bots import BotKit, LadderSpec, SearchHooks


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


# ----- search hooks (training.mcts) ------------------------------------------------------------
# A cloth scores line by line, so mid-game it is worth about the sum over its eight lines of
# what each line tends to end at. ``scripts/fit_loom_lines.py`` measures that from greedy
# self-play; the search prices weaves and cut-off play-outs with it.

LINE_VALUES_PATH = Path(__file__).with_name("loom_lines.json")
SHRINK = 20  # samples at which a (cloth fill, signature) mean counts as much as the pooled one
PREFERENCE_MARGIN = 1.0  # play-outs choose among weaves within this many expected points of the best
ROOT_MARGIN, ROOT_LIMIT = 3.0, 8  # the root weighs first the best 8 weaves within 3 points


def line_signature(code: int) -> str:
    """A line's contents as its sorted distinct dyes and how many of its cells are filled,
    e.g. ``"356/4"`` (three dyes in four cells: one repeated, so no bounty)."""
    dyes = line_dyes(code)
    present = sorted({d for d in dyes if d})
    return "".join(map(str, present)) + f"/{sum(1 for d in dyes if d)}"


class LineValues:
    """Expected final score of a line by its contents and how full its cloth is:
    ``value[filled][code]`` (``filled`` = cells filled in the cloth, ``code`` = the engine's
    base-7 line code), from the table of ``scripts/fit_loom_lines.py``. Full lines score
    exactly; a (fill, signature) seen fewer than ``SHRINK`` times leans on the signature's mean
    over all fills, and one never seen is worth its dyes so far. The table holds the share of
    lines that earned the bounty, so other bounties are priced from the same play."""

    def __init__(self, table: dict[str, list[float]], bounty: int):
        pooled: dict[str, list[float]] = {}
        for key, (count, distinct, bounties) in table.items():
            entry = pooled.setdefault(key.split("|")[1], [0, 0.0])
            entry[0] += count
            entry[1] += count * (distinct + bounty * bounties)
        decoded = [(line_dyes(code), line_signature(code)) for code in range(LINE_CODES)]
        self.value: list[list[float]] = []
        for filled in range(CELLS + 1):
            row = []
            for dyes, signature in decoded:
                if EMPTY not in dyes:
                    row.append(float(line_score(dyes, bounty)))
                    continue
                count, total = pooled.get(signature, (0, 0.0))
                prior = total / count if count else float(sum(set(dyes)))
                entry = table.get(f"{filled}|{signature}")
                if entry is None:
                    row.append(prior)
                else:
                    n, distinct, bounties = entry
                    row.append((n * (distinct + bounty * bounties) + SHRINK * prior) / (n + SHRINK))
            self.value.append(row)

    def cloth(self, filled: int, codes) -> float:
        row = self.value[filled]
        return sum(row[code] for code in codes)


@lru_cache(maxsize=8)
def line_values(bounty: int) -> tuple[LineValues, list[float]]:
    """The fitted line values priced at ``bounty``, and the spread (standard deviation) of the
    final margin around the predicted one, per round (fitted at the table's bounty)."""
    try:
        record = json.loads(LINE_VALUES_PATH.read_text())
        table, spread = record["table"], record["margin_spread"]
    except (OSError, ValueError, KeyError) as error:
        raise RuntimeError(f"{LINE_VALUES_PATH} is missing or corrupt ({error}); "
                           f"rebuild it with python scripts/fit_loom_lines.py") from error
    if len(spread) != ROUNDS + 1:
        raise RuntimeError(f"{LINE_VALUES_PATH}: margin_spread needs {ROUNDS + 1} rounds, not {len(spread)}")
    return LineValues(table, bounty), spread


def _weave_deltas(values: LineValues, state: LoomGame, player: int, dye: int, cells) -> list[float]:
    """What weaving ``dye`` into each of ``cells`` is worth by the line values: the woven row
    and column at their new contents in a cloth one cell fuller, minus the two as they are.
    The other six lines are not repriced (the search was tuned and measured this way)."""
    codes = state.codes[player]
    filled = sum(1 for d in state.cloths[player] if d)
    before, after = values.value[filled], values.value[filled + 1]
    out = []
    for cell in cells:
        row, row_weight, col, col_weight = LINE_WEIGHTS[cell]
        out.append(after[codes[row] + dye * row_weight] + after[codes[col] + dye * col_weight]
                   - before[codes[row]] - before[codes[col]])
    return out


def line_weave_values(state: LoomGame) -> tuple[list[int], list[float]]:
    """Every legal weave priced by the fitted line values (``_weave_deltas``), minus (for a
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
            rival_best[t] = max(_weave_deltas(values, state, 1 - player, leftover, allowed_cells(rival, leftover)))
    cells_by_thread: dict[int, list[int]] = {}
    for action in legal:
        cells_by_thread.setdefault(action // CELLS, []).append(action % CELLS)
    prices = []  # legal lists thread 0's weaves, then thread 1's: price them a thread at a time
    for t, cells in cells_by_thread.items():
        prices.extend(delta - rival_best[t] for delta in _weave_deltas(values, state, player, throw[t], cells))
    return legal, prices


def preferred_actions(state: LoomGame) -> list[int]:
    """The weaves within ``PREFERENCE_MARGIN`` expected points of the best (``line_weave_values``):
    MCTS plays out among them and tries them first."""
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
    the leftover thread is credited with its best weave of it (``_weave_deltas``)."""
    values, _ = line_values(state.bounty)
    filled = [sum(1 for d in cloth if d) for cloth in state.cloths]
    expected = [values.cloth(filled[p], state.codes[p]) for p in (0, 1)]
    if state.taken >= 0 and state.round < ROUNDS:
        player = state.current_player()
        dye = state.throws[state.round][1 - state.taken]
        cells = [a % CELLS for a in state.legal_actions()]
        expected[player] += max(_weave_deltas(values, state, player, dye, cells))
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


def chance_key(state: LoomGame) -> tuple[int, int] | None:
    """The throw on the table: MCTS keeps one subtree per throw it has sampled."""
    return state.throws[state.round] if state.round < len(state.throws) else None

KIT = BotKit(
    heuristic=HeuristicLoomBot,
    search=SearchHooks(preferred=preferred_actions, root_preferred=root_preferred_actions,
                       evaluate=evaluate_state, chance_key=chance_key),
    ladders=(
        LadderSpec({}, mcts=":depth=2:margin=1", trained="checkpoints/loom/loom__maskppo__0.zip",
                   note="default options; play-outs cut after 2 moves and scored by the fitted line values"),
    ),
)
