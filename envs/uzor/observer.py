"""What an Uzor seat sees: everything public, plus its own secret goal.

Never in the vector: the opponent's secret goal and the order of the supply's face-down tiles.
Both hands are public (every hand tile came through the face-up market); the supply's contents
follow by elimination; the face-up discards at its bottom are shown where they lie.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from envs.core.observer import Observer, PolicyLayout, Symmetry, as_vector
from envs.uzor import planes
from envs.uzor.patterns import MAP_SIZE, STANDARD_MAP
from envs.uzor.common import (
    COLOURS,
    COPIES,
    EMPTY,
    HAND,
    IDLE_LIMIT,
    MARKET,
    MOTIFS,
    PHASES,
    SHOWN_PHASES,
    STONE,
    SUPPLY_MAX,
    TYPES,
    ActionLayout,
)

CELL_FEATURES = 2 + len(MOTIFS) + len(COLOURS)  # empty, stone, motif one-hot, colour one-hot
SLOT = 1 + TYPES  # market slot: empty, or a type; supply place: face down, or a face-up type


def _cell_table() -> np.ndarray:
    """Rows indexed by ``board code + 1``: 0 empty, 1…25 open tiles, 26…50 stones."""
    lut = np.zeros((1 + 2 * TYPES, CELL_FEATURES), np.float32)
    lut[0, 0] = 1.0
    for t in range(TYPES):
        lut[1 + t, 2 + t // 5] = 1.0
        lut[1 + t, 7 + t % 5] = 1.0
        lut[1 + STONE + t, 1] = 1.0
    return lut


_LUT = _cell_table()
_THIRDS = np.arange(COPIES + 1, dtype=np.float32) / COPIES  # a count 0…3 as a fraction

# Pieces of the vector as float32 bytes (observe joins them).
_ROW_BYTES = [row.tobytes() for row in _LUT]  # a cell's 12 entries, by code + 1
_THIRD_BYTES = [x.tobytes() for x in _THIRDS]
_ONE = np.float32(1.0).tobytes()
# a 1.0 written into zeros: its two high bytes (item writes into a bytearray are far cheaper
# than slice writes)
assert _ONE[:2] == bytes(2)
_ONE2, _ONE3 = _ONE[2], _ONE[3]
_SLOT_BYTES = [np.eye(SLOT, dtype=np.float32)[j].tobytes() for j in range(SLOT)]  # one-hot at j
_FACE_DOWN = [_SLOT_BYTES[0] * k for k in range(SUPPLY_MAX + 1)]  # k face-down places
_FOUR_FLOATS = struct.Struct("4f")  # native float32: a Python float rounded to nearest, as numpy does
_LEFT = bytes(max(COPIES - x, 0) for x in range(256))  # translate: a count on the table -> what is left
_ZERO_HANDS = bytes(2 * TYPES)
# the flags' block: MY_GOAL 15, TO_MOVE, SEAT, PHASE 7, REPEATED, CONTINUED (offsets in bytes)
_GOAL_AT = 0
_TO_MOVE_AT = _GOAL_AT + 4 * MAP_SIZE
_SEAT_AT = _TO_MOVE_AT + 4
_PHASE_AT = _SEAT_AT + 4
_REPEATED_AT = _PHASE_AT + 4 * SHOWN_PHASES
_CONTINUED_AT = _REPEATED_AT + 4
_FLAGS_ZEROS = bytes(_CONTINUED_AT + 4)
_FORK_ZEROS = bytes(4 * MAP_SIZE)
_ZEROS = memoryview(bytes(4 * max(31 * 31, SUPPLY_MAX * SLOT)))  # zero runs are slices of it
# Blocks that take few distinct values in a game, kept by their value (cleared whole when full):
# 25 counts (a hand, the supply) and the crossed-out patterns.
_COUNT_BYTES: dict[bytes, bytes] = {}
_CROSSED_BYTES: dict[int, bytes] = {}
_KEPT_LIMIT = 4096


def _count_bytes(counts: bytearray) -> bytes:
    """25 counts 0…3 as float32 thirds."""
    key = bytes(counts)
    found = _COUNT_BYTES.get(key)
    if found is None:
        if len(_COUNT_BYTES) >= _KEPT_LIMIT:
            _COUNT_BYTES.clear()
        found = _COUNT_BYTES[key] = b"".join([_THIRD_BYTES[c] for c in key])
    return found


def _crossed_bytes(crossed: int) -> bytes:
    """The CROSSED block of a bit set of patterns."""
    if len(_CROSSED_BYTES) >= _KEPT_LIMIT:
        _CROSSED_BYTES.clear()
    found = _CROSSED_BYTES[crossed] = b"".join([_ONE if crossed >> k & 1 else bytes(4) for k in range(MAP_SIZE)])
    return found


class UzorObserver(Observer):
    """Layout (offsets in the vector; ``N = board_size²``; every entry in [0, 1]):

    * ``TABLE``: ``N × 12``, per cell ``r*B + c``: empty, stone, motif one-hot (cedar, sun,
      wave, bird, star), colour one-hot (crimson, azure, emerald, amber, ivory);
    * ``MY_HAND``, ``THEIR_HAND``: 25 each, count of each tile type in the hand / 3;
    * ``SUPPLY_COUNTS``: 25, count of each type in the supply / 3 (known by elimination);
    * ``MARKET``: ``5 × 26``, per slot one-hot: empty, or the tile type + 1;
    * ``SUPPLY_PLACES``: ``59 × 26``, per place from the top (drawn first): 0 = a face-down
      tile, type + 1 = a face-up discard of that type; places past the end are all zero;
    * ``CROSSED``: 15, crossed-out patterns; ``MY_GOAL``: 15 one-hot, my secret goal (none
      before it is dealt);
    * ``TO_MOVE`` (I am to act), ``SEAT`` (I am player_0);
    * ``PHASE``: 7 one-hot: place, fork, take, discard, dead_take, pass, over (none at a
      chance node);
    * ``REPEATED`` (this turn is a repeated turn), ``CONTINUED`` (the player to act has
      continued this turn);
    * ``LAST``: ``N``, one-hot of the last placed cell (all zero before the first placement);
    * ``FORK``: 15, the patterns the player to act may close now (the fork's choices);
    * ``SUPPLY_SIZE``: tiles in the supply / 59 (59 at most: only the deal has more);
    * ``SCORES``: my points / scale, their points / scale (``scale`` = the Map's total points
      plus its largest pattern, the most a player can score);
    * ``IDLE``: turns in a row without a placement / 20.
    """

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        size = options["board_size"]
        self.board_size = size
        self.cells = n = size * size
        patterns = options["patterns"] or STANDARD_MAP
        points = [p["points"] for p in patterns]
        self.scale = float(max(1, sum(points) + max(points)))
        # named blocks: errors about a vector name the block
        self.lay_out(TABLE=n * CELL_FEATURES, MY_HAND=TYPES, THEIR_HAND=TYPES, SUPPLY_COUNTS=TYPES,
                     MARKET=MARKET * SLOT, SUPPLY_PLACES=SUPPLY_MAX * SLOT, CROSSED=MAP_SIZE, MY_GOAL=MAP_SIZE,
                     TO_MOVE=1, SEAT=1, PHASE=SHOWN_PHASES, REPEATED=1, CONTINUED=1, LAST=n, FORK=MAP_SIZE,
                     SUPPLY_SIZE=1, SCORES=2, IDLE=1)
        self._planes = None  # the plane maker, built on first use
        self._table_end = self.TABLE + n * CELL_FEATURES
        # the blocks observe() joins, in this order
        assert [self.TABLE, self.MY_HAND, self.MARKET, self.SUPPLY_PLACES, self.CROSSED, self.LAST, self.FORK,
                self.SUPPLY_SIZE, self.size] == [
            0, self._table_end, self._table_end + 3 * TYPES, self.MARKET + MARKET * SLOT,
            self.SUPPLY_PLACES + SUPPLY_MAX * SLOT, self.CROSSED + MAP_SIZE + len(_FLAGS_ZEROS) // 4, self.LAST + n,
            self.FORK + MAP_SIZE, self.FORK + MAP_SIZE + 4]
        # the last table seen: its codes and its block's float32 bytes (_table_bytes)
        self._codes = bytearray()
        self._table = bytearray()
        self._rows = memoryview(self._table)

    def observe(self, game, player: int) -> np.ndarray:
        # The vector is put together as float32 bytes, block by block in layout order, from
        # pieces made once (a market slot's one-hot, a run of face-down places, zeros) and the
        # table's block kept between calls (_table_bytes); one join makes its memory. (Nearly
        # every entry is 0 or 1 and most blocks are one of a few pieces: joining them costs
        # less than numpy's per-call overhead on writes into a zeroed array.)
        zeros = _ZEROS
        # Hands (mine, theirs) and the supply's multiset by elimination: what is on no table,
        # in no hand, in no market. Three adjacent blocks of 25 counts 0…3.
        counts = bytearray(_ZERO_HANDS)
        counts += bytes(game.on_table).translate(_LEFT)
        for t in game.hands[player]:
            counts[t] += 1
            counts[2 * TYPES + t] -= 1
        for t in game.hands[1 - player]:
            counts[TYPES + t] += 1
            counts[2 * TYPES + t] -= 1
        for t in game.market:
            if t >= 0:
                counts[2 * TYPES + t] -= 1
        parts = [self._table_bytes(game), _count_bytes(counts[:TYPES]), _count_bytes(counts[TYPES:2 * TYPES]),
                 _count_bytes(counts[2 * TYPES:])]
        parts += [_SLOT_BYTES[t + 1] for t in game.market]  # one-hot: empty, or the type + 1
        # The supply from the top: its face-down tiles, then the face-up discards in the order
        # they will be drawn (during the deal it holds more than 59: the first 59 are shown).
        facedown, discards = sum(game.facedown), game.discards
        size = min(facedown + len(discards), SUPPLY_MAX)
        down = min(size, facedown)
        parts.append(_FACE_DOWN[down])
        parts += [_SLOT_BYTES[discards[i - facedown] + 1] for i in range(down, size)]
        parts.append(zeros[:4 * SLOT * (SUPPLY_MAX - size)])
        crossed = _CROSSED_BYTES.get(game.crossed)
        if crossed is None:
            crossed = _crossed_bytes(game.crossed)
        parts.append(crossed)
        # MY_GOAL, TO_MOVE, SEAT, PHASE, REPEATED, CONTINUED: 26 entries
        flags = bytearray(_FLAGS_ZEROS)
        goal, phase = game.goals[player], game.phase
        if goal is not None:  # (a goal is dealt at the setup's start)
            at = _GOAL_AT + 4 * goal
            flags[at + 2] = _ONE2
            flags[at + 3] = _ONE3
        if game.current_player() == player:
            flags[_TO_MOVE_AT + 2] = _ONE2
            flags[_TO_MOVE_AT + 3] = _ONE3
        if player == 0:
            flags[_SEAT_AT + 2] = _ONE2
            flags[_SEAT_AT + 3] = _ONE3
        if phase < SHOWN_PHASES:  # a chance node shows no phase
            at = _PHASE_AT + 4 * phase
            flags[at + 2] = _ONE2
            flags[at + 3] = _ONE3
        if game.repeated:
            flags[_REPEATED_AT + 2] = _ONE2
            flags[_REPEATED_AT + 3] = _ONE3
        if game.continued:
            flags[_CONTINUED_AT + 2] = _ONE2
            flags[_CONTINUED_AT + 3] = _ONE3
        parts.append(flags)
        last = game.last_cell
        if last >= 0:
            parts += [zeros[:4 * last], _ONE, zeros[:4 * (self.cells - 1 - last)]]
        else:
            parts.append(zeros[:4 * self.cells])
        fork = bytearray(_FORK_ZEROS)
        for k in game.fork:
            fork[4 * k + 2] = _ONE2
            fork[4 * k + 3] = _ONE3
        parts.append(fork)
        scale = self.scale
        parts.append(_FOUR_FLOATS.pack(
            size / SUPPLY_MAX,
            game.points[player] / scale,
            game.points[1 - player] / scale,
            game.idle / IDLE_LIMIT,
        ))
        return np.frombuffer(bytearray().join(parts), np.float32)

    def _table_bytes(self, game) -> bytearray:
        """The table's block as float32 bytes, kept for the last table seen (keyed by its
        contents, ``game.codes``, which change only when a tile is placed or closed). For
        another table only the rows of the cells that changed are rewritten when they are the
        last placement's (and the last close's): the kept codes take those cells' new codes
        and must then equal the table's; else the whole block is made again."""
        codes, kept = game.codes, self._codes
        if codes == kept:
            return self._table
        last = game.last_cell
        if last >= 0 and len(kept) == len(codes):
            kept[last] = codes[last]
            hint: tuple[int, ...] = (last,)
            if kept != codes and game.closed:
                hint = (last, *game.closed[-1][2])
                for x in hint:
                    kept[x] = codes[x]
            if kept == codes:
                rows, width = self._rows, 4 * CELL_FEATURES
                for x in hint:
                    rows[x * width:(x + 1) * width] = _ROW_BYTES[codes[x]]
                return self._table
        self._table = bytearray(_LUT[np.frombuffer(codes, np.uint8)].tobytes())
        self._rows = memoryview(self._table)  # (row writes through a view: cheaper than the bytearray's)
        self._codes = bytearray(codes)
        return self._table

    def decode(self, observation) -> dict[str, Any]:
        vec = as_vector(observation)
        n = self.cells
        table = vec[self.TABLE:self._table_end].reshape(n, CELL_FEATURES)
        codes = np.argmax(table[:, 2:7], axis=1) * 5 + np.argmax(table[:, 7:12], axis=1)
        codes[table[:, 1] > 0.5] = STONE  # a stone (its former face is not kept in the picture)
        codes[table[:, 0] > 0.5] = EMPTY
        board = codes.tolist()

        def hand(offset: int) -> list[int]:
            counts = np.rint(vec[offset:offset + TYPES] * COPIES).astype(int)
            return [t for t in range(TYPES) for _ in range(counts[t])]

        market = (np.argmax(vec[self.MARKET:self.MARKET + MARKET * SLOT].reshape(MARKET, SLOT), axis=1) - 1).tolist()
        size = int(round(vec[self.SUPPLY_SIZE] * SUPPLY_MAX))
        shown = min(size, SUPPLY_MAX)
        kinds = np.argmax(vec[self.SUPPLY_PLACES:self.SUPPLY_PLACES + shown * SLOT].reshape(shown, SLOT), axis=1)
        places = [None if j == 0 else j - 1 for j in kinds.tolist()]
        counts = np.rint(vec[self.SUPPLY_COUNTS:self.SUPPLY_COUNTS + TYPES] * COPIES).astype(int)
        phase_part = vec[self.PHASE:self.PHASE + SHOWN_PHASES]
        last = vec[self.LAST:self.LAST + n]
        goal = vec[self.MY_GOAL:self.MY_GOAL + MAP_SIZE]
        return {
            "board_size": self.board_size,
            "board": board,
            "my_hand": hand(self.MY_HAND),
            "their_hand": hand(self.THEIR_HAND),
            "market": market,
            "supply_size": size,
            "supply_counts": [int(x) for x in counts],
            "supply_faceup": places,  # per place from the top: None (face down) or a type
            "crossed": [k for k in range(MAP_SIZE) if vec[self.CROSSED + k] > 0.5],
            "my_goal": int(np.argmax(goal)) if goal.max() > 0.5 else None,
            "my_score": int(round(vec[self.SCORES] * self.scale)),
            "their_score": int(round(vec[self.SCORES + 1] * self.scale)),
            "to_move": bool(vec[self.TO_MOVE] > 0.5),
            "seat": 0 if vec[self.SEAT] > 0.5 else 1,
            "phase": PHASES[int(np.argmax(phase_part))] if phase_part.max() > 0.5 else "chance",
            "repeated": bool(vec[self.REPEATED] > 0.5),
            "continued": bool(vec[self.CONTINUED] > 0.5),
            "last_cell": int(np.argmax(last)) if last.max() > 0.5 else -1,
            "fork": [k for k in range(MAP_SIZE) if vec[self.FORK + k] > 0.5],
            "idle": int(round(vec[self.IDLE] * IDLE_LIMIT)),
        }

    # ----- board-shaped observations ----------------------------------------------------------
    def planes_shape(self) -> tuple[int, int, int]:
        return (self.board_size, self.board_size, planes.CHANNELS)

    def planes(self, observation) -> np.ndarray:
        """``(B, B, 74)`` planes of one observation, ``(N, B, B, 74)`` of a batch ``(N, size)``
        (``envs.uzor.planes``; the channels are listed in ``docs/observations.md``)."""
        vector = np.asarray(as_vector(observation), np.float32)
        single = vector.ndim == 1
        batch = vector[None] if single else vector
        if batch.ndim != 2 or batch.shape[1] != self.size:
            raise ValueError(
                f"Uzor planes take one observation of {self.size} entries or a batch (N, {self.size}) "
                f"under these options, not shape {vector.shape}"
            )
        if self._planes is None:
            self._planes = planes.PlaneMaker(self)
        out = self._planes.planes(batch)
        return out[0] if single else out

    def policy_layout(self) -> PolicyLayout:
        """PLACE slot ``s`` at cell ``(r, c)`` is the cell head's ``(r, c, s)``: five per-cell
        logits, one per hand slot; CLOSE, CONTINUE, TAKE, DISCARD and PASS are the 27 global
        logits, in action order."""
        n = self.cells
        places = np.arange(HAND * n)
        slot, cell = np.divmod(places, n)
        index = np.concatenate([cell * HAND + slot, HAND * n + np.arange(ActionLayout.count(self.cells) - HAND * n)])
        return PolicyLayout(cell_channels=HAND, global_actions=len(index) - HAND * n, index=index.astype(np.int64))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The identity only. The table and the standard Map look symmetric under the eight
        rotations and reflections of the square, but the rules are not: when a placement
        completes several instances of the pattern closed, the one turned to stones is the
        first in reading order, and no rotation or reflection keeps that order (the tests replay
        games under each one and find them diverge)."""
        actions = np.arange(ActionLayout.count(self.cells), dtype=np.int64)
        return (Symmetry("identity", "identity", actions),)
