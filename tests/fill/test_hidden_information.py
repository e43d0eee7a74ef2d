"""Hidden information: the victim's observation and mask do not depend on the trapper's traps.

The same public history is played with player_0 setting no traps, traps on cells player_1
does not fill, and traps on the very cell player_1 fills while fewer than 3 cells are legal
(the trap does not spring). player_1's observations and masks must be byte for byte the same.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import fill_v0
from envs.fill.rules import FILL, FILL2, TOKEN, TRAP_PHASE

TRAPPER, VICTIM = 0, 1


def public_history(options, seed):
    """A random game in which player_0 never traps: the public actions, in order."""
    env = fill_v0.raw_env(**options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    history = []
    while not env.game.is_terminal():
        game = env.game
        legal = game.legal_actions()
        if game.phase == TRAP_PHASE and game.to_move == TRAPPER:
            action = game.n + 6  # NO_TRAP: hidden, not part of the public history
        else:
            action = rng.choice(legal)
            history.append((game.to_move, game.phase, action))
        env.step(action)
    return history


def victim_fills_after(history, index):
    """The victim's fills in its next turn after public step ``index``: (step, cell) pairs."""
    fills = []
    started = False
    for step in range(index, len(history)):
        player, phase, action = history[step]
        if player == VICTIM:
            started = True
            if phase in (FILL, FILL2):
                fills.append((step, action))
        elif started:
            break
    return fills


def replay(options, seed, history, trap_policy):
    """Replay the public history; ``trap_policy(game, step)`` picks player_0's hidden trap
    actions. Returns player_1's (observation bytes, mask bytes) before every public step and
    at the end, and player_0's observations."""
    env = fill_v0.raw_env(**options)
    env.reset(seed=seed)
    victim_view, trapper_view, legal_counts = [], [], []
    step = 0

    def record():
        legal_counts.append(env.game.legal_mask().bit_count())
        obs = env.observe("player_1")
        victim_view.append((obs["observation"].tobytes(), obs["action_mask"].tobytes()))
        trapper_view.append(env.observe("player_0")["observation"].tobytes())

    while True:
        game = env.game
        if game.phase == TRAP_PHASE and game.to_move == TRAPPER:
            env.step(trap_policy(game, step))
            continue
        record()
        if step == len(history):
            break
        player, phase, action = history[step]
        assert game.to_move == player and game.phase == phase
        env.step(action)
        step += 1
    assert env.game.is_terminal()
    return victim_view, trapper_view, legal_counts


OPTION_SETS = [
    {"traps": True},
    {"traps": True, "gems": True},
    {"traps": True, "gems": True, "rocks": True, "lines": "strict"},
    {"traps": True, "gems": True, "size": 8, "lines": "off"},
    {"traps": True, "gems": True, "size": 7},
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_victim_view_is_identical_with_and_without_traps(options):
    differing_trapper_views = 0
    spared_traps = 0
    for seed in range(12):
        history = public_history(options, seed)
        base, base_trapper, legal_counts = replay(options, seed, history, lambda game, step: game.n + 6)
        rng = random.Random(seed)

        def random_elsewhere(game, step):
            avoid = {cell for _, cell in victim_fills_after(history, step)}
            empty = [a for a in game.legal_actions() if a < game.n and a not in avoid]
            return rng.choice(empty) if empty and rng.random() < 0.8 else game.n + 6

        def on_the_fill_when_few_legal(game, step):
            nonlocal spared_traps
            for fill_step, cell in victim_fills_after(history, step):
                if legal_counts[fill_step] < 3:  # counted just before the victim's fill
                    spared_traps += 1
                    return cell  # it will not spring: same public history
            return random_elsewhere(game, step)

        for policy in (random_elsewhere, on_the_fill_when_few_legal):
            view, trapper, _ = replay(options, seed, history, policy)
            assert view == base
            differing_trapper_views += sum(a != b for a, b in zip(trapper, base_trapper))
    assert differing_trapper_views > 0  # the trapper does see its own traps
    assert spared_traps > 0  # traps on the victim's own fill that do not spring were tried


def test_opponents_phase_and_trap_stock_are_not_shown():
    env = fill_v0.raw_env(traps=True, gems=True, gem_cells=[(0, "trap")])
    env.reset(seed=1)
    game = env.game
    env.step(game.string_to_action("c3"))
    env.step(game.n + 1)  # swap: player_0 moves
    assert game.phase == TRAP_PHASE and game.to_move == 0
    decoded = env.observer.decode(env.observe("player_1"))
    assert decoded["to_act"] == "opponent" and decoded["phase"] is None
    assert decoded["my_trap"] is None and decoded["ready_traps"] == 2
    mine = env.observer.decode(env.observe("player_0"))
    assert mine["phase"] == "trap" and mine["to_act"] == "me"
    env.step(game.string_to_action("d4"))  # trap d4
    assert env.observer.decode(env.observe("player_0"))["my_trap"] == game.string_to_action("d4")
    assert env.observer.decode(env.observe("player_0"))["recharging"] == [3]
    assert env.observer.decode(env.observe("player_1"))["my_trap"] is None
    env.step(game.string_to_action("c4"))  # player_0 fills
    # player_1's mask still offers the trapped cell
    mask = env.observe("player_1")["action_mask"]
    assert mask[game.string_to_action("d4")] == 1


def test_a_sprung_trap_is_revealed_to_both():
    env = fill_v0.raw_env(traps=True)
    env.reset(seed=1)
    game = env.game
    for move in ("c3", "swap", "trap d4", "c4", "no-trap", "d4"):
        env.step(game.string_to_action(move))
    assert game.last_sprung == (game.string_to_action("d4"), 0)
    for agent, owner in (("player_0", "me"), ("player_1", "opponent")):
        assert env.observer.decode(env.observe(agent))["last_sprung"] == (game.string_to_action("d4"), owner)


def test_opponents_clock_does_not_tick_through_their_hidden_steps():
    class Clock:
        now = 0.0

        def __call__(self):
            return self.now

    clock = Clock()
    env = fill_v0.raw_env(traps=True, time_limit=True, clock=clock)
    env.reset(seed=0)
    game = env.game
    env.step(game.string_to_action("c3"))
    clock.now += 5
    env.step(game.n + 1)  # swap: player_0 acts, trap phase first
    before = env.observer.decode(env.observe("player_1"))["their_time"]
    clock.now += 7
    env.step(game.string_to_action("d4"))  # hidden trap step: 7 s of player_0's time
    assert env.observer.decode(env.observe("player_1"))["their_time"] == before
    assert env.observer.decode(env.observe("player_0"))["my_time"] == pytest.approx(120 - 7)
    clock.now += 3
    env.step(game.string_to_action("c4"))  # turn over: now the whole turn shows
    assert env.observer.decode(env.observe("player_1"))["their_time"] == pytest.approx(120 - 10, abs=1e-3)
