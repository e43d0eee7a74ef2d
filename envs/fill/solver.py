"""The exact solver of Fill's fill-only game: who wins when both players only fill.

Tokens and traps are left out (a bot that uses the solver decides about them separately): the
player to move fills a legal cell, then the other, until a player to move has no legal cell and
loses. The board rule is the engine's own (:func:`envs.fill.board.place`).

One :class:`FillSolver` serves one board geometry and rock layout, and keeps a table of the
positions it has solved, keyed by the filled mask (touch and poison follow from it), across
calls: the values are exact, so the table changes how fast it answers, never what. Before
searching deeper it looks for a reply already known lost or leaving no legal cell, then tries
the replies that leave the opponent fewest legal cells first (about twice as fast as trying
them in cell order).

With a ``budget`` (nodes searched per call) a call that would search more answers ``None``
instead; what a budgeted call answers then depends on what earlier calls left in the table, so
a bot that wants repeatable play keeps a solver of its own.
"""

from __future__ import annotations

import math

from envs.fill.board import Board, Geometry, legal_mask, place


class _OutOfBudget(Exception):
    pass


class FillSolver:
    """Exact results of the fill-only game on one geometry and rock layout (module docstring)."""

    def __init__(self, geo: Geometry, rock: int, budget: int | None = None, memo_limit: int = 1_000_000):
        self.geo, self.rock = geo, rock
        self.budget = budget
        self.memo_limit = memo_limit  # positions kept before the table is emptied (speed only)
        self.memo: dict[int, bool] = {}
        self._left = math.inf

    def fits(self, geo: Geometry, rock: int) -> bool:
        """Whether this solver's table is for that geometry and rock layout."""
        return self.geo is geo and self.rock == rock

    # ----- questions ---------------------------------------------------------------------------
    def mover_wins(self, filled: int, touch: int, poison: int) -> bool | None:
        """Whether the player to move wins (no legal cell: a loss); ``None`` over the budget."""
        self._start()
        try:
            return self._wins(filled, touch, poison)
        except _OutOfBudget:
            return None

    def winning_fills(self, filled: int, touch: int, poison: int, again: bool = False,
                      first_only: bool = False) -> list[int] | None:
        """The legal fills that win for the player to move, in cell order; ``None`` over the
        budget. With ``again`` the same player fills once more right after (a Double's first
        fill): a fill wins when it leaves no legal cell or the same player then wins. With
        ``first_only``, stop at the first winning fill."""
        self._start()
        geo, rock = self.geo, self.rock
        winning = []
        legal = legal_mask(geo, rock, filled, touch, poison)
        try:
            while legal:
                low = legal & -legal
                legal ^= low
                cell = low.bit_length() - 1
                after, next_touch, poisoned = place(geo, rock, filled, touch, poison, cell)
                if again:
                    wins = not legal_mask(geo, rock, after, next_touch, poisoned) or self._wins(after, next_touch, poisoned)
                else:
                    wins = not self._wins(after, next_touch, poisoned)
                if wins:
                    winning.append(cell)
                    if first_only:
                        break
        except _OutOfBudget:
            return None
        return winning

    def board_wins(self, board: Board) -> bool | None:
        """:meth:`mover_wins` on a :class:`~envs.fill.board.Board`."""
        return self.mover_wins(board.filled, board.touch, board.poison)

    def board_winning_fills(self, board: Board) -> list[int] | None:
        """:meth:`winning_fills` on a :class:`~envs.fill.board.Board`."""
        return self.winning_fills(board.filled, board.touch, board.poison)

    # ----- the search --------------------------------------------------------------------------
    def _start(self) -> None:
        if len(self.memo) > self.memo_limit:
            self.memo.clear()
        self._left = math.inf if self.budget is None else self.budget

    def _wins(self, filled: int, touch: int, poison: int) -> bool:
        memo = self.memo
        known = memo.get(filled)
        if known is not None:
            return known
        self._left -= 1
        if self._left < 0:
            raise _OutOfBudget
        geo, rock = self.geo, self.rock
        full = geo.full
        legal = touch & ~(filled | rock | poison) & full
        replies = []
        while legal:
            low = legal & -legal
            legal ^= low
            after = filled | low
            known = memo.get(after)
            if known is None:
                after, next_touch, poisoned = place(geo, rock, filled, touch, poison, low.bit_length() - 1)
                their_legal = next_touch & ~(after | rock | poisoned) & full
                if not their_legal:
                    known = False
                else:
                    replies.append((their_legal.bit_count(), after, next_touch, poisoned))
                    continue
            if not known:
                memo[filled] = True
                return True
        replies.sort()
        wins = self._wins
        for _, after, next_touch, poisoned in replies:
            if not wins(after, next_touch, poisoned):
                memo[filled] = True
                return True
        memo[filled] = False
        return False
