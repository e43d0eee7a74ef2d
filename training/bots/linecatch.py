"""Linecatch bots: a heuristic (catch what you can, hand over nothing) and the exact solver."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from envs.core.sampling import read_observation
from envs.linecatch.observer import LinecatchObserver
from envs.linecatch.rules import LinecatchGame, geometry
from envs.linecatch.solver import DISK_FROM, MAX_SQUARES, LinecatchSolver, table, table_ready
from training.agents.base import legal_from_mask
from training.bots import BotKit, LadderSpec, Preparation, SearchHooks


class _LinecatchBot:
    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = LinecatchGame.resolve_options(options)
        self.geo = geometry(self.options["rows"], self.options["cols"], self.options["pro"])
        self.rng = random.Random(seed)

    def black_mask(self, observation) -> int:
        """The observed black squares as a bit set, decoded by the game's observer after the
        core's checks (an observation of other options is refused by name)."""
        black = read_observation(LinecatchGame, LinecatchObserver, observation, self.options).fields["black"]
        return sum(1 << cell for cell, b in enumerate(black.ravel()) if b)


class HeuristicLinecatchBot(_LinecatchBot):
    """Takes the biggest catch; otherwise a square that leaves no line one square short.

    When every move hands the opponent a line, it picks the one whose best reply catches least.
    """

    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        mask = self.black_mask(observation)
        geo = self.geo
        gains = {cell: geo.catch_points(mask, cell) for cell in legal}
        best_gain = max(gains.values())
        if best_gain > 0:
            return self.rng.choice([c for c in legal if gains[c] == best_gain])
        # Danger of a move: the most the opponent could catch with one square afterwards.
        danger = {}
        for cell in legal:
            after = mask | (1 << cell)
            worst = 0
            for line in geo.cell_lines[cell]:
                missing = geo.line_mask[line] & ~after
                if missing and missing & (missing - 1) == 0:  # exactly one white square left
                    worst = max(worst, geo.catch_points(after, missing.bit_length() - 1))
            danger[cell] = worst
        least = min(danger.values())
        return self.rng.choice([c for c in legal if danger[c] == least])


class SolverLinecatchBot(_LinecatchBot):
    """Perfect play on boards of up to 25 squares: a move of the best value, ties broken by
    the bot's seeded generator (the same seed, the same choices). The 5×5 tables are built on
    first use and cached on disk (``envs.linecatch.solver``)."""

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        super().__init__(game, seed, **options)
        self.solver = LinecatchSolver(self.geo.rows, self.geo.cols, self.geo.pro)

    @classmethod
    def preparation(cls, game: str | None = None, **options: Any) -> Preparation | None:
        """The board's table, while this process does not hold it yet, on boards of ``DISK_FROM``
        squares or more (building it takes up to 10–15 seconds the first time, on 5×5; reading
        it back from the disk cache a moment); smaller boards build in a fraction of a second
        as the bot is made (``training.bots.Preparation``)."""
        resolved = LinecatchGame.resolve_options(options)
        rows, cols, pro = resolved["rows"], resolved["cols"], resolved["pro"]
        if not DISK_FROM <= rows * cols <= MAX_SQUARES or table_ready(rows, cols, pro):
            return None  # quick to build, or too large (making the bot says so)
        board = f"{rows}×{cols}{' pro' if pro else ''}"
        return Preparation(("linecatch-solver-table", rows, cols, pro), f"the exact solver's table of the {board} board",
                           lambda: table(rows, cols, pro, progress=False))

    def action_values(self, observation) -> dict[int, int]:
        """Each legal square's exact value for the seat to move (its final margin with perfect
        play after it): what ``training.evaluate --solver-loss`` measures other agents by."""
        values = self.solver.action_values(self.black_mask(observation))
        return {c: values[c] for c in legal_from_mask(observation)}

    def best_actions(self, observation) -> list[int]:
        """Every optimal square (what imitation learning spreads its target over)."""
        legal = legal_from_mask(observation)
        values = self.action_values(observation)
        best = max(values[c] for c in legal)
        return [c for c in legal if values[c] == best]

    def act(self, observation) -> int:
        return self.rng.choice(self.best_actions(observation))

    def action_probabilities(self, observation) -> np.ndarray:
        """Perfect play as a distribution: equal shares on every optimal square, none elsewhere.
        A learner imitating the solver (``training.endgame_tuning --teacher solver``) then learns
        which squares are all equally good, not one tie-break drawn at random."""
        mask = np.asarray(observation["action_mask"])
        probabilities = np.zeros(mask.shape[0], np.float64)
        best = self.best_actions(observation)
        probabilities[best] = 1.0 / len(best)
        return probabilities


def preferred_actions(state: LinecatchGame) -> list[int]:
    """The heuristic's rule on an engine state, cheap enough for search: the squares that catch
    a line one square short; else those that leave no line one short; else every square.
    MCTS plays out among them and tries them first (``training.search.mcts``)."""
    remaining, cell_lines = state.remaining, state.geo.cell_lines
    legal = [cell for cell, b in enumerate(state.black) if not b]
    catching = [c for c in legal if any(remaining[line] == 1 for line in cell_lines[c])]
    if catching:
        return catching
    return [c for c in legal if all(remaining[line] != 2 for line in cell_lines[c])] or legal

KIT = BotKit(
    heuristic=HeuristicLinecatchBot,
    solver=SolverLinecatchBot,
    search=SearchHooks(preferred=preferred_actions),
    ladders=(
        LadderSpec({}, mcts=":w=inf", note="default 5×5 board; no progressive widening (it held MCTS(1000) back here)"),
        LadderSpec({"rows": 4, "cols": 4}, mcts=":w=inf", trained="checkpoints/linecatch/linecatch_4x4__maskppo__1.zip",
                   climb=False, extra=("solver",), note="where the shipped 4×4 agent stands"),
    ),
)
