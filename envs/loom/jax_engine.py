"""Loom in JAX: the rules of ``envs.loom.rules`` over fixed-shape arrays.

Every option set (``envs.make_jax("loom", bounty=.., throws=..)``): any bounty, and scripted
throws, whose chance node then gives probability 1 to the round's scripted pair, as
``LoomGame.chance_outcomes`` does. Equal to the Python engine step for step
(``tests/jax/test_loom.py``).

The position keeps each cloth as bitboards: per slot (empty, dye 1…6) the 16-bit set of cells
holding it (bit ``row*4 + col``). Everything is then a few integer operations per game, which
``vmap`` turns into operations along the batch, instead of per-cell work on tiny arrays:

* the touching law: a dye's neighbours are its bitboard shifted four ways;
* a line's gain for a dye: the line's set of dyes (one bit per dye whose bitboard meets the
  line) says whether the dye is new to it, and with the count of woven cells whether the weave
  finishes a four-dye line (three woven cells, three different dyes: the bounty).

The throws so far are kept for the snapshot, the throw on the table separately (zeros at a
chance node and at the end). Speed (Pgx's loop on the CPU): the
functions that JaxEnv runs inside its chance loop (``turn``, ``apply``, ``chance_probs``) use
no array constants: under ``vmap`` a constant an inner ``while_loop`` closes over can be
broadcast along the batch at every step (the old line-gain table of 2,401 × 7 entries cost
25 ms per step at batch 1024), so throws are decoded and probabilities built arithmetically.

The Python observer's planes compute some channels (the touching law on my cloth, the legal
weaves, whether I act, the round), so :meth:`LoomRules.planes` computes them the same way
rather than gathering flat entries.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.core.jax_env import JaxRules, Turn
from envs.loom import observer as loom_observer
from envs.loom.observer import LoomObserver
from envs.loom.cloth import CELLS, SIDE
from envs.loom.rules import MAX_BOUNTY, ROUNDS, LoomGame
from envs.loom.throws import OUTCOMES, THROW_ID

SLOTS = 7  # per cell: empty, dye 1…6
LINES = 2 * SIDE  # rows 0…3, then columns 0…3 (``cloth.LINES`` order)
FULL = (1 << CELLS) - 1
ROW_CELLS, COL_CELLS = 0x000F, 0x1111  # row 0, column 0; shifted by 4 per row, 1 per column
DOUBLES = (6, 11, 15, 18, 20)  # the outcome ids of the doubles 2 2 … 6 6 (1 1 is 0)


class Position(NamedTuple):
    bits: jax.Array    # int32 (2, 7): per cloth (player_0's first) and slot (0 empty, dye 1…6), its cells
    throws: jax.Array  # int8 (16, 2): the throws so far, sorted pairs; zeros for the rounds not thrown
    throw: jax.Array   # int32 (2,): the round's throw on the table; (0, 0) at a chance node and the end
    points: jax.Array  # int32 (2,)
    round: jax.Array   # int32 (): 0…16
    taken: jax.Array   # int32 (): the thread the drafter took this round, -1 while still to choose


def _near(cells: jax.Array) -> jax.Array:
    """The cells orthogonally next to a set of cells."""
    return ((cells << SIDE) & FULL) | (cells >> SIDE) | ((cells << 1) & 0xEEEE) | ((cells >> 1) & 0x7777)


def _room(empty: jax.Array, twins: jax.Array) -> jax.Array:
    """The touching law as a set of cells: the empty cells next to no ``twins`` (the cloth's
    cells of the dye), or every empty cell when there is none such (``cloth.allowed_cells``)."""
    clean = empty & ~_near(twins)
    return jnp.where(clean != 0, clean, empty)


def _unpack(cells: jax.Array) -> jax.Array:
    """bool (..., 16) of sets of cells (...)."""
    return ((cells[..., None] >> jnp.arange(CELLS, dtype=jnp.int32)) & 1).astype(jnp.bool_)


def _twins(bits: jax.Array, dyes: jax.Array) -> jax.Array:
    """The cells of each dye of ``dyes`` (any shape, dyes 0…6) in one cloth's ``bits``: a
    select over the seven slots, no gather."""
    return jnp.sum(jnp.where(dyes[..., None] == jnp.arange(SLOTS, dtype=jnp.int32), bits, 0), axis=-1)


def _line_gains(bits: jax.Array, lines: jax.Array, dyes: jax.Array, bounty: int) -> jax.Array:
    """What weaving each dye adds to each line of one cloth: ``lines`` (L,) sets of cells,
    ``dyes`` (k,) 1…6 (0: anything); (k, L) int32. The dye if the line lacks it, plus the bounty
    when its three woven cells hold three different dyes (the weave finishes the line)."""
    meets = (bits[1:, None] & lines) != 0  # (dye - 1, line)
    dye_set = jnp.sum(meets.astype(jnp.int32) << jnp.arange(1, SLOTS, dtype=jnp.int32)[:, None], axis=0)
    woven = jax.lax.population_count(~bits[0] & lines & FULL)
    finishing = (woven == SIDE - 1) & (jax.lax.population_count(dye_set) == SIDE - 1)
    present = ((dye_set[None, :] >> dyes[:, None]) & 1) == 1
    return jnp.where(present, 0, dyes[:, None] + jnp.where(finishing, bounty, 0)[None, :])


def _all_lines() -> jax.Array:
    """The eight lines as sets of cells (built from iota: no array constant)."""
    line = jnp.arange(LINES, dtype=jnp.int32)
    return jnp.where(line < SIDE, ROW_CELLS << (SIDE * line), COL_CELLS << (line - SIDE))


def _ring_table(bounty: int, gain_scale: float) -> np.ndarray:
    """float32 per cell gain 0…2*(6 + bounty): the ring entry as the observer writes it (the sum
    of its row's and its column's float64 quotients, rounded to float32); checked for every pair
    of line gains to equal the rounded quotient of their sum, the one look-up used here. (XLA
    multiplies by a rounded reciprocal instead of dividing by a constant: one ulp off.)"""
    table = (np.arange(2 * (6 + bounty) + 1) / gain_scale).astype(np.float32)
    line_gains = [0, *range(1, 7), *range(1 + bounty, 7 + bounty)]
    for a in line_gains:
        for b in line_gains:
            if np.float32(a / gain_scale + b / gain_scale) != table[a + b]:
                raise ValueError(f"Loom rings: {a} + {b} over {gain_scale} round two ways")
    return table


class LoomRules(JaxRules):
    python_engine = LoomGame
    has_chance = True

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.bounty = int(options["bounty"])
        scripted = options["throws"]
        self.scripted = None if scripted is None else [THROW_ID[tuple(pair)] for pair in scripted]
        observer = self.obs = LoomObserver(options)
        # Entries divided by a scale come from tables of the observer's float64 quotients.
        self.score_entry = jnp.asarray(np.arange(CELLS * 9 + 1 + 8 * self.bounty) / observer.scale, jnp.float32)
        self.ring_entry = jnp.asarray(_ring_table(self.bounty, observer.gain_scale))
        self.bounty_entry = np.float32(self.bounty / MAX_BOUNTY)
        self._planes_gather = jnp.asarray(observer._gather.reshape(-1), jnp.int32)
        self._adjacent = jnp.asarray(loom_observer._ADJACENT)

    # ----- the rules --------------------------------------------------------------------------
    def start(self) -> Position:
        return Position(bits=jnp.zeros((2, SLOTS), jnp.int32).at[:, 0].set(FULL),
                        throws=jnp.zeros((ROUNDS, 2), jnp.int8), throw=jnp.zeros(2, jnp.int32),
                        points=jnp.zeros(2, jnp.int32), round=jnp.int32(0), taken=jnp.int32(-1))

    @staticmethod
    def _actor(g: Position) -> jax.Array:
        """The drafter until a thread is taken, then the rival (at the end: round 16's drafter,
        seat 0)."""
        drafter = g.round % 2
        return jnp.where(g.taken < 0, drafter, 1 - drafter).astype(jnp.int32)

    @staticmethod
    def _at_chance(g: Position) -> jax.Array:
        return (g.round < ROUNDS) & (g.throw[0] == 0)

    def turn(self, g: Position) -> Turn:
        chance = self._at_chance(g)
        return Turn(player=jnp.where(chance, -1, self._actor(g)).astype(jnp.int32), is_chance=chance,
                    terminated=g.round >= ROUNDS)

    def legal_mask(self, g: Position) -> jax.Array:
        """The actor's threads (the drafter: thread 0, and thread 1 unless both show one dye;
        the rival: the leftover) into the cells the touching law leaves them."""
        bits = jnp.where(self._actor(g) == 0, g.bits[0], g.bits[1])
        room = _room(bits[0], _twins(bits, g.throw))
        live = (g.throw[0] > 0) & (g.round < ROUNDS)
        first = (g.taken != 0) & live
        second = (((g.taken < 0) & (g.throw[0] != g.throw[1])) | (g.taken == 0)) & live
        word = jnp.where(first, room[0], 0) | (jnp.where(second, room[1], 0) << CELLS)  # action a: bit a
        return ((word >> jnp.arange(2 * CELLS, dtype=jnp.int32)) & 1) == 1

    def apply(self, g: Position, action: jax.Array) -> Position:
        """At a chance node the throw ``action`` lands on the table; else the actor weaves thread
        ``action // 16`` into cell ``action % 16`` of their cloth, scoring its row's and its
        column's gain."""
        action = jnp.asarray(action, jnp.int32)
        chance = self._at_chance(g)
        # The throw: outcome ids run 1 1, 1 2, … 1 6, 2 2, …: the lower dye is one more than the
        # doubles passed, the higher counts on from it.
        outcome = jnp.clip(action, 0, OUTCOMES - 1)
        passed = sum((outcome >= first).astype(jnp.int32) for first in DOUBLES)
        low = passed + 1
        pair = jnp.stack([low, low + outcome - passed * (13 - passed) // 2])
        this_round = (jnp.arange(ROUNDS) == g.round)[:, None]
        thrown = g._replace(throws=jnp.where(this_round, pair.astype(jnp.int8)[None, :], g.throws), throw=pair)
        # The weave.
        t, cell = action // CELLS, action % CELLS
        actor = self._actor(g)
        dye = jnp.where(t == 0, g.throw[0], g.throw[1])
        bits = jnp.where(actor == 0, g.bits[0], g.bits[1])
        lines = jnp.stack([ROW_CELLS << (SIDE * (cell // SIDE)), COL_CELLS << (cell % SIDE)])
        gained = jnp.sum(_line_gains(bits, lines, dye[None], self.bounty))
        seat = jnp.arange(2) == actor
        bit = jnp.left_shift(jnp.int32(1), cell)
        slots = jnp.arange(SLOTS, dtype=jnp.int32)
        woven_bits = jnp.where(slots == dye, bits | bit, jnp.where(slots == 0, bits & ~bit, bits))
        rival_done = g.taken >= 0
        woven = Position(
            bits=jnp.where(seat[:, None], woven_bits[None, :], g.bits),
            throws=g.throws,
            throw=jnp.where(rival_done, 0, g.throw),
            points=g.points + jnp.where(seat, gained, 0),
            round=g.round + rival_done.astype(jnp.int32),
            taken=jnp.where(rival_done, -1, t).astype(jnp.int32),
        )
        return jax.tree_util.tree_map(lambda a, b: jnp.where(chance, a, b), thrown, woven)

    def chance_probs(self, g: Position) -> jax.Array:
        """1/36 a double, 2/36 any other pair; scripted: 1 for the round's pair."""
        outcome = jnp.arange(OUTCOMES, dtype=jnp.int32)
        if self.scripted is None:
            double = outcome == 0
            for first in DOUBLES:
                double = double | (outcome == first)
            probs = jnp.where(double, np.float32(1 / 36), np.float32(2 / 36))
        else:
            scripted = sum(jnp.where(g.round == rnd, index, 0) for rnd, index in enumerate(self.scripted))
            probs = (outcome == scripted).astype(jnp.float32)
        return jnp.where(self._at_chance(g), probs, 0.0)

    def scores(self, g: Position) -> jax.Array:
        return g.points.astype(jnp.float32)

    def observe(self, g: Position, player: jax.Array) -> jax.Array:
        """The flat layout of :class:`LoomObserver`, from ``player``'s side."""
        player = jnp.asarray(player, jnp.int32)
        mine_first = player == 0
        bits = jnp.where(mine_first, g.bits, g.bits[::-1])  # (cloth, slot), mine first
        points = jnp.where(mine_first, g.points, g.points[::-1])
        holds = _unpack(bits).transpose(0, 2, 1)  # (cloth, cell, slot): the one-hot cloths
        throw = g.throw  # zeros at a chance node and the end: no throw, rings or room then
        shown = throw[0] > 0
        throw_hot = throw[:, None] == jnp.arange(1, 7, dtype=jnp.int32)
        available = jnp.stack([g.taken != 0, g.taken != 1]) & shown
        round_hot = jnp.arange(ROUNDS) == g.round
        drafter = (g.round % 2 == player)[None]
        numbers = jnp.concatenate([self.score_entry[points], jnp.full(1, self.bounty_entry)])
        # The rings: a cell's gain is its row's plus its column's.
        lines = jnp.stack([_line_gains(bits[cloth], _all_lines(), throw, self.bounty) for cloth in (0, 1)])
        cell_gain = (lines[:, :, :SIDE, None] + lines[:, :, None, SIDE:]).reshape(2, 2, CELLS)
        rings = jnp.where(holds[:, None, :, 0] & shown, self.ring_entry[cell_gain], 0.0)
        room = _unpack(_room(bits[1, 0], _twins(bits[1], throw))) & shown  # (thread, cell)
        f = jnp.float32
        return jnp.concatenate([holds.reshape(-1).astype(f), throw_hot.reshape(-1).astype(f), available.astype(f),
                                round_hot.astype(f), drafter.astype(f), numbers, rings.reshape(-1),
                                room.reshape(-1).astype(f)])

    # ----- planes -------------------------------------------------------------------------------
    def planes(self, flat: jax.Array) -> jax.Array:
        """``LoomObserver.planes`` of flat observations (any leading batch axes): the channels
        that copy flat entries gathered, the touching law on my cloth, the legal weaves, whether
        I act and the round computed from the vector with the observer's own arithmetic."""
        o, p = self.obs, loom_observer
        lead = flat.shape[:-1]
        batch = flat.reshape(-1, o.size).astype(jnp.float32)
        n = batch.shape[0]
        out = batch[:, self._planes_gather].reshape(n, CELLS, p.PLANES)
        mine = batch[:, o.MINE:o.MINE + CELLS * SLOTS].reshape(n, CELLS, SLOTS)
        throw = batch[:, o.THROW:o.THROW + 12].reshape(n, 2, 6)
        available = batch[:, o.AVAILABLE:o.AVAILABLE + 2]
        holds = jnp.einsum("ntd,ncd->ntc", throw, mine[:, :, 1:])
        empty = mine[:, None, :, 0]
        clean = empty * (holds @ self._adjacent < 0.5)
        room = jnp.where(clean.sum(axis=2, keepdims=True) > 0.5, clean, empty)
        room = (room * throw.sum(axis=2, keepdims=True)).transpose(0, 2, 1)  # (n, cells, threads)
        left = available[:, 0] + available[:, 1]
        to_act = jnp.where(batch[:, o.DRAFTER] > 0.5, left > 1.5, (left > 0.5) & (left < 1.5))
        threads = available * to_act[:, None]
        unequal = ((throw[:, 0] * throw[:, 1]).sum(axis=1) < 0.5) | (left < 1.5)
        threads = threads.at[:, 1].multiply(unequal.astype(jnp.float32))
        rounds = batch[:, o.ROUND:o.ROUND + ROUNDS]
        round_plane = (rounds @ jnp.arange(ROUNDS, dtype=jnp.float32) + ROUNDS * (1.0 - rounds.sum(axis=1))) / ROUNDS
        out = out.at[:, :, p.P_MY_ROOM:p.P_MY_ROOM + 2].set(room)
        out = out.at[:, :, p.P_LEGAL:p.P_LEGAL + 2].set(room * threads[:, None, :])
        out = out.at[:, :, p.P_TO_ACT].set(jnp.broadcast_to(to_act[:, None], (n, CELLS)).astype(jnp.float32))
        out = out.at[:, :, p.P_ROUND].set(jnp.broadcast_to(round_plane[:, None], (n, CELLS)))
        return out.reshape(lead + (SIDE, SIDE, p.PLANES))

    # ----- host-side bridges ------------------------------------------------------------------
    def from_python(self, game: LoomGame) -> Position:
        cloths = np.asarray(game.cloths, np.int64)
        bits = np.zeros((2, SLOTS), np.int32)
        for slot in range(SLOTS):
            bits[:, slot] = ((cloths == slot) << np.arange(CELLS)).sum(axis=1)
        throws = np.zeros((ROUNDS, 2), np.int8)
        for index, pair in enumerate(game.throws):
            throws[index] = pair
        shown = game.round < ROUNDS and len(game.throws) > game.round
        return Position(bits=bits, throws=throws,
                        throw=throws[game.round].astype(np.int32) if shown else np.zeros(2, np.int32),
                        points=np.asarray(game.points, np.int32), round=np.int32(game.round),
                        taken=np.int32(game.taken))

    def state_dict(self, g: Position) -> dict[str, Any]:
        rnd = int(g.round)
        thrown = rnd + int(rnd < ROUNDS and int(g.throw[0]) > 0)
        holds = (np.asarray(g.bits, np.int64)[:, 1:, None] >> np.arange(CELLS)) & 1  # (cloth, dye - 1, cell)
        cloths = (holds * np.arange(1, SLOTS)[:, None]).sum(axis=1)
        return {"throws": [[int(a), int(b)] for a, b in np.asarray(g.throws)[:thrown]],
                "cloths": [[int(d) for d in cloth] for cloth in cloths],
                "scores": [int(p) for p in g.points], "round": rnd, "taken": int(g.taken)}


RULES = LoomRules
