"""Fill rules engine: seed, swap, no three in a row, no 2×2 (``docs/fill.md``).

Pure Python, no PettingZoo. :class:`FillGame` is the turn machine: setup (rocks, the seed,
gems, the choice), the phases of a turn (token, trap, fill, second fill), traps springing,
gems shattering, tokens counting down, clocks; ``why_illegal`` and the notation. The board and
its rules live in :mod:`envs.fill.board` (bitmasks, :func:`~envs.fill.board.place`, the
"can still be filled" search), the options in :mod:`envs.fill.options`, copies and snapshots in
:mod:`envs.fill.snapshots`.

Gems shatter when their cell can no longer be filled. The search for a filling chain returns a
witness (the chain's cells); after each fill a gem is searched again only when that fill
broke its witness (filled one of its cells or completed a forbidden pattern with it), since
otherwise the same chain still works.
"""

from __future__ import annotations

from typing import Any

from envs.core.bits import set_bits as bits
from envs.core.game import CHANCE, TERMINAL, Game, IllegalActionError, short_repr
from envs.core.notation import cell_name, parse_cell
from envs.fill import options as fill_options
from envs.fill.board import Geometry, fill_witness, geometry, place
from envs.fill.facts import (
    AGENTS, CHOOSE, GEMS, PLAYER_PHASES, ROCKS, DIRECTION_WORDS, DOUBLE, FILL, FILL2, GEM_COUNT, KIND_NAMES, KIND_TITLES, LINES,
    MIN_LEGAL_TO_SPRING, NO_TOKEN, NO_TRAP, OVER, PASS, PHASE_NAMES, RECHARGE, REGULAR_TRAPS, SEED, SIZES,
    SPECIAL_NAMES, SPECIALS, STAY, SWAP, TIME_LIMIT, TOKEN, TOKEN_LIFE, TRAP, TRAP_PHASE, USE_DOUBLE, USE_PASS,
    USE_TRAP,
)
from envs.fill.chance import FillChance, rock_target
from envs.fill.snapshots import FillSnapshots


class FillGame(FillChance, FillSnapshots, Game):
    """State: the board masks, gems, tokens, traps, turn counters, phase and clocks."""

    NAME = "fill_v0"
    SNAPSHOT_VERSION = 2  # 2: rocks and gems are chance nodes (phases "rocks", "gems"), no "rng" field
    RUNTIME_OPTIONS = ("clock",)  # a time source is not part of a position
    NEUTRAL_OPTIONS = ("time_limit", "clocked", "clock", "rock_cells", "gem_cells")  # clocks, scripted chance
    OPTIONS = fill_options.OPTIONS

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        return fill_options.check_options(options)

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return options["size"] ** 2 + SPECIALS

    # ----- setup --------------------------------------------------------------------------------
    def __init__(self, options: dict[str, Any], rng=None):
        """A new game at its first node (a rock chance node with rocks on, else the seed).
        ``rng`` is unused (chance is resolved by whoever plays the chance nodes)."""
        self.options = options
        size = options["size"]
        self.geo = geo = geometry(size, options["lines"])
        self.n = geo.cells
        self.filled = 0
        self.rock = 0
        self.touch = 0
        self.poison = 0
        self.gem_open: dict[int, int] | None = None  # cells gems may appear on, with chains, once known
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
        self.phase = ROCKS if rock_target(options) else SEED  # rocks are chance nodes
        self.to_move = 0
        self.winner = -1
        self.end_reason = ""
        self.clock = options["clock"]
        self.timed = bool(options["time_limit"])
        self.clocked = tuple(AGENTS[p] in options["clocked"] for p in (0, 1))
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
        """A chain proving ``cell`` can still be filled (mask of its cells), or 0 if it cannot
        (:func:`envs.fill.board.fill_witness`)."""
        return fill_witness(self.geo, self.rock, self.filled, self.touch, self.poison, cell)

    def can_still_be_filled(self, cell: int) -> bool:
        return bool(self.fill_witness(cell))

    # ----- state interface ----------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase == OVER:
            return TERMINAL
        return CHANCE if phase >= ROCKS else self.to_move

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
        if phase >= ROCKS:
            return self._chance_legal()
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
        if self.phase >= ROCKS:
            return self._chance_problem(a)
        n = self.n
        if not 0 <= a < n + SPECIALS:
            return f"action {a} does not exist: actions are 0…{n + SPECIALS - 1}"
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
        if self.rock & bit:
            return f"{self._name(cell)} is a rock: rocks cannot be filled"
        if self.filled & bit:
            return f"{self._name(cell)} is already filled"
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
        phase = self.phase
        if phase == OVER:
            self._raise_illegal(a)
        if phase >= ROCKS:  # a chance node: no clock runs
            if not self._is_outcome(a):
                self._raise_illegal(a)
            self._apply_chance(a)
            return
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
            self.gem_open = None  # the gem chance nodes are over
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
        self.to_move = 1  # the chooser, once the gems (chance nodes) are placed
        self.phase = GEMS if self.options["gems"] and self._gems_to_come() else CHOOSE

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
        self.filled, self.touch, self.poison = place(self.geo, self.rock, self.filled, self.touch, self.poison, cell)

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
        """The notation of ``action`` here: ``c4``, ``trap c4`` in the trap phase, ``stay``,
        ``no-trap``, …; at a chance node its outcome: ``rock c4``, ``double gem c4``."""
        n = self.n
        if self.phase >= ROCKS:
            return self._chance_name(action)
        if not 0 <= action < n + SPECIALS:
            raise ValueError(f"action {action} does not exist: actions are 0…{n + SPECIALS - 1}")
        if action >= n:
            return SPECIAL_NAMES[action - n]
        if self.phase == TRAP_PHASE:
            return f"trap {self._name(action)}"
        return self._name(action)

    def string_to_action(self, text: str) -> int:
        """The action (or chance outcome) ``text`` names: the inverse of
        :meth:`action_to_string`; ``trap c4``, ``rock c4`` and ``c4`` are read in any phase."""
        if not isinstance(text, str):
            raise ValueError(f"a Fill move is text such as 'c4' or 'no-trap', not {short_repr(text)}")
        words = text.strip().lower().split()
        if len(words) == 1 and words[0] in SPECIAL_NAMES:
            return self.n + SPECIAL_NAMES.index(words[0])
        if len(words) == 3 and words[0] in KIND_NAMES and words[1] == "gem":
            return KIND_NAMES.index(words[0]) * self.n + self._parse_cell(words[2])
        if len(words) == 2 and words[0] == "trap" and self.phase != TRAP_PHASE and self.phase < PLAYER_PHASES:
            raise ValueError(self._no_trap_now())
        if len(words) == 2 and words[0] in ("trap", "rock"):
            words = words[1:]
        if len(words) != 1 or len(words[0]) > 8:
            raise ValueError(
                f"{short_repr(text)} is not a Fill action: write a cell like 'c4', 'trap c4', or one of "
                + ", ".join(SPECIAL_NAMES) + " (chance outcomes: 'rock c4', 'double gem c4')"
            )
        return self._parse_cell(words[0])

    def _no_trap_now(self) -> str:
        """Why ``trap c4`` is no move now (the trap phase comes before the fill)."""
        if not self.options["traps"]:
            return "this game is played without traps (traps=False)"
        if self.phase in (SEED, CHOOSE):
            return "no trap before the game starts: traps are set in a turn's trap phase, before its fill"
        if self.phase == TOKEN:
            return "first use one of your tokens or choose no-token; a trap, if you have one ready, comes after"
        return "traps are set in the trap phase, before you fill (and only with a trap ready): now fill a cell, e.g. 'c4'"

    def _parse_cell(self, word: str) -> int:
        size = self.options["size"]
        row, col = parse_cell(word, size, size)
        return row * size + col


# The game's facts and board helpers, importable with the engine (``from envs.fill.rules import
# FILL, FillGame, bits``) as well as from envs.fill.facts and envs.fill.board.
__all__ = [
    "FillGame", "Geometry", "geometry", "place", "bits",
    "AGENTS", "CHOOSE", "GEMS", "ROCKS", "PLAYER_PHASES", "DIRECTION_WORDS", "DOUBLE", "FILL", "FILL2", "GEM_COUNT", "KIND_NAMES", "KIND_TITLES",
    "LINES", "MIN_LEGAL_TO_SPRING", "NO_TOKEN", "NO_TRAP", "OVER", "PASS", "PHASE_NAMES", "RECHARGE",
    "REGULAR_TRAPS", "SEED", "SIZES", "SPECIAL_NAMES", "SPECIALS", "STAY", "SWAP", "TIME_LIMIT", "TOKEN",
    "TOKEN_LIFE", "TRAP", "TRAP_PHASE", "USE_DOUBLE", "USE_PASS", "USE_TRAP",
]
