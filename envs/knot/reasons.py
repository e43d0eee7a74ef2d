"""Why a Knot move is illegal, in a sentence a player understands, and the move notation.

:class:`ReasonsMixin` is one part of :class:`~envs.knot.rules.KnotGame`. ``place_problem``
reads the placement rules one by one (corners, crossings, the ends a strand meets, growing,
closing inside the board) and names the first one broken; ``why_illegal`` adds the turn's
phases. The legal-move generator (:meth:`~envs.knot.board.BoardMixin.placements`) is the fast
reading of the same rules; the tests hold the two to each other on every move of many games.

Notation: ``cut/ne@c4``, ``run/n@c4``, ``hook/ne@c4`` (the open corner), ``flip/w@c4``,
``end``, ``draw 0``, ``draw 1``, ``draw pile``; squares as a column letter and a row number
(``a1`` is the top-left square).
"""

from __future__ import annotations

import re
from typing import Any

from envs.core.game import CHANCE, IllegalActionError, short_repr
from envs.core.notation import cell_name, parse_cell
from envs.knot.geometry import CORNER_NAMES, KIND_NAMES, KINDS, SIDE_NAMES, SLOT_BLOCKS, SLOT_CORNERS, SLOT_PORT_SIDES, SLOT_PORTS
from envs.knot.options import DEAL, DRAW, OVER, PLACE


class ReasonsMixin:
    """``why_illegal``, ``place_problem`` and the notation of a :class:`~envs.knot.rules.KnotGame`."""

    def _blocker(self, sq: int, side: int) -> str:
        """The kind of a strand blocking the crossing on ``side`` of ``sq`` (for reasons)."""
        other = self.geo.nbr[sq][side]
        for s, (q, slot) in enumerate(zip(self.st_sq, self.st_slot)):
            if q == sq and SLOT_BLOCKS[slot] >> side & 1:
                return KINDS[slot >> 2]
            if q == other and other >= 0 and SLOT_BLOCKS[slot] >> ((side + 2) % 4) & 1:
                return KINDS[slot >> 2]
        return "a strand"

    def place_problem(self, player: int, slot: int, sq: int, growable: set[int] | None = None) -> str | None:
        """Why ``player`` may not place ``slot`` in ``sq`` now (rules 2–7), or None."""
        if growable is None:
            growable = self.growable
        k = slot >> 2
        if not self.hands[player][k]:
            return f"you hold no {KINDS[k]}"
        g = self.geo
        w = self.geo_w[sq]
        if SLOT_CORNERS[slot] & w:
            if k == 3:
                return "that corner is taken: a Flip needs its square to itself"
            return "that corner is taken"
        blocked = SLOT_PORT_SIDES[slot] & (w >> 4) & 15
        if blocked:
            side = (blocked & -blocked).bit_length() - 1
            return f"that crossing is blocked by a {self._blocker(sq, side)}"
        if SLOT_BLOCKS[slot] & (w >> 8):
            return f"a {KINDS[k]} here would block a crossing that a ribbon already uses"
        if not g.static[sq] >> slot & 1:
            return (
                "a Flip facing the board's edge would close on itself at the edge: "
                "a ribbon must close through a crossing inside the board"
            )
        pa, pb = SLOT_PORTS[slot]
        ga, gb = sq * 8 + pa, sq * 8 + pb
        met = [lk for lk in (g.link[ga], g.link[gb]) if self.port_strand[lk] >= 0]
        mine = [e for e in met if self._owner_of_end(e) == player]
        if not met:
            if not self.placed_any[player]:
                return None
            if not self.own_bb[player]:
                return "you own no strand any more, so you can start no new ribbon"
            if not g.zone(self.own_bb[player]) >> sq & 1:
                return "a new ribbon must start on or next to a square holding one of your strands"
            return None
        if not mine:
            return "a new ribbon may not touch another player's open end"
        if len(mine) == 2 and self.st_rib[self.port_strand[mine[0]]] == self.st_rib[self.port_strand[mine[1]]]:
            r = self.st_rib[self.port_strand[mine[0]]]
            if self.rib_inside[r] + g.inside[ga] + g.inside[gb] == 0:
                return (
                    "a ribbon must close through a crossing inside the board: "
                    "this one would close through edge links only"
                )
            return None
        first_this_turn = len(self.st_sq) - self.placed
        for e in mine:
            if e not in growable:
                if self.port_strand[e] >= first_this_turn:
                    return "this end was placed this turn: it grows from next turn"
                return "this end was captured this turn: it grows from your next turn"
        return None

    def why_illegal(self, action: Any) -> str | None:
        """None for a legal action, else one sentence a player understands saying why not (the
        text ``apply`` raises); at a chance node, which kinds the pile can give."""
        try:
            action = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        base = 16 * self.n
        if not 0 <= action <= base + 3:
            return f"action {action} is outside 0…{base + 3}"
        if self.phase == OVER:
            return "the game is over: nobody can place a strand"
        if self.current_player() == CHANCE:
            return self._chance_problem(action)
        if action < base:
            if self.phase != PLACE:
                return "you have drawn or ended placing: placing is over for this turn"
            slot, sq = divmod(action, self.n)
            return self.place_problem(self.player, slot, sq)
        if action == base:
            if self.phase != PLACE:
                return "placing is over: draw back up to 5 (market slot 0, slot 1 or the pile)"
            if self.placed or not self._placement_actions():
                return None
            return "you must place at least one strand this turn: one of yours fits"
        if self.phase != DRAW:
            # END exists only once a strand is placed: before that, placing is the only way on
            if not self.placed:
                return "draw only after placing: place a strand first"
            return "draw only after placing: place another strand or END placing first"
        if action == base + 3:
            return None if sum(self.pile) else "the pile is empty"
        slot = action - base - 1
        return None if self.market[slot] >= 0 else f"market slot {slot} is empty"

    def _chance_problem(self, action: int) -> str | None:
        outcomes = [kind for kind, _ in self.chance_outcomes()]
        if action in outcomes:
            return None
        what = "dealing" if self.phase == DEAL else "drawing from the pile"
        if self.options["pile"] is not None:
            return (f"{what} (a chance node): the scripted pile gives a {KINDS[outcomes[0]]} now "
                    f"(outcome {outcomes[0]})")
        left = ", ".join(f"{k} {KINDS[k]}" for k in outcomes)
        if 0 <= action < 4:
            return f"{what} (a chance node): no {KINDS[action]} is left in the pile; the outcomes are {left}"
        return f"{what} (a chance node): the outcomes are the kinds still in the pile: {left}"

    # ----- notation ---------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """A move in the notation (``cut/ne@c4``, ``end``, ``draw 0``, ``draw pile``); at a
        chance node, the kind the pile gives (``cut``, ``run``, ``hook``, ``flip``)."""
        action = self._check_action(action)
        if self.current_player() == CHANCE:
            if not 0 <= action < 4:
                raise ValueError(f"at a chance node the outcomes are the kinds 0…3 (Cut, Run, Hook, Flip), not {action}")
            return KIND_NAMES[action]
        n = self.n
        base = 16 * n
        if not 0 <= action <= base + 3:
            raise ValueError(f"action {action} is outside 0…{base + 3}")
        if action == base:
            return "end"
        if action > base:
            return ("draw 0", "draw 1", "draw pile")[action - base - 1]
        slot, sq = divmod(action, n)
        k, t = divmod(slot, 4)
        way = CORNER_NAMES[t] if k in (0, 2) else SIDE_NAMES[t]
        return f"{KIND_NAMES[k]}/{way}@{cell_name(*divmod(sq, self.size))}"

    _PLACE_RE = re.compile(r"^\s*([a-z]+)\s*/\s*([a-z]+)\s*@\s*([a-z]+[0-9]+)\s*$")

    def string_to_action(self, text: str) -> int:
        """The action a move's notation names (a ``ValueError`` says what is wrong with the
        text); at a chance node, a kind's name gives that outcome."""
        if not isinstance(text, str):
            raise ValueError(f"{short_repr(text)} is not a move: write e.g. 'cut/ne@c4', 'end', 'draw 0' or 'draw pile'")
        low = " ".join(text.strip().lower().split())
        if self.current_player() == CHANCE:
            if low in KIND_NAMES:
                return KIND_NAMES.index(low)
            raise ValueError(
                f"{short_repr(text)} is not a chance outcome: at a chance node the pile gives a strand, "
                "written cut, run, hook or flip"
            )
        base = 16 * self.n
        if low == "end":
            return base
        if low in ("draw 0", "draw 1", "draw pile"):
            return base + 1 + ("draw 0", "draw 1", "draw pile").index(low)
        match = self._PLACE_RE.match(low)
        if not match:
            raise ValueError(
                f"{short_repr(text)} is not a move: write e.g. 'cut/ne@c4', 'run/n@c4', 'hook/ne@c4', "
                f"'flip/w@c4', 'end', 'draw 0', 'draw 1' or 'draw pile'"
            )
        kind_name, way, cell = match.groups()
        if kind_name not in KIND_NAMES:
            raise ValueError(f"{short_repr(kind_name)} is not a strand: the strands are cut, run, hook, flip")
        k = KIND_NAMES.index(kind_name)
        names = CORNER_NAMES if k in (0, 2) else SIDE_NAMES
        if way not in names:
            what = "a corner" if k in (0, 2) else "a side"
            raise ValueError(f"a {kind_name} is turned by {what}: one of {', '.join(names)}, not {short_repr(way)}")
        row, col = parse_cell(cell, self.size, self.size)
        return (4 * k + names.index(way)) * self.n + row * self.size + col
