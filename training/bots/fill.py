"""Fill bots: ``random``, ``heuristic`` (plays every phase from its own observation only) and
``solver`` (:class:`FillSolverBot`, exact on 6×6 fill-only games; see "the exact player" below).

The heuristic bot is made for one table's options (``load_agent("heuristic", "fill_v0",
**options)``) and refuses an observation of another (a ``ValueError`` naming its options). It
decodes its observation through :class:`envs.fill.observer.FillObserver`, rebuilds the public
board with the engine's own :class:`envs.fill.board.Board` and solves endgames with
:class:`envs.fill.solver.FillSolver` (its own, with a node budget). It

* **fills** with an exact endgame search (fills only, tokens and traps ignored) once few cells
  are still open; before that it scores each fill by random playouts (how often the opponent,
  then to move, ends up stuck) plus a small weight on mobility (its own legal cells after the
  opponent's reply, averaged, minus the opponent's right after its fill) and a bonus for
  collecting a gem;
* **seeds** the cell whose position looks most even (random playouts), since the chooser may
  take a strong seed away;
* **chooses** STAY or SWAP by estimating, with playouts (or the exact search when small),
  whether the player to move next wins;
* **traps** the cell it expects the opponent to fill next: the opponent's only winning reply
  when the endgame search finds one, else its best reply by the same mobility rule;
* **spends tokens** when the endgame search says a Pass or a Double turns a loss into a win,
  and a Trap token at once (an extra trap never expires).

The search hooks at the end (``preferred_actions``, ``evaluate_state``, read by
``training.search.mcts``) bring the same ideas to engine states: the exact endgame search once at most
``SEARCH_SOLVE_ROOM`` cells are left, one seed per symmetry class, traps near the legal cells.
With them MCTS(100) beats this heuristic (about 70% on default options); the reason for the
threshold and the measurements are in the comments there.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from envs.fill.board import Board, Geometry
from envs.core.observer import D4
from envs.fill.observer import FillObserver, cell_permutation
from envs.fill.rules import (
    FILL, FILL2, NO_TOKEN, NO_TRAP, SEED, STAY, SWAP, TOKEN, TRAP_PHASE, USE_DOUBLE, USE_PASS, USE_TRAP, FillGame,
    bits, geometry,
)
from envs.fill.solver import FillSolver
from training.agents.base import legal_from_mask
from training.bots import BotKit, LadderSpec, SearchHooks

SOLVE_OPEN = 16  # exact search when at most this many empty, non-poisoned cells remain
SOLVE_BUDGET = 40_000  # nodes per search; beyond it the heuristic decides
SOLVE_MEMO_LIMIT = 200_000  # positions the heuristic's own solver keeps (speed only)
GEM_BONUS = 0.15  # a gem is worth this much playout win rate
MOBILITY_WEIGHT = 0.01  # mobility breaks near-ties between playout estimates
PLAYOUT_STEPS = 4000  # playout fills spent per decision (split over the candidate fills)


class _FillBot:
    """What every Fill bot here starts from: its table's options, the observer that decodes its
    observations, the board geometry and a seeded generator."""

    name = ""

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = FillGame.resolve_options(options)
        self.observer = FillObserver(self.options)
        self.geo = geometry(self.options["size"], self.options["lines"])
        self.n = self.geo.cells
        self.rng = random.Random(seed)

    def legal(self, observation) -> list[int]:
        """The legal actions of an observation of this bot's table (another table's is refused
        by name)."""
        self.observer.check_fits(observation, f"this {self.name} bot")
        return legal_from_mask(observation)

    def read(self, observation) -> tuple[dict, Board]:
        """The decoded view and the public board (decoding costs a millisecond or two, so a
        forced move returns before it)."""
        view = self.observer.decode(observation)
        return view, Board.from_cells(self.geo, view["rocks"], view["filled"])


class FillHeuristicBot(_FillBot):
    """Plays every phase of Fill from its own observation (see the module docstring)."""

    name = "heuristic"

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        super().__init__(game, seed, **options)
        self.solver = self._new_solver(0)
        self._plan = (-1, -1)

    def _new_solver(self, rock: int) -> FillSolver:
        """The bot's own solver (its table is keyed by filled cells: one per rock layout). A
        budgeted solver's answers depend on what its table holds, so it is not shared."""
        return FillSolver(self.geo, rock, budget=SOLVE_BUDGET, memo_limit=SOLVE_MEMO_LIMIT)

    # ----- the one method ----------------------------------------------------------------------
    def act(self, observation) -> int:
        legal = self.legal(observation)
        if len(legal) == 1:
            return legal[0]
        view, board = self.read(observation)
        if not self.solver.fits(self.geo, board.rock):
            self.solver = self._new_solver(board.rock)
        phase, n = view["phase"], self.n
        if phase == "seed":
            return self._seed(board, legal)
        if phase == "choose":
            return n + (STAY if self._mover_wins(board) >= 0.5 else SWAP)
        if phase == "token":
            return self._token(board, view, legal)
        if phase == "trap":
            return self._trap(board, view, legal)
        return self._fill(board, view, legal)

    # ----- phases ---------------------------------------------------------------------------------
    def _seed(self, board: Board, legal: list[int]) -> int:
        size = self.options["size"]
        mid = size // 2
        candidates = {0, size - 1, mid * size + mid, (mid - 1) * size + mid - 1, mid, mid * size, size * size - 1}
        candidates.update(self.rng.sample(legal, min(3, len(legal))))
        choices = [c for c in sorted(candidates) if c in legal] or legal
        best, best_gap = choices[0], 2.0
        for cell in choices:
            gap = abs(self._mover_wins(board.place(cell), playouts=10) - 0.5)
            if gap < best_gap:
                best, best_gap = cell, gap
        return best

    def _mover_wins(self, board: Board, playouts: int = 24) -> float:
        """Probability that the player to move now wins (exact when the search is small)."""
        if board.open_count() <= SOLVE_OPEN:
            result = self.solver.board_wins(board)
            if result is not None:
                return float(result)
        return self._mover_wins_playouts(board, playouts)

    def _mover_wins_playouts(self, board: Board, playouts: int) -> float:
        wins = 0
        for _ in range(playouts):
            b, mover_to_act = board, True
            while True:
                options = bits(b.legal())
                if not options:
                    break
                b = b.place(self.rng.choice(options))
                mover_to_act = not mover_to_act
            wins += not mover_to_act  # the player stuck is the one to act
        return wins / playouts

    def _token(self, board: Board, view: dict, legal: list[int]) -> int:
        n = self.n
        held = {kind for kind, _ in view["my_tokens"]}
        if "trap" in held:
            return n + USE_TRAP
        if board.open_count() <= SOLVE_OPEN and ("pass" in held or "double" in held):
            winning = self.solver.board_winning_fills(board)
            if winning is None or winning:
                return n + NO_TOKEN  # winning already (or unknown): keep the tokens
            if "pass" in held and self.solver.board_wins(board) is False:
                return n + USE_PASS  # the opponent, to move on this board, loses
            if "double" in held and self._double_wins(board):
                return n + USE_DOUBLE
        expiring = [kind for kind, left in view["my_tokens"] if left <= 1]
        if "double" in expiring:
            return n + USE_DOUBLE  # use it rather than lose it
        return n + NO_TOKEN

    def _double_wins(self, board: Board) -> bool:
        for first in bits(board.legal()):
            after = board.place(first)
            if not after.legal():
                return True
            for second in bits(after.legal()):
                if self.solver.board_wins(after.place(second)) is False:
                    return True
        return False

    def _trap(self, board: Board, view: dict, legal: list[int]) -> int:
        n = self.n
        mine = self._best_fill(board, view)
        self._plan = (board.filled, mine)  # the fill phase comes next on this same board
        after = board.place(mine)
        replies = bits(after.legal())
        if len(replies) < 3:
            return n + NO_TRAP  # it could not spring: keep the trap
        target = None
        if after.open_count() <= SOLVE_OPEN:
            winning = self.solver.board_winning_fills(after)
            if winning:
                target = winning[0] if len(winning) == 1 else self.rng.choice(winning)
        if target is None:
            target = self._best_fill(after, view, opponent=True)
        return target if target in legal else n + NO_TRAP

    def _fill(self, board: Board, view: dict, legal: list[int]) -> int:
        planned = self._plan
        cell = planned[1] if planned[0] == board.filled else self._best_fill(board, view)
        return cell if cell in legal else self.rng.choice(legal)

    # ----- choosing a fill -------------------------------------------------------------------------
    def _best_fill(self, board: Board, view: dict, opponent: bool = False) -> int:
        moves = bits(board.legal())
        if not moves:
            return self.n + NO_TRAP
        if board.open_count() <= SOLVE_OPEN:
            winning = self.solver.board_winning_fills(board)
            if winning:
                return self.rng.choice(winning)
        gems = view["gems"]
        best, best_score = moves[0], float("-inf")
        playouts = max(2, PLAYOUT_STEPS // (len(moves) * max(1, board.open_count())))
        for cell in moves:
            after = board.place(cell)
            replies = bits(after.legal())
            if not replies:
                return cell  # the opponent has no legal cell: they lose
            # Mobility: my legal cells after their reply (averaged) minus theirs after my fill.
            mine = sum(after.place(r).legal().bit_count() for r in replies) / len(replies)
            mobility = mine - len(replies)
            # Random playouts from the position, the opponent to move: how often they lose.
            win_rate = 1.0 - self._mover_wins_playouts(after, playouts)
            score = win_rate + MOBILITY_WEIGHT * mobility + self.rng.random() * 1e-3
            if cell in gems and not opponent:
                score += GEM_BONUS
            if score > best_score:
                best, best_score = cell, score
        return best


# ----- search hooks (training.search.mcts) ----------------------------------------------------------------
# They read engine states, which MCTS only ever builds by sampling from one seat's observation.

# Exact fill-only search once at most this many cells are empty and unpoisoned. Measured on the
# default 6×6 board, MCTS(100) against the heuristic (80–100 games each): 7 cells 32%, 10 cells
# 48%, 13 cells 64%, 14 cells 67–74%; MCTS(1000) against MCTS(100) costs about 5 s of one core a
# game at 14 and 7 s at 15.
SEARCH_SOLVE_ROOM = 14
SEARCH_MEMO_LIMIT = 1_000_000  # positions (about 75 MB) per table before it is emptied; only speed depends on it

_search_solvers: dict[Geometry, FillSolver] = {}  # one unbudgeted solver per geometry


def search_solver(geo: Geometry, rock: int) -> FillSolver:
    """The shared exact solver for this board kind and rock layout. Its answers are exact and
    it has no node budget, so sharing its table across searches and games changes how fast,
    never what, they answer; a new rock layout (a new game with random rocks) starts anew."""
    solver = _search_solvers.get(geo)
    if solver is None or not solver.fits(geo, rock):
        solver = _search_solvers[geo] = FillSolver(geo, rock, memo_limit=SEARCH_MEMO_LIMIT)
    return solver


def _room(state: FillGame) -> int:
    """Empty, non-rock, non-poisoned cells: a cheap bound on the fills left in the game."""
    return state.geo.full & ~(state.filled | state.rock | state.poison)


def _winning_fills(state: FillGame, first_only: bool = False) -> list[int]:
    """The legal fills that win the fill-only game (tokens and traps ignored, as the heuristic
    does); a Double's first fill wins when the same player then wins with the second. With
    ``first_only``, stop at the first one found."""
    again = state.double and state.phase != FILL2  # this player fills again right after
    solver = search_solver(state.geo, state.rock)
    return solver.winning_fills(state.filled, state.touch, state.poison, again=again, first_only=first_only)


def symmetry_maps(size: int, rock: int) -> list[list[int]]:
    """The square's symmetries (:meth:`FillObserver.symmetries`) as cell permutations, those
    that map the rocks onto themselves."""
    rocks = bits(rock)
    maps = [cell_permutation(size, transform).tolist() for transform in D4]
    return [p for p in maps if sorted(p[r] for r in rocks) == rocks]


_seed_cache: dict[tuple, list[int]] = {}


def _distinct_seeds(state: FillGame) -> list[int]:
    """One seed per class of cells the board's symmetries map onto each other (6 of 36 on an
    empty 6×6): symmetric seeds have the same value, so the rest add nothing to a search. The
    symmetries kept are those of the square (:meth:`FillObserver.symmetries`) that map the
    rocks onto themselves; scripted gems break symmetry (their order matters), so with them
    every seed is kept."""
    options = state.options
    if options["gems"] and options["gem_cells"] is not None:
        return state.legal_actions()
    key = (state.n, state.rock)
    seeds = _seed_cache.get(key)
    if seeds is None:
        keep = symmetry_maps(options["size"], state.rock)
        seeds = _seed_cache[key] = [c for c in state.legal_actions() if c == min(p[c] for p in keep)]
    return seeds


def preferred_actions(state: FillGame) -> list[int]:
    """The heuristic's rules on an engine state, cheap enough for every playout step:

    * fills: once few cells are left (``SEARCH_SOLVE_ROOM``), the first fill that wins the
      exact fill-only game (all fills when none wins); before that every legal fill — no cheap
      static rule picks winners (tried: parity of the cells left, the opponent's mobility,
      cells poisoned), and uniform playouts rank fills best for their cost;
    * the seed: one cell per symmetry class;
    * a trap: the cells the opponent could fill next (legal now or touching one, unpoisoned)
      and no-trap;
    * the choice and tokens: every legal action (two or three of them).
    """
    phase = state.phase
    if phase == FILL or phase == FILL2:
        legal = state.legal_actions()
        if len(legal) > 1 and _room(state).bit_count() <= SEARCH_SOLVE_ROOM:
            # One winning fill is enough (a playout then ends as perfect play would).
            return _winning_fills(state, first_only=True) or legal
        return legal
    if phase == SEED:
        return _distinct_seeds(state)
    if phase == TRAP_PHASE:
        geo, room = state.geo, _room(state)
        reach = geo.dilate(state.legal_mask()) & room
        if state.double:
            reach = geo.dilate(reach) & room  # two fills before the opponent's turn
        return bits(reach) + [state.n + NO_TRAP] if reach else state.legal_actions()
    return state.legal_actions()


def evaluate_state(state: FillGame) -> list[float]:
    """A playout cut off before the end: ±1 from the exact fill-only search once few cells are
    left, else 0 for both (no cheap static signal of the winner was found; the rock and gem
    chance nodes come before any turn, so they get 0 too)."""
    if state.is_terminal():
        return [float(r) for r in state.returns()]
    player = state.current_player()
    if state.phase not in (TOKEN, TRAP_PHASE, FILL, FILL2) or _room(state).bit_count() > SEARCH_SOLVE_ROOM:
        return [0.0, 0.0]
    mover = 1.0 if _winning_fills(state, first_only=True) else -1.0
    return [mover if p == player else -mover for p in (0, 1)]


def solved_scores(state: FillGame) -> list[float] | None:
    """The final scores of perfect play (1 for the winner), when the exact fill-only search
    decides the state: a fill phase with at most ``SEARCH_SOLVE_ROOM`` cells left and nothing
    that search leaves out (traps, gems on the board, tokens held). Else ``None``."""
    if state.phase not in (FILL, FILL2) or _room(state).bit_count() > SEARCH_SOLVE_ROOM:
        return None
    if state.options["traps"] or state.gems or state.tokens[0] or state.tokens[1]:
        return None
    mover = state.current_player()
    winner = mover if _winning_fills(state, first_only=True) else 1 - mover
    return [float(p == winner) for p in (0, 1)]


# ----- the exact player ---------------------------------------------------------------------------
# On 6×6 boards without traps or gems the fill-only game is searched to the end at once (about
# a second from just after the seed, on one core, with lines "orthogonal" or "strict"; "off"
# takes minutes), so play is exact: the chooser keeps the seat that wins, a player who can win
# fills a winning cell. The seeder cannot win against perfect play (the pie rule), so in a lost
# position it plays for the opponent's mistake: the fill after which the smallest share of the
# opponent's replies still wins. Working that share out solves every reply of every fill; it is
# done once at most SWINDLE_ROOM cells are open (under a second from a cold table, measured on
# lost positions: 25 open cells 0.5–0.7 s, 26 1.3 s, 30 3 s, 32 up to 45 s), and before that a
# losing fill is drawn uniformly.
SOLVER_SIZE = 6
SOLVER_LINES = ("orthogonal", "strict")
SWINDLE_ROOM = 24


def winning_share(solver: FillSolver, board: Board) -> Fraction:
    """The share of the mover's legal fills that win the fill-only game (1 with none legal:
    nothing to get wrong)."""
    legal = board.legal().bit_count()
    return Fraction(len(solver.board_winning_fills(board)), legal) if legal else Fraction(1)


def narrowest_fills(solver: FillSolver, board: Board, cells: list[int]) -> list[int]:
    """Among ``cells`` (legal fills that all lose), those that leave the opponent the smallest
    share of winning replies: the hardest positions to keep winning."""
    shares = {cell: winning_share(solver, board.place(cell)) for cell in cells}
    least = min(shares.values())
    return [cell for cell in cells if shares[cell] == least]


def seed_narrowness(solver: FillSolver, board: Board, seeds: list[int]) -> dict[int, Fraction]:
    """Per seed, the share of winning fills the chooser's side has at its first fill once it
    chose right: those of the seeded board when its mover wins (the chooser stays), else the
    smallest share the seeder's best try leaves (the chooser swaps and the seeder moves)."""
    table = {}
    for seed in seeds:
        after = board.place(seed)
        if solver.board_wins(after):
            table[seed] = winning_share(solver, after)
        else:
            table[seed] = min(winning_share(solver, after.place(cell)) for cell in bits(after.legal()))
    return table


# seed_narrowness of the empty 6×6 board, one seed per symmetry class (the smallest cell of
# each): "orthogonal" takes about 35 s to work out, so it is written here, and a test works it
# out again; "strict" takes a tenth of a second and is worked out when first needed.
EMPTY_BOARD_SEEDS = {
    "orthogonal": {0: Fraction(1, 3), 1: Fraction(3, 5), 2: Fraction(1), 7: Fraction(1), 8: Fraction(1), 14: Fraction(1)},
}


class FillSolverBot(_FillBot):
    """Perfect play of Fill where the exact search finishes at once (size 6, lines "orthogonal"
    or "strict", no traps and no gems; rocks allowed); a lost position is played for the
    opponent's mistake (the comment above). The seed: on a board without rocks, a cell of the
    symmetry class whose winning first fills are the smallest share (the corner on default
    options: one of its three neighbours wins); with rocks, one drawn uniformly. Ties are broken
    by the bot's seeded generator (the same seed, the same game). Other options are refused by
    name when the bot is made."""

    name = "solver"

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        super().__init__(game, seed, **options)
        if self.options["size"] != SOLVER_SIZE:
            raise ValueError(f"the Fill solver plays size {SOLVER_SIZE} only (option size={self.options['size']}: "
                             "too large to search to the end at once)")
        if self.options["lines"] not in SOLVER_LINES:
            raise ValueError(f"the Fill solver plays lines {' or '.join(map(repr, SOLVER_LINES))} only (option "
                             f"lines={self.options['lines']!r}: too long to search to the end at once)")
        for option in ("traps", "gems"):
            if self.options[option]:
                raise ValueError(f"the Fill solver plays the fill-only game: option {option}=True is not supported")

    def act(self, observation) -> int:
        legal = self.legal(observation)
        if len(legal) == 1:
            return legal[0]
        view, board = self.read(observation)
        solver = search_solver(self.geo, board.rock)
        phase = view["phase"]
        if phase == "seed":
            return self._seed(solver, board, legal)
        if phase == "choose":
            return self.n + (STAY if solver.board_wins(board) else SWAP)
        if phase != "fill":  # no tokens or traps without gems and traps
            raise ValueError(f"the Fill solver plays the fill-only game, not a {phase!r} phase")
        for cell in self.rng.sample(legal, len(legal)):  # a winning fill drawn at random, the first found
            after = board.place(cell)
            if not after.legal() or not solver.board_wins(after):
                return cell
        if board.open_count() <= SWINDLE_ROOM:
            return self.rng.choice(narrowest_fills(solver, board, legal))
        return self.rng.choice(legal)

    def _seed(self, solver: FillSolver, board: Board, legal: list[int]) -> int:
        if board.rock:
            return self.rng.choice(legal)
        maps = symmetry_maps(self.options["size"], board.rock)
        classes = {cell: min(p[cell] for p in maps) for cell in legal}
        lines = self.options["lines"]
        narrowness = EMPTY_BOARD_SEEDS.get(lines)
        if narrowness is None:
            narrowness = EMPTY_BOARD_SEEDS[lines] = seed_narrowness(solver, board, sorted(set(classes.values())))
        least = min(narrowness.values())
        return self.rng.choice([cell for cell in legal if narrowness[classes[cell]] == least])


__all__ = ["FillHeuristicBot", "FillSolverBot", "KIT", "evaluate_state", "preferred_actions", "search_solver", "solved_scores"]

KIT = BotKit(
    heuristic=FillHeuristicBot,
    solver=FillSolverBot,
    search=SearchHooks(preferred=preferred_actions, evaluate=evaluate_state, solved=solved_scores),
    ladders=(LadderSpec({}, trained="checkpoints/fill/fill__maskppo__0.zip", note="default options"),),
)
