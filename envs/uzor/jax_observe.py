"""What an Uzor seat sees, in JAX, and the host bridges to the Python engine's state.

:class:`Observe` builds :class:`envs.uzor.observer.UzorObserver`'s flat vector block by block
(its layout is checked against the observer's when built): the table's twelve features per
cell, the hands and the supply's contents by count, the market and the supply's places one-hot,
the flags, the last cell, the fork, and the four fractions (taken from float32 tables of the
Python observer's own float64 divisions where the values are few). The opponent's goal and the
face-down order are not in the position at all, so no seat can see them.

The planes compute channels from the table (where each tile would fit and what it would
complete: ``envs.uzor.planes``); ``envs.uzor.jax_planes`` computes the same numbers in JAX,
fixed shapes throughout, so they compile with the rest (``jit``, ``vmap``, an accelerator).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from envs.uzor.common import COPIES, EMPTY, HAND, IDLE_LIMIT, MARKET, PHASES, SHOWN_PHASES, STONE, SUPPLY_MAX, TYPES
from envs.uzor.jax_planes import JaxPlanes
from envs.uzor.jax_table import DISCARD_ROOM, PAD, motif_colour
from envs.uzor.observer import SLOT, UzorObserver
from envs.uzor.patterns import MAP_SIZE


def _fractions(count: int, scale: float) -> np.ndarray:
    """``i / scale`` for i in 0…count as the observer stores them (float64, then float32)."""
    return np.array([i / scale for i in range(count + 1)], np.float64).astype(np.float32)


class Observe:
    """A seat's flat observation, equal to the Python observer's."""

    def __init__(self, rules: Any, options: dict[str, Any]):
        observer = self.observer = UzorObserver(options)
        n = rules.n
        self.n = n
        self.thirds = (np.arange(COPIES + 1, dtype=np.float32) / COPIES).astype(np.float32)
        self.supply_shown = _fractions(SUPPLY_MAX, SUPPLY_MAX)
        self.idle_shown = _fractions(IDLE_LIMIT, IDLE_LIMIT)
        self.scale = observer.scale
        self.score_shown = _fractions(int(observer.scale), observer.scale)  # a seat scores at most the scale
        expected = [0, 12 * n, 12 * n + TYPES, 12 * n + 3 * TYPES, 12 * n + 3 * TYPES + MARKET * SLOT]
        got = [observer.TABLE, observer.MY_HAND, observer.THEIR_HAND, observer.SUPPLY_COUNTS + TYPES, observer.SUPPLY_PLACES]
        if got != expected or observer.LAST != observer.CROSSED + 2 * MAP_SIZE + 4 + SHOWN_PHASES or \
                observer.size != observer.LAST + n + MAP_SIZE + 4:
            raise AssertionError(f"UzorObserver's layout changed ({got}, size {observer.size})")
        self.planes_shape = tuple(observer.planes_shape())
        self.jax_planes = JaxPlanes(observer)

    def observe(self, g: Any, player: jax.Array) -> jax.Array:
        player = jnp.asarray(player, jnp.int32)
        f32 = jnp.float32
        # per cell its one or two features: empty (0), a stone (1), or motif (2 + m) and colour (7 + c)
        code = g.board
        motif, colour = motif_colour(code)
        is_open = (code >= 0) & (code < STONE)
        one = jnp.where(code == EMPTY, 0, jnp.where(is_open, 2 + motif, 1))
        two = jnp.where(is_open, 7 + colour, -1)
        features = jnp.arange(12)
        table = jnp.where((features == one[:, None]) | (features == two[:, None]), 1.0, 0.0).astype(f32).reshape(-1)
        mine = jnp.where(player == 0, g.hands[0], g.hands[1])
        theirs = jnp.where(player == 0, g.hands[1], g.hands[0])
        types = jnp.arange(TYPES)
        count = lambda tiles: jnp.sum(types[:, None] == tiles, axis=1)  # noqa: E731 (PAD matches no type)
        supply = g.facedown + count(g.discards)
        thirds = jnp.asarray(self.thirds)
        slots = jnp.arange(SLOT)
        market = (slots[None, :] == g.market[:, None] + 1).reshape(-1)
        down_total = jnp.sum(g.facedown)
        n_discards = jnp.sum(g.discards < PAD)
        size = jnp.minimum(down_total + n_discards, SUPPLY_MAX)
        places = jnp.arange(SUPPLY_MAX)
        faceup = g.discards[jnp.clip(places - down_total, 0, DISCARD_ROOM - 1)] + 1
        kind = jnp.where(places < jnp.minimum(size, down_total), 0, jnp.where(places < size, faceup, -1))
        supply_places = (slots[None, :] == kind[:, None]).reshape(-1)
        phase = g.phase
        flags = jnp.concatenate([
            jnp.arange(MAP_SIZE) == g.goals[player],
            jnp.stack([(phase < SHOWN_PHASES - 1) & (g.to_move == player), player == 0]),
            jnp.arange(SHOWN_PHASES) == phase,
            jnp.stack([g.repeated, g.continued]),
        ])
        other = 1 - player
        fractions = jnp.stack([
            jnp.asarray(self.supply_shown)[size],
            jnp.asarray(self.score_shown)[jnp.clip(g.points[player], 0, self.score_shown.size - 1)],
            jnp.asarray(self.score_shown)[jnp.clip(g.points[other], 0, self.score_shown.size - 1)],
            jnp.asarray(self.idle_shown)[jnp.clip(g.idle, 0, IDLE_LIMIT)],
        ])
        return jnp.concatenate([
            table, thirds[count(mine)], thirds[count(theirs)], thirds[jnp.clip(supply, 0, COPIES)], market.astype(f32),
            supply_places.astype(f32), g.crossed.astype(f32), flags.astype(f32),
            (jnp.arange(self.n) == g.last_cell).astype(f32), (g.fork_o >= 0).astype(f32), fractions,
        ])

    def planes(self, flat: jax.Array) -> jax.Array:
        """The Python observer's planes of flat observations (any leading axes), in JAX."""
        return self.jax_planes(flat)


# ----- host bridges ------------------------------------------------------------------------------


def from_python(rules: Any, game: Any, position: type) -> Any:
    """The position (numpy arrays) of a Python engine state."""
    i32 = np.int32
    table = rules.map
    hands = np.full((2, HAND), PAD, i32)
    for p, hand in enumerate(game.hands):
        hands[p, :len(hand)] = hand
    discards = np.full(DISCARD_ROOM, PAD, i32)
    discards[:len(game.discards)] = game.discards
    closed = np.full((MAP_SIZE, 4), -1, i32)
    crossed = np.zeros(MAP_SIZE, bool)
    for i, (p, k, cells) in enumerate(game.closed):
        closed[i] = (p, k, *table.name_instance(k, cells))
        crossed[k] = True
    fork_o = np.full(MAP_SIZE, -1, i32)
    fork_origin = np.full(MAP_SIZE, -1, i32)
    for k, cells in game.fork.items():
        fork_o[k], fork_origin[k] = table.name_instance(k, cells)
    return position(
        board=np.array(game.board, i32), hands=hands, market=np.array(game.market, i32),
        facedown=np.array(game.facedown, i32), discards=discards,
        goals=np.array([-1 if x is None else x for x in game.goals], i32), points=np.array(game.points, i32),
        crossed=crossed, closed=closed, fork_o=fork_o, fork_origin=fork_origin, to_move=i32(game.to_move),
        phase=i32(game.phase), repeated=np.bool_(game.repeated), continued=np.bool_(game.continued),
        placed=np.bool_(game.placed), last_cell=i32(game.last_cell), idle=i32(game.idle), pending=i32(game.pending))


def state_dict(rules: Any, g: Any) -> dict[str, Any]:
    """The Python engine's ``state_dict()`` of one position (arrays on the host)."""
    table = rules.map

    def ints(values) -> list[int]:
        return [int(x) for x in np.asarray(values).tolist()]

    closed = [[int(p), int(k), table.cells_of(int(o), int(origin))]
              for p, k, o, origin in np.asarray(g.closed).tolist() if k >= 0]
    fork = [[k, table.cells_of(int(o), int(origin))]
            for k, (o, origin) in enumerate(zip(np.asarray(g.fork_o).tolist(), np.asarray(g.fork_origin).tolist()))
            if o >= 0]
    return {
        "board": ints(g.board),
        "hands": [[t for t in ints(hand) if t < PAD] for hand in np.asarray(g.hands)],
        "market": ints(g.market),
        "facedown": ints(g.facedown),
        "discards": [t for t in ints(g.discards) if t < PAD],
        "goals": [x for x in ints(g.goals) if x >= 0],
        "scores": ints(g.points),
        "closed": closed,
        "to_move": int(g.to_move),
        "phase": PHASES[int(g.phase)],
        "repeated": bool(g.repeated),
        "continued": bool(g.continued),
        "placed": bool(g.placed),
        "fork": fork,
        "last_cell": int(g.last_cell),
        "idle": int(g.idle),
        "pending": int(g.pending),
    }

