"""Fill rules engine: seed, swap, no three in a row, no 2×2 (``../shared/rules/fill.md``).

Pure Python, no PettingZoo. The board lives in a few integer bitmasks (``filled``, ``rock``,
``touch`` = cells next to a filled cell, ``poison`` = empty cells that can never be filled
legally), so a fill costs a couple of dozen integer operations driven by per-geometry tables:

* ``pair_need[c]``: for every forbidden pattern (three in a line, a 2×2 block) through ``c``
  and every other cell ``x`` of it, the mask of the pattern's remaining cells. After filling
  ``c``, ``x`` is poisoned when those cells are all filled.
* ``ext[a][b]``: the cell ``c`` with ``a, b, c`` consecutive on a forbidden line, used by the
  exact "can still be filled" search (:meth:`FillGame.fill_witness`).

Gems shatter when their cell can no longer be filled. The search for a filling chain returns a
witness (the chain's cells); after each fill a gem is searched again only when that fill
broke its witness (filled one of its cells or completed a forbidden pattern with it), since
otherwise the same chain still works.
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

from envs.core.bits import set_bits as bits
from envs.core.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    OptionError,
    SnapshotError,
    int_field,
    int_list,
    require,
)
from envs.core.notation import cell_name, parse_cell
from envs.core.options import check_bool, check_choice

# ----- facts of the game ---------------------------------------------------------------------

SIZES = (6, 7, 8)
LINES = ("orthogonal", "strict", "off")
TOKEN_LIFE = {6: 8, 7: 11, 8: 14}
TIME_LIMIT = {6: 120.0, 7: 180.0, 8: 240.0}
GEM_COUNT = 3
REGULAR_TRAPS = 2
RECHARGE = 3
MIN_LEGAL_TO_SPRING = 3
PRUNE_AFTER = 32  # search nodes before the fillability search also prunes by reachability

DOUBLE, PASS, TRAP = 0, 1, 2
KIND_NAMES = ("double", "pass", "trap")
KIND_TITLES = ("Double", "Pass", "Trap")

# Phases. SEED and CHOOSE are not turns; TOKEN … FILL2 are the phases of a turn.
SEED, CHOOSE, TOKEN, TRAP_PHASE, FILL, FILL2, OVER = range(7)
PHASE_NAMES = ("seed", "choose", "token", "trap", "fill", "second-fill", "over")

# Action offsets past the cells.
STAY, SWAP, NO_TOKEN, USE_DOUBLE, USE_PASS, USE_TRAP, NO_TRAP = range(7)
SPECIAL_NAMES = ("stay", "swap", "no-token", "double", "pass", "trap-token", "no-trap")

AGENTS = ("player_0", "player_1")
DIRECTION_WORDS = {(0, 1): "across", (1, 0): "down", (1, 1): "diagonally", (1, -1): "diagonally"}


class Geometry:
    """Tables for one board size and ``lines`` setting (shared by every game of that kind)."""

    def __init__(self, size: int, lines: str):
        self.size = size
        n = self.cells = size * size
        self.full = (1 << n) - 1
        self.nbr = [0] * n  # 8-neighbour masks
        self.nbr_list: list[tuple[int, ...]] = []
        for cell in range(n):
            r, c = divmod(cell, size)
            around = tuple(
                (r + dr) * size + (c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
            )
            self.nbr_list.append(around)
            self.nbr[cell] = sum(1 << x for x in around)
        directions = {"orthogonal": [(0, 1), (1, 0)], "strict": [(0, 1), (1, 0), (1, 1), (1, -1)], "off": []}[lines]
        # Forbidden three-in-a-line triples, with their direction word.
        self.triples: list[tuple[tuple[int, int, int], str]] = []
        for r in range(size):
            for c in range(size):
                for dr, dc in directions:
                    r2, c2 = r + 2 * dr, c + 2 * dc
                    if 0 <= r2 < size and 0 <= c2 < size:
                        cells = (r * size + c, (r + dr) * size + c + dc, r2 * size + c2)
                        self.triples.append((cells, DIRECTION_WORDS[(dr, dc)]))
        self.blocks = [
            (r * size + c, r * size + c + 1, (r + 1) * size + c, (r + 1) * size + c + 1)
            for r in range(size - 1)
            for c in range(size - 1)
        ]
        # For why_illegal: per cell, (others mask, word) for triples, and others masks for blocks.
        self.triples_of: list[list[tuple[int, str]]] = [[] for _ in range(n)]
        self.blocks_of: list[list[int]] = [[] for _ in range(n)]
        # patterns_of[c]: masks of the other cells of every forbidden pattern through c.
        self.patterns_of: list[list[int]] = [[] for _ in range(n)]
        self.pair_need: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        patterns = [cells for cells, _ in self.triples] + list(self.blocks)
        for cells, word in self.triples:
            for x in cells:
                self.triples_of[x].append((sum(1 << y for y in cells if y != x), word))
        for cells in self.blocks:
            for x in cells:
                self.blocks_of[x].append(sum(1 << y for y in cells if y != x))
        for cells in patterns:
            for x in cells:
                self.patterns_of[x].append(sum(1 << y for y in cells if y != x))
                for y in cells:
                    if y != x:
                        need = sum(1 << z for z in cells if z != x and z != y)
                        self.pair_need[y].append((x, need))
        # Column masks for bit-parallel dilation (one step to all 8 neighbours at once).
        self.not_first_col = sum(1 << (r * size + c) for r in range(size) for c in range(1, size))
        self.not_last_col = sum(1 << (r * size + c) for r in range(size) for c in range(size - 1))
        # ext[a][b] = c when a, b, c are consecutive on a forbidden line (else -1).
        self.ext = [[-1] * n for _ in range(n)]
        for (a, b, c), _ in self.triples:
            self.ext[a][b] = c
            self.ext[c][b] = a


    def dilate(self, mask: int) -> int:
        """``mask`` plus every cell touching it (8 neighbours)."""
        row = mask | ((mask << 1) & self.not_first_col) | ((mask >> 1) & self.not_last_col)
        return (row | (row << self.size) | (row >> self.size)) & self.full


@lru_cache(maxsize=None)
def geometry(size: int, lines: str) -> Geometry:
    return Geometry(size, lines)


# ----- option checks ---------------------------------------------------------------------------

def _check_cell(value: Any, size: int, option: str) -> int:
    """A scripted cell: an integer 0…size²−1 or a cell name such as ``"c4"``."""
    n = size * size
    if isinstance(value, str):
        try:
            row, col = parse_cell(value, size, size)
        except ValueError as error:
            raise OptionError(f"option {option!r}: {error}") from None
        return row * size + col
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise OptionError(f"option {option!r} holds {value!r}; cells are integers 0…{n - 1} or names like 'a1'")
    cell = value.__index__()
    if not 0 <= cell < n:
        raise OptionError(f"option {option!r} holds cell {cell}, off the board: cells are 0…{n - 1}")
    return cell


def _check_clocked(value: Any) -> tuple[str, ...]:
    if value is None:
        return AGENTS
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise OptionError(
            f"option 'clocked' must be a list of agents (names 'player_0', 'player_1' or seats 0, 1), not {value!r}"
        )
    seats = set()
    for item in value:
        if isinstance(item, str) and item in AGENTS:
            seats.add(AGENTS.index(item))
        elif isinstance(item, int) and not isinstance(item, bool) and item in (0, 1):
            seats.add(item)
        else:
            raise OptionError(
                f"option 'clocked' holds {item!r}; its entries must be 'player_0', 'player_1', 0 or 1"
            )
    return tuple(AGENTS[s] for s in sorted(seats))


class FillGame(Game):
    """State: the board masks, gems, tokens, traps, turn counters, phase and clocks."""

    NAME = "fill_v0"
    RUNTIME_OPTIONS = ("clock",)  # a time source is not part of a position
    OPTIONS = {
        "size": 6,
        "lines": "orthogonal",
        "traps": False,
        "rocks": False,
        "gems": False,
        "time_limit": False,
        "clocked": None,  # None: every agent has a clock
        "clock": time.monotonic,
        "rock_cells": None,
        "gem_cells": None,
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        size = check_choice(options, "size", SIZES)
        check_choice(options, "lines", LINES)
        for name in ("traps", "rocks", "gems", "time_limit"):
            check_bool(options, name)
        options["clocked"] = _check_clocked(options["clocked"])
        if options["clock"] is None:
            options["clock"] = time.monotonic
        if not callable(options["clock"]):
            raise OptionError(
                f"option 'clock' must be a callable returning seconds (like time.monotonic), not {options['clock']!r}"
            )
        rock_cells = options["rock_cells"]
        if rock_cells is not None and options["rocks"]:
            if isinstance(rock_cells, (str, int)) or not hasattr(rock_cells, "__iter__"):
                raise OptionError(f"option 'rock_cells' must be a list of cells, not {rock_cells!r}")
            cells = tuple(sorted({_check_cell(c, size, "rock_cells") for c in rock_cells}))
            if len(cells) >= size * size:
                raise OptionError("option 'rock_cells' must leave at least one cell free for the seed")
            options["rock_cells"] = cells
        gem_cells = options["gem_cells"]
        if gem_cells is not None and options["gems"]:
            if isinstance(gem_cells, (str, int)) or not hasattr(gem_cells, "__iter__"):
                raise OptionError(f"option 'gem_cells' must be a list of (cell, kind) pairs, not {gem_cells!r}")
            allowed = KIND_NAMES if options["traps"] else KIND_NAMES[:2]
            checked = []
            for item in gem_cells:
                if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
                    raise OptionError(f"option 'gem_cells' holds {item!r}; each gem is a (cell, kind) pair")
                cell, kind = item
                cell = _check_cell(cell, size, "gem_cells")
                if kind not in allowed:
                    extra = "" if options["traps"] else " ('trap' gems need traps=True)"
                    raise OptionError(
                        f"option 'gem_cells' holds kind {kind!r}; kinds are {', '.join(map(repr, allowed))}{extra}"
                    )
                checked.append((cell, kind))
            options["gem_cells"] = tuple(checked)
        return options

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return options["size"] ** 2 + 7

    # ----- setup --------------------------------------------------------------------------------
    def __init__(self, options: dict[str, Any], rng=None):
        self.options = options
        size = options["size"]
        self.geo = geo = geometry(size, options["lines"])
        self.n = n = geo.cells
        self.rng = rng
        self.filled = 0
        self.rock = 0
        self.touch = 0
        self.poison = 0
        if options["rocks"]:
            if options["rock_cells"] is not None:
                rocks = options["rock_cells"]
            else:
                if rng is None:
                    raise ValueError("FillGame needs an rng (random.Random) for random rocks")
                rocks = rng.sample(range(n), size - 3)
            for cell in rocks:
                self.rock |= 1 << cell
        self.gems: dict[int, int] = {}  # cell -> kind
        self.witness: dict[int, int] = {}  # gem cell -> mask of a filling chain
        self.tokens: list[list[list[int]]] = [[], []]  # [kind, turns left, turn collected]
        self.turns = [0, 0]
        self.recharge = [[0] * REGULAR_TRAPS, [0] * REGULAR_TRAPS]  # ready at the start of that turn
        self.extra = [0, 0]
        self.live_trap = [-1, -1]
        self.last_sprung: tuple[int, int] | None = None  # (cell, owner)
        self.double = False
        self.seed_cell = -1
        self.choice = -1  # STAY or SWAP once chosen
        self.phase = SEED
        self.to_move = 0
        self.winner = -1
        self.end_reason = ""
        self.clock = options["clock"]
        self.timed = bool(options["time_limit"])
        self.clocked = [AGENTS[p] in options["clocked"] for p in (0, 1)]
        limit = TIME_LIMIT[size]
        self.time_left = [limit, limit]
        # What the opponent's display shows while a player acts: their time when they began
        # acting (a clock that visibly ticks down step by step would reveal hidden phases).
        self.shown_time = [limit, limit]
        self.stint_start = self.clock() if self.timed else 0.0

    # ----- board queries ------------------------------------------------------------------------
    def legal_mask(self) -> int:
        """Cells legal to fill now (for anybody: filled cells belong to nobody)."""
        return self.touch & ~(self.filled | self.rock | self.poison) & self.geo.full

    def legal_cells(self) -> list[int]:
        return bits(self.legal_mask())

    def poisoned_cells(self) -> list[int]:
        return bits(self.poison)

    def token_life(self) -> int:
        return TOKEN_LIFE[self.options["size"]]

    def fill_witness(self, cell: int) -> int:
        """A chain proving ``cell`` can still be filled (mask of its cells), or 0 if it cannot.

        Exhaustive depth-first search over induced chains (no chain cell touches a chain cell
        other than its chain neighbours; only the last one touches a filled cell), as the
        rules page describes; failed states are memoised.
        """
        bit = 1 << cell
        filled, rock, touch, poison = self.filled, self.rock, self.touch, self.poison
        if (filled | rock | poison) & bit:
            return 0
        if not self.filled:
            return bit  # before the seed every non-rock cell can still be filled
        exits = touch & ~(filled | rock | poison) & self.geo.full
        if touch & bit:
            return bit  # legal now
        geo = self.geo
        nbr, ext, around = geo.nbr, geo.ext, geo.nbr_list
        free = geo.full & ~(filled | rock | touch)  # empty cells touching no filled cell
        # Distance layers from the legal cells through free cells (bit-parallel masks). A cell
        # out of their reach cannot be filled; inside, the search tries the neighbours one
        # layer nearer the legal cells first (neighbours differ by at most one layer).
        dilate = geo.dilate
        layers = [exits]
        seen, frontier, start = exits, exits, -1
        while True:
            frontier = dilate(frontier) & free & ~seen
            if not frontier:
                break
            if frontier & bit:
                start = len(layers)
            layers.append(frontier)
            seen |= frontier
        if start < 0:
            return 0
        reach = seen & free
        top = len(layers) - 1
        failed: set[tuple[int, int, int]] = set()
        count = [0]

        def search(prev: int, last: int, depth: int, forbidden: int, chain: int) -> int:
            key = (prev, last, forbidden)
            if key in failed:
                return 0
            line_next = ext[prev][last] if prev >= 0 else -1
            options = nbr[last] & ~forbidden
            if options & exits:
                beyond_of = ext[last]
                for y in around[last]:
                    if exits >> y & 1 and options >> y & 1 and y != line_next:
                        beyond = beyond_of[y]
                        if beyond < 0 or not filled >> beyond & 1:
                            return chain | (1 << y)  # (filled, y, last would be three in a line)
            steps = options & reach
            if steps:
                count[0] += 1
                if count[0] > PRUNE_AFTER:
                    # A long search: first check that some exit is still reachable at all
                    # through cells the chain may still use (a relaxation: sound to prune).
                    room = reach & ~forbidden
                    region = steps
                    while True:
                        grown_region = (dilate(region) & room) | region
                        if grown_region == region:
                            break
                        region = grown_region
                    if not dilate(region) & exits & ~forbidden:
                        failed.add(key)
                        return 0
                grown = forbidden | nbr[last] | (1 << last)
                for layer in (depth - 1, depth, depth + 1):
                    if 1 <= layer <= top:
                        here = steps & layers[layer]
                        if here:
                            for y in around[last]:
                                if here >> y & 1 and y != line_next:
                                    found = search(last, y, layer, grown, chain | (1 << y))
                                    if found:
                                        return found
            failed.add(key)
            return 0

        return search(-1, cell, start, bit, bit)

    def can_still_be_filled(self, cell: int) -> bool:
        return bool(self.fill_witness(cell))

    # ----- state interface ----------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.to_move

    def legal_actions(self) -> list[int]:
        phase, n = self.phase, self.n
        if phase == FILL or phase == FILL2:
            return bits(self.legal_mask())
        if phase == TOKEN:
            kinds = sorted({t[0] for t in self.tokens[self.to_move]})
            return [n + NO_TOKEN] + [n + USE_DOUBLE + k for k in kinds]
        if phase == TRAP_PHASE:
            return bits(self.geo.full & ~(self.filled | self.rock)) + [n + NO_TRAP]
        if phase == SEED:
            return bits(self.geo.full & ~self.rock)
        if phase == CHOOSE:
            return [n + STAY, n + SWAP]
        return []

    def _is_legal(self, a: int) -> bool:
        phase, n = self.phase, self.n
        if phase == FILL or phase == FILL2:
            return 0 <= a < n and bool(self.legal_mask() >> a & 1)
        if phase == TRAP_PHASE:
            return a == n + NO_TRAP or (0 <= a < n and not (self.filled | self.rock) >> a & 1)
        if phase == TOKEN:
            return a == n + NO_TOKEN or (
                n + USE_DOUBLE <= a <= n + USE_TRAP
                and any(t[0] == a - n - USE_DOUBLE for t in self.tokens[self.to_move])
            )
        if phase == SEED:
            return 0 <= a < n and not self.rock >> a & 1
        if phase == CHOOSE:
            return a == n + STAY or a == n + SWAP
        return False

    def why_illegal(self, action: Any) -> str | None:
        try:
            a = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        n = self.n
        if not 0 <= a < n + 7:
            return f"action {a} does not exist: actions are 0…{n + 6}"
        if self.phase == OVER:
            return "the game is over"
        if self._is_legal(a):
            return None
        phase, who = self.phase, AGENTS[self.to_move]
        if phase == SEED:
            if a >= n:
                return f"first {who}, the seeder, fills any cell: choose a cell"
            return f"{self._name(a)} is a rock: rocks cannot be seeded"
        if phase == CHOOSE:
            return f"{who} now chooses: stay (move next) or swap (the seeder moves next)"
        if phase == TOKEN:
            if n + USE_DOUBLE <= a <= n + USE_TRAP:
                return f"you hold no {KIND_TITLES[a - n - USE_DOUBLE]} token"
            return "first use one of your tokens or choose no-token"
        if phase == TRAP_PHASE:
            if a < n:
                if self.rock >> a & 1:
                    return f"{self._name(a)} is a rock: rocks cannot be trapped"
                return f"{self._name(a)} is already filled: a trap goes on an empty cell"
            return "now set a trap on an empty cell or choose no-trap"
        # fill phases
        if a >= n:
            return "now fill a legal cell"
        return self.fill_problem(a)

    def fill_problem(self, cell: int) -> str | None:
        """Why ``cell`` cannot be filled on this board (None when it can, legality only)."""
        bit = 1 << cell
        name = self._name(cell)
        if self.rock & bit:
            return f"{name} is a rock: rocks cannot be filled"
        if self.filled & bit:
            return f"{name} is already filled"
        filled = self.filled
        for others, word in self.geo.triples_of[cell]:
            if filled & others == others:
                return f"that cell would make three in a row {word}"
        for others in self.geo.blocks_of[cell]:
            if filled & others == others:
                return "that cell would complete a solid 2×2 block"
        if not self.touch & bit:
            return "that cell touches no filled cell"
        return None

    def apply(self, action: Any) -> None:
        a = action if type(action) is int else self._check_action(action)
        if self.phase == OVER:
            self._raise_illegal(a)
        if self.timed and self._times_up():
            return
        if not self._is_legal(a):
            self._raise_illegal(a)
        phase, n, mover = self.phase, self.n, self.to_move
        if phase == FILL or phase == FILL2:
            self._fill_phase(a)
        elif phase == TOKEN:
            self._token_phase(a - n)
        elif phase == TRAP_PHASE:
            self._trap_phase(a)
        elif phase == SEED:
            self._seed(a)
        else:
            self.choice = a - n
            self._start_turn(1 if a - n == STAY else 0)
        if self.timed and self.to_move != mover:
            self.shown_time[self.to_move] = self.time_left[self.to_move]

    def _times_up(self) -> bool:
        """Charge the acting player's clock; True (and the game over) if their time ran out."""
        now = self.clock()
        p = self.to_move
        if self.clocked[p]:
            self.time_left[p] -= now - self.stint_start
            if self.time_left[p] <= 0:
                self._finish(1 - p, "time")
                return True
        self.stint_start = now
        return False

    def time_left_now(self, player: int) -> float | None:
        """Seconds left on ``player``'s clock at this moment (None when they have none)."""
        if not self.timed or not self.clocked[player]:
            return None
        left = self.time_left[player]
        if self.phase != OVER and self.to_move == player:
            left -= self.clock() - self.stint_start
        return max(0.0, left)

    # ----- phases -------------------------------------------------------------------------------
    def _seed(self, cell: int) -> None:
        self._place(cell)
        self.seed_cell = cell
        if self.options["gems"]:
            self._place_gems(cell)
        self.phase = CHOOSE
        self.to_move = 1

    def _place_gems(self, seed: int) -> None:
        options = self.options
        block = self.rock | self.filled | self.geo.nbr[seed]
        if options["gem_cells"] is not None:
            for cell, kind_name in options["gem_cells"]:
                if block >> cell & 1 or cell in self.gems:
                    continue
                witness = self.fill_witness(cell)
                if witness:
                    self.gems[cell] = KIND_NAMES.index(kind_name)
                    self.witness[cell] = witness
            return
        rng = self.rng
        if rng is None:
            raise ValueError("FillGame needs an rng (random.Random) for random gems")
        candidates = bits(self.geo.full & ~block)
        rng.shuffle(candidates)  # the first fillable ones are a uniform sample of fillable cells
        for cell in candidates:
            if len(self.witness) == GEM_COUNT:
                break
            witness = self.fill_witness(cell)
            if witness:
                self.witness[cell] = witness
        kinds = 3 if options["traps"] else 2
        for cell in self.witness:
            self.gems[cell] = rng.randrange(kinds)

    def _start_turn(self, p: int) -> None:
        self.to_move = p
        self.double = False
        if not self.legal_mask():
            self._finish(1 - p, "no legal cell")
            return
        self.turns[p] += 1
        if self.tokens[p]:
            self.phase = TOKEN
        else:
            self._trap_or_fill()

    def _trap_or_fill(self) -> None:
        p = self.to_move
        if self.options["traps"] and (self.extra[p] or min(self.recharge[p]) <= self.turns[p]):
            self.phase = TRAP_PHASE
        else:
            self.phase = FILL

    def _token_phase(self, choice: int) -> None:
        p = self.to_move
        if choice != NO_TOKEN:
            kind = choice - USE_DOUBLE
            held = self.tokens[p]
            spent = min((t for t in held if t[0] == kind), key=lambda t: t[1])
            held.remove(spent)
            if kind == PASS:
                self._end_turn()
                return
            if kind == DOUBLE:
                self.double = True
            else:
                self.extra[p] += 1
        self._trap_or_fill()

    def _trap_phase(self, a: int) -> None:
        p = self.to_move
        if a < self.n:
            if self.extra[p]:
                self.extra[p] -= 1
            else:
                recharge = self.recharge[p]
                slot = recharge.index(min(recharge))
                recharge[slot] = self.turns[p] + RECHARGE
            self.live_trap[p] = a
        self.phase = FILL

    def _fill_phase(self, cell: int) -> None:
        p = self.to_move
        if cell == self.live_trap[1 - p] and self.legal_mask().bit_count() >= MIN_LEGAL_TO_SPRING:
            self.last_sprung = (cell, 1 - p)
            self.live_trap[1 - p] = -1
            self._end_turn()
            return
        self._place(cell)
        gems = self.gems
        if gems:
            if cell in gems:
                self.tokens[p].append([gems.pop(cell), self.token_life(), self.turns[p]])
                del self.witness[cell]
            self._shatter(cell)
        if self.phase == FILL and self.double and self.legal_mask():
            self.phase = FILL2
            return
        self._end_turn()

    def _place(self, cell: int) -> None:
        geo = self.geo
        filled = self.filled = self.filled | (1 << cell)
        self.touch |= geo.nbr[cell]
        poison = self.poison
        for x, need in geo.pair_need[cell]:
            if filled & need == need:
                poison |= 1 << x
        self.poison = poison & ~(filled | self.rock)

    def _shatter(self, cell: int) -> None:
        """Remove every gem whose cell can no longer be filled after ``cell`` was filled."""
        filled, patterns = self.filled, self.geo.patterns_of[cell]
        for gem in list(self.gems):
            chain = self.witness[gem]
            if not chain >> cell & 1:
                around = filled | chain
                if not any(around & m == m for m in patterns):
                    continue  # the same chain still fills it
            chain = self.fill_witness(gem)
            if chain:
                self.witness[gem] = chain
            else:
                del self.gems[gem]
                del self.witness[gem]

    def _end_turn(self) -> None:
        p = self.to_move
        turn = self.turns[p]
        held = self.tokens[p]
        if held:
            for token in held:
                if token[2] != turn:
                    token[1] -= 1
            self.tokens[p] = [t for t in held if t[1] > 0]
        self.live_trap[1 - p] = -1
        self._start_turn(1 - p)

    def _finish(self, winner: int, reason: str) -> None:
        self.winner = winner
        self.end_reason = reason
        self.phase = OVER
        self.double = False
        if self.timed:
            for p in (0, 1):
                self.time_left[p] = max(0.0, self.time_left[p])

    def scores(self) -> list[int]:
        if self.winner < 0:
            return [0, 0]
        return [int(p == self.winner) for p in (0, 1)]

    # ----- derived facts for observers, renderers and bots -----------------------------------------
    def ready_regular(self, player: int) -> int:
        return sum(1 for r in self.recharge[player] if r <= self.turns[player])

    def recharge_counts(self, player: int) -> list[int]:
        """For each recharging regular trap: own turns still to start until ready (sorted)."""
        turn = self.turns[player]
        return sorted(r - turn for r in self.recharge[player] if r > turn)

    # ----- notation -----------------------------------------------------------------------------
    def _name(self, cell: int) -> str:
        return cell_name(*divmod(cell, self.options["size"]))

    def action_to_string(self, action: int) -> str:
        n = self.n
        if not 0 <= action < n + 7:
            raise ValueError(f"action {action} does not exist: actions are 0…{n + 6}")
        if action >= n:
            return SPECIAL_NAMES[action - n]
        if self.phase == TRAP_PHASE:
            return f"trap {self._name(action)}"
        return self._name(action)

    def string_to_action(self, text: str) -> int:
        words = text.strip().lower().split()
        if len(words) == 1 and words[0] in SPECIAL_NAMES:
            return self.n + SPECIAL_NAMES.index(words[0])
        if len(words) == 2 and words[0] == "trap":
            words = words[1:]
        if len(words) != 1:
            raise ValueError(
                f"{text!r} is not a Fill action: write a cell like 'c4', 'trap c4', or one of "
                + ", ".join(SPECIAL_NAMES)
            )
        size = self.options["size"]
        row, col = parse_cell(words[0], size, size)
        return row * size + col

    # ----- copies and snapshots ---------------------------------------------------------------------
    def clone(self) -> "FillGame":
        other = object.__new__(FillGame)
        other.__dict__.update(self.__dict__)
        other.gems = dict(self.gems)
        other.witness = dict(self.witness)
        other.tokens = [[t[:] for t in self.tokens[0]], [t[:] for t in self.tokens[1]]]
        other.turns = self.turns[:]
        other.recharge = [self.recharge[0][:], self.recharge[1][:]]
        other.extra = self.extra[:]
        other.live_trap = self.live_trap[:]
        other.time_left = self.time_left[:]
        other.shown_time = self.shown_time[:]
        other.clocked = self.clocked[:]
        if self.phase == SEED and self.rng is not None:
            # Chance is still to come (gems): the copy gets its own generator in the same state.
            other.rng = type(self.rng)()
            other.rng.setstate(self.rng.getstate())
        return other

    def state_dict(self) -> dict[str, Any]:
        time_left = [self.time_left_now(p) if self.timed and self.clocked[p] else self.time_left[p] for p in (0, 1)]
        rng_state = None
        if self.phase == SEED and self.options["gems"] and self.options["gem_cells"] is None and self.rng is not None:
            version, internal, gauss = self.rng.getstate()
            rng_state = [version, list(internal), gauss]
        return {
            "rocks": bits(self.rock),
            "filled": bits(self.filled),
            "seed": self.seed_cell,
            "choice": self.choice,
            "phase": PHASE_NAMES[self.phase],
            "to_move": self.to_move,
            "gems": [[cell, KIND_NAMES[kind]] for cell, kind in sorted(self.gems.items())],
            "tokens": [[[KIND_NAMES[k], left, born] for k, left, born in self.tokens[p]] for p in (0, 1)],
            "turns": list(self.turns),
            "recharge": [list(self.recharge[0]), list(self.recharge[1])],
            "extra_traps": list(self.extra),
            "live_trap": list(self.live_trap),
            "last_sprung": list(self.last_sprung) if self.last_sprung else None,
            "double": self.double,
            "winner": self.winner,
            "end_reason": self.end_reason,
            "time_left": time_left,
            "shown_time": list(self.shown_time),
            "rng": rng_state,
        }

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "FillGame":
        import random

        size = options["size"]
        n = size * size
        game = object.__new__(cls)
        game.__init__(dict(options, rocks=False), None)  # rocks come from the snapshot
        game.options = options
        rocks = state.get("rocks")
        require(isinstance(rocks, list), "snapshot field 'rocks' must be a list")
        rocks = int_list(state, "rocks", len(rocks), 0, n - 1)
        require(options["rocks"] or not rocks, "snapshot has rocks but the option 'rocks' is off")
        filled_list = state.get("filled")
        require(isinstance(filled_list, list), "snapshot field 'filled' must be a list")
        filled_list = int_list(state, "filled", len(filled_list), 0, n - 1)
        require(len(set(rocks)) == len(rocks), "snapshot field 'rocks' repeats a cell")
        require(len(set(filled_list)) == len(filled_list), "snapshot field 'filled' repeats a cell")
        require(not set(rocks) & set(filled_list), "snapshot fills a rock cell")
        game.rock = sum(1 << c for c in rocks)
        phase_name = state.get("phase")
        require(phase_name in PHASE_NAMES, f"snapshot field 'phase' is {phase_name!r}; phases are {', '.join(PHASE_NAMES)}")
        phase = PHASE_NAMES.index(phase_name)
        seed = int_field(state, "seed", -1, n - 1)
        require((seed < 0) == (phase == SEED), "snapshot 'seed' must be -1 exactly before the seed")
        require(seed < 0 or seed in filled_list, "snapshot seed cell is not filled")
        require(phase != SEED or not filled_list, "snapshot fills cells before the seed")
        if seed >= 0:
            game._place(seed)
        for cell in filled_list:
            if cell != seed:
                problem = game.fill_problem(cell)
                require(
                    problem is None or problem == "that cell touches no filled cell",
                    f"snapshot board is impossible at {game._name(cell)}: {problem}",
                )
                game.filled |= 1 << cell
        # Rebuild touch and poison from scratch (fill order does not matter for them).
        game.filled, game.touch, game.poison = 0, 0, 0
        for cell in filled_list:
            game._place(cell)
        game.seed_cell = seed
        game.choice = int_field(state, "choice", -1, SWAP)
        require(game.choice in (-1, STAY, SWAP), "snapshot 'choice' must be -1, 0 (stay) or 1 (swap)")
        require((game.choice < 0) == (phase in (SEED, CHOOSE)), "snapshot 'choice' disagrees with the phase")
        game.phase = phase
        game.to_move = int_field(state, "to_move", 0, 1)
        allowed_kinds = KIND_NAMES if options["traps"] else KIND_NAMES[:2]
        gems = state.get("gems")
        require(isinstance(gems, list), "snapshot field 'gems' must be a list")
        require(options["gems"] or not gems, "snapshot has gems but the option 'gems' is off")
        require(len(gems) <= GEM_COUNT or options["gem_cells"] is not None, "snapshot has too many gems")
        for item in gems:
            require(isinstance(item, list) and len(item) == 2, f"snapshot gem {item!r} must be [cell, kind]")
            cell, kind = item
            require(isinstance(cell, int) and not isinstance(cell, bool) and 0 <= cell < n, f"snapshot gem cell {cell!r} is off the board")
            require(kind in allowed_kinds, f"snapshot gem kind {kind!r} is not one of {', '.join(allowed_kinds)}")
            require(not (game.filled | game.rock) >> cell & 1, f"snapshot gem at {game._name(cell)} is on a filled or rock cell")
            require(cell not in game.gems, f"snapshot has two gems at {game._name(cell)}")
            witness = game.fill_witness(cell)
            require(bool(witness), f"snapshot gem at {game._name(cell)} is on a cell that can no longer be filled")
            game.gems[cell] = KIND_NAMES.index(kind)
            game.witness[cell] = witness
        tokens = state.get("tokens")
        require(isinstance(tokens, list) and len(tokens) == 2, "snapshot field 'tokens' must hold two lists")
        life = TOKEN_LIFE[size]
        for p in (0, 1):
            require(isinstance(tokens[p], list), "snapshot field 'tokens' must hold two lists")
            for token in tokens[p]:
                require(isinstance(token, list) and len(token) == 3, f"snapshot token {token!r} must be [kind, turns left, turn collected]")
                kind, left, born = token
                require(kind in allowed_kinds, f"snapshot token kind {kind!r} is not one of {', '.join(allowed_kinds)}")
                require(isinstance(left, int) and not isinstance(left, bool) and 1 <= left <= life, f"snapshot token turns left {left!r} must be 1…{life}")
                require(isinstance(born, int) and not isinstance(born, bool) and born >= 0, f"snapshot token turn {born!r} must be a turn number")
                game.tokens[p].append([KIND_NAMES.index(kind), left, born])
        game.turns = int_list(state, "turns", 2, 0, 10**6)
        recharge = state.get("recharge")
        require(isinstance(recharge, list) and len(recharge) == 2, "snapshot field 'recharge' must hold two lists")
        game.recharge = [int_list({"recharge": r}, "recharge", REGULAR_TRAPS, 0, 10**6) for r in recharge]
        game.extra = int_list(state, "extra_traps", 2, 0, GEM_COUNT if options["gem_cells"] is None else 10**6)
        game.live_trap = int_list(state, "live_trap", 2, -1, n - 1)
        if not options["traps"]:
            require(game.extra == [0, 0] and game.live_trap == [-1, -1], "snapshot has traps but the option 'traps' is off")
            require(game.recharge == [[0, 0], [0, 0]], "snapshot has used traps but the option 'traps' is off")
        sprung = state.get("last_sprung")
        if sprung is not None:
            require(isinstance(sprung, list) and len(sprung) == 2, "snapshot 'last_sprung' must be null or [cell, owner]")
            cell = int_field({"c": sprung[0]}, "c", 0, n - 1)
            owner = int_field({"o": sprung[1]}, "o", 0, 1)
            game.last_sprung = (cell, owner)
        double = state.get("double")
        require(isinstance(double, bool), "snapshot field 'double' must be true or false")
        require(not double or phase in (TRAP_PHASE, FILL, FILL2), "snapshot 'double' is set outside a Double's phases")
        game.double = double
        game.winner = int_field(state, "winner", -1, 1)
        require((game.winner >= 0) == (phase == OVER), "snapshot 'winner' must be set exactly when the game is over")
        reason = state.get("end_reason")
        require(reason in ("", "no legal cell", "time"), f"snapshot 'end_reason' {reason!r} is unknown")
        game.end_reason = reason
        time_left = state.get("time_left")
        require(isinstance(time_left, list) and len(time_left) == 2, "snapshot field 'time_left' must hold two numbers")
        for value in time_left:
            require(isinstance(value, (int, float)) and not isinstance(value, bool), "snapshot field 'time_left' must hold numbers")
        game.time_left = [float(v) for v in time_left]
        shown = state.get("shown_time")
        require(isinstance(shown, list) and len(shown) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in shown),
            "snapshot field 'shown_time' must hold two numbers")
        game.shown_time = [float(v) for v in shown]
        game.stint_start = game.clock() if game.timed else 0.0
        rng_state = state.get("rng")
        if rng_state is not None:
            require(isinstance(rng_state, list) and len(rng_state) == 3, "snapshot field 'rng' is malformed")
            rng = random.Random()
            try:
                rng.setstate((rng_state[0], tuple(rng_state[1]), rng_state[2]))
            except (TypeError, ValueError) as error:
                raise SnapshotError(f"snapshot field 'rng' is malformed: {error}") from None
            game.rng = rng
        elif phase == SEED and options["gems"] and options["gem_cells"] is None:
            raise SnapshotError("snapshot before the seed with random gems must carry the 'rng' state")
        if phase in (TOKEN, TRAP_PHASE, FILL, FILL2):
            require(game.legal_mask() != 0, "snapshot has a turn in progress with no legal cell")
        if phase == TOKEN:
            require(bool(game.tokens[game.to_move]), "snapshot is in the token phase but the player holds no token")
        if phase == TRAP_PHASE:
            p = game.to_move
            require(options["traps"] and (game.extra[p] or min(game.recharge[p]) <= game.turns[p]),
                    "snapshot is in the trap phase but the player has no ready trap")
        if phase in (SEED, CHOOSE):
            require(game.to_move == (0 if phase == SEED else 1), "snapshot 'to_move' disagrees with the phase")
        return game
