"""What a player reads and writes: why an action is refused, and the move notation.

Notation: ``place cedar/azure @ h8`` (or ``place slot 4 @ d1`` for a slot that is empty or
repeats the slot before it, so that every action has a name), ``close Line-4``, ``continue``,
``take 3``, ``discard 1``, ``pass``. A cell is its column letters (``a`` … ``z``, then ``aa``,
…) and its row number (1 at the top); slot numbers are the action's, from 0. At a chance node
the outcomes read ``draw cedar/azure`` (a tile dealt or drawn) and ``goal Line-3`` (a secret
goal dealt).
"""

from __future__ import annotations

import re
from typing import Any

from envs.core.game import IllegalActionError
from envs.core.notation import cell_name, parse_cell
from envs.uzor.common import (
    CHANCE_OUTCOMES, COLOURS, DEAD_TAKE, DISCARD, FORK, GOAL, GOAL0, HAND, IDLE_LIMIT, MARKET, MOTIFS, OVER, PASS,
    PLACE, STONE, REFILL, TAKE, TYPES, tile_name,
)

WANTED = {
    PLACE: "place a tile from your hand",
    FORK: "close one of the completed patterns or continue",
    TAKE: "take a tile from the market",
    DISCARD: "you cannot place any tile: discard one of your hand",
    DEAD_TAKE: "you discarded: take a tile from the market",
    PASS: "you cannot place and the market is empty: pass",
}


class NotationMixin:
    """The explanations and notation of ``UzorGame`` (see the module docstring)."""

    def why_illegal(self, action: Any) -> str | None:
        try:
            a = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        geo = self.geo
        if not 0 <= a < geo.num_actions:
            return f"action {a} is outside 0…{geo.num_actions - 1}"
        if self._legal(a):
            return None
        phase = self.phase
        if phase >= GOAL:
            return self._chance_refusal(a)
        if phase == OVER:
            return "the game is over: no tile outside the table can be placed" if self.idle < IDLE_LIMIT else (
                f"the game is over: none of the last {IDLE_LIMIT} turns had a placement"
            )
        kind = self._kind(a)
        wanted = WANTED[phase]
        hand = self.hands[self.to_move]
        if kind == "place" and phase == PLACE:
            s, cell = divmod(a, geo.cells)
            name = cell_name(*divmod(cell, geo.size))
            if s >= len(hand):
                return f"hand slot {s} is empty: your hand holds {len(hand)} tiles"
            if s and hand[s - 1] == hand[s]:
                return f"slot {s} holds the same tile as slot {s - 1}: place it from slot {s - 1}"
            t = hand[s]
            v = self.board[cell]
            if v >= STONE:
                return f"{name} holds a stone"
            if v >= 0:
                return f"{name} already holds {tile_name(v)}"
            bit = 1 << cell
            occupied = self.open_bb | self.stone_bb
            if not geo.neighbours(bit) & occupied:
                return f"{name} is not next to a tile on the table (above, below, left or right)"
            return (
                f"{tile_name(t)} matches no open neighbour of {name} by motif or by colour"
            )
        if kind == "close" and phase == FORK:
            k = a - geo.close0
            names = geo.map.names
            if self.crossed >> k & 1:
                return f"{names[k]} is crossed out: it was closed already"
            done = ", ".join(names[j] for j in sorted(self.fork))
            return f"your placement did not complete {names[k]}; it completed {done}"
        if kind == "take" and phase in (TAKE, DEAD_TAKE):
            return f"market slot {a - geo.take0} is empty"
        if kind == "discard" and phase == DISCARD:
            s = a - geo.discard0
            if s >= len(hand):
                return f"hand slot {s} is empty: your hand holds {len(hand)} tiles"
            return f"slot {s} holds the same tile as slot {s - 1}: discard it from slot {s - 1}"
        if kind == "discard":
            return "you may discard only in a dead end, when no tile of your hand can be placed: " + wanted
        return f"not now: {wanted}"

    def _chance_refusal(self, a: int) -> str:
        """Why ``a`` is not an outcome of this chance node."""
        if self.phase == GOAL:
            seat = 0 if self.goals[0] is None else 1
            what = f"player_{seat}'s secret goal is dealt"
            names = self.geo.map.names
            offered = ", ".join(f"{GOAL0 + k} ({names[k]})" for k in sorted(o - GOAL0 for o, _ in self.chance_outcomes()))
        else:
            what = ("a market slot is refilled from the face-down supply" if self.phase == REFILL
                    else "a tile of the setup is dealt from the face-down supply")
            offered = ", ".join(f"{t} ({tile_name(t)})" for t, _ in self.chance_outcomes())
        return f"this is a chance node ({what}); action {a} is not one of its outcomes: {offered}"

    def _kind(self, a: int) -> str:
        geo = self.geo
        if a < geo.close0:
            return "place"
        if a < geo.cont:
            return "close"
        if a == geo.cont:
            return "continue"
        if a < geo.discard0:
            return "take"
        if a < geo.pass_:
            return "discard"
        return "pass"

    def action_to_string(self, action: int) -> str:
        a = self._check_action(action)
        geo = self.geo
        if not 0 <= a < geo.num_actions:
            raise ValueError(f"action {a} is outside 0…{geo.num_actions - 1}")
        if self.phase >= GOAL:
            if a < TYPES:
                return f"draw {tile_name(a)}"
            if a < CHANCE_OUTCOMES:
                return f"goal {geo.map.names[a - GOAL0]}"
            raise ValueError(f"action {a} is no chance outcome (they are 0…{CHANCE_OUTCOMES - 1}), and this is a chance node")
        kind = self._kind(a)
        if kind == "place":
            s, cell = divmod(a, geo.cells)
            where = cell_name(*divmod(cell, geo.size))
            hand = self.hands[self.to_move]
            if s < len(hand) and not (s and hand[s - 1] == hand[s]):
                return f"place {tile_name(hand[s])} @ {where}"
            return f"place slot {s} @ {where}"
        if kind == "close":
            return f"close {geo.map.names[a - geo.close0]}"
        if kind == "continue":
            return "continue"
        if kind == "take":
            return f"take {a - geo.take0}"
        if kind == "discard":
            return f"discard {a - geo.discard0}"
        return "pass"

    def string_to_action(self, text: str) -> int:
        geo = self.geo
        words = text.strip()
        low = words.lower()
        chance = self.phase >= GOAL
        outcome = re.fullmatch(r"(draw|goal)\s+(.+)", words, flags=re.IGNORECASE)
        if outcome or chance:
            if not (outcome and chance):
                who = "a chance outcome" if outcome else "a player's action"
                now = "this is a chance node" if chance else f"player_{self.to_move} is to act"
                raise ValueError(f"{text!r} is {who}, but {now}"
                                 + ("" if outcome else ": write 'draw cedar/azure' or 'goal Line-3'"))
            kind, rest = outcome.group(1).lower(), outcome.group(2).strip()
            if kind == "draw":
                return self._tile_of(rest)
            names = geo.map.names
            folded = [n.lower() for n in names]
            if rest.lower() not in folded:
                raise ValueError(f"{rest!r} is not a pattern of the Map: {', '.join(names)}")
            return GOAL0 + folded.index(rest.lower())
        match = re.fullmatch(r"place\s+(\S+?\s*/\s*\S+?)\s*@\s*(\S+)", low)
        if match:
            t = self._tile_of(match.group(1))
            row, col = parse_cell(match.group(2), geo.size, geo.size)
            motif, colour = MOTIFS[t // 5], COLOURS[t % 5]
            hand = self.hands[self.to_move]
            if t not in hand:
                raise ValueError(f"{motif}/{colour} is not in the hand of player_{self.to_move}")
            return hand.index(t) * geo.cells + row * geo.size + col
        match = re.fullmatch(r"place\s+slot\s+([0-9]+)\s*@\s*(\S+)", low)
        if match:
            s = int(match.group(1))
            if s >= HAND:
                raise ValueError(f"hand slots are 0…{HAND - 1}, not {s}")
            row, col = parse_cell(match.group(2), geo.size, geo.size)
            return s * geo.cells + row * geo.size + col
        match = re.fullmatch(r"close\s+(.+)", words, flags=re.IGNORECASE)
        if match:
            name = match.group(1).strip()
            names = geo.map.names
            if name in names:
                return geo.close0 + names.index(name)
            folded = [n.lower() for n in names]
            if name.lower() in folded:
                return geo.close0 + folded.index(name.lower())
            raise ValueError(f"{name!r} is not a pattern of the Map: {', '.join(names)}")
        if low == "continue":
            return geo.cont
        if low == "pass":
            return geo.pass_
        match = re.fullmatch(r"(take|discard)\s+([0-9]+)", low)
        if match:
            n = int(match.group(2))
            slots = MARKET if match.group(1) == "take" else HAND
            if n >= slots:
                raise ValueError(f"{match.group(1)} names a slot 0…{slots - 1}, not {n}")
            return (geo.take0 if match.group(1) == "take" else geo.discard0) + n
        raise ValueError(
            f"{text!r} is not an Uzor action: write e.g. 'place cedar/azure @ h8', 'close Line-4', "
            "'continue', 'take 3', 'discard 1' or 'pass'"
        )

    @staticmethod
    def _tile_of(text: str) -> int:
        """``"cedar/azure"`` → its tile type; a ValueError names a word that is neither."""
        match = re.fullmatch(r"(\S+?)\s*/\s*(\S+)", text.strip().lower())
        if not match:
            raise ValueError(f"{text!r} is not a tile: write motif/colour, e.g. 'cedar/azure'")
        motif, colour = match.groups()
        if motif not in MOTIFS:
            raise ValueError(f"{motif!r} is not a motif: {', '.join(MOTIFS)}")
        if colour not in COLOURS:
            raise ValueError(f"{colour!r} is not a colour: {', '.join(COLOURS)}")
        return MOTIFS.index(motif) * 5 + COLOURS.index(colour)
