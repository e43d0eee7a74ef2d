"""Loom's cloth arithmetic: the 4×4 grid, its eight lines, scoring and the touching law.

Module-level functions, so that bots, observers and front ends price weaves with exactly the
engine's rules. A cloth is a list of 16 dyes (``row*4 + col``, 0 = empty). The engine also keeps
each line's contents as one base-7 number (its *code*, see ``LINE_WEIGHTS``), so that what a
dye adds to a line is one look-up in ``line_gain_table``.
"""

from __future__ import annotations

from functools import lru_cache

SIDE = 4
CELLS = 16
DYES = range(1, 7)
EMPTY = 0

# Orthogonal neighbours, and the row and column through each cell.
NEIGHBOURS = [
    tuple(
        (r + dr) * SIDE + (c + dc)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < SIDE and 0 <= c + dc < SIDE
    )
    for r in range(SIDE)
    for c in range(SIDE)
]
ROW_OF = [tuple(r * SIDE + c for c in range(SIDE)) for r in range(SIDE) for _ in range(SIDE)]
COL_OF = [tuple(r * SIDE + c for r in range(SIDE)) for _ in range(SIDE) for c in range(SIDE)]
LINES = [tuple(r * SIDE + c for c in range(SIDE)) for r in range(SIDE)] + [
    tuple(r * SIDE + c for r in range(SIDE)) for c in range(SIDE)
]
# Each line's contents as one base-7 number (digit = dye, 0 empty), kept by the engine so
# observers can price a line with one table look-up: cell → (row line, weight, column line, weight).
LINE_WEIGHTS = [
    (cell // SIDE, 7 ** (cell % SIDE), SIDE + cell % SIDE, 7 ** (cell // SIDE)) for cell in range(CELLS)
]
LINE_CODES = 7 ** SIDE


def line_dyes(code: int) -> list[int]:
    """A line's dyes from its base-7 code (see ``LINE_WEIGHTS``), 0 for an empty cell."""
    return [code // 7 ** k % 7 for k in range(SIDE)]


@lru_cache(maxsize=16)
def line_gain_table(bounty: int) -> tuple[tuple[int, ...], ...]:
    """``table[code][dye]``: what weaving ``dye`` adds to a line whose contents are ``code``
    (its dyes as base-7 digits, see ``LINE_WEIGHTS``): the dye if new to the line, plus the
    bounty when it fills the line's last cell with a fourth different dye."""
    table = []
    for code in range(LINE_CODES):
        dyes = line_dyes(code)
        present = {d for d in dyes if d}
        finishing = dyes.count(EMPTY) == 1 and len(present) == SIDE - 1
        table.append(tuple(
            0 if dye == EMPTY or dye in present else dye + (bounty if finishing else 0) for dye in range(7)
        ))
    return tuple(table)


def line_score(dyes, bounty: int) -> int:
    """Sum of distinct dyes, plus ``bounty`` when the line is full with four different dyes."""
    distinct = {d for d in dyes if d}
    score = sum(distinct)
    if len(distinct) == SIDE and EMPTY not in dyes:
        score += bounty
    return score


def cloth_score(cloth, bounty: int) -> int:
    return sum(line_score([cloth[c] for c in line], bounty) for line in LINES)


def cloth_gain(cloth, cell: int, dye: int, bounty: int) -> int:
    """Score after weaving ``dye`` into empty ``cell`` minus before (only its row and column move)."""
    total = 0
    for line in (ROW_OF[cell], COL_OF[cell]):
        before = [cloth[c] for c in line]
        after = [dye if c == cell else cloth[c] for c in line]
        total += line_score(after, bounty) - line_score(before, bounty)
    return total


def touches(cloth, cell: int, dye: int) -> bool:
    for n in NEIGHBOURS[cell]:
        if cloth[n] == dye:
            return True
    return False


def allowed_cells(cloth, dye: int) -> list[int]:
    """The touching law: clean empty cells for ``dye``, or every empty cell if none is clean."""
    empty = [c for c in range(CELLS) if cloth[c] == EMPTY]
    clean = [c for c in empty if not touches(cloth, c, dye)]
    return clean or empty
