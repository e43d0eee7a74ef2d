"""What a Knot seat sees: the whole board, its own hand, the market and public counts.

Never an opponent's hand (only its size and the strands it took face up and has not placed
since) nor the pile's order (only its size).
"""

from __future__ import annotations

import struct
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np

from envs.core.observer import Observer, as_vector
from envs.knot.geometry import SLOTS
from envs.knot.planes import KnotPlanes
from envs.knot.options import BONUS, DEAL, HAND_SIZE, OVER, PLACE, place_limit
from envs.knot.rules import KnotGame


_ONE = np.float32(1.0).tobytes()
assert _ONE[:2] == bytes(2)
_ONE2, _ONE3 = _ONE[2], _ONE[3]  # a 1.0 written into zeros: its two high bytes
_ONE_FLOAT, _THREE_FLOATS = struct.Struct("f"), struct.Struct("3f")  # native float32, rounded as numpy rounds


def _floats(values) -> bytes:
    """Numbers as float32 bytes (each rounded to nearest, as numpy rounds a Python float)."""
    return struct.pack(f"{len(values)}f", *values)


_MARKET_BYTES = [_floats([float(i == j) for i in range(5)]) for j in range(5)]  # a slot: empty, Cut, Run, Hook, Flip
_PHASE_BYTES = [_floats([float(i == phase) for i in range(3)]) for phase in range(4)]  # place, draw, over; deal: none


class _KeptFloats:
    """Global blocks as float32 bytes, kept by the numbers they show (a hand, the seats' hand
    sizes, scores, known strands, who has placed: each changes seldom); cleared whole when
    full."""

    LIMIT = 4096

    def __init__(self):
        self.kept: dict = {}

    def floats(self, kind: str, numbers: tuple, divisor: int) -> bytes:
        """``numbers`` each divided by ``divisor``."""
        found = self.kept.get((kind, numbers))
        if found is None:
            found = self._keep((kind, numbers), _floats([x / divisor for x in numbers]))
        return found

    def scores(self, points: tuple, scale: float) -> bytes:
        """Points / ``scale``, at most 1."""
        found = self.kept.get(("scores", points))
        if found is None:
            found = self._keep(("scores", points), _floats([min(x / scale, 1.0) for x in points]))
        return found

    def _keep(self, key, value: bytes) -> bytes:
        if len(self.kept) >= self.LIMIT:
            self.kept.clear()
        self.kept[key] = value
        return value

_BLOCKED_BITS = 0xF0  # a square's blocked sides in its geometry word (envs.knot.board)


class _BoardBytes:
    """The board's blocks of the vector with absolute owners, as float32 bytes (``strands``
    and ``ends`` per owner, ``closed``, ``blocked``), kept for the last board seen.

    ``update`` checks ``game.board_token`` (a fresh object after every placement; holding it
    keeps it alive, so an identity match can only mean the very same board); for another
    board it compares the strand and ribbon records with those it was made from: when the
    board only gained strands it writes what they block, and their entries unless a ribbon of
    the kept board changed owner, merged or closed (then every strand's again); another board
    is read whole. The open ends: those that changed.
    """

    def __init__(self, players: int, squares: int):
        self.players, self.squares = players, squares
        self.token: object = None
        self.sides: list[int] = [0] * squares  # per square, the blocked sides shown (bits 4…7 of its word)
        self._empty_strands()
        self.blocked = bytearray(4 * 4 * squares)
        self.ends = [bytearray(4 * 8 * squares) for _ in range(players)]
        self.end_sets: list[set[int]] = [set() for _ in range(players)]  # the open ends they show

    def _empty_strands(self) -> None:
        self.strands = [bytearray(4 * 16 * self.squares) for _ in range(self.players)]
        self.closed = bytearray(4 * 16 * self.squares)
        # the records the strand blocks show: strands (square, slot, ribbon), the ribbons'
        # owners and closing order
        self.sq: list[int] = []
        self.slot: list[int] = []
        self.rib: list[int] = []
        self.owner: list[int] = []
        self.closed_order: list[int] = []

    def update(self, game: KnotGame) -> None:
        if game.board_token is self.token:
            return
        S = self.squares
        kept, ribbons = len(self.sq), len(self.owner)
        st_sq, st_slot, st_rib = game.st_sq, game.st_slot, game.st_rib
        rib_owner, rib_closed = game.rib_owner, game.rib_closed
        laid = len(st_sq) >= kept and st_sq[:kept] == self.sq and st_slot[:kept] == self.slot
        # blocked sides: a square's geometry word is the union of what the strands laid on it
        # and beside it put there (envs.knot.board._lay), so when the board only gained strands
        # their updates say what else is blocked; another board is read whole
        if laid:
            upd, sides = game.geo.geo_upd, self.sides
            for s in range(kept, len(st_sq)):
                for sq, bits in upd[st_sq[s] * 16 + st_slot[s]]:
                    if bits & ~sides[sq] & _BLOCKED_BITS:
                        self._blocked_square(sq, sides[sq] | bits)
        else:
            sides = self.sides
            for sq, word in enumerate(game.geo_w):
                if (word ^ sides[sq]) & _BLOCKED_BITS:
                    self._blocked_square(sq, word)
        # strands: the new ones written, unless a ribbon of the kept board changed (then all)
        if not (laid and st_rib[:kept] == self.rib and rib_owner[:ribbons] == self.owner
                and rib_closed[:ribbons] == self.closed_order):
            self._empty_strands()
            kept = ribbons = 0
        strands, closed = self.strands, self.closed
        for s in range(kept, len(st_sq)):
            r = st_rib[s]
            at = 4 * (st_slot[s] * S + st_sq[s])
            plane = strands[rib_owner[r]]
            plane[at + 2] = _ONE2
            plane[at + 3] = _ONE3
            if rib_closed[r] >= 0:
                closed[at + 2] = _ONE2
                closed[at + 3] = _ONE3
        self.sq += st_sq[kept:]
        self.slot += st_slot[kept:]
        self.rib += st_rib[kept:]
        self.owner += rib_owner[ribbons:]
        self.closed_order += rib_closed[ribbons:]
        # open ends: the entries of the ends gone and of the ends new
        for p, ends in enumerate(game.ends):
            shown = self.end_sets[p]
            if ends != shown:
                plane = self.ends[p]
                for e in shown - ends:
                    at = 4 * ((e & 7) * S + (e >> 3))
                    plane[at + 2] = plane[at + 3] = 0
                for e in ends - shown:
                    at = 4 * ((e & 7) * S + (e >> 3))
                    plane[at + 2] = _ONE2
                    plane[at + 3] = _ONE3
                self.end_sets[p] = set(ends)
        self.token = game.board_token

    def _blocked_square(self, sq: int, word: int) -> None:
        """The blocked sides of square ``sq`` as geometry word ``word`` gives them (bits 4…7;
        the planes are side-major): the entries of the sides whose bit changed."""
        kept = self.sides[sq]
        changed = (word ^ kept) & _BLOCKED_BITS
        if changed:
            self.sides[sq] = kept ^ changed
            blocked, S = self.blocked, self.squares
            for side in range(4):
                if changed >> (4 + side) & 1:
                    at = 4 * (side * S + sq) + 2
                    on = word >> (4 + side) & 1
                    blocked[at] = _ONE2 if on else 0
                    blocked[at + 1] = _ONE3 if on else 0


class KnotObserver(Observer):
    """Layout: board planes first, each ``S = size*size`` entries in square order, then globals.

    With ``P`` players and owners *relative* to the observer (0 = me, then the others in turn
    order):

    * ``STRANDS``: ``P*16`` planes, plane ``16*j + (4*kind + turn)``: a strand of that kind and
      turn owned by relative player ``j`` lies in the square;
    * ``CLOSED``: 16 planes (slot): that strand belongs to a closed ribbon;
    * ``BLOCKED``: 4 planes (side N, E, S, W): the crossing on that side is blocked;
    * ``ENDS``: ``P*8`` planes, ``8*j + port``: that port is an open end of relative player ``j``;
    * ``GROWABLE``: 8 planes (port): one of my ends that may grow now (all zero off my turn);

    then ``HAND`` 4 (my strands per kind / 5), ``MARKET`` 2×5 (slot one-hot: empty, Cut, Run,
    Hook, Flip), ``PILE`` (pile size / total strands), ``SCORES`` ``P`` (banked points, plus
    the bonus once the game is over, / score scale), ``HAND_SIZES`` ``P`` (/5), ``KNOWN``
    ``(P-1)*4`` (strands each opponent took face up and has not placed since, per kind, /5),
    ``TURN`` (turn / turn scale), ``LIMIT`` (placing limit / 3), ``PLACED`` (my placements this
    turn / 3, also while I draw; 0 off my turn), ``PHASE`` 3 (place, draw, over; none during
    the opening deal), ``ACTOR`` ``P`` (who acts, relative; none at a chance node or once over),
    ``PLACED_ANY`` ``P`` (that player has placed a strand before).

    At a chance node (the deal, a strand being drawn from the pile) the observation is the
    position as it stands: a market slot waiting for its refill shows empty.
    """

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        resolved = KnotGame.resolve_options(dict(options))
        self.players = P = resolved["players"]
        self.board_size = resolved["size"]
        self.n = S = self.board_size ** 2
        self.total = sum(resolved["deck"]) if resolved["pile"] is None else len(resolved["pile"])
        self.score_scale = float(4 * self.board_size * (self.board_size - 1) + BONUS)
        self.turn_scale = float(P * (self.total + 2))
        # named blocks (errors and decode name them): the board's, then the global ones
        self.lay_out(strands=P * SLOTS * S, closed=SLOTS * S, blocked=4 * S, ends=P * 8 * S, growable=8 * S,
                     hand=4, market=10, pile=1, scores=P, hand_sizes=P, known=(P - 1) * 4, turn=1, limit=1,
                     placed=1, phase=3, actor=P, placed_any=P)
        self._board = _BoardBytes(P, S)
        self._orders = [tuple((player + j) % P for j in range(P)) for player in range(P)]
        self._seats = [itemgetter(*order) for order in self._orders]  # a per-seat list in my order
        self._growable_zeros = bytes(4 * 8 * S)
        self._actor_bytes = [_floats([float(j == actor) for j in range(P)]) for actor in range(P + 1)]  # [P]: none
        self._kept = _KeptFloats()
        # the blocks observe() joins, in this order
        assert [self.HAND, self.MARKET, self.PILE, self.SCORES, self.HAND_SIZES, self.KNOWN, self.TURN, self.LIMIT,
                self.PLACED, self.PHASE, self.ACTOR, self.PLACED_ANY, self.size] == [
            self.GROWABLE + 8 * S, self.HAND + 4, self.MARKET + 10, self.PILE + 1, self.SCORES + P,
            self.HAND_SIZES + P, self.KNOWN + 4 * (P - 1), self.TURN + 1, self.LIMIT + 1, self.PLACED + 1,
            self.PHASE + 3, self.ACTOR + P, self.PLACED_ANY + P]
        self._board_planes = KnotPlanes(self)

    def observe(self, game: KnotGame, player: int) -> np.ndarray:
        # The vector is joined from float32 bytes: the board's blocks with absolute owners,
        # kept between calls (_BoardBytes) and put in the observer's order by owner; the
        # growable ends; then every global entry packed at once.
        P, S = self.players, self.n
        board = self._board
        board.update(game)
        order = self._orders[player]  # relative seat j is absolute seat order[j]
        parts = [board.strands[p] for p in order]
        parts += [board.closed, board.blocked]
        parts += [board.ends[p] for p in order]
        growable = game.growable
        if growable and game.phase == PLACE and game.player == player:
            grow = bytearray(self._growable_zeros)
            for e in growable:
                at = 4 * ((e & 7) * S + (e >> 3))
                grow[at + 2] = _ONE2
                grow[at + 3] = _ONE3
            parts.append(grow)
        else:
            parts.append(self._growable_zeros)
        # the globals, block by block: the per-seat ones from the seats' numbers in the
        # observer's order (an itemgetter), each block's bytes kept by those numbers (they
        # change seldom); the rest from tables or packed
        seats, kept = self._seats[player], self._kept
        hands, market, phase = game.hands, game.market, game.phase
        parts += (kept.floats("hand", tuple(hands[player]), HAND_SIZE),
                  _MARKET_BYTES[market[0] + 1], _MARKET_BYTES[market[1] + 1],
                  _ONE_FLOAT.pack(game.pile_size() / self.total),
                  kept.scores(seats(game.scores()), self.score_scale),
                  kept.floats("sizes", tuple(map(sum, seats(hands))), HAND_SIZE),
                  kept.floats("known", tuple(chain.from_iterable(seats(game.known)[1:])), HAND_SIZE),
                  _THREE_FLOATS.pack(min(game.turn / self.turn_scale, 1.0), place_limit(game.turn) / 3,
                                     game.placed / 3 if game.player == player and phase != OVER else 0.0),
                  _PHASE_BYTES[phase],  # (none during the opening deal)
                  # the actor (none at a chance node or once over), then who has placed before
                  self._actor_bytes[(game.player - player) % P if game.current_player() >= 0 else P],
                  kept.floats("placed", seats(game.placed_any), 1))
        return np.frombuffer(bytearray().join(parts), np.float32)

    def decode(self, observation) -> dict[str, Any]:
        """Named fields; owners and seats are relative (0 = the observer)."""
        vec = as_vector(observation)
        P, S = self.players, self.n
        strands = []  # (square, kind, turn, relative owner, closed)
        block = vec[self.STRANDS:self.STRANDS + P * SLOTS * S].reshape(P, SLOTS, S)
        closed = vec[self.CLOSED:self.CLOSED + SLOTS * S].reshape(SLOTS, S)
        for j, slot, sq in zip(*np.nonzero(block > 0.5)):
            strands.append((int(sq), int(slot) >> 2, int(slot) & 3, int(j), bool(closed[slot, sq] > 0.5)))
        strands.sort()
        blocked = vec[self.BLOCKED:self.BLOCKED + 4 * S].reshape(4, S)
        ends_block = vec[self.ENDS:self.ENDS + P * 8 * S].reshape(P, 8, S)
        ends = [set() for _ in range(P)]
        for j, port, sq in zip(*np.nonzero(ends_block > 0.5)):
            ends[int(j)].add(int(sq) * 8 + int(port))
        grow = vec[self.GROWABLE:self.GROWABLE + 8 * S].reshape(8, S)
        growable = {int(sq) * 8 + int(port) for port, sq in zip(*np.nonzero(grow > 0.5))}
        market = []
        for slot in (0, 1):
            part = vec[self.MARKET + 5 * slot:self.MARKET + 5 * slot + 5]
            market.append(int(np.argmax(part)) - 1)
        phase_part = vec[self.PHASE:self.PHASE + 3]
        actor_part = vec[self.ACTOR:self.ACTOR + P]
        return {
            "players": P,
            "size": self.board_size,
            "strands": strands,
            "blocked": [[side for side in range(4) if blocked[side, sq] > 0.5] for sq in range(S)],
            "ends": ends,
            "growable": growable,
            "hand": [int(round(x * HAND_SIZE)) for x in vec[self.HAND:self.HAND + 4]],
            "market": market,
            "pile": int(round(vec[self.PILE] * self.total)),
            "scores": [int(round(x * self.score_scale)) for x in vec[self.SCORES:self.SCORES + P]],
            "hand_sizes": [int(round(x * HAND_SIZE)) for x in vec[self.HAND_SIZES:self.HAND_SIZES + P]],
            "known": [[0, 0, 0, 0]] + [
                [int(round(x * HAND_SIZE)) for x in vec[self.KNOWN + 4 * i:self.KNOWN + 4 * i + 4]]
                for i in range(P - 1)
            ],
            "turn": int(round(vec[self.TURN] * self.turn_scale)),
            "limit": int(round(vec[self.LIMIT] * 3)),
            "placed": int(round(vec[self.PLACED] * 3)),
            "phase": ("place", "draw", "over")[int(np.argmax(phase_part))] if phase_part.max() > 0.5 else "deal",
            "actor": int(np.argmax(actor_part)) if actor_part.max() > 0.5 else -1,
            "placed_any": [bool(x > 0.5) for x in vec[self.PLACED_ANY:self.PLACED_ANY + P]],
        }

    # ----- board-shaped observations (envs/knot/planes.py) -------------------------------------
    def planes_shape(self) -> tuple[int, int, int]:
        return self._board_planes.shape()

    def planes(self, observation) -> np.ndarray:
        return self._board_planes.planes(observation)

    def policy_layout(self):
        return self._board_planes.policy_layout()

    def symmetries(self):
        return self._board_planes.symmetries()
