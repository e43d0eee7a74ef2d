"""Knot rules engine: strands, ribbons, capture and closing, for 2–4 players.

:class:`KnotGame` is assembled from parts a reader can take one at a time:

* :mod:`envs.knot.options` — options, constants, the placing limit;
* :mod:`envs.knot.geometry` — ports, links, the strand table and the bit tables;
* :mod:`envs.knot.board` (:class:`~envs.knot.board.BoardMixin`) — strands laid on the board,
  ribbon records, the legal-placement generator;
* :mod:`envs.knot.reasons` (:class:`~envs.knot.reasons.ReasonsMixin`) — ``why_illegal`` in a
  player's words, and the notation;
* :mod:`envs.knot.snapshot` (:class:`~envs.knot.snapshot.SnapshotMixin`) — ``clone`` from the
  declared state fields, the snapshot state and its validation;
* this module — setup, the turn machine (place up to the limit, END, draw back up to 5, next
  turn, the end of the game) and the scores.

They are mixins rather than module functions because the hot path (legal moves, placing) reads
the same few dozen attributes everywhere; the parts share them as ``self``.

Global ports are ``square*8 + port``; ``slot = 4*kind + turn``. Actions: ``slot*S + square``
to place, ``16*S`` END, ``16*S+1`` / ``16*S+2`` draw market slot 0 / 1, ``16*S+3`` draw blind.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.game import CHANCE, TERMINAL, Game
from envs.knot import options as knot_options
from envs.knot.board import BoardMixin
from envs.knot.geometry import geometry
from envs.knot.options import BLIND, BONUS, DEAL, DEALING, DRAW, HAND_SIZE, OVER, PLACE, deck_totals, place_limit
from envs.knot.reasons import ReasonsMixin
from envs.knot.snapshot import STATE_KEYS, SnapshotMixin, make_clone


class KnotGame(BoardMixin, ReasonsMixin, SnapshotMixin, Game):
    """A game of Knot for 2–4 players (see the module docstring for its parts)."""

    NAME = "knot_v0"
    OPTIONS = {"players": 2, "size": None, "deck": None, "pile": None}
    NEUTRAL_OPTIONS = ("pile",)  # scripted chance
    # 2: the pile as counts per kind (its order is chance's) and the pending draw
    SNAPSHOT_VERSION = 2
    STATE_KEYS = STATE_KEYS

    # ----- options ------------------------------------------------------------------------------
    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        return knot_options.check_options(options)

    @classmethod
    def num_players_for(cls, options: dict[str, Any]) -> int:
        return options.get("players", 2)

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return knot_options.num_actions_for(options)

    @classmethod
    def max_chance_outcomes_for(cls, options: dict[str, Any]) -> int:
        """A chance outcome is the kind of the strand drawn: 0 Cut, 1 Run, 2 Hook, 3 Flip."""
        return 4

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        return knot_options.max_game_length_for(options)

    # ----- setup ----------------------------------------------------------------------------------
    def __init__(self, options: dict[str, Any], rng=None):
        """A new game at its first chance node: the deal. Every strand is in the pile; chance
        deals ``player_0`` 5, ``player_1`` 5, ..., then market slot 0 and slot 1, one strand
        a node (``rng`` is not used: chance is resolved by whoever plays the chance nodes)."""
        self._init_empty(options)
        self.pile = deck_totals(options)
        self.phase = DEAL
        self.pending = DEALING

    @classmethod
    def _empty(cls, options: dict[str, Any]) -> "KnotGame":
        """A game with an empty board, no hands and no pile (snapshots and views fill it)."""
        game = object.__new__(cls)
        game._init_empty(options)
        return game

    def _init_empty(self, options: dict[str, Any]) -> None:
        self.options = options
        n_players = self.n_players = options["players"]
        size = self.size = options["size"]
        g = self.geo = geometry(size)
        n = self.n = g.n
        self.total = sum(options["deck"]) if options["pile"] is None else len(options["pile"])
        self.pile = [0, 0, 0, 0]  # strands per kind still in the pile (its order is chance's)
        self.hands = [[0, 0, 0, 0] for _ in range(n_players)]
        self.known = [[0, 0, 0, 0] for _ in range(n_players)]
        self.market = [-1, -1]
        self._init_board(n, n_players)
        # the turn
        self.turn = 0
        self.player = 0
        self.phase = PLACE
        self.placed = 0
        self.pending = -1  # a strand waiting for chance: MARKET_0, MARKET_1 (refill), BLIND, DEALING
        self.growable: set[int] = set()  # the acting player's ends that may grow this turn
        self._legal: list[int] | None = None  # caches, cleared at every change
        self._places: list[int] | None = None

    # ----- the state interface --------------------------------------------------------------------
    def current_player(self) -> int:
        if self.pending >= 0:
            return CHANCE
        return TERMINAL if self.phase == OVER else self.player

    def limit(self) -> int:
        return place_limit(self.turn)

    def pile_size(self) -> int:
        return sum(self.pile)

    def _can_draw(self) -> bool:
        return sum(self.hands[self.player]) < HAND_SIZE and (
            self.market[0] >= 0 or self.market[1] >= 0 or sum(self.pile) > 0
        )

    # ----- chance: the deal and every draw from the pile --------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The kinds the pile may give now, each with its share of the pile (count / strands
        left); with a scripted ``pile``, its next strand alone, probability 1."""
        if self.current_player() != CHANCE:
            return super().chance_outcomes()
        scripted = self.options["pile"]
        if scripted is not None:
            return [(scripted[self.total - sum(self.pile)], 1.0)]
        left = sum(self.pile)
        return [(k, count / left) for k, count in enumerate(self.pile) if count]

    def _chance(self, kind: int) -> None:
        """The pile gives a strand of ``kind`` (a legal outcome): dealt, refilling a market
        slot or drawn blind, as the node says."""
        self.pile[kind] -= 1
        self._legal = self._places = None
        if self.pending == DEALING:
            dealt = sum(map(sum, self.hands))
            if dealt < HAND_SIZE * self.n_players:
                self.hands[dealt // HAND_SIZE][kind] += 1
            else:
                self.market[0 if self.market[0] < 0 else 1] = kind
            hands_full = dealt + 1 >= HAND_SIZE * self.n_players
            if hands_full and (self.market[1] >= 0 or not sum(self.pile)):
                self.pending = -1
                self._start_turn()
            return
        if self.pending == BLIND:
            self.hands[self.player][kind] += 1
        else:
            self.market[self.pending] = kind
        self.pending = -1
        if not self._can_draw():
            self._next_turn()

    def _placement_actions(self) -> list[int]:
        if self._places is None:
            self._places = self.placements() if self.phase == PLACE else []
        return self._places

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act, ascending; at a chance node, the outcomes."""
        if self._legal is not None:
            return self._legal[:]
        base = 16 * self.n
        if self.current_player() == CHANCE:
            acts = sorted(kind for kind, _ in self.chance_outcomes())
        elif self.phase == PLACE:
            acts = sorted(self._placement_actions())
            if self.placed or not acts:
                acts.append(base)
        elif self.phase == DRAW:
            acts = []
            if self.market[0] >= 0:
                acts.append(base + 1)
            if self.market[1] >= 0:
                acts.append(base + 2)
            if sum(self.pile):
                acts.append(base + 3)
        else:
            acts = []
        self._legal = acts
        return acts[:]

    def action_mask(self) -> np.ndarray:
        """``legal_actions()`` as an ``int8`` array over every action; while placing, straight
        from the placements (no sorted list made)."""
        mask = np.zeros(16 * self.n + 4, np.int8)
        legal = self._legal
        if legal is None and self.phase == PLACE and self.pending < 0:
            places = self._placement_actions()
            mask[places] = 1
            if self.placed or not places:
                mask[16 * self.n] = 1  # END
            return mask
        mask[self.legal_actions() if legal is None else legal] = 1
        return mask

    # ----- applying actions ------------------------------------------------------------------------
    def apply(self, action: Any) -> None:
        """Play ``action`` (at a chance node: the outcome, a kind); an illegal one raises
        :class:`~envs.core.game.IllegalActionError` saying why, and changes nothing."""
        action = action if type(action) is int else self._check_action(action)
        if self.pending >= 0:  # a chance node: the outcome is a kind the pile still holds
            scripted = self.options["pile"]
            if scripted is None:
                ok = 0 <= action < 4 and self.pile[action] > 0
            else:
                ok = action == scripted[self.total - sum(self.pile)]
            if not ok:
                self._raise_illegal(action)
            self._chance(action)
            return
        base = 16 * self.n
        if self.phase == PLACE and 0 <= action < base:
            slot, sq = divmod(action, self.n)
            # Search applies moves it took from the legal list: when that list is cached,
            # membership is the same test as place_problem, at a fraction of the cost.
            places = self._places
            ok = action in places if places is not None else self.place_problem(self.player, slot, sq) is None
            if not ok:
                self._raise_illegal(action)
            self._place(slot, sq)
            return
        legal = self._legal  # (the legal list of this position, when it was asked for: the same test)
        if not (action in legal if legal is not None else self.why_illegal(action) is None):
            self._raise_illegal(action)
        self._legal = self._places = None
        if action == base:
            self._end_placing()
            return
        self._draw(action - base - 1)

    def _place(self, slot: int, sq: int) -> None:
        player = self.player
        k = slot >> 2
        self.hands[player][k] -= 1
        if self.known[player][k]:
            self.known[player][k] -= 1
        self._put(player, slot, sq)
        self.placed += 1
        self._legal = self._places = None
        if self.placed >= place_limit(self.turn):
            self._end_placing()

    def _end_placing(self) -> None:
        self.phase = DRAW
        self.growable = set()
        self._legal = self._places = None
        if not self._can_draw():
            self._next_turn()

    def _draw(self, which: int) -> None:
        """Take market slot ``which`` (0, 1: the pile refills it, a chance node) or draw blind
        (2: the chance node says what)."""
        player = self.player
        if which == BLIND:
            self.pending = BLIND
            return
        k = self.market[which]
        self.known[player][k] += 1
        self.hands[player][k] += 1
        self.market[which] = -1
        if sum(self.pile):
            self.pending = which
        elif not self._can_draw():
            self._next_turn()

    def _next_turn(self) -> None:
        self.turn += 1
        self.player = (self.player + 1) % self.n_players
        self._start_turn()

    def _start_turn(self) -> None:
        self.phase = PLACE
        self.placed = 0
        self.growable = set(self.ends[self.player])
        self._legal = self._places = None
        if self._placement_actions():
            return
        for p in range(self.n_players):
            if p != self.player and self.placements(p, self.ends[p]):
                return
        self.phase = OVER
        self.growable = set()
        self._places = []

    # ----- scores -----------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        points = list(self.banked)
        if self.phase == OVER:
            who = self.bonus_owner()
            if who >= 0:
                points[who] += BONUS
        return points


KnotGame.clone = make_clone(KnotGame)
