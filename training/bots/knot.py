"""Knot heuristic: close what can close, capture, grow ribbons towards their other end, keep
out of the gap in front of an opponent's end, and draw the strands the board asks for.

The bot sees only its observation: it decodes it, lays the strands it sees on a public copy of
the board (:meth:`KnotGame.lay_out`, owners relative to itself, so it is always player 0) and
prices each legal action with the engine's own geometry. Opponents' hands are unknown to it
and it never guesses them.
"""

from __future__ import annotations

import random
from typing import Any

from envs.knot.geometry import FIT, OTHER_PORT, SLOT_PORTS, TURN_FOR_PORT
from envs.knot.observer import KnotObserver
from envs.knot.rules import KnotGame
from training.agents import legal_from_mask


def manhattan(size: int, a: int, b: int) -> int:
    ra, ca = divmod(a, size)
    rb, cb = divmod(b, size)
    return abs(ra - rb) + abs(ca - cb)


class HeuristicKnotBot:
    """Prices every legal action; ENDs placing when nothing is worth a strand.

    * closing a ribbon: 100 + 10 × its points;
    * capturing: 50 + 4 × the captured strands; joining two of my ribbons: 25;
    * growing: 8, plus 3 × how much closer the new end comes to the ribbon's other end, plus
      12 when the two ends then wait in one square for a single closing strand;
    * starting a ribbon: 3;
    * −(20 + 3 × ribbon size) when the new end would sit in the gap in front of an opponent's
      end (one strand of theirs could join the two and capture my ribbon), +(15 + ribbon size)
      when growing takes an end out of such a gap.

    Drawing: a market strand that closes or grows one of my ribbons and that I lack, else a
    blind draw, else whatever the market shows.
    """

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = KnotGame.resolve_options(dict(options))
        self.observer = KnotObserver(self.options)
        self.rng = random.Random(seed)
        self.size = self.options["size"]
        self.n = self.size * self.size

    # ----- the public board ----------------------------------------------------------------------
    def _board(self, seen: dict[str, Any]) -> KnotGame:
        rows = [(sq, k, t, owner) for sq, k, t, owner, _ in seen["strands"]]
        board = KnotGame.lay_out(self.options, rows)
        board.hands[0] = list(seen["hand"])
        board.placed_any = list(seen["placed_any"])
        board.growable = set(seen["growable"])
        return board

    def _gap_danger(self, board: KnotGame, end_link: int) -> bool:
        """Would an opponent's single strand join their end to my end linked at ``end_link``?"""
        sq, p = end_link >> 3, end_link & 7
        g = board.geo
        fit = FIT[board.geo_w[sq]] & g.static[sq]
        for other in range(1, board.n_players):
            for e in board.ends[other]:
                lk = g.link[e]
                if lk >> 3 != sq or (lk & 7) % 2 == p % 2:
                    continue
                for k in range(4):
                    slot = 4 * k + TURN_FOR_PORT[k][lk & 7]
                    if fit >> slot & 1 and OTHER_PORT[slot * 8 + (lk & 7)] == p:
                        return True
        return False

    def _price(self, board: KnotGame, action: int) -> float:
        n, size = self.n, self.size
        slot, sq = divmod(action, n)
        g = board.geo
        pa, pb = SLOT_PORTS[slot]
        ga, gb = sq * 8 + pa, sq * 8 + pb
        la, lb = g.link[ga], g.link[gb]
        sa, sb = board.port_strand[la], board.port_strand[lb]
        if sa < 0 and sb < 0:
            value = 3.0
            for end in (ga, gb):
                if self._gap_danger(board, g.link[end]):
                    value -= 20
            return value
        if sa >= 0 and sb >= 0:
            ra, rb = board.st_rib[sa], board.st_rib[sb]
            if ra == rb:
                return 100.0 + 10 * (board.rib_inside[ra] + g.inside[ga] + g.inside[gb])
            owners = (board.rib_owner[ra], board.rib_owner[rb])
            captured = [r for r in (ra, rb) if board.rib_owner[r] != 0]
            if captured:
                return 50.0 + 4 * len(board.rib_strands[captured[0]])
            return 25.0 if owners == (0, 0) else 0.0
        if sa < 0:
            ga, gb, la, lb, sa = gb, ga, lb, la, sb
        r = board.st_rib[sa]
        far = [e for e in board.rib_ends[r] if e != la][0]
        far_link = g.link[far]
        new_link = g.link[gb]
        value = 8.0 + 3 * (manhattan(size, la >> 3, far_link >> 3) - manhattan(size, new_link >> 3, far_link >> 3))
        if new_link >> 3 == far_link >> 3 and (new_link + far_link) % 2 == 1:
            value += 12
        if self._gap_danger(board, new_link):
            value -= 20 + 3 * len(board.rib_strands[r])
        elif self._gap_danger(board, ga):
            value += 15 + len(board.rib_strands[r])  # the end leaves the gap it sat in
        return value

    def _needed_kinds(self, board: KnotGame) -> list[float]:
        """How much each kind would help my ribbons next turn (close > grow)."""
        need = [0.0] * 4
        g = board.geo
        for e in board.ends[0]:
            lk = g.link[e]
            sq, p = lk >> 3, lk & 7
            fit = FIT[board.geo_w[sq]] & g.static[sq]
            for k in range(4):
                slot = 4 * k + TURN_FOR_PORT[k][p]
                if not fit >> slot & 1:
                    continue
                other = board.port_strand[g.link[sq * 8 + OTHER_PORT[slot * 8 + p]]]
                if other >= 0 and board.st_rib[other] == board.st_rib[board.port_strand[e]]:
                    need[k] += 10
                elif other >= 0 and board.rib_owner[board.st_rib[other]] != 0:
                    need[k] += 5
                else:
                    need[k] += 1
        return need

    # ----- acting -----------------------------------------------------------------------------------
    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        if len(legal) == 1:
            return legal[0]
        seen = self.observer.decode(observation)
        board = self._board(seen)
        base = 16 * self.n
        if seen["phase"] == "draw":
            need = self._needed_kinds(board)
            hand = seen["hand"]
            best, choice = 0.0, None
            for action in legal:
                if action in (base + 1, base + 2):
                    k = seen["market"][action - base - 1]
                    value = need[k] / (1 + hand[k])
                    if value > best:
                        best, choice = value, action
            if choice is not None and best >= 2:
                return choice
            if base + 3 in legal:
                return base + 3
            return self.rng.choice(legal)
        scored = []
        for action in legal:
            if action == base:
                scored.append((0.5, action))
            else:
                scored.append((self._price(board, action) + self.rng.random() * 0.01, action))
        if base not in legal:  # must place: the best placement, whatever it is worth
            scored = [s for s in scored if s[1] != base]
        return max(scored)[1]


BOTS = {"heuristic": HeuristicKnotBot}
