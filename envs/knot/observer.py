"""What a Knot seat sees: the whole board, its own hand, the market and public counts.

Never an opponent's hand (only its size and the strands it took face up and has not placed
since) nor the pile's order (only its size).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import Observer, as_vector
from envs.knot.geometry import SLOTS
from envs.knot.planes import KnotPlanes
from envs.knot.rules import BONUS, DEAL, HAND_SIZE, OVER, PLACE, KnotGame, place_limit


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
        take = self.layout.take  # named blocks: errors and decode name them
        self.STRANDS = take(P * SLOTS * S, "strands")
        self.CLOSED = take(SLOTS * S, "closed")
        self.BLOCKED = take(4 * S, "blocked")
        self.ENDS = take(P * 8 * S, "ends")
        self.GROWABLE = take(8 * S, "growable")
        self.HAND = take(4, "hand")
        self.MARKET = take(10, "market")
        self.PILE = take(1, "pile")
        self.SCORES = take(P, "scores")
        self.HAND_SIZES = take(P, "hand_sizes")
        self.KNOWN = take((P - 1) * 4, "known")
        self.TURN = take(1, "turn")
        self.LIMIT = take(1, "limit")
        self.PLACED = take(1, "placed")
        self.PHASE = take(3, "phase")
        self.ACTOR = take(P, "actor")
        self.PLACED_ANY = take(P, "placed_any")
        self.size = self.layout.size
        self._block_shift = np.arange(4, 8)[:, None]
        self._token = None
        self._planes = None
        self._board_planes = KnotPlanes(self)

    def observe(self, game: KnotGame, player: int) -> np.ndarray:
        P, S = self.players, self.n
        obs = np.zeros(self.size, np.float32)
        rel = [(p - player) % P for p in range(P)]
        if game.st_sq:
            strands, closed, blocked, ends = self._board(game)
            block, eblock = SLOTS * S, 8 * S
            for j in range(P):
                p = (player + j) % P
                obs[self.STRANDS + j * block:self.STRANDS + (j + 1) * block] = strands[p * block:(p + 1) * block]
                obs[self.ENDS + j * eblock:self.ENDS + (j + 1) * eblock] = ends[p * eblock:(p + 1) * eblock]
            obs[self.CLOSED:self.CLOSED + block] = closed
            obs[self.BLOCKED:self.BLOCKED + 4 * S] = blocked
            if game.phase == PLACE and game.player == player and game.growable:
                obs[[self.GROWABLE + (e & 7) * S + (e >> 3) for e in game.growable]] = 1.0
        hand = game.hands[player]
        for k in range(4):
            obs[self.HAND + k] = hand[k] / HAND_SIZE
        for slot in (0, 1):
            obs[self.MARKET + 5 * slot + game.market[slot] + 1] = 1.0
        obs[self.PILE] = game.pile_size() / self.total
        scores = game.scores()
        for p in range(P):
            j = rel[p]
            obs[self.SCORES + j] = min(scores[p] / self.score_scale, 1.0)
            obs[self.HAND_SIZES + j] = sum(game.hands[p]) / HAND_SIZE
            obs[self.PLACED_ANY + j] = float(game.placed_any[p])
            if j:
                for k in range(4):
                    obs[self.KNOWN + (j - 1) * 4 + k] = game.known[p][k] / HAND_SIZE
        obs[self.TURN] = min(game.turn / self.turn_scale, 1.0)
        obs[self.LIMIT] = place_limit(game.turn) / 3
        if game.player == player and game.phase != OVER:
            obs[self.PLACED] = game.placed / 3
        if game.phase != DEAL:  # during the deal no phase and no actor
            obs[self.PHASE + game.phase] = 1.0
        if game.current_player() >= 0:  # nobody acts at a chance node or once over
            obs[self.ACTOR + rel[game.player]] = 1.0
        return obs

    def _board(self, game: KnotGame):
        """Board planes with absolute owners, cached until the board changes.

        ``game.board_token`` is a fresh object after every placement; holding it here keeps it
        alive, so an identity match can only mean the very same board.
        """
        if self._token is game.board_token:
            return self._planes
        P, S = self.players, self.n
        sq = np.array(game.st_sq)
        slot = np.array(game.st_slot)
        rib = np.array(game.st_rib)
        owner = np.array(game.rib_owner)[rib]
        strands = np.zeros(P * SLOTS * S, np.float32)
        strands[(owner * SLOTS + slot) * S + sq] = 1.0
        closed = np.zeros(SLOTS * S, np.float32)
        is_closed = np.array(game.rib_closed)[rib] >= 0
        closed[slot[is_closed] * S + sq[is_closed]] = 1.0
        geo = np.array(game.geo_w)
        blocked = ((geo[None, :] >> self._block_shift) & 1).ravel().astype(np.float32)
        ends = np.zeros(P * 8 * S, np.float32)
        idx = [(p * 8 + (e & 7)) * S + (e >> 3) for p in range(P) for e in game.ends[p]]
        if idx:
            ends[idx] = 1.0
        self._token = game.board_token
        self._planes = (strands, closed, blocked, ends)
        return self._planes

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
