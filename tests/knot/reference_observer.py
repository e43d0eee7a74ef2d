"""Knot's flat observation computed the straightforward way, from the position alone: a
zeroed vector and one write per entry, nothing kept between calls (the layout of
``envs.knot.observer.KnotObserver``, which puts the same vector together from kept pieces).
Tests compare the two."""

from __future__ import annotations

import numpy as np

from envs.knot.geometry import SLOTS
from envs.knot.observer import KnotObserver
from envs.knot.options import DEAL, HAND_SIZE, OVER, PLACE, place_limit


def reference_observe(observer: KnotObserver, game, player: int) -> np.ndarray:
    P, S = observer.players, observer.n
    obs = np.zeros(observer.size, np.float32)

    def rel(p: int) -> int:
        return (p - player) % P

    for sq, slot, r in zip(game.st_sq, game.st_slot, game.st_rib):
        obs[observer.STRANDS + (rel(game.rib_owner[r]) * SLOTS + slot) * S + sq] = 1.0
        if game.rib_closed[r] >= 0:
            obs[observer.CLOSED + slot * S + sq] = 1.0
    for sq, word in enumerate(game.geo_w):
        for side in range(4):
            if word >> (4 + side) & 1:
                obs[observer.BLOCKED + side * S + sq] = 1.0
    for p in range(P):
        for e in game.ends[p]:
            obs[observer.ENDS + (rel(p) * 8 + (e & 7)) * S + (e >> 3)] = 1.0
    if game.phase == PLACE and game.player == player:
        for e in game.growable:
            obs[observer.GROWABLE + (e & 7) * S + (e >> 3)] = 1.0
    for k in range(4):
        obs[observer.HAND + k] = game.hands[player][k] / HAND_SIZE
    for slot in (0, 1):
        obs[observer.MARKET + 5 * slot + game.market[slot] + 1] = 1.0
    obs[observer.PILE] = sum(game.pile) / observer.total
    scores = game.scores()
    for p in range(P):
        j = rel(p)
        obs[observer.SCORES + j] = min(scores[p] / observer.score_scale, 1.0)
        obs[observer.HAND_SIZES + j] = sum(game.hands[p]) / HAND_SIZE
        obs[observer.PLACED_ANY + j] = float(game.placed_any[p])
        if j:
            for k in range(4):
                obs[observer.KNOWN + (j - 1) * 4 + k] = game.known[p][k] / HAND_SIZE
    obs[observer.TURN] = min(game.turn / observer.turn_scale, 1.0)
    obs[observer.LIMIT] = place_limit(game.turn) / 3
    if game.player == player and game.phase != OVER:
        obs[observer.PLACED] = game.placed / 3
    if game.phase != DEAL:
        obs[observer.PHASE + game.phase] = 1.0
    if game.current_player() >= 0:
        obs[observer.ACTOR + rel(game.player)] = 1.0
    return obs
