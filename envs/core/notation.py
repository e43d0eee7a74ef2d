"""Cell names shared by the games' notations: column letters then row number from 1.

Columns are ``a`` … ``z``, then ``aa``, ``ab``, … (spreadsheet style) for wider boards;
rows count from 1 at the top. ``a1`` is the top-left cell.
"""

from __future__ import annotations

import re

_CELL = re.compile(r"^([a-z]+)([0-9]+)$")


def column_name(col: int) -> str:
    name = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


def column_index(name: str) -> int:
    col = 0
    for ch in name:
        col = col * 26 + (ord(ch) - ord("a") + 1)
    return col - 1


def cell_name(row: int, col: int) -> str:
    return f"{column_name(col)}{row + 1}"


def parse_cell(text: str, rows: int, cols: int) -> tuple[int, int]:
    """``"c2"`` → ``(1, 2)``; a ValueError names what is wrong with the text."""
    match = _CELL.match(text.strip().lower())
    if not match:
        raise ValueError(f"{text!r} is not a cell: write a column letter and a row number, e.g. 'a1'")
    col, row = column_index(match.group(1)), int(match.group(2)) - 1
    if not (0 <= row < rows and 0 <= col < cols):
        last = cell_name(rows - 1, cols - 1)
        raise ValueError(f"{text!r} is off the board (a1…{last})")
    return row, col
