"""Fill snapshots: the state as JSON-ready data, and back, validated field by field.

:class:`FillSnapshots` is a mixin of :class:`envs.fill.rules.FillGame` (kept apart so the turn
machine reads on its own): ``clone`` (a fast deep copy for search), ``state_dict`` and the
validating ``from_state_dict``. A snapshot holds every field of the state, hidden ones
included; the board's derived masks (touch, poison) and the gems' witness chains are rebuilt.
"""

from __future__ import annotations

import math
from typing import Any

from envs.core.bits import set_bits as bits
from envs.core.game import SnapshotError, is_int, require, short_repr
from envs.core.game import int_field as core_int_field
from envs.core.game import int_list as core_int_list
from envs.fill.chance import gem_kinds, rock_target
from envs.fill.facts import (
    CHOOSE, FILL, FILL2, GEM_COUNT, GEMS, KIND_NAMES, OVER, PHASE_NAMES, RECHARGE, REGULAR_TRAPS, ROCKS, SEED,
    SWAP, TIME_LIMIT, TOKEN, TOKEN_LIFE, TRAP_PHASE,
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

    STATE_KEYS = (
        "rocks", "filled", "seed", "choice", "phase", "to_move", "gems", "tokens", "turns", "recharge",
        "extra_traps", "live_trap", "last_sprung", "double", "winner", "end_reason", "time_left", "shown_time",
    )

    def clone(self):
        """A deep, independent copy (fast: search clones a state per simulation step). The
        mutable parts are copied as :data:`COPIED` says; every other attribute is immutable
        (ints, bools, strings, tuples) or shared on purpose (options, geometry tables, clock)."""
        other = object.__new__(type(self))
        state = other.__dict__
        state.update(self.__dict__)
        for name, copy in COPIED:
            state[name] = copy(state[name])
        return other

    def state_dict(self) -> dict[str, Any]:
        time_left = [self.time_left_now(p) if self.timed and self.clocked[p] else self.time_left[p] for p in (0, 1)]
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
        }

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]):
        """A game from :meth:`state_dict` output, every field checked against the rules: a
        :class:`SnapshotError` names the first field that no game with these options can show."""
        return _read_state(cls, options, state)


STATE_KEYS = FillSnapshots.STATE_KEYS
TURN_PHASES = (TOKEN, TRAP_PHASE, FILL, FILL2)
MOST_TURNS = 10**6


def shown(value: Any) -> str:
    """A value cut short for a message (any value: one nested past Python's recursion limit too)."""
    try:
        return short_repr(value)
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply"


def int_list(state: dict, key: str, length: int, low: int, high: int) -> list[int]:
    """The core's check of a list of integers (its message names the field), for any value."""
    try:
        return core_int_list(state, key, length, low, high)
    except RecursionError:
        raise SnapshotError(f"snapshot field {key!r} holds a value nested too deeply") from None


def int_field(state: dict, key: str, low: int, high: int) -> int:
    """The core's check of one integer (its message names the field), for any value."""
    try:
        return core_int_field(state, key, low, high)
    except RecursionError:
        raise SnapshotError(f"snapshot field {key!r} holds a value nested too deeply") from None


def _cell_list(state: dict, key: str, n: int) -> list[int]:
    value = state[key]
    if not (isinstance(value, list)):
        raise SnapshotError(f"snapshot field {key!r} must be a list of cells, not {shown(value)}")
    cells = int_list(state, key, len(value), 0, n - 1)
    require(len(set(cells)) == len(cells), f"snapshot field {key!r} repeats a cell")
    return cells


def _number_pair(state: dict, key: str, limit: float) -> list[float]:
    value = state[key]
    ok = isinstance(value, list) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= limit for v in value
    )
    if not (ok):
        raise SnapshotError(f"snapshot field {key!r} must hold two numbers of seconds 0…{limit:g}, not {shown(value)}")
    return [float(v) for v in value]


def _read_state(cls, options: dict[str, Any], state: dict[str, Any]):
    # (the state's keys, STATE_KEYS, are checked where every game's are: Game.read_snapshot)
    # The steps run in this order, each on the fields the earlier ones have read: the first
    # field that no game can show is the one the error names.
    game = cls(options)
    phase = _read_phase(state, options)
    filled_list = _read_board(game, state, phase)
    before_choice = _read_setup(game, state, phase, filled_list)
    gems = _read_gems(game, state, phase, filled_list)
    tokens = _read_turns_and_tokens(game, state, phase, before_choice)
    _read_traps(game, state, phase, before_choice)
    _read_double(game, state, phase, filled_list, gems, tokens)
    _read_end_and_clocks(game, state, phase, before_choice)
    _check_phase_needs(game, phase)
    return game


def _read_phase(state: dict[str, Any], options: dict[str, Any]) -> int:
    phase_name = state["phase"]
    if not (phase_name in PHASE_NAMES):
        raise SnapshotError(f"snapshot field 'phase' is {shown(phase_name)}; phases are {', '.join(PHASE_NAMES)}")
    phase = PHASE_NAMES.index(phase_name)
    require(phase != ROCKS or rock_target(options), "snapshot field 'phase' is 'rocks' but this game has no rocks to place")
    require(phase != GEMS or options["gems"], "snapshot field 'phase' is 'gems' but the option 'gems' is off")
    return phase


def _read_rocks(game, state: dict[str, Any], phase: int) -> int:
    """The rocks (``game.rock``): as many as the phase says are placed, the scripted ones where
    ``rock_cells`` scripts them."""
    options = game.options
    target = rock_target(options)
    rocks = _cell_list(state, "rocks", options["size"] ** 2)
    scripted = options["rock_cells"] if options["rocks"] else None
    if phase == ROCKS:
        require(len(rocks) < target, f"snapshot field 'rocks' holds {len(rocks)} rocks while rocks are still placed (of {target})")
        if scripted is not None:
            require(sorted(rocks) == sorted(scripted[:len(rocks)]),
                    f"snapshot field 'rocks' must be the first {len(rocks)} scripted rock_cells {list(scripted)}")
    else:
        require(len(rocks) == target, f"snapshot field 'rocks' must hold {target} rocks, not {len(rocks)}")
        if scripted is not None:
            require(sorted(rocks) == sorted(scripted), f"snapshot field 'rocks' must be the scripted rock_cells {list(scripted)}")
    game.rock = rock = sum(1 << c for c in rocks)
    return rock


def _read_board(game, state: dict[str, Any], phase: int) -> list[int]:
    """The rocks, the filled cells and the seed, placed on the board; the filled cells' list."""
    n = game.options["size"] ** 2
    name = game._name
    rock = _read_rocks(game, state, phase)
    filled_list = _cell_list(state, "filled", n)
    filled = sum(1 << c for c in filled_list)
    require(not filled & rock, "snapshot field 'filled' fills a rock cell")
    seed = int_field(state, "seed", -1, n - 1)
    if phase in (ROCKS, SEED):
        require(seed < 0 and not filled_list, "snapshot fields 'seed' and 'filled' must be -1 and empty before the seed")
    elif seed < 0:
        require(phase == OVER and not filled_list, "snapshot field 'seed' is -1 but the seed has been filled")
    else:
        require(filled >> seed & 1, "snapshot field 'seed' is not a filled cell")
    if phase in (GEMS, CHOOSE):
        require(filled_list == [seed], "snapshot field 'filled' must hold the seed alone before the choice")
    for mask, what in game.geo.pattern_masks:
        if filled & mask == mask:
            cells = ", ".join(name(c) for c in bits(mask))
            raise SnapshotError(f"snapshot field 'filled' is impossible: {cells} make {what}")
    if filled:
        _check_joined(game, filled, seed)
    for cell in filled_list:
        game._place(cell)
    game.seed_cell = seed
    return filled_list


def _check_joined(game, filled: int, seed: int) -> None:
    """Every filled cell is joined to the seed by filled cells (every fill touches a filled cell)."""
    dilate, region = game.geo.dilate, 1 << seed
    while True:
        grown = dilate(region) & filled
        if grown == region:
            break
        region = grown
    if region != filled:
        cell = (filled & ~region).bit_length() - 1
        raise SnapshotError(
            f"snapshot field 'filled' is impossible: {game._name(cell)} is not joined to the seed by filled cells "
            "(every fill touches a filled cell)"
        )


def _read_setup(game, state: dict[str, Any], phase: int, filled_list: list[int]) -> bool:
    """The phase, who moves and the choice; whether the choice is still to be made."""
    phase_name = PHASE_NAMES[phase]
    game.phase = phase
    game.to_move = to_move = int_field(state, "to_move", 0, 1)
    if phase in (ROCKS, SEED, GEMS, CHOOSE):
        require(to_move == (0 if phase in (ROCKS, SEED) else 1),
                f"snapshot field 'to_move' is {to_move}; in the {phase_name!r} phase it is {0 if phase in (ROCKS, SEED) else 1}")
    choice = int_field(state, "choice", -1, SWAP)
    before_choice = phase in (ROCKS, SEED, GEMS, CHOOSE) or (phase == OVER and choice < 0)
    require((choice < 0) == before_choice, "snapshot field 'choice' disagrees with the phase")
    if before_choice and phase == OVER:
        require(state["end_reason"] == "time", "snapshot field 'choice' is -1 in a game that did not end on time")
        require(len(filled_list) <= 1, "snapshot field 'choice' is -1 but cells beyond the seed are filled")
    game.choice = choice
    return before_choice


def _read_gems(game, state: dict[str, Any], phase: int, filled_list: list[int]) -> list:
    """The gems on the board, each on a cell that can still be filled (its witness chain kept)."""
    options = game.options
    n = options["size"] ** 2
    name = game._name
    taken = sum(1 << c for c in filled_list) | game.rock
    allowed_kinds = KIND_NAMES[:gem_kinds(options)]
    gems = state["gems"]
    if not (isinstance(gems, list)):
        raise SnapshotError(f"snapshot field 'gems' must be a list, not {shown(gems)}")
    require(options["gems"] or not gems, "snapshot field 'gems' holds gems but the option 'gems' is off")
    require(not gems or phase not in (ROCKS, SEED), "snapshot field 'gems' holds gems before the seed")
    require(len(gems) <= GEM_COUNT or options["gem_cells"] is not None,
            f"snapshot field 'gems' holds {len(gems)} gems; a game has {GEM_COUNT}")
    for item in gems:
        if not (isinstance(item, list) and len(item) == 2):
            raise SnapshotError(f"snapshot field 'gems' holds {shown(item)}; a gem is [cell, kind]")
        cell, kind = item
        require(is_int(cell, 0, n - 1), f"snapshot field 'gems' holds cell {shown(cell)}, off the board")
        if not (kind in allowed_kinds):
            raise SnapshotError(f"snapshot field 'gems' holds kind {shown(kind)}; kinds are {', '.join(allowed_kinds)}")
        if taken >> cell & 1:
            raise SnapshotError(f"snapshot field 'gems' puts a gem on {name(cell)}, a filled or rock cell")
        if cell in game.gems:
            raise SnapshotError(f"snapshot field 'gems' puts two gems on {name(cell)}")
        witness = game.fill_witness(cell)
        if not witness:
            raise SnapshotError(f"snapshot field 'gems' puts a gem on {name(cell)}, which can no longer be filled")
        game.gems[cell] = KIND_NAMES.index(kind)
        game.witness[cell] = witness
    if options["gems"] and phase in (GEMS, CHOOSE):
        _check_setup_gems(game, phase)
    return gems


def _read_turns_and_tokens(game, state: dict[str, Any], phase: int, before_choice: bool) -> list:
    """Each player's turn count and the tokens they hold (``game.turns``, ``game.tokens``)."""
    options, to_move = game.options, game.to_move
    turns = game.turns = int_list(state, "turns", 2, 0, MOST_TURNS)
    if before_choice:
        require(turns == [0, 0], "snapshot field 'turns' must be [0, 0] before the choice")
    if phase in TURN_PHASES:
        require(turns[to_move] >= 1, "snapshot field 'turns' must count the turn in progress")
    tokens = state["tokens"]
    require(isinstance(tokens, list) and len(tokens) == 2 and all(isinstance(t, list) for t in tokens),
            f"snapshot field 'tokens' must hold two lists, not {shown(tokens)}")
    allowed_kinds = KIND_NAMES[:gem_kinds(options)]
    life = TOKEN_LIFE[options["size"]]
    for p in (0, 1):
        for token in tokens[p]:
            require(isinstance(token, list) and len(token) == 3,
                    f"snapshot field 'tokens' holds {shown(token)}; a token is [kind, turns left, turn collected]")
            kind, left, born = token
            if not (kind in allowed_kinds):
                raise SnapshotError(f"snapshot field 'tokens' holds kind {shown(kind)}; kinds are {', '.join(allowed_kinds)}")
            require(is_int(left, 1, life), f"snapshot field 'tokens' holds turns left {shown(left)}; it must be 1…{life}")
            require(is_int(born, 0, turns[p]),
                    f"snapshot field 'tokens' holds collection turn {shown(born)}; it must be 0…{turns[p]} "
                    f"(player_{p}'s turns so far)")
            game.tokens[p].append([KIND_NAMES.index(kind), left, born])
    require(not before_choice or tokens == [[], []], "snapshot field 'tokens' holds tokens before the choice")
    return tokens


def _read_recharge(game, state: dict[str, Any]) -> None:
    """When each player's regular traps are ready again (``game.recharge``)."""
    turns = game.turns
    recharge = state["recharge"]
    if not (isinstance(recharge, list) and len(recharge) == 2):
        raise SnapshotError(f"snapshot field 'recharge' must hold two lists, not {shown(recharge)}")
    game.recharge = [int_list({"recharge": r}, "recharge", REGULAR_TRAPS, 0, MOST_TURNS) for r in recharge]
    for p in (0, 1):
        for ready in game.recharge[p]:
            if ready > turns[p] + RECHARGE:
                raise SnapshotError(
                    f"snapshot field 'recharge' holds {ready} for player_{p}: a trap ready more than {RECHARGE} of "
                    f"their turns after their turn {turns[p]} (a trap set on turn T is ready at T + {RECHARGE})"
                )
            require(ready == 0 or ready > RECHARGE,
                    f"snapshot field 'recharge' holds {ready} for player_{p}: a trap set on their turn T ≥ 1 is "
                    f"ready at T + {RECHARGE}, so an entry is 0 (never set) or more than {RECHARGE}")


def _read_traps(game, state: dict[str, Any], phase: int, before_choice: bool) -> None:
    """The traps: recharge turns, extra traps, live traps and the last one sprung."""
    options, to_move, rock, name = game.options, game.to_move, game.rock, game._name
    n = options["size"] ** 2
    _read_recharge(game, state)
    long_script = options["gems"] and options["gem_cells"] is not None
    game.extra = int_list(state, "extra_traps", 2, 0, MOST_TURNS if long_script else GEM_COUNT)
    game.live_trap = int_list(state, "live_trap", 2, -1, n - 1)
    for p in (0, 1):
        trap = game.live_trap[p]
        if trap >= 0:
            require(not rock >> trap & 1, f"snapshot field 'live_trap' puts player_{p}'s trap on {name(trap)}, a rock")
            require(not before_choice, "snapshot field 'live_trap' holds a trap before the choice")
            require(not (p == to_move and phase in (TOKEN, TRAP_PHASE)),
                    f"snapshot field 'live_trap' holds player_{p}'s trap before their trap phase of this turn")
    sprung = state["last_sprung"]
    if sprung is not None:
        require(isinstance(sprung, list) and len(sprung) == 2,
                f"snapshot field 'last_sprung' must be null or [cell, owner], not {shown(sprung)}")
        cell = int_field({"last_sprung": sprung[0]}, "last_sprung", 0, n - 1)
        owner = int_field({"last_sprung": sprung[1]}, "last_sprung", 0, 1)
        require(not rock >> cell & 1, f"snapshot field 'last_sprung' is on {name(cell)}, a rock")
        game.last_sprung = (cell, owner)
    if not options["traps"]:
        require(game.extra == [0, 0], "snapshot field 'extra_traps' holds traps but the option 'traps' is off")
        require(game.live_trap == [-1, -1], "snapshot field 'live_trap' holds a trap but the option 'traps' is off")
        require(game.recharge == [[0, 0], [0, 0]], "snapshot field 'recharge' shows used traps but the option 'traps' is off")
        require(sprung is None, "snapshot field 'last_sprung' is set but the option 'traps' is off")


def _read_double(game, state: dict[str, Any], phase: int, filled_list: list[int], gems: list, tokens: list) -> None:
    """Whether a Double's second fill is due (``game.double``), and what the counts allow."""
    double = state["double"]
    if not (isinstance(double, bool)):
        raise SnapshotError(f"snapshot field 'double' must be true or false, not {shown(double)}")
    require(not double or phase in (TRAP_PHASE, FILL, FILL2), "snapshot field 'double' is set outside a Double's phases")
    require(double or phase != FILL2, "snapshot field 'double' must be set in the second-fill phase")
    _check_counts(game.options, phase, filled_list, game.turns, gems, tokens, double)
    game.double = double


def _read_end_and_clocks(game, state: dict[str, Any], phase: int, before_choice: bool) -> None:
    """The winner and why the game ended (only once it is over), and the clocks."""
    to_move = game.to_move
    game.winner = winner = int_field(state, "winner", -1, 1)
    require((winner >= 0) == (phase == OVER), "snapshot field 'winner' must be set exactly when the game is over")
    reason = state["end_reason"]
    if not (reason in ("", "no legal cell", "time")):
        raise SnapshotError(f"snapshot field 'end_reason' is {shown(reason)}; it is '', 'no legal cell' or 'time'")
    require((reason != "") == (phase == OVER), "snapshot field 'end_reason' must be given exactly when the game is over")
    if phase == OVER:
        require(winner == 1 - to_move, "snapshot field 'winner' must be the player not to move (the loser is to move)")
        if reason == "no legal cell":
            require(not game.legal_mask() and not before_choice,
                    "snapshot field 'end_reason' says 'no legal cell' but a cell is legal")
        else:
            require(game.timed and game.clocked[to_move],
                    f"snapshot field 'end_reason' says 'time' but player_{to_move} has no clock")
    game.end_reason = reason
    limit = TIME_LIMIT[game.options["size"]]
    game.time_left = _number_pair(state, "time_left", limit)
    game.shown_time = _number_pair(state, "shown_time", limit)
    game.stint_start = game.clock() if game.timed else 0.0


def _check_phase_needs(game, phase: int) -> None:
    """What the phase needs: a legal cell in a turn, a token to play, a ready trap to set."""
    to_move = game.to_move
    if phase in TURN_PHASES:
        require(game.legal_mask() != 0, "snapshot field 'phase' is a turn's phase but no cell is legal")
    if phase == TOKEN:
        require(bool(game.tokens[to_move]), "snapshot field 'phase' is 'token' but the player holds no token")
    if phase == TRAP_PHASE:
        require(game.options["traps"] and (game.extra[to_move] or min(game.recharge[to_move]) <= game.turns[to_move]),
                "snapshot field 'phase' is 'trap' but the player has no ready trap")


def _check_counts(options: dict[str, Any], phase: int, filled: list[int], turns: list[int], gems: list,
                      tokens: list, double: bool) -> None:
    """What the counts allow. A token is a collected gem: no more gems and tokens than the game
    has gems (none without gems). The filled cells are the seed and one fill a turn, plus a
    second fill for each Double played: at most one for every gem the game can have that is
    neither still on the board nor held as a token. The turn in progress (counted in ``turns``)
    has made no fill before its second-fill phase, and a Double it plays has not yet given its
    second fill."""
    if not options["gems"]:
        require(not tokens[0] and not tokens[1],
                "snapshot field 'tokens' holds tokens but the option 'gems' is off: a token is a collected gem")
        require(not double, "snapshot field 'double' is set but the option 'gems' is off: a Double comes from a gem")
        doubles = 0
    else:
        script = options["gem_cells"]
        most_gems = GEM_COUNT if script is None else len(script)
        held = len(tokens[0]) + len(tokens[1])
        if len(gems) + held > most_gems:
            game_has = (f"the {GEM_COUNT} a game has" if script is None
                        else f"the {most_gems} of the 'gem_cells' script")
            raise SnapshotError(
                f"snapshot fields 'gems' and 'tokens' account for {len(gems) + held} gems ({len(gems)} on the board, "
                f"{held} held as tokens: a token is a collected gem), more than {game_has}"
            )
        doubles = most_gems - len(gems) - held
        require(not double or doubles >= 1,
                f"snapshot field 'double' is set but no Double token can have been collected ({len(gems)} of the "
                f"game's {most_gems} gems are on the board, {len(tokens[0]) + len(tokens[1])} held as tokens)")
    most = 1 + turns[0] + turns[1] + doubles
    waiting = ""
    if phase in (TOKEN, TRAP_PHASE, FILL):
        most -= 1 + double
        waiting = "; the turn in progress has not filled yet"
    if len(filled) > most:
        extra = f", plus a second fill for each of at most {doubles} Doubles" if doubles else ""
        raise SnapshotError(
            f"snapshot field 'filled' holds {len(filled)} cells; after the turns in field 'turns' ({turns[0]} and "
            f"{turns[1]}) at most {most} can be filled (the seed and one fill a turn{extra}{waiting})"
        )


def _check_setup_gems(game, phase: int) -> None:
    """Right after the seed the gems are exactly what the gem chance nodes placed so far (all
    of them once the choice is to be made)."""
    placed = sorted(game.gems.items())
    open_cells = set(game._open_gem_cells())
    scripted = game._scripted_gems()
    if scripted is not None:
        count = len(placed)
        require(dict(scripted[:count]) == dict(placed) and count <= len(scripted),
                "snapshot field 'gems' must be the first gems the gem_cells script places")
        want = len(scripted)
    else:
        for cell, _ in placed:
            require(cell in open_cells, f"snapshot field 'gems' puts a gem on {game._name(cell)}, where no gem appears "
                                        "(it touches the seed)")
        want = min(GEM_COUNT, len(open_cells))
    if phase == GEMS:
        require(len(placed) < want, f"snapshot field 'gems' holds {len(placed)} gems while gems are still placed (of {want})")
    else:
        require(len(placed) == want, f"snapshot field 'gems' must hold the {want} gems placed after the seed, not {len(placed)}")
