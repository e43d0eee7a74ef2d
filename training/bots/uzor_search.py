"""Uzor's search hooks (``training.search.mcts``): the moves a play-out prefers, the root's candidates,
and the value of a play-out cut off before the end.

They run on full engine states a search samples from its seat's observation (never on
observations), so they see only what that seat may know plus the draws of the sample.
"""

from __future__ import annotations

import math
import threading

from envs.uzor.common import DEAD_TAKE, DEAL, FORK, GOAL, PLACE, TAKE
from envs.uzor.rules import UzorGame, bits_of
from training.bots.uzor_heuristic import HeuristicUzorBot
from training.bots.uzor_scan import _completing, _table_memo, best_completion, completing_placements


def _close_value(state: UzorGame, player: int, patterns: int) -> int:
    """The most points ``player`` scores by closing one of ``patterns`` (a bitmask): the
    pattern's points, doubled for the player's secret goal (drawn, in a sampled state)."""
    points, goal = state.geo.map.points, state.goals[player]
    best = 0
    for k in bits_of(patterns):
        v = points[k] * 2 if k == goal else points[k]
        if v > best:
            best = v
    return best


def preferred_takes(state: UzorGame) -> list[int]:
    """The heuristic's take on an engine state: the market tile that most adds to what the
    taker could close next (their hand with it), plus some of what it would let the opponent
    close (taking it denies it), plus a little for the cells it fits (fewer dead ends)."""
    table = _table_memo(state)
    player = state.to_move
    goal, their_goal = state.goals[player], state.goals[1 - player]
    weight = 1.0 if state.continued and not state.repeated else HeuristicUzorBot.PREPARE
    # remembered with this table's completions: the tree meets the same take again and again
    key = ("take", tuple(state.hands[player]), tuple(state.market), goal, their_goal, weight)
    chosen = table.get(key)
    if chosen is None:
        chosen = table[key] = _choose_takes(state, table, player, goal, their_goal, weight)
    return list(chosen)


def _choose_takes(state, table, player, goal, their_goal, weight) -> tuple[int, ...]:
    """The market slots of the best take, priced as ``HeuristicUzorBot.take`` prices them
    (here the opponent's goal, drawn in a sampled state, counts double for them too)."""
    points = state.geo.map.points
    mine = best_completion(state, player)
    take0 = state.geo.take0
    best, chosen = -1.0, []
    for m, t in enumerate(state.market):
        if t < 0:
            continue
        _, plain, patterns = table.get(t) or _completing(state, t, table)
        gain = 2 * points[goal] if patterns >> goal & 1 else plain
        deny = 2 * points[their_goal] if patterns >> their_goal & 1 else plain
        value = weight * max(mine, gain) + HeuristicUzorBot.DENY * deny + 0.01 * state.cells_for(t).bit_count()
        if value > best + 1e-9:
            best, chosen = value, [take0 + m]
        elif value > best - 1e-9:
            chosen.append(take0 + m)
    return tuple(chosen)


def preferred_actions(state: UzorGame) -> list[int]:
    """The moves the heuristic would consider, cheaply, on an engine state: at a placement
    the ones that complete the most valuable pattern (the mover's goal doubled), else every
    placement; at the fork, closing the most valuable pattern; at a take, the heuristic's
    take; otherwise every legal move."""
    phase = state.phase
    if phase == PLACE:
        player = state.to_move
        completing = completing_placements(state, state.hands[player])
        if completing:
            values = [_close_value(state, player, patterns) for _, patterns in completing]
            best = max(values)
            return [a for (a, _), v in zip(completing, values) if v == best]
    elif phase == FORK:
        player = state.to_move
        best = max(state.fork, key=lambda k: (_close_value(state, player, 1 << k), -k))
        return [state.geo.close0 + best]
    elif phase in (TAKE, DEAD_TAKE):
        return preferred_takes(state)
    return state.legal_actions()


ROOT_CANDIDATES = 8  # placements a search weighs at its root before widening to the rest
_PRICERS = threading.local()  # per thread: a pricer's ``me`` is set for each root it prices


def _pricer(state: UzorGame) -> HeuristicUzorBot:
    """A heuristic bot for this table size and Map, used for its pricing of placements."""
    key = (state.geo.size, repr(state.options["patterns"]))
    pricers = getattr(_PRICERS, "bots", None)
    if pricers is None:
        pricers = _PRICERS.bots = {}
    bot = pricers.get(key)
    if bot is None:
        if len(pricers) >= 4:  # a few table sizes or Maps at a time (a bot holds its geometry)
            pricers.clear()
        bot = pricers[key] = HeuristicUzorBot(seed=0, board_size=state.geo.size, patterns=state.options["patterns"])
    return bot


def root_preferred_actions(state: UzorGame) -> list[int]:
    """The moves a search weighs first at its root, where it is called once per move and may
    cost a few milliseconds: at a placement, the ROOT_CANDIDATES placements the heuristic prices
    best — what they close now (the mover's goal doubled), plus some of what they prepare for
    the mover's next turn, minus most of what they leave the opponent (whose hand is public) —
    priced over every legal placement, not the heuristic's sample; elsewhere
    ``preferred_actions``. Equal prices are ordered by a fixed scramble of the action numbers,
    not by the numbers themselves (which would favour the first hand slot and the top rows)."""
    if state.phase != PLACE:
        return preferred_actions(state)
    bot = _pricer(state)
    bot.me = me = state.to_move
    opp = 1 - me
    baseline = bot.threats(state, state.hands[opp], opp)
    priced = []
    for action in state.legal_actions():
        price = bot.price(state, action, None, baseline)  # as the heuristic prices a placement
        priced.append((-price, (action * 2654435761) % 4294967296, action))
    priced.sort()
    return [action for _, _, action in priced[:ROOT_CANDIDATES]]


EVALUATION_SCALE = 10.0  # points of lead that make a cut-off playout worth tanh(1) ≈ 0.76
NEXT_CLOSE = 0.9  # share of the best close of the player who places next (it is theirs to take)
LATER_CLOSE = 0.45  # share of a close a turn away (it may be blocked or taken first)


def evaluate_state(state: UzorGame) -> list[float]:
    """A playout cut off before the end, priced as the heuristic prices a position: the points
    lead; most of the best pattern the player who places next could close (a pending fork
    counts whole); some of what the other could close a turn later, where the player who is
    about to take counts the market tiles as theirs. Squashed into (−1, 1) per player.
    (The market is left out for the player about to place: after the take that leads there it
    holds a freshly drawn tile, and pricing it made single simulations noisy.) At a chance node
    of the setup nothing is played yet (0 each); at a refill the take is done, as after it."""
    if state.phase in (GOAL, DEAL):
        return [0.0, 0.0]
    mover = state.to_move
    other = 1 - mover
    lead = state.points[mover] - state.points[other]
    phase = state.phase
    if phase == PLACE:
        lead += NEXT_CLOSE * best_completion(state, mover) - LATER_CLOSE * best_completion(state, other)
    else:
        with_market = state.hands[mover] + [t for t in state.market if t >= 0]
        if phase == FORK:
            lead += max(_close_value(state, mover, 1 << k) for k in state.fork)
        # the mover takes next, then places again after a CONTINUE, else the other places
        again = state.continued and not state.repeated
        lead += (NEXT_CLOSE if again else LATER_CLOSE) * best_completion(state, mover, with_market)
        lead -= (LATER_CLOSE if again else NEXT_CLOSE) * best_completion(state, other)
    value = math.tanh(lead / EVALUATION_SCALE)
    return [value, -value] if mover == 0 else [-value, value]
