"""What Knot's JAX engine shows: a seat's flat observation and the planes (equal to
:class:`envs.knot.observer.KnotObserver`'s), and the host-side bridges to and from the Python
engine (its state dict, and a :class:`~envs.knot.jax_engine.G` from a
:class:`~envs.knot.rules.KnotGame`).

The observation is built from the position's per-port arrays: a strand of slot ``s`` lies in a
square when the square's port ``SLOT_PORTS[s][0]`` is used by a strand of that slot, and its
owner and closedness are that port's; open ends are used ports whose linked port is free.
Entries divided by a scale come from tables of the observer's float64 quotients rounded to
float32 (``jax_tables.quotients``), so they are the Python observer's numbers exactly.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from envs.knot.geometry import SLOT_PORTS, SLOTS
from envs.knot.jax_state import G
from envs.knot.jax_tables import SLOT_PA, quotients, to_port_major
from envs.knot.observer import KnotObserver
from envs.knot.options import BONUS, HAND_SIZE, OVER, PENDING_NAMES, PHASE_NAMES, PLACE

TABLE_LIMIT = 1 << 16  # a quotient table longer than this is replaced by a float32 division


def _assemble(parts: list[Any], size: int) -> jax.Array:
    """The float32 vector of ``parts`` one after the other."""
    out = jnp.concatenate([jnp.asarray(part, jnp.float32).reshape(-1) for part in parts])
    if out.shape[0] != size:
        raise AssertionError(f"the observation has {out.shape[0]} entries, the observer {size}")
    return out


class KnotView:
    """Observations, planes and snapshots for one option set (``rules``: the
    :class:`~envs.knot.jax_engine.KnotRules` it serves)."""

    def __init__(self, options: dict[str, Any], rules: Any):
        self.rules = rules
        o = self.observer = KnotObserver(options)
        P, S, size = o.players, o.n, o.board_size
        self.players, self.n, self.size = P, S, size
        self.fifths = quotients(HAND_SIZE, HAND_SIZE)
        self.thirds = quotients(3, 3)
        scale = 4 * size * (size - 1) + BONUS
        self.score_q = quotients(scale, o.score_scale, cap=True)
        self.pile_q = quotients(o.total, o.total) if o.total < TABLE_LIMIT else None
        turns = int(o.turn_scale)
        self.turn_q = quotients(turns, o.turn_scale, cap=True) if turns < TABLE_LIMIT else None
        expected = [16 * P * S, 16 * S, 4 * S, 8 * P * S, 8 * S, 4, 10, 1, P, P, 4 * (P - 1), 1, 1, 1, 3, P, P]
        blocks = [o.STRANDS, o.CLOSED, o.BLOCKED, o.ENDS, o.GROWABLE, o.HAND, o.MARKET, o.PILE, o.SCORES,
                  o.HAND_SIZES, o.KNOWN, o.TURN, o.LIMIT, o.PLACED, o.PHASE, o.ACTOR, o.PLACED_ANY, o.size]
        if [b - a for a, b in zip(blocks, blocks[1:])] != expected or o.STRANDS != 0:
            raise AssertionError("KnotObserver's layout changed: envs/knot/jax_view.py writes the old one")
        planes = o._board_planes
        self.cell_map = planes._cell_map
        self.board_planes = planes._board_planes
        self.globals_index = planes._globals
        self.planes_shape = planes.shape()
        self._places = None

    # ----- the flat observation -----------------------------------------------------------------
    def observe(self, g: Any, player: jax.Array) -> jax.Array:
        P, S = self.players, self.n
        by_slot = self.rules._by_slot
        order = (player + jnp.arange(P)) % P  # relative seat j is absolute seat order[j]
        # per port its owner's relative seat (-1 free), so the blocks below compare with
        # constants; per strand slot its first port's slot, owner and closedness, packed, so
        # the layout by slot is done once
        owner = g.port_owner.astype(jnp.int32)
        rel = jnp.where(owner >= 0, (owner - player + P) % P, -1)
        closing = (g.port_closed >= 0).astype(jnp.int32)
        code = by_slot((g.port_slot.astype(jnp.int32) + 1) | ((rel + 1) << 5) | (closing << 8))
        present = (code & 31) == jnp.arange(1, SLOTS + 1)[:, None]  # (16, S)
        strands = present[None] & (((code >> 5) & 7)[None] == jnp.arange(1, P + 1)[:, None, None])
        closed = present & (((code >> 8) & 1) > 0)
        blocked = (g.geo[None, :] >> (4 + jnp.arange(4))[:, None]) & 1
        ends = (g.port_rib >= 0) & (self.rules._linked(g.port_rib) < 0)
        ends_by_seat = (ends & (rel == jnp.arange(P)[:, None])).reshape(P, 8, S)
        growable = g.growable & (g.phase == PLACE) & (g.player == player)
        board = [strands, closed, blocked, ends_by_seat, growable]
        return _assemble(board + self._globals(g, player, order), self.observer.size)

    def _globals(self, g: Any, player: jax.Array, order: jax.Array) -> list[jax.Array]:
        P = self.players
        fifths = jnp.asarray(self.fifths)
        market = (g.market[:, None] + 1 == jnp.arange(5)).astype(jnp.float32).reshape(-1)
        pile = g.pile.sum()
        pile = jnp.asarray(self.pile_q)[pile] if self.pile_q is not None else pile / jnp.float32(self.observer.total)
        scores = self.rules.scores(g).astype(jnp.int32)[order]
        scores = jnp.asarray(self.score_q)[jnp.clip(scores, 0, len(self.score_q) - 1)]
        if self.turn_q is not None:
            turn = jnp.asarray(self.turn_q)[jnp.minimum(g.turn, len(self.turn_q) - 1)]
        else:
            turn = jnp.minimum(g.turn / jnp.float32(self.observer.turn_scale), 1.0)
        thirds = jnp.asarray(self.thirds)
        limit = thirds[jnp.where(g.turn == 0, 1, jnp.where(g.turn < 3, 2, 3))]
        mine = (g.player == player) & (g.phase != OVER)
        placed = jnp.where(mine, thirds[jnp.clip(g.placed, 0, 3)], 0.0)
        phase = (g.phase == jnp.arange(3)).astype(jnp.float32)  # the deal: none
        acting = (g.pending < 0) & (g.phase != OVER)
        actor = (acting & (jnp.arange(P) == (g.player - player) % P)).astype(jnp.float32)
        parts = [fifths[g.hands[player]], market, pile[None], scores, fifths[g.hands.sum(axis=1)][order],
                 fifths[g.known[order[1:]]].reshape(-1), turn[None], limit[None], placed[None], phase, actor,
                 g.placed_any[order].astype(jnp.float32)]
        return parts

    # ----- planes -------------------------------------------------------------------------------
    def planes(self, flat: jax.Array) -> jax.Array:
        """``KnotPlanes.planes`` of flat observations (any leading axes): the per-square
        channels as one product with the observer's own map, the start zone, the globals."""
        S, H = self.n, self.size
        lead = flat.shape[:-1]
        board = flat[..., :self.board_planes * S].reshape(lead + (self.board_planes, S))
        cells = jnp.einsum("...fs,fc->...sc", board, jnp.asarray(self.cell_map), precision=jax.lax.Precision.HIGHEST)
        mine = (board[..., :SLOTS, :].sum(axis=-2) > 0).reshape(lead + (H, H))
        pad = jnp.pad(mine, [(0, 0)] * len(lead) + [(1, 1), (1, 1)])
        zone = mine | pad[..., :-2, 1:-1] | pad[..., 2:, 1:-1] | pad[..., 1:-1, :-2] | pad[..., 1:-1, 2:]
        zone = zone.reshape(lead + (S,)) | (flat[..., self.observer.PLACED_ANY] < 0.5)[..., None]
        consts = jnp.broadcast_to(flat[..., None, jnp.asarray(self.globals_index)], lead + (S, len(self.globals_index)))
        out = jnp.concatenate([cells, zone[..., None].astype(flat.dtype), consts], axis=-1)
        return out.reshape(lead + self.planes_shape)

    # ----- host-side bridges ----------------------------------------------------------------------
    def from_python(self, game: Any) -> Any:
        S = self.n
        port_rib, port_owner, port_closed, port_slot, port_order = (np.full(8 * S, -1, np.int32) for _ in range(5))
        port_points = np.zeros(8 * S, np.int32)
        for r, owner in enumerate(game.rib_owner):
            if owner < 0:  # merged away
                continue
            strands = game.rib_strands[r]
            ports = [(s, to_port_major(game.st_sq[s] * 8 + p, S)) for s in strands for p in SLOT_PORTS[game.st_slot[s]]]
            label = min(port for _, port in ports)
            for s, port in ports:
                port_rib[port], port_owner[port], port_slot[port], port_order[port] = label, owner, game.st_slot[s], s
                port_points[port], port_closed[port] = game.rib_inside[r], game.rib_closed[r]
        growable = np.zeros(8 * S, bool)
        growable[[to_port_major(e, S) for e in game.growable]] = True
        g = G(geo=np.asarray(game.geo_w, np.int32), port_rib=port_rib, port_owner=port_owner, port_points=port_points,
              port_closed=port_closed, port_slot=port_slot, port_order=port_order, growable=growable,
              places=np.zeros(16 * S, bool), hands=np.asarray(game.hands, np.int32),
              known=np.asarray(game.known, np.int32), market=np.asarray(game.market, np.int32),
              pile=np.asarray(game.pile, np.int32), banked=np.asarray(game.banked, np.int32),
              placed_any=np.asarray(game.placed_any, bool), turn=np.int32(game.turn), player=np.int32(game.player),
              phase=np.int32(game.phase), placed=np.int32(game.placed), pending=np.int32(game.pending),
              strands=np.int32(len(game.st_sq)), closed=np.int32(len(game.closed_ribbons)))
        g = self.rules.typed(g)
        if self._places is None:  # compiled once: op by op it would take a second a position
            self._places = jax.jit(lambda g: self.rules._unpack(self.rules._placements(g)[g.player]))
        return g._replace(places=np.asarray(self._places(g)))

    def state_dict(self, g: Any) -> dict[str, Any]:
        g = jax.tree_util.tree_map(np.asarray, g)
        S = self.n
        order, slot = g.port_order, g.port_slot
        port, square = np.divmod(np.arange(8 * S), S)
        first = (order >= 0) & (port == np.asarray(SLOT_PA)[np.maximum(slot, 0)])  # one port per strand
        strands = sorted((int(order[i]), [int(square[i]), int(slot[i] >> 2), int(slot[i] & 3), int(g.port_owner[i])])
                         for i in np.flatnonzero(first))
        closing = sorted(set(int(x) for x in g.port_closed[g.port_closed >= 0]))
        pending = int(g.pending)
        return {
            "pile": [int(x) for x in g.pile],
            "hands": [[int(x) for x in hand] for hand in g.hands],
            "market": [int(x) for x in g.market],
            "known": [[int(x) for x in hand] for hand in g.known],
            "strands": [row for _, row in strands],
            "closed": [int(order[g.port_closed == c].min()) for c in closing],
            "scores": [int(x) for x in g.banked],
            "turn": int(g.turn),
            "player": int(g.player),
            "phase": PHASE_NAMES[int(g.phase)],
            "placed": int(g.placed),
            "placed_any": [bool(x) for x in g.placed_any],
            "growable": sorted(int(square[i] * 8 + port[i]) for i in np.flatnonzero(g.growable)),
            "pending": PENDING_NAMES[pending] if 0 <= pending < len(PENDING_NAMES) else None,
        }
