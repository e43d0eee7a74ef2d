"""Exact Linecatch solver for every board of up to 25 squares (5×5, pro mode included).

The future of a game depends only on the set of black squares: a catch keeps the move, and
the points still to come depend on nothing else. So one table over all ``2**n`` sets holds
each set's **value**: the best achievable (mover's future points − opponent's future points),
the mover being whoever is to move there. The full board is worth 0; otherwise

    value(S) = max over white squares c of  g + value(S + c)  if the move catches (g > 0)
                                             g − value(S + c)  if it catches nothing (g = 0)

where ``g`` is the points blackening ``c`` catches (the last square of the board ends the
game, and ``value(full) = 0`` makes both forms agree there).

The table is filled by one vectorised numpy sweep from the full board back to the empty one.
A set is split into its high squares (the last ``n − 18``) and its low squares (the first 18);
the sets of one high part and one number ``j`` of black low squares form a chunk, and the
chunks are visited by high part descending, then ``j`` descending. Every successor of a chunk's
sets (one more black square: a higher high part, or one more black low square) is then already
known, and each chunk is computed whole, square by square, with array operations. The values
fit one signed byte: ``|value|`` is at most the points left on the board, and a board of up to
25 squares pays out at most 100 (each square lies on at most four lines).

A 5×5 table takes 10–15 seconds on a 2-core machine and the process peaks near 100 MB
(``python -m envs.linecatch.solver --rebuild`` measures both). Boards of 21 squares or more are kept on disk after the first build (see
``cache_dir``), read back memory-mapped so that processes share the pages; smaller ones build
in a second or two and live in memory only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from envs.linecatch.rules import Geometry, LinecatchGame, geometry

MAX_SQUARES = 25
"""The largest board the solver takes (``2**25`` sets: 32 MiB of table)."""

DISK_FROM = 21
"""Boards of this many squares or more are kept in the disk cache (the others build in a
second or two)."""

CACHE_ENV = "LINECATCH_SOLVER_CACHE"
"""The environment variable naming the cache folder (``off``: no disk cache)."""

FORMAT = 1
"""The cache files' format: a table written under another format is rebuilt."""

LOW_BITS = 18
"""Squares per chunk index: the sweep's chunks hold at most C(18, 9) = 48,620 sets."""


# ----- the table --------------------------------------------------------------------------------

def build_table(geo: Geometry, progress: bool = False) -> np.ndarray:
    """The value of every set of black squares of ``geo`` (index: the set as a bit mask, bit
    ``r*cols + c``), as int8. ``progress`` shows a bar on stderr (tqdm, where installed)."""
    n = geo.size
    if n > MAX_SQUARES:
        raise ValueError(f"the exact solver handles boards of up to {MAX_SQUARES} squares, "
                         f"not {geo.rows}×{geo.cols} = {n}")
    low_bits = min(n, LOW_BITS)
    high_bits = n - low_bits
    block_size = 1 << low_bits
    # The low parts of each popcount, ascending: the chunks' index arrays.
    low = np.arange(block_size, dtype=np.uint32)
    count = np.zeros(block_size, np.uint8)
    for bit in range(low_bits):
        count += ((low >> bit) & 1).astype(np.uint8)
    order = np.argsort(count, kind="stable").astype(np.uint32)
    starts = np.concatenate([[0], np.cumsum(np.bincount(count, minlength=low_bits + 1))])
    by_count = [order[starts[j]:starts[j + 1]] for j in range(low_bits + 1)]
    del low, count
    # Per square: for each line through it, the line's other squares (high part, low part) and
    # its length. The square catches the line when those are all black.
    low_mask = block_size - 1
    lines_of = []
    for cell in range(n):
        lines = []
        for line in geo.cell_lines[cell]:
            rest = geo.line_mask[line] & ~(1 << cell)
            lines.append((rest >> low_bits, np.uint32(rest & low_mask), geo.line_length[line]))
        lines_of.append(lines)

    values = np.zeros(1 << n, np.int8)
    top = (1 << high_bits) - 1
    with _progress(1 << n, f"Linecatch {geo.rows}×{geo.cols}{' pro' if geo.pro else ''} solver table",
                   progress) as bar:
        for high in range(top, -1, -1):
            block = values[high << low_bits:(high + 1) << low_bits]
            for j in range(low_bits, -1, -1):
                lows = by_count[j]
                if high == top and j == low_bits:
                    bar(len(lows))  # the full board: worth 0
                    continue
                best = np.full(len(lows), -128, np.int8)
                for cell in range(n):
                    if cell >= low_bits:
                        high_bit = 1 << (cell - low_bits)
                        if high & high_bit:
                            continue  # black in every set of the chunk
                        after_high = high | high_bit
                        after = values[after_high << low_bits:(after_high + 1) << low_bits][lows]
                        white = None
                    else:
                        if j == low_bits:
                            continue
                        bit = np.uint32(1 << cell)
                        after = block[lows | bit]
                        white = (lows & bit) == 0
                    fixed, varying = 0, None  # points caught whatever the low part, and per set
                    for rest_high, rest_low, length in lines_of[cell]:
                        if high & rest_high != rest_high:
                            continue  # a white high square: never caught in this chunk
                        if not rest_low:
                            fixed += length
                            continue
                        term = ((lows & rest_low) == rest_low).view(np.int8) * np.int8(length)
                        varying = term if varying is None else varying + term
                    if varying is None:
                        candidate = after + np.int8(fixed) if fixed else -after
                    elif fixed:
                        candidate = varying + np.int8(fixed) + after
                    else:
                        candidate = np.where(varying > 0, varying + after, varying - after)
                    if white is not None:
                        candidate = np.where(white, candidate, np.int8(-128))
                    np.maximum(best, candidate, out=best)
                block[lows] = best
                bar(len(lows))
    values.flags.writeable = False
    return values


@contextmanager
def _progress(total: int, desc: str, show: bool) -> Iterator:
    """``advance(k)`` for a tqdm bar on stderr (a no-op when not shown or tqdm is missing)."""
    bar = None
    if show:
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=total, desc=desc, unit="set", unit_scale=True, file=sys.stderr, mininterval=0.5)
    try:
        yield (bar.update if bar is not None else (lambda k: None))
    finally:
        if bar is not None:
            bar.close()


_TABLES: dict[tuple[int, int, bool], np.ndarray] = {}
_BUILDING: dict[tuple[int, int, bool], threading.Lock] = {}  # one builder per board; others wait for it
_BUILDING_LOCK = threading.Lock()


def table(rows: int = 5, cols: int = 5, pro: bool = False, progress: bool | None = None) -> np.ndarray:
    """The read-only value table of a board, built once a process: from the disk cache where
    the board is kept there (``DISK_FROM`` squares or more), else built. ``progress``: show the
    build's bar (default: for boards kept on disk). Threads that ask for a board being built
    wait for that one build (a table is published only whole)."""
    key = (rows, cols, bool(pro))
    found = _TABLES.get(key)
    if found is not None:
        return found
    geo = geometry(rows, cols, bool(pro))
    if geo.size > MAX_SQUARES:
        raise ValueError(f"the exact solver handles boards of up to {MAX_SQUARES} squares, "
                         f"not {rows}×{cols} = {geo.size}")
    with _BUILDING_LOCK:
        building = _BUILDING.setdefault(key, threading.Lock())
    with building:
        found = _TABLES.get(key)
        if found is None:
            show = geo.size >= DISK_FROM if progress is None else progress
            folder = cache_dir() if geo.size >= DISK_FROM else None
            found = _cached_table(geo, folder, show) if folder is not None else build_table(geo, show)
            _TABLES[key] = found
    return found


def table_ready(rows: int = 5, cols: int = 5, pro: bool = False) -> bool:
    """Whether a board's table is in this process already (``table`` answers at once)."""
    return (rows, cols, bool(pro)) in _TABLES


# ----- the disk cache ---------------------------------------------------------------------------

def cache_dir() -> Path | None:
    """Where tables are kept: ``$LINECATCH_SOLVER_CACHE`` when set (``off``: nowhere, every
    process builds its own), else ``$XDG_CACHE_HOME/abstract-games-suite/linecatch``, else
    ``~/.cache/abstract-games-suite/linecatch``."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return None if chosen.lower() == "off" else Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "abstract-games-suite" / "linecatch"


def table_name(rows: int, cols: int, pro: bool) -> str:
    """``5x5`` or ``5x5_pro``: the cache files are ``<name>.npy`` (the table) and ``<name>.json``
    (what it is, and its SHA-256)."""
    return f"{rows}x{cols}{'_pro' if pro else ''}"


def _describe(geo: Geometry) -> dict:
    return {"format": FORMAT, "rows": geo.rows, "cols": geo.cols, "pro": geo.pro, "dtype": "int8",
            "length": 1 << geo.size}


def _digest(values: np.ndarray) -> str:
    return hashlib.sha256(memoryview(np.ascontiguousarray(values)).cast("B")).hexdigest()


def read_cached(folder: Path, geo: Geometry) -> tuple[np.ndarray | None, str | None]:
    """The cached table (memory-mapped, read-only) if it is there and whole: the description
    matches the board and the format, the array its length and type, the bytes their SHA-256.
    Otherwise ``(None, why)``; ``why`` is None when there is simply no table yet."""
    name = table_name(geo.rows, geo.cols, geo.pro)
    path, about = folder / f"{name}.npy", folder / f"{name}.json"
    if not path.exists() and not about.exists():
        return None, None
    try:
        record = json.loads(about.read_text(encoding="utf-8"))
        if not isinstance(record, dict) or {k: record.get(k) for k in _describe(geo)} != _describe(geo):
            return None, f"{about} describes another table"
        values = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as error:
        return None, f"{path.name} or {about.name} unreadable ({error})"
    if values.dtype != np.int8 or values.shape != (1 << geo.size,):
        return None, f"{path} holds a {values.dtype} array of shape {values.shape}"
    if _digest(values) != record.get("sha256"):
        return None, f"{path} does not match its SHA-256"
    return values, None


def write_cached(folder: Path, geo: Geometry, values: np.ndarray) -> Path:
    """Writes the table and its description, each to a temporary file renamed into place (a
    reader never sees half a file; the description goes last, so a table without its matching
    description is rebuilt, not trusted)."""
    name = table_name(geo.rows, geo.cols, geo.pro)
    folder.mkdir(parents=True, exist_ok=True)
    record = {**_describe(geo), "sha256": _digest(values), "empty_board_value": int(values[0])}
    for path, write in ((folder / f"{name}.npy", lambda f: np.save(f, values, allow_pickle=False)),
                        (folder / f"{name}.json", lambda f: f.write(json.dumps(record, indent=1).encode()))):
        handle = tempfile.NamedTemporaryFile(dir=folder, prefix=f".{path.name}.", delete=False)
        try:
            with handle:
                write(handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(handle.name, 0o644)  # readable like any file of the cache, not the temp file's 0600
            os.replace(handle.name, path)
        except BaseException:
            Path(handle.name).unlink(missing_ok=True)
            raise
    return folder / f"{name}.npy"


def _lock(handle) -> None:
    """Holds the table's lock file exclusively (where ``fcntl`` exists) until it is closed: one
    builder at a time per table across processes; the others wait, then read what it wrote."""
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(handle, fcntl.LOCK_EX)


def _cached_table(geo: Geometry, folder: Path, progress: bool) -> np.ndarray:
    values, why = read_cached(folder, geo)
    if values is not None:
        return values
    name = table_name(geo.rows, geo.cols, geo.pro)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / f"{name}.lock", "a")
    except OSError as error:
        print(f"Linecatch solver: cannot use the cache folder {folder} ({error}); building in memory",
              file=sys.stderr)
        return build_table(geo, progress)
    with handle:  # closing the file releases the lock
        _lock(handle)
        values, why = read_cached(folder, geo)  # another process may have built it meanwhile
        if values is not None:
            return values
        if why is not None:
            print(f"Linecatch solver: rebuilding the {name} table: {why}", file=sys.stderr)
        values = build_table(geo, progress)
        try:
            path = write_cached(folder, geo, values)
            if progress:
                print(f"Linecatch solver: {name} table saved to {path}", file=sys.stderr)
        except OSError as error:
            print(f"Linecatch solver: could not save the {name} table in {folder} ({error})", file=sys.stderr)
        return values


# ----- the public API ---------------------------------------------------------------------------

def _board(geo: Geometry) -> str:
    return f"{geo.rows}×{geo.cols}{' pro' if geo.pro else ''}"


class LinecatchSolver:
    """Perfect play on a board of up to 25 squares.

    A position is a bit mask of its black squares (bit ``r*cols + c``) or a ``LinecatchGame``
    (its black squares are read; its scores so far do not matter). All values are for the
    player to move there and count future points only: the final margin under perfect play is
    the points so far plus ``value``.
    """

    def __init__(self, rows: int = 5, cols: int = 5, pro: bool = False, progress: bool | None = None):
        self.geo = geometry(rows, cols, bool(pro))
        self.values = table(rows, cols, bool(pro), progress)  # int8, indexed by black mask

    def mask(self, position: int | LinecatchGame) -> int:
        if isinstance(position, LinecatchGame):
            if position.geo is not self.geo:
                raise ValueError(f"a position of {_board(position.geo)} for the solver of {_board(self.geo)}")
            return position.black_mask()
        mask = int(position)
        if not 0 <= mask < 1 << self.geo.size:
            raise ValueError(f"black mask {mask} is not a set of {self.geo.size} squares")
        return mask

    def value(self, position: int | LinecatchGame) -> int:
        """The best achievable (mover's future points − opponent's future points)."""
        return int(self.values[self.mask(position)])

    def action_values(self, position: int | LinecatchGame) -> dict[int, int]:
        """Per white square: the mover's future margin if it blackens that square and both
        sides play perfectly afterwards (the points it catches included)."""
        mask = self.mask(position)
        out = {}
        for cell in range(self.geo.size):
            if not mask >> cell & 1:
                gained = self.geo.catch_points(mask, cell)
                rest = int(self.values[mask | 1 << cell])
                out[cell] = gained + rest if gained else -rest
        return out

    def best_actions(self, position: int | LinecatchGame) -> list[int]:
        """Every optimal square, ascending (empty on a full board)."""
        values = self.action_values(position)
        best = max(values.values(), default=None)
        return [cell for cell, v in values.items() if v == best]


# ----- points lost to perfect play --------------------------------------------------------------

@dataclass(frozen=True)
class MoveLoss:
    """One move of a game record, priced by the solver (values for the seat that moved)."""

    seat: int
    action: int
    best: int  # the best move's value
    chosen: int  # the value of the move played

    @property
    def lost(self) -> int:
        return self.best - self.chosen


def move_losses(actions: Iterable[int | str], rows: int = 5, cols: int = 5, pro: bool = False,
                solver: LinecatchSolver | None = None) -> list[MoveLoss]:
    """Each move of a game record (the actions from the empty board, as integers or notation
    such as ``c2``) with the points it gave away to perfect play: the value of the best move
    minus the value of the move played, for the seat that played it. A perfect player loses 0
    at every move. With ``solver`` given, the board is the solver's."""
    solver = solver or LinecatchSolver(rows, cols, pro)
    geo = solver.geo  # a solver given decides the board
    game = LinecatchGame(LinecatchGame.resolve_options({"rows": geo.rows, "cols": geo.cols, "pro": geo.pro}))
    out = []
    for action in actions:
        action = game.string_to_action(action) if isinstance(action, str) else int(action)
        problem = game.why_illegal(action)
        if problem is not None:
            raise ValueError(f"move {len(out) + 1} of the record: {problem}")
        values = solver.action_values(game)
        out.append(MoveLoss(game.to_move, action, max(values.values()), values[action]))
        game.apply(action)
    return out


def points_lost(actions: Iterable[int | str], rows: int = 5, cols: int = 5, pro: bool = False,
                solver: LinecatchSolver | None = None) -> list[int]:
    """The points each seat (``player_0`` first) gave away to perfect play over a game record.

    For a whole game, ``player_0``'s final margin is the empty board's value minus what
    ``player_0`` lost plus what ``player_1`` lost."""
    lost = [0, 0]
    for move in move_losses(actions, rows, cols, pro, solver):
        lost[move.seat] += move.lost
    return lost


# ----- building from the command line -------------------------------------------------------------

def main(argv: list[str] | None = None) -> dict:
    """Builds a board's table (or reads it from the cache) and reports the value of the empty
    board, the wall time and the peak memory of the process."""
    import argparse

    parser = argparse.ArgumentParser(description="Build (and cache) the exact Linecatch solver's table of a board "
                                                 "and print the empty board's value, the time and the peak memory.")
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--cols", type=int, default=5)
    parser.add_argument("--pro", action="store_true", help="pro mode: diagonals of 3 or more squares are lines")
    parser.add_argument("--rebuild", action="store_true",
                        help="build in memory even if a cached table exists (the cache is left as it is)")
    args = parser.parse_args(argv)
    options = LinecatchGame.resolve_options({"rows": args.rows, "cols": args.cols, "pro": args.pro})
    started = time.perf_counter()
    if args.rebuild:
        values = build_table(geometry(args.rows, args.cols, args.pro), progress=True)
    else:
        values = table(options["rows"], options["cols"], options["pro"])
    seconds = time.perf_counter() - started
    result = {"board": table_name(args.rows, args.cols, args.pro), "sets": len(values),
              "empty_board_value": int(values[0]), "seconds": round(seconds, 2)}
    try:
        import resource

        result["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    except ImportError:  # no resource module (Windows): no peak memory
        pass
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
