"""Uzor's rules in JAX (``docs/jax.md``): equal to :class:`envs.uzor.rules.UzorGame` step for step.

One :class:`UzorRules` per option set (the options fix every shape): every table size 9…31,
the standard Map or a user's Map, scripted ``tiles`` and ``goals``. Nothing is refused.

The position :class:`G` keeps the Python state's fields as fixed-shape arrays: the table's
codes, both hands sorted and padded (``PAD`` after the tiles), the market, the face-down counts,
the face-up discards in the order drawn (padded), the goals (-1 before they are dealt), the
closed instances in the order closed (seat, pattern, orientation, origin), the fork (per
pattern the orientation and origin CLOSE would turn to stones, -1 where the pattern is not a
choice) and the turn's scalars. The table's queries and the Map are ``envs.uzor.jax_table``;
the observation and the host bridges ``envs.uzor.jax_observe``.

Chance is explicit, as in the Python engine: the goals (outcome ``25 + k``), every tile of the
deal and every refill from the face-down supply (outcome: the tile type) are chance nodes that
``apply`` takes and ``chance_probs`` prices. ``init`` draws the whole setup at once
(``UzorRules._opening``), the same distribution as the nodes one by one without a loop of
eighteen whole moves at every reset (Pgx's ``auto_reset`` computes a start at every step).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.core.jax_env import JaxRules, Turn, draw_outcome
from envs.uzor.common import (
    COPIES, DEAD_TAKE, DEAL, DEALT, DISCARD, EMPTY, FORK, GOAL, GOAL0, HAND, IDLE_LIMIT, MARKET, OVER, PASS, PLACE,
    REFILL, STONE, TAKE, TILES, TYPES, ActionLayout,
)
from envs.uzor.jax_observe import Observe, from_python, state_dict
from envs.uzor.jax_table import DISCARD_ROOM, PAD, MapTable, Room, completions, tile_bits
from envs.uzor.patterns import MAP_SIZE
from envs.uzor.rules import UzorGame


class G(NamedTuple):
    """One Uzor position (numpy arrays on the host, jnp arrays inside JAX)."""

    board: Any  # int32[N]: a code per cell (-1 empty, type, STONE + type)
    hands: Any  # int32[2, 5]: sorted tile types, then PAD
    market: Any  # int32[5]: a type or -1
    facedown: Any  # int32[25]: the supply's face-down tiles per type
    discards: Any  # int32[60]: its face-up discards in the order drawn, then PAD
    goals: Any  # int32[2]: the secret goals, -1 before dealt
    points: Any  # int32[2]
    crossed: Any  # bool[15]: the closed (crossed-out) patterns
    closed: Any  # int32[15, 4]: per close in order: seat, pattern, orientation, origin (-1 rows after)
    fork_o: Any  # int32[15]: per pattern, the fork's instance (orientation), -1 when not a choice
    fork_origin: Any  # int32[15]: its origin
    to_move: Any  # int32
    phase: Any  # int32: envs.uzor.common phase
    repeated: Any  # bool
    continued: Any  # bool
    placed: Any  # bool
    last_cell: Any  # int32
    idle: Any  # int32
    pending: Any  # int32


def _insert(hand: jax.Array, t: jax.Array) -> jax.Array:
    """``bisect.insort`` into a sorted padded hand."""
    at = jnp.sum(hand <= t)
    i = jnp.arange(HAND)
    before = jnp.concatenate([hand[:1], hand[:-1]])
    return jnp.where(i < at, hand, jnp.where(i == at, t, before))


def _remove(hand: jax.Array, s: jax.Array) -> jax.Array:
    """The hand without slot ``s``."""
    after = jnp.concatenate([hand[1:], jnp.full(1, PAD, hand.dtype)])
    return jnp.where(jnp.arange(HAND) < s, hand, after)


def _sort5(tiles: jax.Array) -> jax.Array:
    """Five tile types in ascending order (each goes to its rank)."""
    i = jnp.arange(HAND)
    rank = jnp.sum((tiles[None, :] < tiles[:, None]) | ((tiles[None, :] == tiles[:, None]) & (i[None, :] < i[:, None])), axis=1)
    return jnp.sum(jnp.where(rank[None, :] == i[:, None], tiles[None, :], 0), axis=1)


def first_slots(hand: jax.Array) -> jax.Array:
    """Per slot (of each hand, on the last axis): it holds a tile, not the tile of the slot
    before (only those are offered)."""
    earlier = jnp.concatenate([jnp.full(hand.shape[:-1] + (1,), -1, hand.dtype), hand[..., :-1]], axis=-1)
    return (hand < PAD) & (hand != earlier)


class UzorRules(JaxRules):
    python_engine = UzorGame
    has_chance = True
    opening_settles = True  # ``_opening`` ends at player_0's placement, its first decision

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        size = self.size = options["board_size"]
        n = self.n = size * size
        self.layout = ActionLayout(n)
        self.centre = (size // 2) * size + size // 2
        self.map = MapTable(size, options["patterns"])
        self.tbits = tile_bits()  # per type; PAD has none (an empty slot fits nowhere)
        tiles = options["tiles"]
        self.script_tiles = None if tiles is None else np.array([m * 5 + c for m, c in tiles] + [0], np.int32)
        self.script_goals = None if options["goals"] is None else np.array(options["goals"], np.int32)
        self.view = Observe(self, options)
        self.opening = self._opening if (tiles is None or self.script_goals is None) else None
        # the planes compute channels (what a tile would complete where): in JAX, equal to the observer's
        self.planes = self.view.planes

    # ----- the start and the setup ------------------------------------------------------------
    def start(self, goals: Any = None, phase: int = GOAL) -> G:
        i32 = np.int32
        return G(
            board=np.full(self.n, EMPTY, i32), hands=np.full((2, HAND), PAD, i32), market=np.full(MARKET, EMPTY, i32),
            facedown=np.full(TYPES, COPIES, i32), discards=np.full(DISCARD_ROOM, PAD, i32),
            goals=np.full(2, -1, i32) if goals is None else goals, points=np.zeros(2, i32),
            crossed=np.zeros(MAP_SIZE, bool), closed=np.full((MAP_SIZE, 4), -1, i32),
            fork_o=np.full(MAP_SIZE, -1, i32), fork_origin=np.full(MAP_SIZE, -1, i32), to_move=i32(0),
            phase=i32(phase), repeated=np.bool_(False), continued=np.bool_(False), placed=np.bool_(False),
            last_cell=i32(-1), idle=i32(0), pending=i32(-1))

    def _opening(self, g: G, key: jax.Array) -> G:
        """The goals and the deal drawn at once (``init``): the goals uniform and different;
        player_0's hand and the centre tile drawn from the 75, again while no hand tile matches
        the centre (the rules deal again then); the other ten from the tiles left. The same
        distribution as the deal's sixteen nodes one by one, in fewer operations."""
        k0, k1, deal_key = jax.random.split(key, 3)
        if self.script_goals is not None:
            goals = jnp.asarray(self.script_goals)
        else:
            first = draw_outcome(jnp.ones(MAP_SIZE, jnp.float32), k0)
            second = draw_outcome((jnp.arange(MAP_SIZE) != first).astype(jnp.float32), k1)
            goals = jnp.stack([first, second]).astype(jnp.int32)

        def draw(counts: jax.Array, points: jax.Array) -> tuple[jax.Array, list]:
            """Tiles one after another from ``counts``, each by the inverse of the cumulative
            counts at a uniform number in [0, 1) (``draw_outcome`` with its numbers drawn at once)."""
            drawn = []
            for point in points:
                cumulative = jnp.cumsum(counts)
                t = jnp.minimum(jnp.sum(cumulative <= point * cumulative[-1]), TYPES - 1)
                t = jnp.where(counts[t] > 0, t, jnp.argmax(counts > 0))  # never a type with none left
                counts = counts - (jnp.arange(TYPES) == t)
                drawn.append(t)
            return counts, drawn

        full = jnp.full(TYPES, COPIES, jnp.int32)
        if self.script_tiles is not None:
            tiles = jnp.asarray(self.script_tiles[:DEALT])
        else:
            # player_0's hand and the centre decide whether the deal stands: drawn first (any
            # order of the draws is the same shuffle) and again until they match; then the rest
            def again(carry):
                drawn = carry[0]
                centre, hand = drawn[0], drawn[1:]
                return ~jnp.any((hand // 5 == centre // 5) | (hand % 5 == centre % 5))

            def redraw(carry):
                key, sub = jax.random.split(carry[1])
                return jnp.stack(draw(full, jax.random.uniform(sub, (HAND + 1,)))[1]), key

            first, _ = jax.lax.while_loop(again, redraw, redraw((None, deal_key)))
            left = full - jnp.sum(first[:, None] == jnp.arange(TYPES), axis=0)
            rest = draw(left, jax.random.uniform(jax.random.fold_in(deal_key, 1), (DEALT - HAND - 1,)))[1]
            tiles = jnp.concatenate([first[1:], jnp.stack(rest), first[:1]])
        counts = jnp.sum(tiles[:, None] == jnp.arange(TYPES), axis=0)
        return g._replace(
            board=g.board.at[self.centre].set(tiles[DEALT - 1]),
            hands=jnp.stack([_sort5(tiles[:HAND]), _sort5(tiles[HAND:2 * HAND])]),
            market=tiles[2 * HAND:2 * HAND + MARKET], facedown=(COPIES - counts).astype(jnp.int32), goals=goals,
            phase=jnp.int32(PLACE))

    # ----- whose turn -------------------------------------------------------------------------
    def turn(self, g: G) -> Turn:
        chance = g.phase >= GOAL
        return Turn(player=jnp.where(chance, -1, g.to_move).astype(jnp.int32), is_chance=chance,
                    terminated=g.phase == OVER)

    def _room(self, board: jax.Array) -> Room:
        return Room(board, self.size)

    def legal_mask(self, g: G) -> jax.Array:
        phase = g.phase
        hand = jnp.where(g.to_move == 0, g.hands[0], g.hands[1])
        first = first_slots(hand)
        # the mover's tile bits per slot as a sum over both hands: XLA computes a reduction
        # once, where a select would be fused into (and the turn's logic recomputed for)
        # every one of the mask's 5 × cells entries
        offered = first_slots(g.hands) & ((jnp.arange(2) == g.to_move) & (phase == PLACE))[:, None]
        tbits = jnp.sum(jnp.where(offered, jnp.asarray(self.tbits)[g.hands], 0), axis=0)
        cells = self._room(g.board).cells_for(tbits)
        at_fork = phase == FORK
        taking = (phase == TAKE) | (phase == DEAD_TAKE)
        return jnp.concatenate([
            cells.reshape(-1), (g.fork_o >= 0) & at_fork, at_fork[None], (g.market >= 0) & taking,
            first & (phase == DISCARD), (phase == PASS)[None]])

    # ----- a move or a chance outcome ---------------------------------------------------------
    def apply(self, g: G, action: jax.Array) -> G:
        a = jnp.asarray(action, jnp.int32)
        after, ends = self._decision(g, a)  # no change at a chance node
        after, ends_too, deal_last = self._outcome(g, after, a)  # no change at a decision
        return self._next_turn(g, after, ends | ends_too, deal_last)

    def apply_and_draw(self, g: G, action: jax.Array, key: jax.Array) -> G:
        """A decision and the refill it may lead to (the only chance node that can follow one),
        drawn as ``JaxEnv.step``'s loop draws it, with one end of the turn: ``apply`` twice
        would test the placement's completions and the end of the game twice."""
        a = jnp.asarray(action, jnp.int32)
        after, ends = self._decision(g, a)
        tile = draw_outcome(self.chance_probs(after), jax.random.split(key)[1])  # used at a refill only
        after, refilled, deal_last = self._outcome(after, after, tile)
        return self._next_turn(g, after, ends | refilled, deal_last)

    def _decision(self, g: G, a: jax.Array) -> tuple[G, jax.Array]:
        """A player's action (``TurnsMixin.apply`` for PLACE … PASS), the phase it leads to
        within the turn, and whether the turn ends."""
        lay, n = self.layout, self.n
        phase, p = g.phase, g.to_move
        at_place, at_fork, at_discard = phase == PLACE, phase == FORK, phase == DISCARD
        at_take = (phase == TAKE) | (phase == DEAD_TAKE)
        mine = jnp.arange(2) == p
        hand = jnp.where(p == 0, g.hands[0], g.hands[1])

        # PLACE slot s at cell: the tile leaves the hand; what it completes is the fork
        slot, cell = jnp.clip(a // n, 0, HAND - 1), a % n
        board = g.board.at[cell].set(jnp.where(at_place, hand[slot], g.board[cell]))
        fork_o, fork_origin = completions(self.map, board, cell, g.crossed)
        forked = at_place & jnp.any(fork_o >= 0)

        # FORK: CLOSE k (points, crossed out, its instance to stones) or CONTINUE
        k = jnp.clip(a - lay.close0, 0, MAP_SIZE - 1)
        close = at_fork & (a != lay.cont)
        orient, origin = g.fork_o[k], g.fork_origin[k]
        stones = origin + jnp.asarray(self.map.orient_lin)[orient]
        member = jnp.arange(self.map.width) < jnp.asarray(self.map.orient_n)[orient]
        board = board.at[jnp.where(member, stones, n)].add(jnp.where(close, STONE, 0), mode="drop")
        value = jnp.asarray(self.map.points)[k] * jnp.where(g.goals[p] == k, 2, 1)
        entry = jnp.stack([p, k, orient, origin])
        closed = jnp.where(close & (jnp.arange(MAP_SIZE) == jnp.sum(g.crossed))[:, None], entry[None, :], g.closed)

        # TAKE market slot m: to the hand; the slot refills from the top of the supply (a
        # face-down tile is a chance node; else the first face-up discard, or nothing)
        m = jnp.clip(a - lay.take0, 0, MARKET - 1)
        face_down = jnp.sum(g.facedown) > 0
        has_discard = g.discards[0] < PAD
        refill_up = jnp.where(face_down | ~has_discard, EMPTY, g.discards[0])
        market = jnp.where(at_take & (jnp.arange(MARKET) == m), refill_up, g.market)
        popped = at_take & ~face_down & has_discard
        discards = jnp.where(popped, jnp.concatenate([g.discards[1:], jnp.full(1, PAD, jnp.int32)]), g.discards)

        # DISCARD slot s: face up to the bottom of the supply
        s = jnp.clip(a - lay.discard0, 0, HAND - 1)
        discards = jnp.where(at_discard & (jnp.arange(DISCARD_ROOM) == jnp.sum(g.discards < PAD)), hand[s], discards)
        hand = jnp.where(at_place, _remove(hand, slot), jnp.where(
            at_discard, _remove(hand, s), jnp.where(at_take, _insert(hand, g.market[m]), hand)))

        market_left = jnp.any(market >= 0)
        ends = (at_place & ~forked & ~market_left) | (at_fork & ~market_left) | (at_take & ~face_down) | (phase == PASS)
        on_phase = jnp.where(at_place, jnp.where(forked, FORK, TAKE), jnp.where(
            at_fork, TAKE, jnp.where(at_take, REFILL, jnp.where(at_discard, DEAD_TAKE, phase))))
        return g._replace(
            board=board, hands=jnp.where(mine[:, None], hand[None, :], g.hands), market=market, discards=discards,
            points=g.points + jnp.where(mine & close, value, 0), crossed=g.crossed | (close & (jnp.arange(MAP_SIZE) == k)),
            closed=closed, fork_o=jnp.where(forked, fork_o, -1), fork_origin=jnp.where(forked, fork_origin, -1),
            phase=on_phase.astype(jnp.int32), continued=g.continued | (at_fork & (a == lay.cont)),
            placed=g.placed | at_place, last_cell=jnp.where(at_place, cell, g.last_cell).astype(jnp.int32),
            pending=jnp.where(at_take & face_down, m, g.pending).astype(jnp.int32)), ends

    def _outcome(self, g: G, after: G, a: jax.Array) -> tuple[G, jax.Array, jax.Array]:
        """A chance outcome (``TurnsMixin._chance``): a goal, a tile of the deal, a refill;
        whether a turn ends (a refill) and whether the deal is complete."""
        phase = g.phase
        at_goal, at_deal, at_refill = phase == GOAL, phase == DEAL, phase == REFILL
        t = jnp.clip(a, 0, TYPES - 1)
        goal_seat = jnp.where(g.goals[0] >= 0, 1, 0)
        dealt = jnp.sum(g.hands < PAD) + jnp.sum(g.market >= 0)
        to_hand = at_deal & (dealt < 2 * HAND)
        hands = jnp.where(to_hand & (jnp.arange(2) == dealt // HAND)[:, None],
                          _insert(jnp.where(dealt < HAND, g.hands[0], g.hands[1]), t)[None, :], after.hands)
        to_market = at_deal & (dealt >= 2 * HAND) & (dealt < 2 * HAND + MARKET)
        market = jnp.where(to_market & (jnp.arange(MARKET) == dealt - 2 * HAND), t, after.market)
        market = jnp.where(at_refill & (jnp.arange(MARKET) == g.pending), t, market)
        deal_last = at_deal & (dealt == 2 * HAND + MARKET)
        board = after.board.at[self.centre].set(jnp.where(deal_last, t, after.board[self.centre]))
        phase = jnp.where(at_goal, jnp.where(goal_seat == 1, DEAL, GOAL), after.phase)
        return after._replace(
            board=board, hands=hands, market=market,
            facedown=(g.facedown - ((at_deal | at_refill) & (jnp.arange(TYPES) == t))).astype(jnp.int32),
            goals=jnp.where(at_goal & (jnp.arange(2) == goal_seat), a - GOAL0, g.goals).astype(jnp.int32),
            phase=phase.astype(jnp.int32), pending=jnp.where(at_refill, -1, after.pending).astype(jnp.int32),
        ), at_refill, deal_last

    def _next_turn(self, g: G, after: G, ends: jax.Array, deal_last: jax.Array) -> G:
        """Where the game goes when a turn ends (``_end_turn``: the idle count, a repeated turn
        after CONTINUE) or the deal is complete: the next turn starts (``_start_turn``: the end
        checks, then place, dead-end discard or pass); a deal player_0 cannot play from is
        dealt again (every tile back, the goals kept)."""
        p = g.to_move
        idle = jnp.where(ends, jnp.where(after.placed, 0, g.idle + 1), g.idle)
        again = after.continued & ~g.repeated
        starting = ends | deal_last
        q = jnp.where(deal_last, 0, jnp.where(again, p, 1 - p))
        room = self._room(after.board)
        q_hand = jnp.where(q == 0, after.hands[0], after.hands[1])
        can_place = jnp.any(room.fits_somewhere(jnp.asarray(self.tbits)[q_hand]))  # PAD has no bits
        held = jnp.concatenate([after.hands.reshape(-1), after.market, after.discards])  # PAD, EMPTY: no type
        outside = after.facedown + jnp.sum(jnp.arange(TYPES)[:, None] == held, axis=1)
        over = (idle >= IDLE_LIMIT) | ~room.anything_fits(outside)
        start_phase = jnp.where(over, OVER, jnp.where(can_place, PLACE, jnp.where(jnp.any(after.market >= 0), DISCARD, PASS)))
        after = after._replace(
            to_move=jnp.where(starting, q, p).astype(jnp.int32),
            phase=jnp.where(starting, start_phase, after.phase).astype(jnp.int32),
            repeated=jnp.where(starting, again & ~deal_last, g.repeated),
            continued=after.continued & ~starting, placed=after.placed & ~starting, idle=idle.astype(jnp.int32))
        redeal = deal_last & (start_phase != PLACE)
        fresh = jax.tree_util.tree_map(jnp.asarray, self.start(phase=DEAL)._replace(goals=g.goals))
        return jax.tree_util.tree_map(lambda x, y: jnp.where(redeal, x, y), fresh, after)

    # ----- chance -----------------------------------------------------------------------------
    def chance_probs(self, g: G) -> jax.Array:
        outcomes = jnp.arange(self.num_outcomes)
        seat = jnp.where(g.goals[0] >= 0, 1, 0)
        total = jnp.sum(g.facedown)
        if self.script_goals is not None:
            goal = (outcomes == GOAL0 + jnp.asarray(self.script_goals)[seat]).astype(jnp.float32)
        else:
            choices = (outcomes >= GOAL0) & (outcomes - GOAL0 != g.goals[0])
            goal = jnp.where(choices, 1.0 / jnp.where(seat == 1, MAP_SIZE - 1, MAP_SIZE), 0.0)
        if self.script_tiles is not None:
            tile = (outcomes == jnp.asarray(self.script_tiles)[jnp.clip(TILES - total, 0, TILES)]).astype(jnp.float32)
        else:
            counts = jnp.concatenate([g.facedown, jnp.zeros(self.num_outcomes - TYPES, jnp.int32)])
            tile = counts / jnp.maximum(total, 1)
        probs = jnp.where(g.phase == GOAL, goal, jnp.where((g.phase == DEAL) | (g.phase == REFILL), tile, 0.0))
        return probs.astype(jnp.float32)

    # ----- what a seat sees, the scores, the host bridges ---------------------------------------
    def observe(self, g: G, player: jax.Array) -> jax.Array:
        return self.view.observe(g, player)

    def scores(self, g: G) -> jax.Array:
        return g.points.astype(jnp.float32)

    def from_python(self, game: UzorGame) -> G:
        return from_python(self, game, G)

    def state_dict(self, g: G) -> dict[str, Any]:
        return state_dict(self, g)


RULES = UzorRules
