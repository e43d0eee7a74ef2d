"""The turn machine: place, fork (close or continue), take; dead ends; the end of the game.

``TurnsMixin`` holds the part of ``UzorGame`` that moves a game on: which actions are legal in
each phase, what each does, and where a turn goes next. The phases (``envs.uzor.common``):

* ``PLACE`` — place a hand tile (a turn's start, when some hand tile fits);
* ``FORK`` — the placement completed patterns: CLOSE one or CONTINUE;
* ``TAKE`` — take a market tile (after a placement; the turn then ends);
* ``DISCARD`` / ``DEAD_TAKE`` — a dead end: discard a hand tile face up to the bottom of the
  supply, then take; ``PASS`` — a dead end with an empty market;
* ``OVER`` — the game has ended;

and the chance nodes (``current_player()`` is ``CHANCE``): ``GOAL`` deals a secret goal,
``DEAL`` a tile of the setup, ``REFILL`` the tile that refills a market slot from the face-down
supply. Outcomes are tile types (drawing type ``t`` is outcome ``t``, with probability its
face-down count over the face-down total) and patterns (dealing pattern ``k`` is ``GOAL0 + k``,
uniform among those still possible); a scripted ``tiles`` / ``goals`` option makes each node
offer the scripted outcome alone, with probability 1.
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from envs.core.bits import bits_mask
from envs.core.game import CHANCE, TERMINAL
from envs.uzor.common import (
    COPIES, DEAD_TAKE, DEAL, DISCARD, EMPTY, FORK, GOAL, GOAL0, HAND, IDLE_LIMIT, MARKET, OVER, PASS, PLACE, REFILL,
    TAKE, TILES, TYPES,
)
from envs.uzor.patterns import MAP_SIZE


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
        phase = self.phase
        if phase == OVER:
            return TERMINAL
        return CHANCE if phase >= GOAL else self.to_move

    def is_terminal(self) -> bool:
        return self.phase == OVER

    # ----- chance nodes ------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        if phase == GOAL:
            seat = 0 if self.goals[0] is None else 1
            scripted = self.options["goals"]
            if scripted is not None:
                return [(GOAL0 + scripted[seat], 1.0)]
            choices = [k for k in range(MAP_SIZE) if k != self.goals[0]]
            return [(GOAL0 + k, 1.0 / len(choices)) for k in choices]
        if phase == DEAL or phase == REFILL:
            scripted = self.options["tiles"]
            facedown = self.facedown
            total = sum(facedown)
            if scripted is not None:
                m, c = scripted[TILES - total]  # the face-down tiles are the script's last `total`
                return [(m * 5 + c, 1.0)]
            return [(t, count / total) for t, count in enumerate(facedown) if count]
        return super().chance_outcomes()

    def _chance(self, outcome: int) -> None:
        """Make a chance outcome happen (it is one of ``chance_outcomes()``)."""
        phase = self.phase
        if phase == GOAL:
            seat = 0 if self.goals[0] is None else 1
            self.goals[seat] = outcome - GOAL0
            if seat == 1:
                self.phase = DEAL
            return
        self.facedown[outcome] -= 1
        if phase == REFILL:
            self.market[self.pending] = outcome
            self.pending = -1
            self._end_turn()
            return
        # the deal: t0…t4 to player_0's hand, t5…t9 to player_1's, t10…t14 to the market, t15 the centre
        dealt = len(self.hands[0]) + len(self.hands[1]) + sum(1 for x in self.market if x >= 0)
        if dealt < 2 * HAND:
            bisect.insort(self.hands[dealt // HAND], outcome)
        elif dealt < 2 * HAND + MARKET:
            self.market[dealt - 2 * HAND] = outcome
        else:
            self._put(self.geo.centre, outcome)
            self._start_turn(0, False)
            if self.phase != PLACE:
                # player_0 cannot place: every tile goes back and is dealt again, the goals kept
                # (a scripted order that would need this is refused by the options' check)
                self.set_fields(self.options, start_fields(self.geo.cells, goals=self.goals, phase=DEAL))

    def legal_actions(self) -> list[int]:
        """The legal actions, ascending: placements from the first slot of each tile type, the
        fork's closes and CONTINUE, the market slots that hold a tile, dead-end discards, PASS."""
        phase = self.phase
        geo = self.geo
        if phase >= GOAL:
            return sorted(outcome for outcome, _ in self.chance_outcomes())
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

    def action_mask(self) -> np.ndarray:
        """``legal_actions()`` as an ``int8`` array over every action; a placement phase reads
        it straight from the bitboards (slot ``s``'s cells shifted to its actions)."""
        geo = self.geo
        if self.phase != PLACE:
            mask = np.zeros(geo.num_actions, np.int8)
            mask[self.legal_actions()] = 1
            return mask
        bits = 0
        prev = -1
        cells = geo.cells
        for s, t in enumerate(self.hands[self.to_move]):
            if t != prev:  # a slot holding the tile of the slot before is not offered
                prev = t
                bits |= self.cells_for(t) << (s * cells)
        return bits_mask(bits, geo.num_actions)

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
        if phase == GOAL:
            k = a - GOAL0
            scripted = self.options["goals"]
            if scripted is not None:
                return k == scripted[0 if self.goals[0] is None else 1]
            return 0 <= k < MAP_SIZE and k != self.goals[0]
        if phase >= GOAL:  # DEAL or REFILL: a tile type still face down (the script's next one)
            scripted = self.options["tiles"]
            if scripted is not None:
                m, c = scripted[TILES - sum(self.facedown)]
                return a == m * 5 + c
            return 0 <= a < TYPES and self.facedown[a] > 0
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
        elif phase == DISCARD:
            t = self.hands[self.to_move].pop(a - geo.discard0)
            self.discards.append(t)  # face up, at the bottom of the supply
            self.phase = DEAD_TAKE
        elif phase == PASS:
            self._end_turn()
        else:  # a chance node
            self._chance(a)

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
        """TAKE market slot ``m``: the tile joins the hand (kept sorted) and the slot refills
        from the top of the supply: a face-down tile (a chance node), else the first face-up
        discard; with an empty supply the slot stays empty. The turn then ends."""
        t = self.market[m]
        bisect.insort(self.hands[self.to_move], t)
        if any(self.facedown):
            self.market[m] = EMPTY
            self.pending = m
            self.phase = REFILL
            return
        self.market[m] = self.discards.pop(0) if self.discards else EMPTY
        self._end_turn()

    def scores(self) -> list[int]:
        return list(self.points)


def start_fields(cells: int, **given: Any) -> dict[str, Any]:
    """The state fields of a game before anything is dealt (every tile face down, no goal yet),
    ``given`` over them (a new deal keeps the goals)."""
    fields = {
        "board": [EMPTY] * cells, "hands": [[], []], "market": [EMPTY] * MARKET, "facedown": [COPIES] * TYPES,
        "discards": [], "goals": [None, None], "points": [0, 0], "closed": [], "to_move": 0, "phase": GOAL,
        "repeated": False, "continued": False, "placed": False, "fork": {}, "last_cell": -1, "idle": 0,
        "pending": -1,
    }
    fields.update(given)
    fields["goals"] = list(fields["goals"])
    return fields
