"""What a Loom seat sees: both cloths, the current throw, the round; never future throws.

Two formats (``docs/observations.md``): the flat vector (``observe``, ``decode``) and the
board-shaped planes (``planes``), a ``(4, 4, 44)`` array computed from the flat vector alone,
with the policy head's layout (``policy_layout``) and the eight symmetries of the square
(``symmetries``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import D4, Observer, PolicyLayout, Symmetry, as_vector, transform_grid
from envs.loom.cloth import CELLS, NEIGHBOURS, SIDE, line_gain_table
from envs.loom.rules import MAX_BOUNTY, ROUNDS, LoomGame

DYE_SLOTS = 7  # empty + dyes 1…6
DYES = 6
THREADS = 2

# ----- planes: (row, col, channel), per-cell channels first, then constant planes -------------
P_MINE, P_THEIRS = 0, 7  # my / their cloth, one-hot of 7 (empty, dye 1…6)
P_MY_RINGS, P_THEIR_RINGS = 14, 16  # per thread: what weaving it there gains (÷ 12 + 2*bounty)
P_MY_ROOM, P_THEIR_ROOM = 18, 20  # per thread: the touching law lets its dye go there
P_LEGAL = 22  # per thread: I may weave it there now (the action mask; zeros off my turn)
P_THROW = 24  # constant: thread 0's dye one-hot (6), then thread 1's (6)
P_AVAILABLE = 36  # constant: thread 0, thread 1 not yet taken this round
P_TO_ACT, P_DRAFTER, P_ROUND = 38, 39, 40  # I act now; I draft this round; round ÷ 16 (1 at the end)
P_MY_SCORE, P_THEIR_SCORE, P_BOUNTY = 41, 42, 43  # as in the flat vector
PLANES = 44

# Orthogonal adjacency of the cloth's cells, for the touching law on whole batches.
_ADJACENT = np.zeros((CELLS, CELLS), np.float32)
for _cell, _around in enumerate(NEIGHBOURS):
    _ADJACENT[_cell, list(_around)] = 1.0

# The rings by table look-up. The engine keeps each line's contents as one base-7 number
# (``game.codes``); ``rules.line_gain_table(bounty)[code][dye]`` is what that dye adds to that
# line, so a cell's ring is two look-ups. (``rules.cloth_gain`` is the same arithmetic cell by
# cell; the tests compare the two.)
_CELL_LINES = [(c, c // SIDE, SIDE + c % SIDE) for c in range(CELLS)]  # cell, row line, column line


class LoomObserver(Observer):
    """Layout (offsets in the vector):

    ``0`` my cloth, 16 cells × 7 one-hot (empty, dye 1…6) · ``112`` their cloth, same ·
    ``224`` the current throw, thread 0 then thread 1, each 6 one-hot (dye 1…6) ·
    ``236`` which threads are still available (2) · ``238`` the round, 16 one-hot ·
    ``254`` I am the drafter · ``255`` my score / scale · ``256`` their score / scale ·
    ``257`` bounty / 100 · ``258`` the price rings: for thread 0 then thread 1, per cell, what
    weaving it there would gain **me** (16 + 16), then the same for the **opponent's** cloth
    (16 + 16), each ÷ ``12 + 2*bounty`` (0 for a filled cell) · ``322`` where the touching law
    lets each thread go in the **opponent's** cloth (16 + 16; mine is in the action mask).
    ``scale = 144 + 8*bounty`` is the most a cloth can score. After the last round the throw,
    availability, round, rings and touching entries are all zero; at a chance node (an engine
    state the env never shows) the throw, availability, rings and touching entries are.

    The rings are the prices a player sees holding a thread over a cell: public arithmetic on
    public cloths, given so a network need not relearn the scoring rule.
    """

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        cloth, per_thread = CELLS * DYE_SLOTS, THREADS * CELLS
        self.lay_out(MINE=cloth, THEIRS=cloth, THROW=THREADS * DYES, AVAILABLE=THREADS, ROUND=ROUNDS, DRAFTER=1,
                     MY_SCORE=1, THEIR_SCORE=1, BOUNTY=1, MY_RINGS=per_thread, THEIR_RINGS=per_thread,
                     THEIR_ROOM=per_thread)
        self._gather = self._planes_gather()
        self._round_numbers = np.arange(ROUNDS, dtype=np.float32)
        self.scale = float(144 + 8 * options["bounty"])
        self.gain_scale = float(12 + 2 * options["bounty"])
        # Where each cell's one-hot block starts: my 16 cells, then the opponent's.
        self._one_hot = np.concatenate([self.MINE + np.arange(CELLS) * DYE_SLOTS, self.THEIRS + np.arange(CELLS) * DYE_SLOTS])
        # Per dye, the gain of every line code as a plain list: list look-ups beat numpy here.
        table = line_gain_table(options["bounty"])
        self._gain_lists = [[row[dye] / self.gain_scale for row in table] for dye in range(DYE_SLOTS)]

    def observe(self, game: LoomGame, player: int) -> np.ndarray:
        obs = np.zeros(self.size, np.float32)
        obs[self._one_hot + np.array(game.cloths[player] + game.cloths[1 - player])] = 1.0
        if game.round < ROUNDS:
            obs[self.ROUND + game.round] = 1.0
            if len(game.throws) > game.round:  # the round's throw is on the table (not a chance node)
                low, high = game.throws[game.round]
                obs[self.THROW + low - 1] = 1.0
                obs[self.THROW + 6 + high - 1] = 1.0
                if game.taken < 0:
                    obs[self.AVAILABLE] = obs[self.AVAILABLE + 1] = 1.0
                else:
                    obs[self.AVAILABLE + 1 - game.taken] = 1.0
                obs[self.MY_RINGS:self.MY_RINGS + 96] = self._rings(game, player, (low, high))
        obs[self.DRAFTER] = float(game.round % 2 == player)
        obs[self.MY_SCORE] = game.points[player] / self.scale
        obs[self.THEIR_SCORE] = game.points[1 - player] / self.scale
        obs[self.BOUNTY] = game.bounty / MAX_BOUNTY
        return obs

    def _rings(self, game: LoomGame, player: int, throw: tuple[int, int]) -> list[float]:
        """``MY_RINGS``, ``THEIR_RINGS`` and ``THEIR_ROOM``: each a block per thread of the throw."""
        other = 1 - player
        values: list[float] = []
        for who in (player, other):
            cloth, codes = game.cloths[who], game.codes[who]
            for dye in throw:
                per_code = self._gain_lists[dye]
                line = [per_code[code] for code in codes]
                values.extend([0.0 if cloth[c] else line[r] + line[k] for c, r, k in _CELL_LINES])
        theirs, near = game.cloths[other], game.near[other]
        for dye in throw:
            bit = 1 << dye
            clean = [0.0 if theirs[c] or near[c] & bit else 1.0 for c in range(CELLS)]
            values.extend(clean if 1.0 in clean else [0.0 if theirs[c] else 1.0 for c in range(CELLS)])
        return values

    def decode(self, observation) -> dict[str, Any]:
        vec = as_vector(observation)

        def cloth(offset: int) -> list[int]:
            return [int(np.argmax(vec[offset + c * DYE_SLOTS: offset + (c + 1) * DYE_SLOTS])) for c in range(CELLS)]

        throw_part = vec[self.THROW:self.THROW + 12]
        round_part = vec[self.ROUND:self.ROUND + ROUNDS]
        has_throw = throw_part.sum() > 0.5
        return {
            "my_cloth": cloth(self.MINE),
            "their_cloth": cloth(self.THEIRS),
            "throw": (int(np.argmax(throw_part[:6])) + 1, int(np.argmax(throw_part[6:])) + 1) if has_throw else None,
            "available": tuple(bool(x > 0.5) for x in vec[self.AVAILABLE:self.AVAILABLE + 2]),
            "round": int(np.argmax(round_part)) if round_part.sum() > 0.5 else ROUNDS,
            "drafter": bool(vec[self.DRAFTER] > 0.5),
            "my_score": int(round(vec[self.MY_SCORE] * self.scale)),
            "their_score": int(round(vec[self.THEIR_SCORE] * self.scale)),
            "bounty": int(round(vec[self.BOUNTY] * MAX_BOUNTY)),
            "my_rings": np.rint(vec[self.MY_RINGS:self.MY_RINGS + 32] * self.gain_scale).astype(int).reshape(2, CELLS),
            "their_rings": np.rint(vec[self.THEIR_RINGS:self.THEIR_RINGS + 32] * self.gain_scale).astype(int).reshape(2, CELLS),
            "their_room": vec[self.THEIR_ROOM:self.THEIR_ROOM + 32].reshape(2, CELLS) > 0.5,
            "side": SIDE,
        }

    # ----- planes -----------------------------------------------------------------------------------
    def planes_shape(self) -> tuple[int, int, int]:
        return (SIDE, SIDE, PLANES)

    def planes(self, observation) -> np.ndarray:
        """``(4, 4, 44)`` float32 planes of one flat observation (or ``(N, 4, 4, 44)`` of a
        batch ``(N, 354)``), from the vector alone; channels in ``docs/observations.md``."""
        vector = np.asarray(as_vector(observation), dtype=np.float32)
        if vector.shape[-1:] != (self.size,) or vector.ndim not in (1, 2):
            raise ValueError(f"Loom planes are made from observations of {self.size} entries "
                             f"(one vector or a batch (N, {self.size})), not shape {vector.shape}")
        batch = vector.reshape(-1, self.size)
        n = len(batch)
        # Channels that repeat flat entries come in one gather; the rest are computed below.
        out = batch[:, self._gather]
        mine = batch[:, self.MINE:self.MINE + CELLS * DYE_SLOTS].reshape(n, CELLS, DYE_SLOTS)
        throw = batch[:, self.THROW:self.THROW + THREADS * DYES].reshape(n, THREADS, DYES)
        available = batch[:, self.AVAILABLE:self.AVAILABLE + THREADS]
        room = _room(mine, throw)  # (n, cells, threads)
        out[:, :, P_MY_ROOM:P_MY_ROOM + THREADS] = room
        # The seat acts when it drafts and no thread is taken, or is the rival and one is left;
        # a drafter facing two equal dyes weaves thread 0 (the engine offers no duplicate action).
        left = available[:, 0] + available[:, 1]
        to_act = np.where(batch[:, self.DRAFTER] > 0.5, left > 1.5, (left > 0.5) & (left < 1.5))
        threads = available * to_act[:, None]
        threads[:, 1] *= ((throw[:, 0] * throw[:, 1]).sum(axis=1) < 0.5) | (left < 1.5)
        out[:, :, P_LEGAL:P_LEGAL + THREADS] = room * threads[:, None, :]
        out[:, :, P_TO_ACT] = to_act[:, None]
        rounds = batch[:, self.ROUND:self.ROUND + ROUNDS]
        out[:, :, P_ROUND] = ((rounds @ self._round_numbers + ROUNDS * (1.0 - rounds.sum(axis=1))) / ROUNDS)[:, None]
        planes = out.reshape(n, SIDE, SIDE, PLANES)
        return planes[0] if vector.ndim == 1 else planes

    def _planes_gather(self) -> np.ndarray:
        """``(cells, channels)`` flat indices of the channels that copy the vector (the others
        are filled by ``planes`` and gather entry 0 meanwhile)."""
        gather = np.zeros((CELLS, PLANES), np.int64)
        cells = np.arange(CELLS)
        for dye in range(DYE_SLOTS):
            gather[:, P_MINE + dye] = self.MINE + cells * DYE_SLOTS + dye
            gather[:, P_THEIRS + dye] = self.THEIRS + cells * DYE_SLOTS + dye
        for t in range(THREADS):
            gather[:, P_MY_RINGS + t] = self.MY_RINGS + t * CELLS + cells
            gather[:, P_THEIR_RINGS + t] = self.THEIR_RINGS + t * CELLS + cells
            gather[:, P_THEIR_ROOM + t] = self.THEIR_ROOM + t * CELLS + cells
            gather[:, P_AVAILABLE + t] = self.AVAILABLE + t
        for entry in range(THREADS * DYES):
            gather[:, P_THROW + entry] = self.THROW + entry
        for channel, entry in ((P_DRAFTER, self.DRAFTER), (P_MY_SCORE, self.MY_SCORE),
                               (P_THEIR_SCORE, self.THEIR_SCORE), (P_BOUNTY, self.BOUNTY)):
            gather[:, channel] = entry
        return gather

    def policy_layout(self) -> PolicyLayout:
        """Every action is a cell: ``t*16 + cell`` is channel ``t`` (the thread) of a per-cell head
        with two channels at ``(row, col)`` of the cell; no global logits."""
        actions = np.arange(THREADS * CELLS)
        thread, cell = actions // CELLS, actions % CELLS
        return PolicyLayout(cell_channels=THREADS, global_actions=0, index=(cell * THREADS + thread).astype(np.int64))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The eight symmetries of the square, applied to both cloths at once: the touching law
        is orthogonal adjacency and a cloth scores its rows and columns alike, so a rotated or
        mirrored cloth is as good as the original (a transposed one swaps its rows and columns,
        which score the same). Threads and dice are not board-shaped and stay as they are."""
        grid = np.arange(CELLS).reshape(SIDE, SIDE, 1)
        out = []
        for name in D4:
            moved = transform_grid(grid, name).reshape(CELLS)  # moved[new cell] = old cell
            new_cell = np.empty(CELLS, np.int64)
            new_cell[moved] = np.arange(CELLS)
            actions = np.concatenate([t * CELLS + new_cell for t in range(THREADS)])
            out.append(Symmetry(name=name, transform=name, actions=actions))
        return tuple(out)


def _room(cloth: np.ndarray, throw: np.ndarray) -> np.ndarray:
    """The touching law on a batch: ``cloth`` ``(n, cells, 7)`` one-hot, ``throw`` ``(n, 2, 6)``
    one-hot dyes; returns ``(n, cells, 2)``: 1 where thread t's dye may go (an empty cell with
    no orthogonal twin, or any empty cell when the cloth has none such; zeros with no throw)."""
    holds = throw @ cloth[:, :, 1:].transpose(0, 2, 1)  # (n, threads, cells): the cell holds that dye
    empty = cloth[:, None, :, 0]
    clean = empty * (holds @ _ADJACENT < 0.5)
    room = np.where(clean.sum(axis=2, keepdims=True) > 0.5, clean, empty)
    room *= throw.sum(axis=2, keepdims=True)  # no throw after the last round: nothing to weave
    return room.transpose(0, 2, 1)
