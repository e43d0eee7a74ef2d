"""Uzor's flat observation computed the straightforward way, from the position alone: a zeroed
vector and one write per entry, nothing kept between calls (the layout of
``envs.uzor.observer.UzorObserver``, which puts the same vector together from kept pieces).
Tests compare the two."""

from __future__ import annotations

import numpy as np

from envs.uzor.common import COPIES, IDLE_LIMIT, SHOWN_PHASES, STONE, SUPPLY_MAX, TYPES
from envs.uzor.observer import CELL_FEATURES, SLOT, UzorObserver
from envs.uzor.patterns import MAP_SIZE


def reference_observe(observer: UzorObserver, game, player: int) -> np.ndarray:
    obs = np.zeros(observer.size, np.float32)
    table = obs[observer.TABLE:observer.TABLE + observer.cells * CELL_FEATURES].reshape(observer.cells, CELL_FEATURES)
    for x, v in enumerate(game.board):
        if v < 0:
            table[x, 0] = 1.0  # empty
        elif v >= STONE:
            table[x, 1] = 1.0  # a stone
        else:
            table[x, 2 + v // 5] = table[x, 7 + v % 5] = 1.0  # motif, colour
    mine, theirs = game.hands[player], game.hands[1 - player]
    for t in range(TYPES):
        market = sum(1 for m in game.market if m == t)
        supply = COPIES - game.on_table[t] - mine.count(t) - theirs.count(t) - market
        obs[observer.MY_HAND + t] = np.float32(mine.count(t)) / np.float32(COPIES)
        obs[observer.THEIR_HAND + t] = np.float32(theirs.count(t)) / np.float32(COPIES)
        obs[observer.SUPPLY_COUNTS + t] = np.float32(supply) / np.float32(COPIES)
    for m, t in enumerate(game.market):
        obs[observer.MARKET + m * SLOT + t + 1] = 1.0
    facedown = sum(game.facedown)
    places = [None] * facedown + list(game.discards)  # from the top: face down, then the face-up discards
    for i, t in enumerate(places[:SUPPLY_MAX]):
        obs[observer.SUPPLY_PLACES + i * SLOT + (0 if t is None else t + 1)] = 1.0
    for k in range(MAP_SIZE):
        if game.crossed >> k & 1:
            obs[observer.CROSSED + k] = 1.0
    if game.goals[player] is not None:
        obs[observer.MY_GOAL + game.goals[player]] = 1.0
    obs[observer.TO_MOVE] = float(game.current_player() == player)
    obs[observer.SEAT] = float(player == 0)
    if game.phase < SHOWN_PHASES:
        obs[observer.PHASE + game.phase] = 1.0
    obs[observer.REPEATED] = float(game.repeated)
    obs[observer.CONTINUED] = float(game.continued)
    if game.last_cell >= 0:
        obs[observer.LAST + game.last_cell] = 1.0
    for k in game.fork:
        obs[observer.FORK + k] = 1.0
    obs[observer.SUPPLY_SIZE] = min(len(places), SUPPLY_MAX) / SUPPLY_MAX
    obs[observer.SCORES] = game.points[player] / observer.scale
    obs[observer.SCORES + 1] = game.points[1 - player] / observer.scale
    obs[observer.IDLE] = game.idle / IDLE_LIMIT
    return obs
