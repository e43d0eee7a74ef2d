"""Fill snapshots: the state as JSON-ready data, and back, validated field by field.

:class:`FillSnapshots` is a mixin of :class:`envs.fill.rules.FillGame` (kept apart so the turn
machine reads on its own): ``clone`` (a fast deep copy for search), ``state_dict`` and the
validating ``from_state_dict``. A snapshot holds every field of the state, hidden ones
included; the board's derived masks (touch, poison) and the gems' witness chains are rebuilt.
"""

from __future__ import annotations

import random
from typing import Any

from envs.core.bits import set_bits as bits
from envs.core.game import SnapshotError, int_field, int_list, require
from envs.fill.facts import (
    CHOOSE, FILL, FILL2, GEM_COUNT, KIND_NAMES, OVER, PHASE_NAMES, REGULAR_TRAPS, SEED, STAY, SWAP, TOKEN,
    TOKEN_LIFE, TRAP_PHASE,
)


def _rows(value: list[list]) -> list[list]:
    return [row[:] for row in value]


def _tokens(value: list[list[list[int]]]) -> list[list[list[int]]]:
    return [[token[:] for token in held] for held in value]


# The mutable attributes of a FillGame and how clone copies each.
COPIED = (
    ("gems", dict.copy), ("witness", dict.copy), ("tokens", _tokens), ("turns", list.copy),
    ("recharge", _rows), ("extra", list.copy), ("live_trap", list.copy), ("time_left", list.copy),
    ("shown_time", list.copy),
)


class FillSnapshots:
    """Copies and snapshots of a :class:`~envs.fill.rules.FillGame` (a mixin)."""

    def clone(self):
        """A deep, independent copy (fast: search clones a state per simulation step). The
        mutable parts are copied as :data:`COPIED` says; every other attribute is immutable
        (ints, bools, strings, tuples) or shared on purpose (options, geometry tables, clock)."""
        other = object.__new__(type(self))
        state = other.__dict__
        state.update(self.__dict__)
        for name, copy in COPIED:
            state[name] = copy(state[name])
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
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]):
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
        filled = sum(1 << c for c in filled_list)
        for mask, what in game.geo.pattern_masks:
            if filled & mask == mask:
                cells = ", ".join(game._name(c) for c in bits(mask))
                raise SnapshotError(f"snapshot board is impossible: {cells} make {what}")
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
            if (game.filled | game.rock) >> cell & 1:
                raise SnapshotError(f"snapshot gem at {game._name(cell)} is on a filled or rock cell")
            if cell in game.gems:
                raise SnapshotError(f"snapshot has two gems at {game._name(cell)}")
            witness = game.fill_witness(cell)
            if not witness:
                raise SnapshotError(f"snapshot gem at {game._name(cell)} is on a cell that can no longer be filled")
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

