"""Loom rules engine: two 4×4 cloths, two dyed threads a round (``docs/loom.md``).

The cloth arithmetic (scoring, the touching law, line codes) lives in :mod:`envs.loom.cloth`
and is re-exported here; this module holds the options, the turn machine, the refusals and
notation, and snapshots.
"""

from __future__ import annotations

import re
from typing import Any

from envs.core.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    OptionError,
    int_field,
    int_list,
    require,
)
from envs.core.notation import cell_name, parse_cell
from envs.core.options import check_int, check_int_pairs
from envs.loom.cloth import (  # noqa: F401  (re-exported: the engine's arithmetic, in one place)
    CELLS, COL_OF, DYES, EMPTY, LINE_CODES, LINE_WEIGHTS, LINES, NEIGHBOURS, ROW_OF, SIDE, allowed_cells,
    cloth_gain, cloth_score, line_dyes, line_gain_table, line_score, touches,
)

ROUNDS = 16
MAX_BOUNTY = 100


def _check_throws(options: dict[str, Any]) -> list[tuple[int, int]] | None:
    pairs = check_int_pairs(
        options, "throws", ROUNDS, 1, 6, plural="pairs (a, b), one per round", entry="round",
        rule="each throw is a pair of dyes 1…6",
    )
    return None if pairs is None else [tuple(sorted(pair)) for pair in pairs]


class LoomGame(Game):
    """State: both cloths, the round, the throws (future ones hidden from observations), and
    which thread the drafter took this round (-1 while the drafter is still to choose)."""

    NAME = "loom_v0"
    OPTIONS = {"bounty": 8, "throws": None}

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        check_int(options, "bounty", 0, MAX_BOUNTY)
        options["throws"] = _check_throws(options)
        return options

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return 2 * CELLS

    def __init__(self, options: dict[str, Any], rng=None):
        self.options = options
        self.bounty = options["bounty"]
        self.gains = line_gain_table(self.bounty)
        if options["throws"] is not None:
            self.throws = list(options["throws"])
        else:
            if rng is None:
                raise ValueError("LoomGame needs an rng (random.Random) when throws are not scripted")
            self.throws = [tuple(sorted((rng.randint(1, 6), rng.randint(1, 6)))) for _ in range(ROUNDS)]
        self._empty_cloths()
        self.points = [0, 0]
        self.round = 0
        self.taken = -1

    # ----- state interface ----------------------------------------------------------------------
    def drafter(self) -> int:
        return self.round % 2

    def current_player(self) -> int:
        if self.round >= ROUNDS:
            return TERMINAL
        return self.round % 2 if self.taken < 0 else 1 - self.round % 2

    def _threads_for_actor(self) -> tuple[int, ...]:
        """Thread indices the player to act may use."""
        if self.taken < 0:
            low, high = self.throws[self.round]
            return (0,) if low == high else (0, 1)
        return (1 - self.taken,)

    def legal_actions(self) -> list[int]:
        if self.round >= ROUNDS:
            return []
        player = self.current_player()
        cloth, near = self.cloths[player], self.near[player]
        throw = self.throws[self.round]
        empty = [c for c in range(CELLS) if not cloth[c]]
        actions = []
        for t in self._threads_for_actor():
            bit, base = 1 << throw[t], t * CELLS
            clean = [base + c for c in empty if not near[c] & bit]
            actions.extend(clean or [base + c for c in empty])
        return actions

    def _legal(self, action: int) -> bool:
        if not 0 <= action < 2 * CELLS or self.round >= ROUNDS:
            return False
        t, cell = divmod(action, CELLS)
        if t not in self._threads_for_actor():
            return False
        player = self.current_player()
        cloth, near = self.cloths[player], self.near[player]
        if cloth[cell] != EMPTY:
            return False
        bit = 1 << self.throws[self.round][t]
        if not near[cell] & bit:
            return True
        # A touching cell is legal only when the cloth has no clean empty cell for the dye.
        return not any(not cloth[c] and not near[c] & bit for c in range(CELLS))

    def why_illegal(self, action: Any) -> str | None:
        try:
            action = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        if not 0 <= action < 2 * CELLS:
            return f"action {action} is outside 0…{2 * CELLS - 1}"
        if self.round >= ROUNDS:
            return "the game is over: both cloths are full"
        if self._legal(action):
            return None
        t, cell = divmod(action, CELLS)
        low, high = self.throws[self.round]
        throw = (low, high)
        if self.taken >= 0 and t == self.taken:
            left = 1 - self.taken
            return f"the drafter took thread {t}; you weave the leftover, thread {left} (dye {throw[left]})"
        if self.taken < 0 and t == 1 and low == high:
            return f"both threads show dye {low}: take thread 0"
        cloth = self.cloths[self.current_player()]
        name = cell_name(*divmod(cell, SIDE))
        if cloth[cell] != EMPTY:
            return f"cell {name} of your cloth already holds dye {cloth[cell]}"
        dye = throw[t]
        return (
            f"dye {dye} may not go into {name}: it would touch another {dye} "
            f"while your cloth still has a cell where it touches none"
        )

    def apply(self, action: Any) -> None:
        action = action if type(action) is int else self._check_action(action)
        if not self._legal(action):
            self._raise_illegal(action)
        t, cell = divmod(action, CELLS)
        player = self.current_player()
        dye = self.throws[self.round][t]
        row, _, col, _ = LINE_WEIGHTS[cell]
        codes, gains = self.codes[player], self.gains
        self.points[player] += gains[codes[row]][dye] + gains[codes[col]][dye]
        self._weave(player, cell, dye)
        if self.taken < 0:
            self.taken = t
        else:
            self.taken = -1
            self.round += 1

    def _empty_cloths(self) -> None:
        self.cloths = [[EMPTY] * CELLS, [EMPTY] * CELLS]
        self.codes = [[0] * len(LINES), [0] * len(LINES)]  # per line: its dyes as base-7 digits
        self.near = [[0] * CELLS, [0] * CELLS]  # per cell: bit d set when a neighbour has dye d

    def _weave(self, player: int, cell: int, dye: int) -> None:
        self.cloths[player][cell] = dye
        row, row_weight, col, col_weight = LINE_WEIGHTS[cell]
        codes = self.codes[player]
        codes[row] += dye * row_weight
        codes[col] += dye * col_weight
        near, bit = self.near[player], 1 << dye
        for n in NEIGHBOURS[cell]:
            near[n] |= bit

    def scores(self) -> list[int]:
        return list(self.points)

    def gain(self, player: int, cell: int, dye: int) -> int:
        """The player's score after weaving ``dye`` into empty ``cell`` minus before."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, not {player!r}")
        if not (isinstance(cell, int) and 0 <= cell < CELLS):
            raise ValueError(f"cell must be an integer 0…{CELLS - 1}, not {cell!r}")
        if dye not in DYES:
            raise ValueError(f"dye must be 1…6, not {dye!r}")
        if self.cloths[player][cell] != EMPTY:
            raise ValueError(f"cell {cell_name(*divmod(cell, SIDE))} of player_{player}'s cloth is not empty")
        return cloth_gain(self.cloths[player], cell, dye, self.bounty)

    # ----- notation -------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if not 0 <= action < 2 * CELLS:
            raise ValueError(f"action {action} is outside 0…{2 * CELLS - 1}")
        if self.round >= ROUNDS:
            raise ValueError("the game is over: there is no throw to name a dye from")
        t, cell = divmod(action, CELLS)
        return f"{self.throws[self.round][t]}@{cell_name(*divmod(cell, SIDE))}"

    def string_to_action(self, text: str) -> int:
        match = re.fullmatch(r"\s*([1-6])\s*@\s*(\S+)\s*", text)
        if not match:
            raise ValueError(f"{text!r} is not a weave: write the dye and the cell, e.g. '5@b3'")
        if self.round >= ROUNDS:
            raise ValueError("the game is over")
        dye = int(match.group(1))
        row, col = parse_cell(match.group(2), SIDE, SIDE)
        throw = self.throws[self.round]
        for t in self._threads_for_actor():
            if throw[t] == dye:
                return t * CELLS + row * SIDE + col
        offered = " or ".join(str(throw[t]) for t in self._threads_for_actor())
        raise ValueError(f"dye {dye} is not yours to weave now: you may weave {offered}")

    # ----- copies and snapshots ---------------------------------------------------------------------
    def clone(self) -> "LoomGame":
        other = object.__new__(LoomGame)
        other.options = self.options
        other.bounty = self.bounty
        other.gains = self.gains
        other.throws = self.throws  # never mutated after creation: safe to share
        other.cloths = [self.cloths[0][:], self.cloths[1][:]]
        other.codes = [self.codes[0][:], self.codes[1][:]]
        other.near = [self.near[0][:], self.near[1][:]]
        other.points = self.points[:]
        other.round = self.round
        other.taken = self.taken
        return other

    def state_dict(self) -> dict[str, Any]:
        return {
            "throws": [list(t) for t in self.throws],
            "cloths": [list(c) for c in self.cloths],
            "scores": list(self.points),
            "round": self.round,
            "taken": self.taken,
        }

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "LoomGame":
        try:
            throws = _check_throws({"throws": state.get("throws")})
        except OptionError as error:
            raise ValueError(str(error).replace("option 'throws'", "snapshot field 'throws'")) from None
        require(throws is not None, "snapshot field 'throws' is missing")
        require(
            options["throws"] is None or list(options["throws"]) == throws,
            "snapshot throws differ from its scripted 'throws' option",
        )
        cloths = state.get("cloths")
        require(isinstance(cloths, list) and len(cloths) == 2, "snapshot field 'cloths' must hold two cloths")
        cloths = [int_list({"cloth": c}, "cloth", CELLS, 0, 6) for c in cloths]
        rnd = int_field(state, "round", 0, ROUNDS)
        taken = int_field(state, "taken", -1, 1)
        points = int_list(state, "scores", 2, 0, 10_000)
        require(not (rnd == ROUNDS and taken != -1), "snapshot of a finished game has a taken thread")
        # Round k's drafter has woven k+1 threads once taken >= 0, the rival k or k+1.
        drafter = rnd % 2
        for player in (0, 1):
            woven = sum(1 for d in cloths[player] if d)
            expected = rnd + (1 if taken >= 0 and player == drafter else 0)
            require(
                woven == expected,
                f"snapshot cloth of player_{player} holds {woven} threads; round {rnd} "
                f"with taken={taken} means {expected}",
            )
        game = object.__new__(cls)  # every field is set below, from the validated snapshot
        game.options = options
        game.bounty = options["bounty"]
        game.gains = line_gain_table(game.bounty)
        game.throws = throws
        game._empty_cloths()
        for player in (0, 1):
            for cell, dye in enumerate(cloths[player]):
                if dye:
                    game._weave(player, cell, dye)
        game.round = rnd
        game.taken = taken
        recount = [cloth_score(c, game.bounty) for c in cloths]
        require(points == recount, f"snapshot scores {points} differ from the cloths' recount {recount}")
        game.points = points
        return game
