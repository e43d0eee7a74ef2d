"""The Map of patterns as data, its validation, and its compiled form for a table size.

A Map is a list of exactly 15 patterns. Each pattern is a dict::

    {"name": "Line-3",                      # a non-empty string, unique in the Map
     "shapes": [[[0, 0], [0, 1], [0, 2]],   # every orientation that counts, each a list of
                [[0, 0], [1, 0], [2, 0]]],  #   distinct [row, col] offsets (row down, col right)
     "criterion": "same_motif",             # one of CRITERIA
     "points": 2}                           # an integer 0…1000

Offsets are normalised (shifted so the smallest row and column are 0) and orientations that
are the same set of cells are kept once. Only the listed orientations count: list every
rotation / reflection that should count (``all_orientations`` helps).

The criteria (an instance's cells must all hold open tiles in every case):

* ``same_motif``, ``same_colour``: every tile has the same motif (colour);
* ``same_motif_or_colour``: all the same motif, or all the same colour (not a mix): the
  Slants and the Cross;
* ``different_colours``, ``different_motifs``: no two tiles share a colour (motif);
* ``identical``: every tile is the same tile type (motif and colour);
* ``any``: any open tiles;
* ``hollow_centre``: any open tiles, and the centre cell of the shape's bounding box (which
  must not be one of the shape's cells, so the box has odd sides of 3 or more) is empty or a
  stone: the Ring.
"""

from __future__ import annotations

import threading
from typing import Any

from envs.core.game import OptionError, is_int, short_repr

MAP_SIZE = 15
MAX_POINTS = 1000
# Bounds on a user's Map: laying it on a table costs time and memory in proportion to its
# orientations and their cells (the standard Map: 35 orientations, 143 cells in all; within
# these bounds a Map compiles on the largest table in under a second and about 60 MB).
MAX_NAME = 40  # characters in a pattern's name
MAX_ORIENTATIONS = 8  # orientations listed per pattern (a shape has at most 8 rotations / reflections)
MAX_SHAPE_CELLS = 25  # cells in one orientation
MAX_MAP_CELLS = 400  # cells over every orientation of every pattern
# The memory a Map laid on a table takes (``laid_map_bytes``), measured (the process's resident
# size) for the standard Map and Maps of two-cell, nine-cell and 25-cell orientations: an upper
# bound within a factor of four.
LAID_BYTES_PER_INSTANCE = 1000
LAID_BYTES_PER_CELL = 50

CRITERIA = (
    "same_motif",
    "same_colour",
    "same_motif_or_colour",
    "different_colours",
    "different_motifs",
    "identical",
    "any",
    "hollow_centre",
)
SAME_MOTIF, SAME_COLOUR, SAME_EITHER, DIFF_COLOURS, DIFF_MOTIFS, IDENTICAL, ANY, HOLLOW = range(8)


def normalise(cells) -> tuple[tuple[int, int], ...]:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def all_orientations(cells) -> list[list[list[int]]]:
    """The distinct rotations and reflections of a shape (up to 8), normalised."""
    seen: list[tuple[tuple[int, int], ...]] = []
    current = [tuple(x) for x in cells]
    for flip in (False, True):
        shape = [(r, -c) for r, c in current] if flip else list(current)
        for _ in range(4):
            shape = [(c, -r) for r, c in shape]
            norm = normalise(shape)
            if norm not in seen:
                seen.append(norm)
    return [[list(x) for x in s] for s in seen]


def _line(n: int) -> list[list[list[int]]]:
    return [[[0, i] for i in range(n)], [[i, 0] for i in range(n)]]


def _slant(n: int) -> list[list[list[int]]]:
    return [[[i, i] for i in range(n)], [[i, n - 1 - i] for i in range(n)]]


STANDARD_MAP: list[dict[str, Any]] = [
    {"name": "Line-3", "shapes": _line(3), "criterion": "same_motif", "points": 2},
    {"name": "Line-4", "shapes": _line(4), "criterion": "same_motif", "points": 5},
    {"name": "Line-5", "shapes": _line(5), "criterion": "same_motif", "points": 9},
    {"name": "Flow-3", "shapes": _line(3), "criterion": "same_colour", "points": 2},
    {"name": "Flow-4", "shapes": _line(4), "criterion": "same_colour", "points": 5},
    {"name": "Flow-5", "shapes": _line(5), "criterion": "same_colour", "points": 9},
    {"name": "Slant-3", "shapes": _slant(3), "criterion": "same_motif_or_colour", "points": 3},
    {"name": "Slant-4", "shapes": _slant(4), "criterion": "same_motif_or_colour", "points": 7},
    {"name": "Wedge", "shapes": all_orientations([(0, 0), (1, 0), (2, 0), (2, 1)]),
     "criterion": "same_colour", "points": 3},
    {"name": "Square", "shapes": [[[0, 0], [0, 1], [1, 0], [1, 1]]], "criterion": "same_motif", "points": 5},
    {"name": "Cross", "shapes": [[[0, 1], [1, 0], [1, 1], [1, 2], [2, 1]]],
     "criterion": "same_motif_or_colour", "points": 8},
    {"name": "Ring", "shapes": [[[0, 0], [0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1], [2, 2]]],
     "criterion": "hollow_centre", "points": 7},
    {"name": "Rainbow", "shapes": _line(5), "criterion": "different_colours", "points": 6},
    {"name": "Parade", "shapes": _line(5), "criterion": "different_motifs", "points": 6},
    {"name": "Triplet", "shapes": _line(3) + _slant(3), "criterion": "identical", "points": 8},
]


def _fail(message: str):
    raise OptionError(f"option 'patterns': {message}")


def check_map(value: Any) -> list[dict[str, Any]] | None:
    """``None`` (the standard Map) or a validated, normalised copy of a user's Map.

    Every error is an ``OptionError`` naming the option, the pattern and what is wrong.
    """
    if value is None:
        return None
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple)):
        _fail(f"a Map is a list of {MAP_SIZE} patterns (dicts with name, shapes, criterion, points), not "
              f"{short_repr(value, 60)}")
    if len(value) != MAP_SIZE:
        _fail(f"a Map holds exactly {MAP_SIZE} patterns, not {len(value)}")
    out = []
    names: set[str] = set()
    total_cells = 0
    for k, pattern in enumerate(value):
        name, criterion, points, shapes = _pattern_fields(k, pattern, names)
        where = f"pattern {k} ({name})"
        orientations: list[tuple[tuple[int, int], ...]] = []
        for o, shape in enumerate(shapes):
            norm = _orientation(where, o, shape, criterion)
            if norm not in orientations:
                orientations.append(norm)
                total_cells += len(norm)
                if total_cells > MAX_MAP_CELLS:
                    _fail(f"the Map's orientations hold more than {MAX_MAP_CELLS} cells in all (at {where}, "
                          f"orientation {o}); at most {MAX_MAP_CELLS} (the standard Map: 143)")
        out.append(
            {
                "name": name,
                "shapes": [[list(c) for c in s] for s in orientations],
                "criterion": criterion,
                "points": points,
            }
        )
    return out


def _pattern_fields(k: int, pattern: Any, names: set[str]) -> tuple[str, str, int, list]:
    """Pattern ``k``'s name (not one of ``names``, to which it is added), criterion, points and
    list of orientations, each checked on its own."""
    where = f"pattern {k}"
    if not isinstance(pattern, dict):
        _fail(f"{where} is {short_repr(pattern, 40)}; each pattern is a dict with name, shapes, criterion, points")
    keys = set(pattern)
    missing = {"name", "shapes", "criterion", "points"} - keys
    if missing:
        _fail(f"{where} has no {sorted(missing)[0]!r}")
    extra = keys - {"name", "shapes", "criterion", "points"}
    if extra:
        _fail(f"{where} has an unknown key {short_repr(sorted(extra, key=repr)[0], 40)}; "
              "the keys are name, shapes, criterion, points")
    name = pattern["name"]
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        _fail(f"{where}: 'name' must be a non-empty string of at most {MAX_NAME} characters, not {short_repr(name, 50)}")
    where = f"pattern {k} ({name})"
    if name in names:
        _fail(f"{where}: two patterns are named {name!r}; names must be unique")
    names.add(name)
    criterion = pattern["criterion"]
    if not isinstance(criterion, str) or criterion not in CRITERIA:
        _fail(f"{where}: criterion {short_repr(criterion, 40)} is not one of {', '.join(CRITERIA)}")
    points = pattern["points"]
    if not is_int(points, 0, MAX_POINTS):
        _fail(f"{where}: 'points' must be an integer 0…{MAX_POINTS}, not {short_repr(points, 40)}")
    shapes = pattern["shapes"]
    if isinstance(shapes, (str, bytes)) or not isinstance(shapes, (list, tuple)) or not shapes:
        _fail(f"{where}: 'shapes' must be a non-empty list of orientations, each a list of [row, col] offsets")
    if len(shapes) > MAX_ORIENTATIONS:
        _fail(f"{where} lists {len(shapes)} orientations; at most {MAX_ORIENTATIONS}")
    return name, criterion, points, shapes


def _orientation(where: str, o: int, shape: Any, criterion: str) -> tuple[tuple[int, int], ...]:
    """Orientation ``o`` of a pattern, checked (a ``hollow_centre`` pattern's must surround a
    centre cell it leaves out), normalised."""
    if isinstance(shape, (str, bytes)) or not isinstance(shape, (list, tuple)) or not shape:
        _fail(f"{where}: orientation {o} must be a non-empty list of [row, col] offsets, not {short_repr(shape, 40)}")
    if len(shape) > MAX_SHAPE_CELLS:
        _fail(f"{where}: orientation {o} has {len(shape)} cells; at most {MAX_SHAPE_CELLS}")
    cells = []
    for cell in shape:
        if not (isinstance(cell, (list, tuple)) and len(cell) == 2 and all(is_int(x) for x in cell)):
            _fail(f"{where}: orientation {o} holds {short_repr(cell, 40)}; each cell is a pair of integers [row, col]")
        if not all(-40 <= x <= 40 for x in cell):
            _fail(f"{where}: orientation {o} offset {list(cell)} is too far (offsets lie within -40…40)")
        cells.append((cell[0], cell[1]))
    if len(set(cells)) != len(cells):
        _fail(f"{where}: orientation {o} lists a cell twice")
    norm = normalise(cells)
    if max(r for r, _ in norm) >= 31 or max(c for _, c in norm) >= 31:
        _fail(f"{where}: orientation {o} is wider than the largest table (31)")
    if criterion == "hollow_centre":
        height = max(r for r, _ in norm) + 1
        width = max(c for _, c in norm) + 1
        centre = (height // 2, width // 2)
        if height % 2 == 0 or width % 2 == 0 or height < 3 or width < 3 or centre in norm:
            _fail(
                f"{where}: a 'hollow_centre' shape needs odd sides of 3 or more around a centre "
                f"cell that is not part of the shape; orientation {o} is not one"
            )
    return norm


class CompiledMap:
    """A Map laid on a ``B × B`` table: every instance through every cell, as bitmasks.

    ``grouped[cell]`` lists ``(mask, members)`` for every set of cells through ``cell`` that is
    an instance of some pattern: the cells' bitmask (bit ``r*B + c``) and, per pattern it is an
    instance of, ``(k, criterion code, cells in ascending order, hollow centre bit or 0)``.
    """

    def __init__(self, size: int, patterns: list[dict[str, Any]]):
        self.size = size
        self.names = [p["name"] for p in patterns]
        self.points = [p["points"] for p in patterns]
        self.criteria = [CRITERIA.index(p["criterion"]) for p in patterns]
        cells_n = size * size
        # Every instance of every pattern on the table. The same cells may be an instance of
        # several patterns (Line-3, Flow-3, ...): they form one group, tested for open tiles once.
        groups: dict[int, tuple[tuple[int, ...], list]] = {}
        for k, pattern in enumerate(patterns):
            crit = self.criteria[k]
            for shape in pattern["shapes"]:
                height = max(r for r, _ in shape) + 1
                width = max(c for _, c in shape) + 1
                offsets = sorted(r * size + c for r, c in shape)
                base_mask = 0
                for x in offsets:
                    base_mask |= 1 << x
                centre = (height // 2) * size + width // 2
                for r0 in range(size - height + 1):
                    for c0 in range(size - width + 1):
                        origin = r0 * size + c0
                        mask = base_mask << origin
                        hollow = 1 << (origin + centre) if crit == HOLLOW else 0
                        entry = groups.get(mask)
                        if entry is None:
                            entry = groups[mask] = (tuple(origin + x for x in offsets), [])
                        entry[1].append((k, crit, entry[0], hollow))
        # the patterns each set of cells is an instance of, by its bitmask (a snapshot's closes)
        self.patterns_of = {mask: frozenset(m[0] for m in members) for mask, (_, members) in groups.items()}
        grouped: list[list] = [[] for _ in range(cells_n)]
        for mask, (cells, members) in groups.items():
            item = (mask, tuple(members))
            for x in cells:
                grouped[x].append(item)
        self.grouped = grouped
        # A group can only be all open if its cells among the placed cell's 3×3 window are
        # open. The window's open cells make a 9-bit key (bit 3*(dr+1) + dc+1); per cell and
        # key the groups whose window cells are all in the key are listed once, when first
        # needed, so a placement only tests the few groups its surroundings allow.
        self.stride = size
        self.lift = size + 1
        needs = []
        lift, low, mid, high = size + 1, 7, size, 2 * size
        for cell in range(cells_n):
            by_need: dict[int, list] = {}
            for mask, members in grouped[cell]:
                # the same 9-bit window formula as the key (cells wrapped in from a
                # neighbouring row read the same way in both, so the test stays exact)
                window = (mask << lift) >> cell
                need = (window & low) | (((window >> mid) & low) << 3) | (((window >> high) & low) << 6)
                by_need.setdefault(need, []).append((mask, members))
            needs.append([(need, tuple(groups)) for need, groups in by_need.items()])
        self.needs = needs
        self.selected: list[dict[int, tuple]] = [{} for _ in range(cells_n)]

    def instances(self, cell: int, k: int) -> list[tuple[int, ...]]:
        """The instances (cells in ascending order) of pattern ``k`` that contain ``cell``."""
        return [m[2] for _, members in self.grouped[cell] for m in members if m[0] == k]

    def is_instance(self, cells, k: int) -> bool:
        """Whether ``cells`` (distinct table cells) are an instance of pattern ``k``."""
        mask = 0
        for x in cells:
            mask |= 1 << x
        return bin(mask).count("1") == len(cells) and k in self.patterns_of.get(mask, ())


_CACHE: dict[Any, CompiledMap] = {}  # the standard Map, per table size (12 sizes at most)
_USER_CACHE: dict[Any, CompiledMap] = {}  # users' Maps: the last few only (each may weigh tens of MB)
USER_MAPS_KEPT = 2
_COMPILE_LOCK = threading.Lock()


def compiled(size: int, patterns: list[dict[str, Any]] | None) -> CompiledMap:
    """The Map laid on a ``size × size`` table, built once and kept (users' Maps: the last
    ``USER_MAPS_KEPT``)."""
    key = (size, None if patterns is None else repr(patterns))
    cache = _CACHE if patterns is None else _USER_CACHE
    found = cache.get(key)
    if found is None:
        with _COMPILE_LOCK:  # threads share the caches: one builds a Map whole, then publishes it
            found = cache.get(key)
            if found is None:
                found = CompiledMap(size, STANDARD_MAP if patterns is None else patterns)
                found.key = key
                if patterns is not None and len(cache) >= USER_MAPS_KEPT:
                    cache.pop(next(iter(cache)))
                cache[key] = found
    return found


def select(compiled_map: CompiledMap, cell: int, key: int) -> tuple:
    """The groups through ``cell`` whose cells in its 3×3 window all lie in ``key``."""
    chosen = tuple(g for need, groups in compiled_map.needs[cell] if not need & ~key for g in groups)
    compiled_map.selected[cell][key] = chosen
    return chosen



def laid_map_bytes(size: int, patterns: list[dict[str, Any]] | None) -> int:
    """About how many bytes the Map laid on a ``size × size`` table takes (``CompiledMap``),
    reckoned before laying it: ``LAID_BYTES_PER_INSTANCE`` per instance of an orientation on
    the table (its bitmask, its cells, its place in the lists) and ``LAID_BYTES_PER_CELL`` per
    cell of each. Up to about 100 MB for a Map within the bounds on the largest table."""
    instances = cells = 0
    for pattern in STANDARD_MAP if patterns is None else patterns:
        for shape in pattern["shapes"]:
            height = max(r for r, _ in shape) + 1
            width = max(c for _, c in shape) + 1
            if height <= size and width <= size:
                placed = (size - height + 1) * (size - width + 1)
                instances += placed
                cells += placed * len(shape)
    return LAID_BYTES_PER_INSTANCE * instances + LAID_BYTES_PER_CELL * cells
