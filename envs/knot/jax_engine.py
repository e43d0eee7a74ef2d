"""Knot's rules in JAX (``docs/jax.md``): equal to :class:`envs.knot.rules.KnotGame` step for step.

One :class:`KnotRules` per option set (the players and the board size fix every shape): 2, 3
and 4 players, every board size, any ``deck``, and the scripted ``pile`` (its chance nodes then
give probability 1 to the pile's next strand). Nothing is refused. The deal and every draw from
the pile are chance nodes (outcome: the kind drawn), as in the Python engine.

The position (:class:`G`) keeps the board per port (a square's eight crossing halves, numbered
port-major, ``port*S + square``, inside this engine), because every rule is about ports and
the ports they are linked to:

* ``port_rib`` — the ribbon of the strand using the port (−1: free). A ribbon is named by a
  *label*: one port of one of its strands (a new ribbon takes its strand's first port; a join or
  a capture keeps one side's label and relabels the other side's ports). A ribbon's owner,
  points (inside links) and closing order are kept on each of its ports (``port_owner``,
  ``port_points``, ``port_closed``), so nothing is ever looked up by label;
* ``port_slot``, ``port_order`` — the strand's slot and placement index (snapshots list the
  strands in placement order);
* ``geo`` — per square the Python engine's geometry word (corners in use, blocked sides, sides
  whose crossing is in use): the slots that fit a square (rules 2 and 3) are ``FIT[geo]``;
* ``growable`` — the acting player's ends that may grow this turn;
* ``places`` — the acting player's legal placements, found by ``apply`` together with the
  end-of-game test: one computation for every player, the acting one with its growable ends and
  the others with all their ends, which is both what the mask needs and, at a turn's start,
  whether anybody can place.

Legal placements: per square the sixteen slots are the bits of one int32 word, so each rule is
a few integer operations per square and player; what each port meets is one pass of static
slices over the board (an open end is a used port whose linked port is free), with every fact
read there packed in one int32 per port. The per-port arrays are int8/int16 (less memory to
move per step). ``env.step`` applies a decision and the draw after it in one program
(``apply_and_draw``), so a step finds the legal placements once. The observation, the planes
and the host-side bridges are in :mod:`envs.knot.jax_view`; the constant tables in
:mod:`envs.knot.jax_tables`.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from envs.core.jax_env import JaxRules, Turn, draw_outcome, stored
from envs.knot.geometry import FIT, SLOTS
from envs.knot.jax_state import G
from envs.knot.jax_tables import SLOT_PA, SLOT_PB, tables
from envs.knot.jax_view import KnotView
from envs.knot.options import BLIND, BONUS, DEAL, DEALING, DRAW, HAND_SIZE, OVER, PLACE, deck_totals
from envs.knot.rules import KnotGame

NO_ORDER = 1 << 30  # larger than any closing order
ALL = 0xFFFF  # every slot of a square


def place_limit(turn: jax.Array) -> jax.Array:
    """Strands a turn allows (``envs.knot.options.place_limit``)."""
    return jnp.where(turn == 0, 1, jnp.where(turn < 3, 2, 3))


def _one_hot(index: jax.Array, n: int) -> jax.Array:
    return jnp.arange(n) == index


class KnotRules(JaxRules):
    python_engine = KnotGame
    has_chance = True
    opening_settles = True  # the deal ends at the first player's turn

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.players = options["players"]
        self.size = options["size"]
        t = self.t = tables(self.size)
        S = self.n = t.n
        self.deck = np.asarray(deck_totals(options), np.int32)
        self.total = int(self.deck.sum())
        script = options["pile"]
        self.scripted = script is not None
        self.script = np.asarray(list(script or []) + [0], np.int32)
        bit = 1 << np.arange(SLOTS)[:, None]
        self.static_word = (t.static * bit).sum(axis=0).astype(np.int32)  # per square, its placeable slots
        self.inside_word = (((t.ins_a + t.ins_b).reshape(SLOTS, S) > 0) * bit).sum(axis=0).astype(np.int32)
        self.fit = np.asarray(FIT, np.int32)
        if SLOT_PA != (1, 3, 5, 7, 7, 1, 3, 5, 0, 2, 4, 6, 0, 2, 4, 6):  # what _by_slot slices
            raise AssertionError("the slots' first ports changed: KnotRules._by_slot lays out the old ones")
        self.first_slots = [sum(1 << s for s in range(SLOTS) if SLOT_PA[s] == p) for p in range(8)]
        self.second_slots = [sum(1 << s for s in range(SLOTS) if SLOT_PB[s] == p) for p in range(8)]
        self.view = KnotView(options, self)
        self.planes = self.view.planes
        self.opening = None if self.scripted else self._deal
        # One compiled program rather than op by op where JaxEnv applies chance on the host
        # (the opening table: with a scripted pile, the whole deal); inside a traced program
        # the call is inlined.
        self.apply = jax.jit(self._apply)
        self.apply_and_draw = self._apply_and_draw
        self.observe = jax.jit(self.view.observe)
        self.legal_mask = jax.jit(self._legal_mask)

    # ----- the start and whose turn --------------------------------------------------------------
    def start(self) -> G:
        P, S = self.players, self.n
        free8, free16 = np.full(8 * S, -1, np.int8), np.full(8 * S, -1, np.int16)
        return G(geo=np.zeros(S, np.int16), port_rib=free16, port_owner=free8, port_points=np.zeros(8 * S, np.int16),
                 port_closed=free16, port_slot=free8, port_order=free16, growable=np.zeros(8 * S, bool),
                 places=np.zeros(16 * S, bool), hands=np.zeros((P, 4), np.int32), known=np.zeros((P, 4), np.int32),
                 market=np.full(2, -1, np.int32), pile=self.deck.copy(), banked=np.zeros(P, np.int32),
                 placed_any=np.zeros(P, bool), turn=np.int32(0), player=np.int32(0), phase=np.int32(DEAL),
                 placed=np.int32(0), pending=np.int32(DEALING), strands=np.int32(0), closed=np.int32(0))

    def typed(self, g: G) -> G:
        """``g`` with every field in the dtype :meth:`start` gives it (the per-port arrays are
        small integers: less memory to move per step)."""
        return G(*(jnp.asarray(x).astype(ref.dtype) if isinstance(x, jax.Array) else np.asarray(x, ref.dtype)
                   for x, ref in zip(g, self.start())))

    def turn(self, g: G) -> Turn:
        chance = g.pending >= 0
        return Turn(player=jnp.where(chance, -1, g.player).astype(jnp.int32), is_chance=chance,
                    terminated=g.phase == OVER)

    def _deal(self, g: G, key: jax.Array) -> G:
        """The opening deal drawn at once (``JaxRules.opening``): hands of five, then market
        slot 0 and 1, each strand drawn from what is left with its share of the pile, as the
        deal's chance nodes draw them one by one. On the empty board the first player's
        placements are the slots of its kinds that may lie in each square, so the game goes on."""
        P = self.players
        hands, market, pile = g.hands, g.market, g.pile
        keys = jax.random.split(key, HAND_SIZE * P + 2)
        for i in range(min(HAND_SIZE * P + 2, self.total)):
            kind = _one_hot(draw_outcome(pile.astype(jnp.float32), keys[i]), 4)
            pile = pile - kind
            if i < HAND_SIZE * P:
                hands = hands + (kind & (jnp.arange(P)[:, None] == i // HAND_SIZE))
            else:
                market = jnp.where(jnp.arange(2) == i - HAND_SIZE * P, jnp.argmax(kind), market)
        places = jnp.repeat(hands[0] > 0, 4)[:, None] & self.t.static
        return g._replace(hands=hands, market=market, pile=pile, pending=jnp.int32(-1), phase=jnp.int32(PLACE),
                          places=places.reshape(-1))

    # ----- legal placements -------------------------------------------------------------------------
    def _linked(self, x: jax.Array) -> jax.Array:
        """(..., 8S) per port -> the entry of the port each is linked to (``link`` in the
        tables): port ``2*side + half`` meets port ``+4`` of the neighbour across ``side``, or on
        the board's edge its own square's other half. Static slices rather than a gather: under
        ``vmap`` they fuse into the elementwise loops that read them."""
        H = self.size
        lead = x.shape[:-1]
        rows = x.reshape(lead + (8, H, H))
        out = []
        for p in range(8):
            src, edge = rows[..., (p + 4) % 8, :, :], rows[..., p ^ 1, :, :]
            side = p >> 1
            if side == 0:  # N: the square above
                out.append(jnp.concatenate([edge[..., :1, :], src[..., :-1, :]], axis=-2))
            elif side == 1:  # E: the square to the right
                out.append(jnp.concatenate([src[..., :, 1:], edge[..., :, -1:]], axis=-1))
            elif side == 2:  # S: the square below
                out.append(jnp.concatenate([src[..., 1:, :], edge[..., -1:, :]], axis=-2))
            else:  # W: the square to the left
                out.append(jnp.concatenate([edge[..., :, :1], src[..., :, :-1]], axis=-1))
        return jnp.concatenate([o[..., None, :, :] for o in out], axis=-3).reshape(x.shape)

    def _by_slot(self, x: jax.Array) -> jax.Array:
        """(..., 8S) per port -> (..., 16, S): per placement, the entry of its first port."""
        rows = x.reshape(x.shape[:-1] + (8, self.n))
        # SLOT_PA is (1, 3, 5, 7), (7, 1, 3, 5), (0, 2, 4, 6) twice: four strided slices
        # (a stack of sixteen rows would be laid out slot-major under vmap, then transposed)
        odd, even = rows[..., 1::2, :], rows[..., 0::2, :]
        return jnp.concatenate([odd, odd[..., 3:, :], odd[..., :3, :], even, even], axis=-2)

    def _zone(self, g: G) -> jax.Array:
        """bool (P, S): where each player may start a new ribbon (on or next to a square holding
        one of its strands; anywhere before its first strand)."""
        P, H = self.players, self.size
        owners = g.port_owner.reshape(8, self.n)
        owned = (owners[None] == jnp.arange(P)[:, None, None]).any(axis=1).reshape(P, H, H)
        pad = jnp.pad(owned, ((0, 0), (1, 1), (1, 1)))
        near = owned | pad[:, :-2, 1:-1] | pad[:, 2:, 1:-1] | pad[:, 1:-1, :-2] | pad[:, 1:-1, 2:]
        return jnp.where(g.placed_any[:, None], near.reshape(P, self.n), True)

    def _words(self, x: jax.Array, first: bool = True) -> jax.Array:
        """bool (..., 8S) per port -> int32 (..., S): per square, the bit of every slot whose
        first (or second) port has the property."""
        rows = x.reshape(x.shape[:-1] + (8, self.n))
        masks = self.first_slots if first else self.second_slots
        return sum(jnp.where(rows[..., p, :], masks[p], 0) for p in range(8))

    def _meets(self, g: G) -> jax.Array:
        """int32 (8S,): per port, what the port it is linked to holds, packed (``_unpacked``):
        one pass through the links for every fact the rules read there, stored once
        (``stored``) rather than redone inside each loop that reads it."""
        code = ((g.port_rib.astype(jnp.int32) + 1) | ((g.port_owner.astype(jnp.int32) + 1) << 11)
                | ((g.port_points > 0).astype(jnp.int32) << 14) | (g.growable.astype(jnp.int32) << 15))
        return stored(self._linked(code), g.strands)

    @staticmethod
    def _unpacked(meets: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """``_meets`` -> the ribbon met (-1 none), its owner, whether it has points, growable."""
        return ((meets & 0x7FF) - 1, ((meets >> 11) & 7) - 1, ((meets >> 14) & 1) > 0, ((meets >> 15) & 1) > 0)

    def _placements(self, g: G, meets: jax.Array | None = None) -> jax.Array:
        """int32 (P, S): per player and square, the bits of the slots it may legally place
        there (rules 1–7 but the phase), the acting player with its growable ends, every other
        player with all its ends growable. ``meets``: ``_meets(g)`` if known.

        Per square the sixteen slots are the bits of one word, so every rule is a few integer
        operations per square. What each port meets is one pass through the links. Where a
        placement fits, its own ports are free, so a used port it meets is an open end: for a
        player other than the acting one every end it meets may grow."""
        P = self.players
        rib_l, own_l, points_l, grow_l = self._unpacked(self._meets(g) if meets is None else meets)
        used_l = rib_l >= 0  # the ribbon each port meets, -1 none
        seats = jnp.arange(P)[:, None]
        mine_l = used_l[None] & (own_l[None] == seats)
        rows = rib_l.reshape(8, self.n)
        same = sum(jnp.where((rows[pa] == rows[pb]) & (rows[pa] >= 0), 1 << s, 0)
                   for s, (pa, pb) in enumerate(zip(SLOT_PA, SLOT_PB)))
        used = self._words(used_l) | self._words(used_l, False)
        close_ok = self._words(points_l) | self.inside_word
        fit = jnp.asarray(self.fit)[g.geo] & self.static_word
        mine_a, mine_b = self._words(mine_l), self._words(mine_l, False)
        acting = seats == g.player
        grow_a = jnp.where(acting, self._words(grow_l), ALL)
        grow_b = jnp.where(acting, self._words(grow_l, False), ALL)
        new = ~used & jnp.where(self._zone(g), ALL, 0)
        close = same & mine_a & close_ok
        grow_ok = ~same & (mine_a | mine_b) & (~mine_a | grow_a) & (~mine_b | grow_b)
        hand = sum(jnp.where(g.hands[:, k] > 0, 0xF << (4 * k), 0) for k in range(4))[:, None]
        return fit & hand & (new | close | grow_ok)

    def _unpack(self, words: jax.Array) -> jax.Array:
        """int32 (S,) slot bits per square -> bool (16S,) per placement action."""
        return ((words[None, :] >> jnp.arange(SLOTS)[:, None]) & 1).astype(bool).reshape(-1)

    def _legal_mask(self, g: G) -> jax.Array:
        """``legal_mask`` (see ``__init__``)."""
        placing = (g.phase == PLACE) & (g.pending < 0)
        places = g.places & placing
        end = placing & ((g.placed > 0) | ~places.any())
        drawing = (g.phase == DRAW) & (g.pending < 0)
        draws = jnp.stack([drawing & (g.market[0] >= 0), drawing & (g.market[1] >= 0), drawing & (g.pile.sum() > 0)])
        return jnp.concatenate([places, end[None], draws])

    # ----- apply ----------------------------------------------------------------------------------
    def _put(self, g: G, action: jax.Array) -> G:
        """The board after the acting player lays the strand of placement ``action`` (a legal
        one): a new ribbon, a grown one, a close (banks its points), a join or a capture."""
        t, S, P = self.t, self.n, self.players
        a = jnp.clip(action, 0, 16 * S - 1)
        ga, gb = jnp.asarray(t.ga)[a], jnp.asarray(t.gb)[a]
        la, lb = jnp.asarray(t.la)[a], jnp.asarray(t.lb)[a]
        ra, rb = g.port_rib[la], g.port_rib[lb]
        ua, ub = ra >= 0, rb >= 0
        label = jnp.where(ua, ra, jnp.where(ub, rb, ga))
        closing = ua & ub & (ra == rb)
        merge = ub & (rb != label)  # a join or capture through port b: b's ribbon is relabelled
        points = (jnp.where(ua, g.port_points[la] + jnp.asarray(t.ins_a)[a], 0) + jnp.where(ub, jnp.asarray(t.ins_b)[a], 0)
                  + jnp.where(ub & ~closing, g.port_points[lb], 0))
        ports = jnp.arange(8 * S)
        laid = (ports == ga) | (ports == gb)
        rib = jnp.where(laid | (merge & (g.port_rib == rb)), label, g.port_rib)
        ribbon = rib == label
        return g._replace(
            geo=g.geo | jnp.asarray(t.geo_delta)[a],
            port_rib=rib,
            port_owner=jnp.where(ribbon, g.player, g.port_owner),
            port_points=jnp.where(ribbon, points, g.port_points),
            port_closed=jnp.where(ribbon & closing, g.closed, g.port_closed),
            port_slot=jnp.where(laid, a // S, g.port_slot),
            port_order=jnp.where(laid, g.strands, g.port_order),
            growable=g.growable & (ports != la) & (ports != lb),
            banked=g.banked + jnp.where(closing & (jnp.arange(P) == g.player), points, 0),
            strands=g.strands + 1, closed=g.closed + closing)

    def _can_draw(self, hands: jax.Array, player: jax.Array, market: jax.Array, pile: jax.Array) -> jax.Array:
        return (hands[player].sum() < HAND_SIZE) & ((market >= 0).any() | (pile.sum() > 0))

    def _apply(self, g: G, action: jax.Array) -> G:
        """``apply`` (a decision or a chance outcome; see ``__init__``)."""
        return self.typed(self._start_turn(*self._transition(g, action)))

    def _apply_and_draw(self, g: G, action: jax.Array, key: jax.Array) -> G:
        """``JaxRules.apply_and_draw``: a decision is followed by at most one chance node (a
        strand leaving the pile for a market slot or a hand), and the legal placements are
        found once, after it (at a chance node nobody places, so ``apply`` finding them there
        changes nothing that the node's own ``apply`` does not find again)."""
        g, advance, starting = self._transition(g, action)
        g = self.typed(g)
        chance = g.pending >= 0
        drawn = draw_outcome(self.chance_probs(g), jax.random.split(key)[1])
        after, advance_after, starting_after = self._transition(g, drawn)
        g = jax.tree_util.tree_map(lambda new, old: jnp.where(chance, new, old), self.typed(after), g)
        g = self.typed(self._start_turn(g, jnp.where(chance, advance_after, advance),
                                        jnp.where(chance, starting_after, starting)))
        return stored(g, g.strands)  # (the observation reads it: not redone per entry)

    def _transition(self, g: G, action: jax.Array) -> tuple[G, jax.Array, jax.Array]:
        """``apply`` but the legal placements: the position, whether the next player's turn
        starts, whether the first turn starts (the deal is over)."""
        P, S = self.players, self.n
        action = jnp.asarray(action, jnp.int32)
        base = 16 * S
        at_chance = g.pending >= 0
        placing = ~at_chance & (g.phase == PLACE) & (action >= 0) & (action < base)
        ending = ~at_chance & (g.phase == PLACE) & (action == base)
        drawing = ~at_chance & (g.phase == DRAW) & (action > base) & (action <= base + 3)
        seat = jnp.arange(P)[:, None] == g.player
        kinds = jnp.arange(4)

        # a placement: the strand leaves the hand (and the known face-up takes, if any)
        kind = jnp.clip(action, 0, base - 1) // S >> 2
        one = seat & (kinds == kind) & placing
        hands = g.hands - one
        known = jnp.where(one & (g.known > 0), g.known - 1, g.known)
        placed = g.placed + placing
        board = jax.tree_util.tree_map(lambda new, old: jnp.where(placing, new, old), self._put(g, action), g)
        end_placing = ending | (placing & (placed >= place_limit(g.turn)))

        # a draw: a market slot (the pile refills it, a chance node) or blind (a chance node)
        which = jnp.clip(action - base - 1, 0, 2)
        take = drawing & (which < 2)
        got = seat & (kinds == g.market[jnp.minimum(which, 1)]) & take
        hands, known = hands + got, known + got
        market = jnp.where(take & (jnp.arange(2) == which), -1, g.market)
        pile_left = g.pile.sum() > 0
        pending = jnp.where(drawing & (which == 2), BLIND, jnp.where(take & pile_left, which, g.pending))

        # a chance outcome: the pile gives a strand of kind `drawn` to the deal, a slot or a hand
        drawn = jnp.clip(action, 0, 3)
        pile = g.pile - ((kinds == drawn) & at_chance)
        dealing = at_chance & (g.pending == DEALING)
        dealt = g.hands.sum()
        to_hand = jnp.where(dealing, (jnp.arange(P)[:, None] == dealt // HAND_SIZE) & (dealt < HAND_SIZE * P),
                            seat & (g.pending == BLIND) & at_chance)
        hands = hands + (to_hand & (kinds == drawn))
        slot_of = jnp.where(dealing, jnp.where(g.market[0] < 0, 0, 1), g.pending)
        fills = at_chance & ~(dealing & (dealt < HAND_SIZE * P)) & (g.pending != BLIND)
        market = jnp.where(fills & (jnp.arange(2) == slot_of), drawn, market)
        deal_done = dealing & (dealt + 1 >= HAND_SIZE * P) & ((market[1] >= 0) | (pile.sum() == 0))
        pending = jnp.where(at_chance, jnp.where(dealing & ~deal_done, DEALING, -1), pending)

        # the turn: the draw phase ends by itself when nothing can be drawn
        phase = jnp.where(end_placing, DRAW, g.phase)
        no_draw = ~self._can_draw(hands, g.player, market, pile)
        advance = (end_placing & no_draw) | (take & ~pile_left & no_draw) | (at_chance & ~dealing & no_draw)
        g = board._replace(hands=hands, known=known, market=market, pile=pile, placed=placed, phase=phase,
                           pending=pending, growable=board.growable & ~end_placing,
                           placed_any=g.placed_any | (seat[:, 0] & placing))
        return g, advance, deal_done

    def _start_turn(self, g: G, advance: jax.Array, starting: jax.Array) -> G:
        """The next player's turn (``advance``) or the first turn (``starting``, after the deal):
        the placing phase with every own end growable, unless nobody can place (the end); and
        in every case the acting player's legal placements."""
        g, advance, starting = stored((g, advance, starting), g.strands)
        starts = advance | starting
        player = jnp.where(advance, (g.player + 1) % self.players, g.player)
        # the links are an involution, so what the ports meet after the new growable ends is
        # known from one pass: a port meets an end when it is free and the port it meets is used
        meets = self._meets(g)
        rib_l, own_l = self._unpacked(meets)[:2]
        used, used_l = g.port_rib >= 0, rib_l >= 0
        ends = used & ~used_l
        mine = (own_l == player) & used_l & ~used
        meets = jnp.where(starts, (meets & ~(1 << 15)) | (mine.astype(jnp.int32) << 15), meets)
        g = g._replace(turn=g.turn + advance, player=player, phase=jnp.where(starts, PLACE, g.phase),
                       placed=jnp.where(starts, 0, g.placed),
                       growable=jnp.where(starts, ends & (g.port_owner == player), g.growable))
        places = stored(self._placements(g, meets), g.strands)  # (read twice: computed once)
        over = starts & ~(places != 0).any()
        mine = self._unpack(jnp.sum(jnp.where(jnp.arange(self.players)[:, None] == player, places, 0), axis=0))
        return g._replace(phase=jnp.where(over, OVER, g.phase), growable=g.growable & ~over, places=mine)

    # ----- chance and scores --------------------------------------------------------------------
    def chance_probs(self, g: G) -> jax.Array:
        kinds = jnp.arange(4)
        if self.scripted:
            probs = (kinds == jnp.asarray(self.script)[self.total - g.pile.sum()]).astype(jnp.float32)
        else:
            probs = g.pile.astype(jnp.float32) / jnp.maximum(g.pile.sum(), 1).astype(jnp.float32)
        return jnp.where(g.pending >= 0, probs, 0.0)

    def scores(self, g: G) -> jax.Array:
        """Banked points, plus the longest closed ribbon's bonus once the game is over (on a tie
        the earliest closed)."""
        order = g.port_closed.astype(jnp.int32)  # (NO_ORDER does not fit its int16)
        closed = order >= 0
        best = jnp.max(jnp.where(closed, g.port_points, 0))
        first = jnp.min(jnp.where(closed & (g.port_points == best), order, NO_ORDER))
        who = jnp.max(jnp.where(closed & (order == first), g.port_owner, -1))
        bonus = (g.phase == OVER) & (jnp.arange(self.players) == who)
        return (g.banked + jnp.where(bonus, BONUS, 0)).astype(jnp.float32)

    # ----- host-side bridges ----------------------------------------------------------------------
    def from_python(self, game: KnotGame) -> G:
        return self.view.from_python(game)

    def state_dict(self, g: G) -> dict[str, Any]:
        return self.view.state_dict(g)


RULES = KnotRules
