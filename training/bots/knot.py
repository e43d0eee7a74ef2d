"""Knot heuristic: close what can close, capture, grow ribbons towards their other end, keep
out of the gap in front of an opponent's end, and draw the strands the board asks for.

One pricing, two users. The functions below price moves on an engine state for the player to
act: the heuristic bot calls them on the public board it lays out from its observation
(:meth:`KnotGame.lay_out`, owners relative to itself, so it is always player 0; opponents'
hands unknown to it and never guessed), and MCTS calls them as search hooks at every step of
every play-out, on states sampled from its own observation.

Prices (placing):

* closing a ribbon: 100 + 10 × its points;
* capturing: 50 + 4 × the captured strands; joining two of my ribbons: 25;
* growing: 8, plus 3 × how much closer the new end comes to the ribbon's other end, plus
  12 when the two ends then wait in one square for a single closing strand;
* starting a ribbon: 3; END: 0.5 (the bot ENDs when nothing beats it);
* −(20 + 3 × ribbon size) when the new end would sit in the gap in front of an opponent's
  end (one strand of theirs could join the two and capture my ribbon; −20 per end of a new
  ribbon), +(15 + ribbon size) when growing takes an end out of such a gap.

Drawing: a market strand that closes or grows one of my ribbons and that I lack, else a
blind draw, else whatever the market shows.
"""

from __future__ import annotations

import math
import random
from typing import Any

from envs.core.game import relative_margins
from envs.knot.geometry import FIT, OTHER_PORT, TURN_FOR_PORT
from envs.knot.observer import KnotObserver
from envs.knot.options import BONUS, DRAW
from envs.knot.rules import KnotGame
from training.agents.base import legal_from_mask
from training.bots import BotKit, LadderSpec, SearchHooks

PREFERRED_MARGIN = 3.0  # placements priced within this of the best are all "preferred"
END_PRICE = 0.5  # what the heuristic's END is worth: it ENDs when nothing beats it
NEW_RIBBON_PRICE = 3.0  # a new ribbon with neither end in a gap
GAP_PENALTY = 20.0  # per end of a new ribbon left in a gap
OPEN_RIBBON_WEIGHT = 0.5  # an open ribbon's points count half: it may close, or be captured
DRAW_THRESHOLD = 2.0  # a market strand is taken face up only when it helps at least this much
TIE_NOISE = 0.01  # the bot breaks ties between equal prices at random, by less than this


class HeuristicKnotBot:
    """Prices every legal action with :func:`placement_prices` / :func:`draw_choice` on the
    public board its observation shows; ENDs placing when nothing is worth a strand."""

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = KnotGame.resolve_options(dict(options))
        self.observer = KnotObserver(self.options)
        self.rng = random.Random(seed)
        self.end_action = 16 * self.options["size"] ** 2

    def public_board(self, seen: dict[str, Any]) -> KnotGame:
        """The board of a decoded observation as an engine state: owners relative (I am
        player 0, to act), my hand, the market, who has placed, my growable ends; no other
        hand, no pile."""
        rows = [(sq, k, t, owner) for sq, k, t, owner, _ in seen["strands"]]
        return KnotGame.lay_out(self.options, rows, hand=seen["hand"], market=seen["market"],
                                placed_any=seen["placed_any"], growable=seen["growable"])

    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        if len(legal) == 1:
            return legal[0]
        seen = self.observer.decode(observation)
        board = self.public_board(seen)
        if seen["phase"] == "draw":
            choices = draw_choice(board, legal)
            return choices[0] if len(choices) == 1 else self.rng.choice(choices)
        prices = placement_prices(board, legal)
        scored = [
            (END_PRICE, action) if action == self.end_action else (prices[action] + self.rng.random() * TIE_NOISE, action)
            for action in legal
        ]
        return max(scored)[1]


# ----- the pricing, on engine states ---------------------------------------------------------
# MCTS calls these at every step of every play-out, so they read the engine's fields directly.


class BoardCache:
    """One remembered value per (board, player): the engine renews ``board_token`` at every
    placement (clones share it until then), so facts about the board alone (gap ports, the
    kinds a player's ends need) are computed once for the many samples and draws that share
    a board."""

    def __init__(self, compute):
        self.compute = compute
        self.key: tuple[object, int] | None = None
        self.value = None

    def __call__(self, state: KnotGame, player: int):
        token = state.board_token
        if self.key is None or self.key[0] is not token or self.key[1] != player:
            self.value = self.compute(state, player)
            self.key = (token, player)  # holds the token, so its identity cannot be reused
        return self.value


def _gap_ports(state: KnotGame, player: int) -> frozenset[int]:
    """Global ports where an end of ``player``'s would sit in a gap: one strand of some kind
    could join it to another player's open end (and so capture its ribbon)."""
    g = state.geo
    link, static, geo_w = g.link, g.static, state.geo_w
    danger = set()
    for other, ends in enumerate(state.ends):
        if other == player:
            continue
        for e in ends:
            lk = link[e]
            sq, p = lk >> 3, lk & 7
            fit = FIT[geo_w[sq]] & static[sq]
            for k in range(4):
                slot = 4 * k + TURN_FOR_PORT[k][p]
                if fit >> slot & 1:
                    danger.add(sq * 8 + OTHER_PORT[slot * 8 + p])
    return frozenset(danger)


def _needed_kinds(state: KnotGame, player: int) -> tuple[float, ...]:
    """How much each kind would help ``player``'s ribbons next turn (close 10, capture 5,
    grow 1, per end it fits)."""
    need = [0.0] * 4
    g = state.geo
    link, static, geo_w = g.link, g.static, state.geo_w
    port_strand, st_rib, rib_owner = state.port_strand, state.st_rib, state.rib_owner
    for e in state.ends[player]:
        lk = link[e]
        sq, p = lk >> 3, lk & 7
        fit = FIT[geo_w[sq]] & static[sq]
        mine = st_rib[port_strand[e]]
        for k in range(4):
            slot = 4 * k + TURN_FOR_PORT[k][p]
            if not fit >> slot & 1:
                continue
            other = port_strand[link[sq * 8 + OTHER_PORT[slot * 8 + p]]]
            if other >= 0 and st_rib[other] == mine:
                need[k] += 10
            elif other >= 0 and rib_owner[st_rib[other]] != player:
                need[k] += 5
            else:
                need[k] += 1
    return tuple(need)


gap_ports = BoardCache(_gap_ports)
needed_kinds = BoardCache(_needed_kinds)


def end_move_prices(state: KnotGame, legal_set: set[int], danger: frozenset[int]) -> dict[int, float]:
    """The heuristic's price of every legal placement meeting one of the acting player's ends
    (close, capture, join, grow), found from the ends rather than from every legal action."""
    player, n, size = state.player, state.n, state.size
    g = state.geo
    link, inside, static, geo_w = g.link, g.inside, g.static, state.geo_w
    port_strand, st_rib = state.port_strand, state.st_rib
    rib_owner, rib_ends, rib_strands, rib_inside = state.rib_owner, state.rib_ends, state.rib_strands, state.rib_inside
    hand = state.hands[player]
    kinds = [k for k in range(4) if hand[k]]
    hand_slots = 0
    for k in kinds:
        hand_slots |= 0xF << (4 * k)
    prices: dict[int, float] = {}
    for e in state.ends[player]:
        lk = link[e]
        sq, p = lk >> 3, lk & 7
        fit = FIT[geo_w[sq]] & static[sq] & hand_slots
        if not fit:
            continue
        r = st_rib[port_strand[e]]
        growth = None  # what growing this end is worth before the new end is known
        for k in kinds:
            slot = 4 * k + TURN_FOR_PORT[k][p]
            action = slot * n + sq
            if not fit >> slot & 1 or action not in legal_set or action in prices:
                continue
            gq = sq * 8 + OTHER_PORT[slot * 8 + p]
            lq = link[gq]
            s2 = port_strand[lq]
            if s2 >= 0:
                r2 = st_rib[s2]
                if r2 == r:
                    prices[action] = 100.0 + 10 * (rib_inside[r] + inside[lk] + inside[gq])
                elif rib_owner[r2] != player:
                    prices[action] = 50.0 + 4 * len(rib_strands[r2])
                else:
                    prices[action] = 25.0
                continue
            if growth is None:
                far = rib_ends[r][0] if rib_ends[r][1] == e else rib_ends[r][1]
                far_link = link[far]
                far_sq = far_link >> 3
                fr, fc = divmod(far_sq, size)
                mr, mc = divmod(e >> 3, size)  # as the heuristic: the end's own square
                strands = len(rib_strands[r])
                growth = 8.0 + 3 * (abs(mr - fr) + abs(mc - fc))
                if lk in danger:
                    escape = 15 + strands  # the end leaves the gap it sat in
                else:
                    escape = 0
            nr, nc = divmod(lq >> 3, size)
            value = growth - 3 * (abs(nr - fr) + abs(nc - fc))
            if lq >> 3 == far_sq and (lq + far_link) % 2 == 1:
                value += 12
            if lq in danger:
                value -= GAP_PENALTY + 3 * strands
            else:
                value += escape
            prices[action] = value
    return prices


def gap_ends(state: KnotGame, danger: frozenset[int]) -> dict[int, int]:
    """Placement → how many of its ends would sit in a gap, for the placements with any: found
    from the (few) gap ports, each the partner of one port per kind."""
    n, link = state.n, state.geo.link
    hand = state.hands[state.player]
    kinds = [k for k in range(4) if hand[k]]
    counts: dict[int, int] = {}
    for d in danger:
        q = link[d]
        sq, p = q >> 3, q & 7
        for k in kinds:
            action = (4 * k + TURN_FOR_PORT[k][p]) * n + sq
            counts[action] = counts.get(action, 0) + 1
    return counts


def placement_prices(state: KnotGame, legal: list[int]) -> dict[int, float]:
    """The heuristic's price of every legal action in the placing phase (END 0.5)."""
    danger = gap_ports(state, state.player)
    prices = end_move_prices(state, set(legal), danger)
    in_gap = gap_ends(state, danger)
    end_action = 16 * state.n
    for action in legal:
        if action not in prices:
            prices[action] = END_PRICE if action == end_action else NEW_RIBBON_PRICE - GAP_PENALTY * in_gap.get(action, 0)
    return prices


def draw_choice(state: KnotGame, legal: list[int]) -> list[int]:
    """The heuristic's draw: a market strand my ribbons need and I lack, else blind, else any."""
    base = 16 * state.n
    need = needed_kinds(state, state.player)
    hand = state.hands[state.player]
    best, choice = 0.0, -1
    for which in (0, 1):
        k = state.market[which]
        if k >= 0:
            value = need[k] / (1 + hand[k])
            if value > best:
                best, choice = value, base + 1 + which
    if choice >= 0 and best >= DRAW_THRESHOLD:
        return [choice]
    if base + 3 in legal:
        return [base + 3]
    return legal


def preferred_actions(state: KnotGame) -> list[int]:
    """The moves the heuristic would consider, for MCTS to play out among and try first: the
    placements (and END) priced within ``PREFERRED_MARGIN`` of the best, or the heuristic's
    draw. Always a non-empty subset of ``state.legal_actions()``, in ascending order."""
    legal = state.legal_actions()
    if len(legal) <= 1:
        return legal
    if state.phase == DRAW:
        return draw_choice(state, legal)
    danger = gap_ports(state, state.player)
    prices = end_move_prices(state, set(legal), danger)
    best = max(prices.values()) if prices else -math.inf
    if best >= NEW_RIBBON_PRICE + PREFERRED_MARGIN:  # no new ribbon or END comes near
        floor = best - PREFERRED_MARGIN
        return sorted(action for action, price in prices.items() if price >= floor)
    # Every other action is a new ribbon (3, less 20 per end in a gap) or END (0.5).
    in_gap = gap_ends(state, danger)
    end_action = 16 * state.n
    values = []
    for action in legal:
        if action in prices:
            values.append(prices[action])
        elif action == end_action:
            values.append(END_PRICE)
        else:
            values.append(NEW_RIBBON_PRICE - GAP_PENALTY * in_gap[action] if action in in_gap else NEW_RIBBON_PRICE)
    floor = max(values) - PREFERRED_MARGIN
    return [action for action, value in zip(legal, values) if value >= floor]


def evaluate_state(state: KnotGame) -> list[float]:
    """A playout cut off before the end, per player in (−1, 1): the relative lead of its
    prospects over the best other player's, where prospects are banked points, half the
    points of its open ribbons and the longest-ribbon bonus if the game ended now."""
    prospects = [float(points) for points in state.banked]
    rib_ends, rib_inside = state.rib_ends, state.rib_inside
    for r, owner in enumerate(state.rib_owner):
        if owner >= 0 and rib_ends[r] is not None:
            prospects[owner] += OPEN_RIBBON_WEIGHT * rib_inside[r]
    holder = state.bonus_owner()
    if holder >= 0:
        prospects[holder] += BONUS
    return relative_margins(prospects)


KIT = BotKit(
    heuristic=HeuristicKnotBot,
    search=SearchHooks(preferred=preferred_actions, evaluate=evaluate_state),
    ladders=(
        LadderSpec({"size": 4}, mcts=":depth=10:c=0.2", top_games=60,
                   note="2 players on 4×4, the smallest board; play-outs cut after 10 moves"),
        LadderSpec({}, mcts=":depth=10:c=0.2", trained="checkpoints/knot/knot__maskppo__0.zip", climb=False,
                   place_against=2, note="where the shipped agent (default 6×6 board) stands"),
    ),
)
