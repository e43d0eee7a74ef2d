"""Loom rules engine: two 4×4 cloths, two dyed threads a round (``docs/loom.md``).

The cloth arithmetic (scoring, the touching law, line codes) lives in :mod:`envs.loom.cloth`
and is re-exported here, the dice (chance outcomes, which cloth got which thread) in
:mod:`envs.loom.throws`; this module holds the options, the turn machine with its chance nodes,
the refusals and notation, and snapshots.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from envs.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    IllegalActionError,
    SnapshotError,
    int_field,
    int_list,
    require,
    short_repr,
)
from envs.core.notation import cell_name, parse_cell
from envs.core.options import check_int, check_int_pairs
from envs.loom.cloth import (
    CELLS, DYES, EMPTY, LINE_WEIGHTS, LINES, NEIGHBOURS, SIDE, cloth_gain, cloth_score, line_gain_table,
)
from envs.loom.throws import OUTCOMES, PROBABILITIES, THROW_ID, THROWS, parse_throw, threads_fit, throw_name

ROUNDS = 16
MAX_BOUNTY = 100


def _check_throws(options: dict[str, Any]) -> list[tuple[int, int]] | None:
    pairs = check_int_pairs(
        options, "throws", ROUNDS, 1, 6, plural="pairs (a, b), one per round", entry="round",
        rule="each throw is a pair of dyes 1…6",
    )
    return None if pairs is None else [tuple(sorted(pair)) for pair in pairs]


class LoomGame(Game):
    """State: both cloths (with each line's code and each cell's neighbouring dyes, kept for
    speed), both scores, the round, the throws so far (``throws[k]`` is round ``k``'s sorted
    pair; none for the rounds to come) and which thread the drafter took this round (-1 while
    the drafter is still to choose).

    Each round opens with a chance node (``current_player() == CHANCE``): the shuttle throws,
    one of 21 outcomes (:mod:`envs.loom.throws`), or the scripted ``throws`` option's pair."""

    NAME = "loom_v0"
    OPTIONS = {"bounty": 8, "throws": None}
    NEUTRAL_OPTIONS = ("throws",)  # scripted chance
    STATE_KEYS = ("throws", "cloths", "scores", "round", "taken")

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        check_int(options, "bounty", 0, MAX_BOUNTY)
        options["throws"] = _check_throws(options)
        return options

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return 2 * CELLS

    @classmethod
    def max_chance_outcomes_for(cls, options: dict[str, Any]) -> int:
        return OUTCOMES

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        return 2 * ROUNDS  # every round: the drafter's weave and the rival's

    def __init__(self, options: dict[str, Any], rng=None):
        """A new game at its first chance node (``rng`` is not used: chance is resolved by
        whoever plays the chance nodes)."""
        self.options = options
        self.bounty = options["bounty"]
        self.gains = line_gain_table(self.bounty)
        self.throws: tuple[tuple[int, int], ...] = ()  # a tuple, replaced (never mutated) per throw
        self._empty_cloths()
        self.points = [0, 0]
        self.round = 0
        self.taken = -1

    # ----- state interface ----------------------------------------------------------------------
    def drafter(self) -> int:
        return self.round % 2

    def current_player(self) -> int:
        """The seat to act (the drafter, then the rival), ``CHANCE`` before a round's throw,
        ``TERMINAL`` at the end."""
        if self.round >= ROUNDS:
            return TERMINAL
        if len(self.throws) == self.round:
            return CHANCE
        return self.round % 2 if self.taken < 0 else 1 - self.round % 2

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The throw's 21 outcomes (1/36 a double, 2/36 any other pair), or the scripted pair
        alone with probability 1."""
        if self.current_player() != CHANCE:
            return super().chance_outcomes()
        scripted = self.options["throws"]
        if scripted is not None:
            return [(THROW_ID[scripted[self.round]], 1.0)]
        return list(PROBABILITIES)

    def _threads_for_actor(self) -> tuple[int, ...]:
        """Thread indices the player to act may use."""
        if self.taken < 0:
            low, high = self.throws[self.round]
            return (0,) if low == high else (0, 1)
        return (1 - self.taken,)

    def legal_actions(self) -> list[int]:
        """The legal weaves of the player to act, thread 0's first (at a chance node: the throws
        that may fall; at the end: none)."""
        if self.round >= ROUNDS:
            return []
        if len(self.throws) == self.round:
            return [outcome for outcome, _ in self.chance_outcomes()]
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
        if not 0 <= action < 2 * CELLS or self.round >= ROUNDS or len(self.throws) == self.round:
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
        """``None`` for a legal action, else the sentence a player reads (at a chance node,
        about throws: the actions there are the outcomes)."""
        try:
            action = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        if self.round >= ROUNDS:
            return "the game is over: both cloths are full"
        if len(self.throws) == self.round:
            return self._why_not_a_throw(action)
        if not 0 <= action < 2 * CELLS:
            return f"action {action} is outside 0…{2 * CELLS - 1}"
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

    def _why_not_a_throw(self, outcome: int) -> str | None:
        if not 0 <= outcome < OUTCOMES:
            return (f"round {self.round} opens with a throw: the actions now are the {OUTCOMES} throws "
                    f"0…{OUTCOMES - 1} (0 = throw 1 1, …, {OUTCOMES - 1} = throw 6 6), not {outcome}")
        scripted = self.options["throws"]
        if scripted is not None and THROW_ID[scripted[self.round]] != outcome:
            low, high = scripted[self.round]
            return f"the throws are scripted: round {self.round} throws {low} {high}, not {throw_name(outcome)[6:]}"
        return None

    def apply(self, action: Any) -> None:
        """Weave (or, at a chance node, throw); an illegal action raises ``IllegalActionError``
        with the ``why_illegal`` sentence and changes nothing."""
        action = action if type(action) is int else self._check_action(action)
        if len(self.throws) == self.round and self.round < ROUNDS:
            reason = self._why_not_a_throw(action)
            if reason is not None:
                raise IllegalActionError(reason)
            self.throws += (THROWS[action],)
            return
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
        """Both players' points now (kept up to date at every weave)."""
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
        """A weave as ``dye@cell`` (``5@b3``); at a chance node, a throw as ``throw 2 5``."""
        if self.round >= ROUNDS:
            raise ValueError("the game is over: there is no throw to name a dye from")
        if len(self.throws) == self.round:
            if not 0 <= action < OUTCOMES:
                raise ValueError(f"at a chance node the actions are the throws 0…{OUTCOMES - 1}, not {action}")
            return throw_name(action)
        if not 0 <= action < 2 * CELLS:
            raise ValueError(f"action {action} is outside 0…{2 * CELLS - 1}")
        t, cell = divmod(action, CELLS)
        return f"{self.throws[self.round][t]}@{cell_name(*divmod(cell, SIDE))}"

    def string_to_action(self, text: str) -> int:
        """The action named by ``5@b3`` (a weave of the thread showing dye 5 into b3), or at a
        chance node by ``throw 2 5``."""
        if self.round >= ROUNDS:
            raise ValueError("the game is over")
        if len(self.throws) == self.round:
            outcome = parse_throw(text) if isinstance(text, str) else None
            if outcome is None:
                raise ValueError(f"{short_repr(text)} is not a throw: round {self.round} opens with a throw, "
                                 f"written e.g. 'throw 2 5'")
            return outcome
        match = re.fullmatch(r"\s*([1-6])\s*@\s*(\S+)\s*", text)
        if not match:
            raise ValueError(f"{text!r} is not a weave: write the dye and the cell, e.g. '5@b3'")
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
        """An independent copy (the cloths' lists copied; the throws tuple shared: never mutated)."""
        other = object.__new__(LoomGame)
        other.options = self.options
        other.bounty = self.bounty
        other.gains = self.gains
        other.throws = self.throws  # a tuple, replaced and never mutated: safe to share
        other.cloths = [self.cloths[0][:], self.cloths[1][:]]
        other.codes = [self.codes[0][:], self.codes[1][:]]
        other.near = [self.near[0][:], self.near[1][:]]
        other.points = self.points[:]
        other.round = self.round
        other.taken = self.taken
        return other

    def state_dict(self) -> dict[str, Any]:
        """The position: the throws so far (none for the rounds to come), both cloths and
        scores, the round and the drafter's thread (``docs/loom.md``, Snapshots)."""
        return {
            "throws": [list(t) for t in self.throws],
            "cloths": [list(c) for c in self.cloths],
            "scores": list(self.points),
            "round": self.round,
            "taken": self.taken,
        }

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "LoomGame":
        rnd = int_field(state, "round", 0, ROUNDS)
        taken = int_field(state, "taken", -1, 1)
        cloths = state.get("cloths")
        require(isinstance(cloths, list) and len(cloths) == 2, "snapshot field 'cloths' must hold two cloths")
        cloths = [_dye_list(c) for c in cloths]
        points = int_list(state, "scores", 2, 0, 10_000)
        require(not (rnd == ROUNDS and taken != -1),
                f"snapshot field 'round' is {ROUNDS} (the game is over) but 'taken' holds thread {taken}; a finished game has none")
        # Round k's drafter has woven k+1 threads once taken >= 0, the rival k or k+1.
        drafter = rnd % 2
        for player in (0, 1):
            woven = sum(1 for d in cloths[player] if d)
            expected = rnd + (1 if taken >= 0 and player == drafter else 0)
            if woven != expected:
                raise SnapshotError(f"snapshot field 'cloths': player_{player}'s cloth holds {woven} threads; "
                                    f"round {rnd} with taken={taken} means {expected}")
        throws = _read_throws(state, options, rnd, taken)
        _check_threads(cloths, throws, rnd, taken)
        game = cls(options)
        game.throws = throws
        for player in (0, 1):
            for cell, dye in enumerate(cloths[player]):
                if dye:
                    game._weave(player, cell, dye)
        game.round = rnd
        game.taken = taken
        recount = [cloth_score(c, game.bounty) for c in cloths]
        require(points == recount,
                f"snapshot field 'scores' is {points}; the cloths score {recount} (bounty {game.bounty})")
        game.points = points
        return game


def _read_throws(state: dict[str, Any], options: dict[str, Any], rnd: int, taken: int) -> tuple[tuple[int, int], ...]:
    """The snapshot's throws so far: ``round`` of them at a chance node (the round's throw still
    to come, so nothing taken), one more once the round's throw lies on the table."""
    throws = state.get("throws")
    require(isinstance(throws, list), f"snapshot field 'throws' must be a list of the throws so far, not {short_repr(throws)}")
    thrown = len(throws) == rnd + 1 and rnd < ROUNDS
    require(
        len(throws) == rnd or thrown,
        f"snapshot field 'throws' holds {len(throws)} throws; in round {rnd} it holds the throws so far: "
        f"{rnd} (before the round's throw) or {rnd + 1}" if rnd < ROUNDS else
        f"snapshot field 'throws' holds {len(throws)} throws; a finished game has {ROUNDS}",
    )
    out = []
    for index, pair in enumerate(throws):
        if not (type(pair) is list and len(pair) == 2 and type(pair[0]) is int and type(pair[1]) is int
                and 1 <= pair[0] <= 6 and 1 <= pair[1] <= 6):
            raise SnapshotError(f"snapshot field 'throws': round {index} is {short_repr(pair)}; "
                                f"a throw is a pair of dyes 1…6")
        if pair[0] > pair[1]:
            raise SnapshotError(f"snapshot field 'throws': round {index} is {pair}; a throw lists the lower dye first")
        out.append((pair[0], pair[1]))
    scripted = options["throws"]
    if scripted is not None:
        for index, pair in enumerate(out):
            if pair != scripted[index]:
                raise SnapshotError(f"snapshot field 'throws': round {index} is {list(pair)}, the scripted "
                                    f"'throws' option says {list(scripted[index])}")
    if taken >= 0 and not thrown:
        raise SnapshotError(f"snapshot field 'taken' is {taken}, but 'throws' holds no throw for round {rnd}: "
                            f"nothing is taken before the round's throw")
    if thrown and taken == 1:
        low, high = out[rnd]
        require(low != high, f"snapshot field 'taken' is 1 with both threads showing dye {low}: the drafter takes thread 0")
    return tuple(out)


def _dye_list(cloth: Any) -> list[int]:
    """One cloth of a snapshot: 16 dyes 0…6 (checked quickly; ``int_list`` words a refusal)."""
    if type(cloth) is list and len(cloth) == CELLS and all(type(d) is int and 0 <= d <= 6 for d in cloth):
        return list(cloth)
    return int_list({"cloths": cloth}, "cloths", CELLS, 0, 6)


def _check_threads(cloths: list[list[int]], throws: tuple[tuple[int, int], ...], rnd: int, taken: int) -> None:
    """The cloths must hold exactly the threads the throws so far gave them: each finished
    round one thread to each cloth, and this round's drafter the thread ``taken``."""
    dyes = [[d for d in cloth if d] for cloth in cloths]
    given = Counter(d for pair in throws[:rnd] for d in pair)
    drafted = None
    if taken >= 0:
        drafted = throws[rnd][taken]
        given[drafted] += 1
    held = Counter(dyes[0]) + Counter(dyes[1])
    if held != given:
        extra, missing = held - given, given - held
        parts = [f"{_count(n)} {d} too many" for d, n in sorted(extra.items())]
        parts += [f"{_count(n)} {d} too few" for d, n in sorted(missing.items())]
        took = (f"; round {rnd}'s drafter took thread {taken}, dye {drafted}" if drafted is not None else "")
        fields = "'cloths', 'throws' and 'taken'" if drafted is not None else "'cloths' and 'throws'"
        raise SnapshotError(
            f"snapshot fields {fields} disagree: the cloths hold {', '.join(parts)} for the threads "
            f"the throws so far gave them (each round one thread to each cloth{took})"
        )
    if drafted is not None:
        mine = dyes[rnd % 2]
        require(drafted in mine, f"snapshot fields 'cloths' and 'taken' disagree: round {rnd}'s drafter, "
                                 f"player_{rnd % 2}, took dye {drafted} but their cloth holds none")
        mine.remove(drafted)
    require(
        threads_fit(throws[:rnd], dyes),
        "snapshot fields 'cloths' and 'throws' disagree: no way to give each finished round's two threads "
        "one to each cloth leaves each cloth the dyes it holds",
    )


def _count(n: int) -> str:
    return "one" if n == 1 else str(n)
