"""The lines of a Linecatch board: which squares form each line, and the lines of each square."""

from __future__ import annotations

from functools import lru_cache

from envs.core.notation import cell_name, column_name

NO_MARK = -1  # the mark of a square no caught line crosses


class Geometry:
    """The lines of one board: cells per line, lines per cell, and bitmasks for the solver."""

    def __init__(self, rows: int, cols: int, pro: bool):
        self.rows, self.cols, self.pro = rows, cols, pro
        self.size = rows * cols
        lines: list[tuple[int, ...]] = []
        for r in range(rows):
            lines.append(tuple(r * cols + c for c in range(cols)))
        for c in range(cols):
            lines.append(tuple(r * cols + c for r in range(rows)))
        if pro:
            # Diagonals of constant r-c (falling) and constant r+c (rising), 3 squares or more.
            for diff in range(-(cols - 1), rows):
                cells = tuple(r * cols + (r - diff) for r in range(rows) if 0 <= r - diff < cols)
                if len(cells) >= 3:
                    lines.append(cells)
            for total in range(rows + cols - 1):
                cells = tuple(r * cols + (total - r) for r in range(rows) if 0 <= total - r < cols)
                if len(cells) >= 3:
                    lines.append(cells)
        self.lines = lines
        self.line_length = [len(line) for line in lines]
        self.cell_lines = [
            tuple(i for i, line in enumerate(lines) if cell in line) for cell in range(self.size)
        ]
        self.line_mask = [sum(1 << cell for cell in line) for line in lines]
        self.total_points = sum(self.line_length)

    def line_name(self, line: int) -> str:
        """``row 3``, ``column c`` or ``diagonal a1-c3`` (its end squares, top first)."""
        cells = self.lines[line]
        if line < self.rows:
            return f"row {line + 1}"
        if line < self.rows + self.cols:
            return f"column {column_name(line - self.rows)}"
        first, last = (cell_name(*divmod(cell, self.cols)) for cell in (cells[0], cells[-1]))
        return f"diagonal {first}-{last}"

    def catch_points(self, black_mask: int, cell: int) -> int:
        """Points blackening ``cell`` catches when the squares of ``black_mask`` are black."""
        after = black_mask | (1 << cell)
        return sum(
            self.line_length[line]
            for line in self.cell_lines[cell]
            if after & self.line_mask[line] == self.line_mask[line]
        )


@lru_cache(maxsize=None)
def geometry(rows: int, cols: int, pro: bool) -> Geometry:
    return Geometry(rows, cols, pro)
