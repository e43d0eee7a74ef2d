"""The strands a seat cannot see, drawn: the heart of Knot's sampling (``envs.knot.sampling``).

Hidden from a seat: each opponent's hand, apart from the strands it took face up and has not
placed since (``known``: public, they stay in that hand), and so what the pile holds (the
strands nobody holds, of the ones the seat does not see). The pile's *order* is no part of any
state: each draw from it is a chance node. :class:`HiddenDeal` shuffles the unseen strands
(the deck's totals minus the board, the seat's hand, the market and the opponents' known
strands), gives the first ones to the opponents' unknown hand places and leaves the rest in the
pile. Every arrangement is equally likely, except that one public fact is kept: the game did
not end at the start of this turn. When the player to act has placed nothing yet and either has
no legal placement or has already ended placing, some player must have been able to place with
the hand they hold (``placements`` with every open end growable), so a draw that gives no such
player a fitting strand is drawn again (the true hands always pass). With a scripted ``pile``
option the pile's contents are known (the tail of the script), and only the hands are drawn.
"""

from __future__ import annotations

import random
from typing import Any

from envs.core.game import SnapshotError
from envs.knot.geometry import KINDS
from envs.knot.options import DRAW, OVER, PHASE_NAMES, PLACE, deck_totals
from envs.knot.rules import KnotGame

# Redraws allowed for the "game goes on" condition before giving up; the true hands pass it, so
# only a deck of thousands with a single fitting strand could come near.
MAX_REDRAWS = 100_000


class HiddenDeal:
    """The hidden strands of one position: checked and prepared once, drawn per call.

    ``state`` is an engine state dict in which each hidden hand holds only its fixed part (the
    strands the seat knows of) and ``"pile"`` holds the pile's counts per kind, or ``None``
    when they are hidden too (they are whatever the hands leave; ``pile_size`` strands).
    ``hidden`` maps each hidden hand's player to the number of its strands to draw. ``base``
    is the state with a placeholder deal; :meth:`fill` overwrites the hidden parts of a clone.
    Inconsistencies raise :class:`SnapshotError` saying why.
    """

    def __init__(self, options: dict[str, Any], state: dict[str, Any], hidden: dict[int, int],
                 pile_size: int = 0):
        totals = deck_totals(options)
        seen = [0, 0, 0, 0]
        for item in state["strands"]:
            seen[item[1]] += 1
        for hand in state["hands"]:
            for k in range(4):
                seen[k] += hand[k]
        for k in state["market"]:
            if k >= 0:
                seen[k] += 1
        self.pile_hidden = state["pile"] is None
        if not self.pile_hidden:
            seen = [seen[k] + state["pile"][k] for k in range(4)]
            pile_size = 0
        pool_counts = [totals[k] - seen[k] for k in range(4)]
        for k in range(4):
            if pool_counts[k] < 0:
                raise SnapshotError(
                    f"the position shows {seen[k]} {KINDS[k]}s (board, hands, market, pile) "
                    f"but the game has only {totals[k]}"
                )
        places = sum(hidden.values()) + pile_size
        if sum(pool_counts) != places:
            raise SnapshotError(
                f"the game has {sum(pool_counts)} strands the position does not show, but its hidden "
                f"hand places and pile number {places}"
            )
        self.pool = [k for k in range(4) for _ in range(pool_counts[k])]
        self.hidden = [(p, list(state["hands"][p]), n) for p, n in sorted(hidden.items())]
        self.hand_places = sum(hidden.values())
        placeholder = self._placeholder(state)
        over = placeholder["phase"] == PHASE_NAMES[OVER]
        if over:  # the placeholder hands may fit somewhere; the drawn ones will not
            placeholder["phase"] = PHASE_NAMES[PLACE]
        self.base = KnotGame.from_state_dict(options, placeholder)
        if over:
            self.base.phase = OVER
            self.base._legal = self.base._places = None
        self._prepare_condition()

    def _placeholder(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state with the pool dealt in kind order: valid, so the engine checks the rest."""
        filled = dict(state)
        hands = [list(h) for h in state["hands"]]
        pool = iter(self.pool)
        for p, _, n in self.hidden:
            for _ in range(n):
                hands[p][next(pool)] += 1
        filled["hands"] = hands
        if self.pile_hidden:
            rest = list(pool)
            filled["pile"] = [rest.count(k) for k in range(4)]
        return filled

    # ----- the game went on at the start of this turn -----------------------------------------
    def _prepare_condition(self) -> None:
        base = self.base
        players = range(base.n_players)
        self.mode = None
        if base.phase == OVER:
            self.mode, candidates = "none", list(players)
        elif base.placed == 0 and base.phase == PLACE:
            self.mode, candidates = "some", list(players)
        elif base.placed == 0 and base.phase == DRAW:
            # Ending at 0 placed means the player to act had no placement: someone else had.
            self.mode, candidates = "some", [p for p in players if p != base.player]
        if self.mode is None:
            return
        # Kinds that give each candidate a placement (kinds are tried independently, so a hand
        # can place iff it holds one of these).
        scratch = base.clone()
        fitting = {}
        for p in candidates:
            mask = 0
            for k in range(4):
                scratch.hands[p] = [int(k == j) for j in range(4)]
                if scratch.placements(p, scratch.ends[p]):
                    mask |= 1 << k
            fitting[p] = mask
        fixed = {p: list(base.hands[p]) for p in players}
        for p, part, _ in self.hidden:
            fixed[p] = part
        draws = dict((p, n) for p, _, n in self.hidden)
        pool_mask = sum(1 << k for k in set(self.pool))

        def holds(hand, mask):
            return any(hand[k] and mask >> k & 1 for k in range(4))

        if self.mode == "some":
            if any(holds(fixed[p], fitting[p]) for p in candidates):
                self.mode = None  # a strand everybody sees already keeps the game going
                return
            if not any(draws.get(p) and fitting[p] & pool_mask for p in candidates):
                raise SnapshotError(
                    "no player could place a strand at the start of this turn with any hands "
                    "consistent with the position, so the game would be over"
                )
        else:
            for p in candidates:
                if holds(fixed[p], fitting[p]):
                    raise SnapshotError(f"the game is over, yet player_{p} holds a strand that fits")
            # Hall's condition: every group of hidden hands can be filled with non-fitting kinds.
            counts = [self.pool.count(k) for k in range(4)]
            hidden_players = [p for p in candidates if draws.get(p)]
            for subset in range(1, 1 << len(hidden_players)):
                group = [p for i, p in enumerate(hidden_players) if subset >> i & 1]
                allowed = 0
                for p in group:
                    allowed |= 15 & ~fitting[p]
                if sum(draws[p] for p in group) > sum(counts[k] for k in range(4) if allowed >> k & 1):
                    raise SnapshotError(
                        "the game is over, but the hidden hands cannot all be filled with strands "
                        "that fit nowhere"
                    )
        self.check = [(i, fitting[p]) for i, (p, _, _) in enumerate(self.hidden) if p in fitting]

    def _passes(self, hands: list[list[int]]) -> bool:
        if self.mode == "some":
            return any(hands[i][k] for i, mask in self.check for k in range(4) if mask >> k & 1)
        return not any(hands[i][k] for i, mask in self.check for k in range(4) if mask >> k & 1)

    # ----- drawing ----------------------------------------------------------------------------------
    def fill(self, game: KnotGame, rng: random.Random) -> None:
        """Draw the hidden hands (and with them what the pile holds) into ``game``, a clone of
        ``base``: every arrangement of the unseen strands equally likely, given the game went on."""
        for _ in range(MAX_REDRAWS):
            items = self.pool[:]
            rng.shuffle(items)
            hands = []
            at = 0
            for _, part, n in self.hidden:
                hand = part[:]
                for k in items[at:at + n]:
                    hand[k] += 1
                at += n
                hands.append(hand)
            if self.mode is None or self._passes(hands):
                break
        else:
            raise SnapshotError(
                f"no hidden hands consistent with the position found in {MAX_REDRAWS} draws"
            )
        for (p, _, _), hand in zip(self.hidden, hands):
            game.hands[p] = hand
            if p == game.player:
                game._legal = game._places = None  # the cached moves were the placeholder's
        if self.pile_hidden:
            rest = items[at:]
            game.pile = [rest.count(k) for k in range(4)]
