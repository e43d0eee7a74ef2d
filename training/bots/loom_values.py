"""Loom's fitted line values: what a line of a cloth tends to end at, by its contents and by how
full its cloth is (``training/bots/loom_lines.json``, fitted by ``scripts/fit_loom_lines.py``).

A cloth scores line by line, so mid-game it is worth about the sum over its eight lines of what
each line tends to end at. The search hooks (:mod:`training.bots.loom`) price weaves and cut-off
play-outs with these values.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from envs.loom.cloth import CELLS, EMPTY, LINE_CODES, LINE_WEIGHTS, line_dyes, line_score
from envs.loom.rules import ROUNDS, LoomGame

LINE_VALUES_PATH = Path(__file__).with_name("loom_lines.json")
SHRINK = 20  # samples at which a (cloth fill, signature) mean counts as much as the pooled one


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


def weave_deltas(values: LineValues, state: LoomGame, player: int, dye: int, cells) -> list[float]:
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
