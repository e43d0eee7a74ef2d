"""Knot's board-shaped observations, policy layout and symmetries.

The planes are built from the flat vector alone (``KnotObserver.observe``), so they hold
nothing the seat may not know. The grid is the board, ``(size, size)``, row 0 at the top. With
``P`` players and ``j`` a relative seat (0 = me), the channels are:

* ``STRAND`` 16, channel ``4*kind + turn``: that strand lies in the square (any owner);
* ``CORNER_OWNER`` ``4*P``, channel ``4*j + corner``: the corner is filled by a strand of seat
  ``j`` (a corner holds at most one strand, so this names every strand's owner);
* ``CLOSED`` 4, per corner: the strand filling it belongs to a closed ribbon;
* ``BLOCKED`` 4, per side: the crossing on that side is blocked;
* ``MY_ENDS`` 8 and ``OTHER_ENDS`` 8, per port: an open end of mine / of an opponent (which
  opponent: the owner of the port's corner);
* ``GROWABLE`` 8, per port: one of my ends that may grow now;
* ``ZONE`` 1 (derived): a new ribbon of mine may start here (on or orthogonally next to a
  square holding a strand of mine; everywhere before my first strand);

then constant planes: ``HAND`` 4 (÷ 5), ``MARKET`` 8 (slot 0's kind one-hot, then slot 1's;
all 0 for an empty slot), ``PILE`` 1, ``SCORES`` ``P``, ``HAND_SIZES`` ``P``, ``KNOWN``
``4*(P-1)``, ``TURN``, ``LIMIT``, ``PLACED``, ``PHASE`` 3, ``ACTOR`` ``P``, ``PLACED_ANY``
``P``, each scaled as in the flat vector. ``C = 64 + 12*P``.

Policy: a placement ``(4*kind + turn)*S + square`` is the per-cell logit ``(row, col, 4*kind +
turn)`` (16 cell channels); END, draw slot 0, draw slot 1 and draw blind are 4 global logits.

Symmetries: all eight of the square. The links (inside: same half across the crossing; edge:
the other half of the same side), the strand table, the start zone and scoring are all
geometric, so any symmetry of the board maps a game onto a game. Under a reflection a port's
half flips (clockwise order reverses), yet every strand keeps its kind (a Cut still turns
across a corner, a Run still bows towards a side, a Hook still leaves a corner open, a Flip
still enters and leaves by one side): only its turn changes. Hands, the market and the pile
hold kinds, so they, and the chance outcomes (kinds drawn), stay as they are.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from envs.core.observer import D4, PolicyLayout, Symmetry, as_vector, transform_grid
from envs.knot.geometry import SLOT_CORNERS, SLOT_PORTS, SLOTS

# Where each port and corner lies in a 4×4 picture of one square (row, col): port 2*side+half,
# half 0 nearer corner side−1; corners 0 NE, 1 SE, 2 SW, 3 NW.
_PORT_AT = ((0, 1), (0, 2), (1, 3), (2, 3), (3, 2), (3, 1), (2, 0), (1, 0))
_CORNER_AT = ((0, 3), (3, 3), (3, 0), (0, 0))
# CORNERS_OF[slot, corner] = 1 when the strand fills that corner.
CORNERS_OF = np.array([[SLOT_CORNERS[s] >> c & 1 for c in range(4)] for s in range(SLOTS)], np.float32)


@lru_cache(maxsize=None)
def square_maps(transform: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """How ``transform`` (as :func:`transform_grid` moves a grid) relabels one square's ports,
    corners, sides and strands: ``(port, corner, side, slot)`` maps, old index → new index.

    Found by drawing the labels in a 4×4 picture of a square and transforming the picture with
    the very function that moves the planes, so the two cannot disagree."""
    picture = np.full((4, 4, 1), -1, np.int64)
    for p, (r, c) in enumerate(_PORT_AT):
        picture[r, c, 0] = p
    for k, (r, c) in enumerate(_CORNER_AT):
        picture[r, c, 0] = 8 + k
    moved = transform_grid(picture, transform)
    port = [0] * 8
    for p, (r, c) in enumerate(_PORT_AT):
        port[moved[r, c, 0]] = p  # the old port whose label now lies at port p's place
    port = tuple(port)  # old port -> new port
    corner = [0] * 4
    for k, (r, c) in enumerate(_CORNER_AT):
        corner[moved[r, c, 0] - 8] = k
    corner = tuple(corner)
    side = tuple(port[2 * s] // 2 for s in range(4))
    pairs = {frozenset(SLOT_PORTS[s]): s for s in range(SLOTS)}
    slot = tuple(pairs[frozenset(port[p] for p in SLOT_PORTS[s])] for s in range(SLOTS))
    for s in range(SLOTS):
        if slot[s] >> 2 != s >> 2:  # pragma: no cover - a fact of the strand table
            raise AssertionError(f"{transform} turns strand slot {s} into another kind")
        if {corner[c] for c in range(4) if SLOT_CORNERS[s] >> c & 1} != {
            c for c in range(4) if SLOT_CORNERS[slot[s]] >> c & 1
        }:  # pragma: no cover
            raise AssertionError(f"{transform} moves strand slot {s}'s corners elsewhere than its own")
    return port, corner, side, slot


class KnotPlanes:
    """Planes, policy layout and symmetries for one set of options (see the module docstring);
    ``observer`` is the :class:`~envs.knot.observer.KnotObserver` whose flat vectors it reads."""

    def __init__(self, observer):
        self.observer = o = observer
        P = self.players = o.players
        self.size = o.board_size
        self.n = o.n
        channels = {}
        at = 0
        for name, width in (
            ("STRAND", SLOTS), ("CORNER_OWNER", 4 * P), ("CLOSED", 4), ("BLOCKED", 4),
            ("MY_ENDS", 8), ("OTHER_ENDS", 8), ("GROWABLE", 8), ("ZONE", 1),
            ("HAND", 4), ("MARKET", 8), ("PILE", 1), ("SCORES", P), ("HAND_SIZES", P),
            ("KNOWN", 4 * (P - 1)), ("TURN", 1), ("LIMIT", 1), ("PLACED", 1), ("PHASE", 3),
            ("ACTOR", P), ("PLACED_ANY", P),
        ):
            channels[name] = (at, at + width)
            at += width
        self.channels = channels
        self.cell_channels = channels["ZONE"][1]  # per-square facts end here
        self.C = at
        # Flat entries copied to constant planes, in channel order: the hand, the market without
        # its "empty" entries, then everything from the pile size to the vector's end.
        market = [o.MARKET + 5 * slot + 1 + k for slot in (0, 1) for k in range(4)]
        self._globals = np.array(list(range(o.HAND, o.HAND + 4)) + market + list(range(o.PILE, o.size)), np.int64)
        assert len(self._globals) == self.C - self.cell_channels
        # The flat vector's board planes (STRANDS, CLOSED, BLOCKED, ENDS, GROWABLE: S entries
        # each, from offset 0) and which of them add up to each per-square channel.
        F = self._board_planes = o.GROWABLE // o.n + 8
        cell_map = np.zeros((F, self.cell_channels - 1), np.float32)
        closed, blocked, ends, growable = (x // o.n for x in (o.CLOSED, o.BLOCKED, o.ENDS, o.GROWABLE))
        corner_owner, own_closed, own_blocked = (channels[k][0] for k in ("CORNER_OWNER", "CLOSED", "BLOCKED"))
        for j in range(P):
            for slot in range(SLOTS):
                cell_map[j * SLOTS + slot, slot] = 1  # STRAND: any owner
                for c in range(4):
                    cell_map[j * SLOTS + slot, corner_owner + 4 * j + c] = CORNERS_OF[slot, c]
        for slot in range(SLOTS):
            for c in range(4):
                cell_map[closed + slot, own_closed + c] = CORNERS_OF[slot, c]
        for side in range(4):
            cell_map[blocked + side, own_blocked + side] = 1
        for j in range(P):
            target = channels["MY_ENDS" if j == 0 else "OTHER_ENDS"][0]
            for port in range(8):
                cell_map[ends + 8 * j + port, target + port] = 1
        for port in range(8):
            cell_map[growable + port, channels["GROWABLE"][0] + port] = 1
        self._cell_map = cell_map

    def shape(self) -> tuple[int, int, int]:
        return (self.size, self.size, self.C)

    # ----- planes ---------------------------------------------------------------------------------
    def planes(self, observation) -> np.ndarray:
        vec = np.asarray(as_vector(observation), dtype=np.float32)
        single = vec.ndim == 1
        if single:
            vec = vec[None]
        o, P, S, H = self.observer, self.players, self.n, self.size
        if vec.ndim != 2 or vec.shape[1] != o.size:
            raise ValueError(
                f"Knot planes read flat observations of {o.size} entries (or a batch (N, {o.size})), "
                f"not shape {vec.shape}"
            )
        N = vec.shape[0]
        out = np.empty((N, S, self.C), np.float32)
        # Every per-square channel but the zone is a sum of flat board planes: one product.
        board = vec[:, :self._board_planes * S].reshape(N, self._board_planes, S)
        np.matmul(board.transpose(0, 2, 1), self._cell_map, out=out[:, :, :self.cell_channels - 1])
        # The start zone: my squares, grown by one square orthogonally.
        mine = (vec[:, :SLOTS * S].reshape(N, SLOTS, S).sum(axis=1) > 0).reshape(N, H, H)
        zone = mine.copy()
        zone[:, 1:, :] |= mine[:, :-1, :]
        zone[:, :-1, :] |= mine[:, 1:, :]
        zone[:, :, 1:] |= mine[:, :, :-1]
        zone[:, :, :-1] |= mine[:, :, 1:]
        zone[vec[:, o.PLACED_ANY] < 0.5] = True
        out[:, :, self.cell_channels - 1] = zone.reshape(N, S)
        out[:, :, self.cell_channels:] = vec[:, None, self._globals]
        planes = out.reshape(N, H, H, self.C)
        return planes[0] if single else planes

    # ----- policy ---------------------------------------------------------------------------------
    def policy_layout(self) -> PolicyLayout:
        S = self.n
        index = np.empty(16 * S + 4, np.int64)
        slot, sq = np.divmod(np.arange(16 * S), S)
        index[:16 * S] = sq * SLOTS + slot  # (row, col, slot) with sq = row*size + col
        index[16 * S:] = S * SLOTS + np.arange(4)
        return PolicyLayout(cell_channels=SLOTS, global_actions=4, index=index)

    # ----- symmetries -----------------------------------------------------------------------------
    def symmetries(self) -> tuple[Symmetry, ...]:
        return tuple(self._symmetry(name) for name in D4)

    def _symmetry(self, transform: str) -> Symmetry:
        H, S, P = self.size, self.n, self.players
        port, corner, side, slot = square_maps(transform)
        # Where each square goes: transform a grid of square numbers.
        grid = transform_grid(np.arange(S).reshape(H, H, 1), transform)[:, :, 0]
        square = np.empty(S, np.int64)
        square[grid.ravel()] = np.arange(S)  # old square -> new square
        actions = np.arange(16 * S + 4)
        old_slot, old_sq = np.divmod(np.arange(16 * S), S)
        actions[:16 * S] = np.asarray(slot)[old_slot] * S + square[old_sq]
        # new[..., c] = moved_old[..., channels[c]]: the inverse of each relabelling.
        channels = np.arange(self.C)

        def relabel(name: str, mapping, repeat: int = 1) -> None:
            a, _ = self.channels[name]
            width = len(mapping)
            for r in range(repeat):
                for old, new in enumerate(mapping):
                    channels[a + r * width + new] = a + r * width + old

        relabel("STRAND", slot)
        relabel("CORNER_OWNER", corner, P)
        relabel("CLOSED", corner)
        relabel("BLOCKED", side)
        for name in ("MY_ENDS", "OTHER_ENDS", "GROWABLE"):
            relabel(name, port)
        return Symmetry(
            name=transform,
            transform=transform,
            actions=actions,
            channels=None if transform == "identity" else channels,
        )
