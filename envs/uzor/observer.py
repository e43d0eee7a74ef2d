"""What an Uzor seat sees: everything public, plus its own secret goal.

Never in the vector: the opponent's secret goal and the order of the supply's face-down tiles.
Both hands are public (every hand tile came through the face-up market); the supply's contents
follow by elimination; the face-up discards at its bottom are shown where they lie.
"""

from __future__ import annotations

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
_ZERO_HANDS = bytes(2 * TYPES)


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
        block = self.layout.take  # named blocks: errors about a vector name the block

        self.TABLE = block(n * CELL_FEATURES, "TABLE")
        self.MY_HAND = block(TYPES, "MY_HAND")
        self.THEIR_HAND = block(TYPES, "THEIR_HAND")
        self.SUPPLY_COUNTS = block(TYPES, "SUPPLY_COUNTS")
        self.MARKET = block(MARKET * SLOT, "MARKET")
        self.SUPPLY_PLACES = block(SUPPLY_MAX * SLOT, "SUPPLY_PLACES")
        self.CROSSED = block(MAP_SIZE, "CROSSED")
        self.MY_GOAL = block(MAP_SIZE, "MY_GOAL")
        self.TO_MOVE = block(1, "TO_MOVE")
        self.SEAT = block(1, "SEAT")
        self.PHASE = block(SHOWN_PHASES, "PHASE")
        self.REPEATED = block(1, "REPEATED")
        self.CONTINUED = block(1, "CONTINUED")
        self.LAST = block(n, "LAST")
        self.FORK = block(MAP_SIZE, "FORK")
        self.SUPPLY_SIZE = block(1, "SUPPLY_SIZE")
        self.SCORES = block(2, "SCORES")
        self.IDLE = block(1, "IDLE")
        self.size = self.layout.size
        self._planes = None  # the plane maker, built on first use
        self._table_end = self.TABLE + n * CELL_FEATURES
        self._version = -1
        self._table = None

    def observe(self, game, player: int) -> np.ndarray:
        obs = np.zeros(self.size, np.float32)
        # The table's one-hot block only changes when a tile is placed or closed: the last
        # one is kept, keyed by the table version (unique in the process, shared by clones).
        if game.table_version == self._version:
            obs[self.TABLE:self._table_end] = self._table
        else:
            table = obs[self.TABLE:self._table_end]
            np.take(_LUT, np.frombuffer(game.codes, np.uint8), axis=0, out=table.reshape(self.cells, CELL_FEATURES))
            self._table = table.copy()
            self._version = game.table_version
        # Hands (mine, theirs) and the supply's multiset by elimination: what is on no table,
        # in no hand, in no market. Three adjacent blocks of 25 counts 0…3, written at once.
        counts = bytearray(_ZERO_HANDS)
        counts += bytes([COPIES - x for x in game.on_table])
        for t in game.hands[player]:
            counts[t] += 1
            counts[2 * TYPES + t] -= 1
        for t in game.hands[1 - player]:
            counts[TYPES + t] += 1
            counts[2 * TYPES + t] -= 1
        goal, phase = game.goals[player], game.phase
        ones = [] if goal is None else [self.MY_GOAL + goal]  # (a goal is dealt at the setup's start)
        if phase < SHOWN_PHASES:  # a chance node shows no phase
            ones.append(self.PHASE + phase)
        market = self.MARKET + 1
        for t in game.market:
            ones.append(market + t)
            market += SLOT
            if t >= 0:
                counts[2 * TYPES + t] -= 1
        np.take(_THIRDS, np.frombuffer(counts, np.uint8), out=obs[self.MY_HAND:self.MY_HAND + 3 * TYPES])
        # The supply from the top: its face-down tiles, then the face-up discards in the order
        # they will be drawn (during the deal it holds more than 59: the first 59 are shown).
        facedown, discards = sum(game.facedown), game.discards
        places = self.SUPPLY_PLACES
        size = min(facedown + len(discards), SUPPLY_MAX)
        down = min(size, facedown)
        if down:
            obs[places:places + down * SLOT:SLOT] = 1.0
        for i in range(down, size):
            ones.append(places + i * SLOT + discards[i - facedown] + 1)
        crossed = game.crossed
        if crossed:
            ones.extend(self.CROSSED + k for k in range(MAP_SIZE) if crossed >> k & 1)
        if game.current_player() == player:
            ones.append(self.TO_MOVE)
        if player == 0:
            ones.append(self.SEAT)
        if game.repeated:
            ones.append(self.REPEATED)
        if game.continued:
            ones.append(self.CONTINUED)
        if game.last_cell >= 0:
            ones.append(self.LAST + game.last_cell)
        if game.fork:
            ones.extend(self.FORK + k for k in game.fork)
        obs[ones] = 1.0
        scale = self.scale
        obs[self.SUPPLY_SIZE:self.IDLE + 1] = (
            size / SUPPLY_MAX,
            game.points[player] / scale,
            game.points[1 - player] / scale,
            game.idle / IDLE_LIMIT,
        )
        return obs

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
