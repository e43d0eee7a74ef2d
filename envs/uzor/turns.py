"""The turn machine: place, fork (close or continue), take; dead ends; the end of the game.

``TurnsMixin`` holds the part of ``UzorGame`` that moves a game on: which actions are legal in
each phase, what each does, and where a turn goes next. The phases (``envs.uzor.common``):

* ``PLACE`` — place a hand tile (a turn's start, when some hand tile fits);
* ``FORK`` — the placement completed patterns: CLOSE one or CONTINUE;
* ``TAKE`` — take a market tile (after a placement; the turn then ends);
* ``DISCARD`` / ``DEAD_TAKE`` — a dead end: discard a hand tile face up to the bottom of the
  supply, then take; ``PASS`` — a dead end with an empty market;
* ``OVER`` — the game has ended.
"""

from __future__ import annotations

import bisect
from typing import Any

from envs.core.game import TERMINAL
from envs.uzor.common import DEAD_TAKE, DISCARD, EMPTY, FORK, IDLE_LIMIT, OVER, PASS, PLACE, TAKE


class TurnsMixin:
    """The turn part of ``UzorGame`` (see the module docstring)."""

    # ----- where a turn goes --------------------------------------------------------------------
    def _start_turn(self, player: int, repeated: bool) -> None:
        """Begin ``player``'s turn (a repeated one if so): the end checks, then the phase."""
        self.to_move = player
        self.repeated = repeated
        self.continued = False
        self.placed = False
        self.fork = {}
        if self.idle >= IDLE_LIMIT or not self.anything_fits():
            self.phase = OVER
            return
        hand = self.hands[player]
        if hand and any(self.fits_somewhere(t) for t in hand):
            self.phase = PLACE
        elif any(x >= 0 for x in self.market):
            self.phase = DISCARD
        else:
            self.phase = PASS

    def _end_turn(self) -> None:
        self.idle = 0 if self.placed else self.idle + 1
        if self.continued and not self.repeated:
            self._start_turn(self.to_move, True)
        else:
            self._start_turn(1 - self.to_move, False)

    def _after_place(self) -> None:
        """After a placement (and its fork): the take, or the turn's end with an empty market."""
        if any(x >= 0 for x in self.market):
            self.phase = TAKE
        else:
            self._end_turn()

    # ----- the state interface ---------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.to_move

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> list[int]:
        """The legal actions, ascending: placements from the first slot of each tile type, the
        fork's closes and CONTINUE, the market slots that hold a tile, dead-end discards, PASS."""
        phase = self.phase
        geo = self.geo
        if phase == PLACE:
            hand = self.hands[self.to_move]
            out: list[int] = []
            prev = -1
            cells = geo.cells
            for s, t in enumerate(hand):
                if t == prev:
                    continue
                prev = t
                if s:
                    base = s * cells
                    out += [base + x for x in self.cells_for_type(t)]
                else:
                    out += self.cells_for_type(t)
            return out
        if phase == FORK:
            return [geo.close0 + k for k in sorted(self.fork)] + [geo.cont]
        if phase == TAKE or phase == DEAD_TAKE:
            return [geo.take0 + m for m, x in enumerate(self.market) if x >= 0]
        if phase == DISCARD:
            hand = self.hands[self.to_move]
            return [geo.discard0 + s for s, t in enumerate(hand) if s == 0 or hand[s - 1] != t]
        if phase == PASS:
            return [geo.pass_]
        return []

    def _legal(self, a: int) -> bool:
        phase = self.phase
        geo = self.geo
        if phase == PLACE:
            if not 0 <= a < geo.close0:
                return False
            s, cell = divmod(a, geo.cells)
            hand = self.hands[self.to_move]
            if s >= len(hand) or (s and hand[s - 1] == hand[s]):
                return False
            return bool(self.cells_for(hand[s]) >> cell & 1)
        if phase == FORK:
            return a == geo.cont or (geo.close0 <= a < geo.cont and a - geo.close0 in self.fork)
        if phase == TAKE or phase == DEAD_TAKE:
            return geo.take0 <= a < geo.discard0 and self.market[a - geo.take0] >= 0
        if phase == DISCARD:
            if not geo.discard0 <= a < geo.pass_:
                return False
            s = a - geo.discard0
            hand = self.hands[self.to_move]
            return s < len(hand) and not (s and hand[s - 1] == hand[s])
        if phase == PASS:
            return a == geo.pass_
        return False

    def apply(self, action: Any) -> None:
        a = action if type(action) is int else self._check_action(action)
        if not self._legal(a):
            self._raise_illegal(a)
        phase = self.phase
        geo = self.geo
        if phase == PLACE:
            s, cell = divmod(a, geo.cells)
            t = self.hands[self.to_move].pop(s)
            self._put(cell, t)
            self.placed = True
            self.last_cell = cell
            fork = self.completions(cell, t)
            if fork:
                self.fork = fork
                self.phase = FORK
            else:
                self._after_place()
        elif phase == FORK:
            if a == geo.cont:
                self.continued = True
            else:
                self._close(a - geo.close0)
            self.fork = {}
            self._after_place()
        elif phase == TAKE or phase == DEAD_TAKE:
            self._take(a - geo.take0)
            self._end_turn()
        elif phase == DISCARD:
            t = self.hands[self.to_move].pop(a - geo.discard0)
            self.supply.append(t)
            self.faceup += 1
            self.phase = DEAD_TAKE
        else:  # PASS
            self._end_turn()

    def _close(self, k: int) -> None:
        """CLOSE ``k``: its points (doubled for the player's goal), crossed out, stones."""
        cells = self.fork[k]
        player = self.to_move
        value = self.geo.map.points[k]
        if self.goals[player] == k:
            value *= 2
        self.points[player] += value
        self.crossed |= 1 << k
        self.closed.append((player, k, cells))
        self._turn_to_stones(cells)

    def _take(self, m: int) -> None:
        """TAKE market slot ``m``: the tile joins the hand (kept sorted), the slot refills from
        the top of the supply (it stays empty with an empty supply)."""
        t = self.market[m]
        bisect.insort(self.hands[self.to_move], t)
        supply = self.supply
        if supply:
            if self.faceup == len(supply):
                self.faceup -= 1
            self.market[m] = supply.pop(0)
        else:
            self.market[m] = EMPTY

    def scores(self) -> list[int]:
        return list(self.points)
