"""The PettingZoo environment: PettingZoo's own tests, rewards, illegal actions, snapshots, pictures."""

from __future__ import annotations

import functools
import json
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs
from envs import fill_v0
from envs.core.game import OptionError, SnapshotError

OPTION_SETS = [
    {},
    {"lines": "strict"},
    {"lines": "off", "size": 7},
    {"traps": True, "rocks": True, "gems": True},
    {"size": 8, "lines": "strict", "traps": True, "gems": True},
    {"rocks": True, "rock_cells": [0, 5, 30], "gems": True, "gem_cells": [(35, "pass"), (3, "double")]},
]


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize("options", OPTION_SETS)
def test_pettingzoo_api(options):
    api_test(fill_v0.env(**options), num_cycles=300)
    api_test(fill_v0.raw_env(**options), num_cycles=100)


@pytest.mark.parametrize("options", OPTION_SETS[:4] + [{"time_limit": True, "clock": FakeClock(), "traps": True}])
def test_pettingzoo_seed(options):
    seed_test(functools.partial(fill_v0.env, **options), num_cycles=300)


@pytest.mark.parametrize("options", [{}, {"traps": True, "gems": True, "rocks": True}, {"size": 8, "viewer": "all", "traps": True}])
def test_pettingzoo_render(options):
    render_test(lambda render_mode=None: fill_v0.env(render_mode=render_mode, **options))


def play_random(env, seed):
    env.reset(seed=seed)
    rng = random.Random(seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def test_rewards_and_scores_at_the_end():
    env = fill_v0.env(traps=True, gems=True)
    for seed in range(10):
        env.reset(seed=seed)
        rng = random.Random(seed)
        totals = {a: 0.0 for a in env.possible_agents}
        final = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term or trunc:
                final[agent] = info["scores"]
                env.step(None)
                continue
            assert info["scores"].tolist() == [0.0, 0.0]
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        assert sorted(totals.values()) == [-1.0, 1.0]
        winner = max(totals, key=totals.get)
        loser = ({"player_0", "player_1"} - {winner}).pop()
        expected = [1.0 if agent == winner else 0.0 for agent in env.possible_agents]
        assert final[winner].tolist() == final[loser].tolist() == expected


def test_registry_and_load():
    assert "fill_v0" in envs.GAMES and envs.load("fill") is fill_v0
    assert fill_v0.raw_env().action_space("player_0").n == 43
    assert fill_v0.raw_env(size=8).action_space("player_1").n == 71
    assert fill_v0.raw_env(size=7).observation_space("player_0")["observation"].shape == (10 * 49 + 30 + 24,)


def test_illegal_action_raw_raises_and_wrapped_ends_the_game():
    raw = fill_v0.raw_env()
    raw.reset(seed=0)
    raw.step(14)
    with pytest.raises(ValueError, match="chooses"):
        raw.step(3)
    env = fill_v0.env()
    env.reset(seed=0)
    env.step(14)
    env.step(36)  # stay
    with pytest.warns(UserWarning, match="that cell touches no filled cell"):
        env.step(0)  # touches nothing
    assert env.rewards["player_1"] == -1
    assert all(env.terminations.values())


def test_bad_options_raise_option_errors():
    with pytest.raises(OptionError, match="'size'"):
        fill_v0.env(size=9)
    with pytest.raises(ValueError, match="viewer"):
        fill_v0.env(viewer="player_3")
    with pytest.raises(ValueError, match="gem_cells"):
        fill_v0.env(gems=True, gem_cells=[(3, "trap")])


def test_mask_matches_the_rules_page():
    env = fill_v0.raw_env(traps=True, rocks=True, rock_cells=[0], gems=True, gem_cells=[(30, "double")])
    env.reset(seed=0)
    n = 36
    mask = env.observe("player_0")["action_mask"]
    assert mask.tolist() == [0] + [1] * 35 + [0] * 7  # seed: every non-rock cell
    assert env.observe("player_1")["action_mask"].sum() == 0
    env.step(14)
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == [n, n + 1]
    env.step(n)  # stay
    trap_mask = np.flatnonzero(env.observe("player_1")["action_mask"]).tolist()
    assert trap_mask == [c for c in range(n) if c not in (0, 14)] + [n + 6]


def test_snapshot_through_json_and_restore_continues_identically():
    clock = FakeClock()
    options = {"traps": True, "gems": True, "time_limit": True, "clock": clock}
    for seed in range(5):
        env = fill_v0.raw_env(**options)
        env.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(1, 25)):
            if env.game.is_terminal():
                break
            clock.now += 1.5
            env.step(rng.choice(env.game.legal_actions()))
        snap = json.loads(json.dumps(env.unwrapped.snapshot()))
        assert snap["options"]["clock"] is None
        other = fill_v0.raw_env(**options)
        other.reset(seed=99)
        other.restore(snap)
        while not env.game.is_terminal():
            a = rng.choice(env.game.legal_actions())
            clock.now += 2.0
            env.step(a)
            other.step(a)
            assert env.observe("player_0")["observation"].tobytes() == other.observe("player_0")["observation"].tobytes()
        assert other.game.is_terminal() and other.game.winner == env.game.winner


def test_restore_refuses_other_options_and_bad_snapshots():
    env = fill_v0.raw_env(traps=True)
    env.reset(seed=0)
    snap = env.snapshot()
    with pytest.raises(SnapshotError, match="options"):
        fill_v0.raw_env().restore(snap)
    broken = json.loads(json.dumps(snap))
    broken["state"]["phase"] = "dance"
    with pytest.raises(SnapshotError, match="phase"):
        env.restore(broken)
    broken = json.loads(json.dumps(snap))
    broken["state"]["filled"] = [0, 1, 2]
    with pytest.raises(SnapshotError):
        env.restore(broken)
    broken = json.loads(json.dumps(snap))
    del broken["state"]["turns"]
    with pytest.raises(SnapshotError, match="turns"):
        env.restore(broken)
    with pytest.raises(SnapshotError):
        env.restore("{not json")


def test_three_in_a_row_snapshot_is_refused():
    env = fill_v0.raw_env()
    env.reset(seed=0)
    for a in (14, 36, 15):
        env.step(a)
    snap = json.loads(json.dumps(env.snapshot()))
    snap["state"]["filled"] = [13, 14, 15]
    with pytest.raises(SnapshotError, match="three in a row"):
        env.restore(snap)


def test_unwrapped_engine_api():
    env = fill_v0.env(gems=True)
    env.reset(seed=2)
    u = env.unwrapped
    assert u.action_to_string(0) == "a1" and u.string_to_action("b1") == 1
    assert u.why_illegal(40) is not None and u.why_illegal(3) is None
    u.step(14)
    assert u.can_still_be_filled(0) and len(u.legal_cells()) == 8 and u.poisoned_cells() == []
    assert u.time_left_now(0) is None


def test_pictures_show_the_hints_and_only_the_viewers_trap():
    options = {"traps": True, "gem_cells": [(0, "pass")], "gems": True}
    pictures = {}
    for viewer in (None, "player_0", "player_1", "all"):
        env = fill_v0.raw_env(render_mode="ansi", viewer=viewer, **options)
        env.reset(seed=0)
        for move in ("c3", "swap", "trap f6", "c4"):  # player_0's trap is live now
            env.step(env.game.string_to_action(move))
        pictures[viewer] = env.render()
    assert "[" not in pictures[None] and "[" not in pictures["player_1"]
    assert "[·]" in pictures["player_0"] and "[·]" in pictures["all"]
    assert "□" in pictures[None] and "×" in pictures[None] and " p " in pictures[None]  # gem, not live now
    assert "traps ready" not in pictures[None] and "traps ready 1" in pictures["player_0"]
    assert "traps ready" not in pictures["player_1"].split("player_0 tokens")[1].split("\n")[0]
    rgb = {}
    for viewer in (None, "player_0"):
        env = fill_v0.raw_env(render_mode="rgb_array", viewer=viewer, **options)
        env.reset(seed=0)
        for move in ("c3", "swap", "trap f6", "c4"):
            env.step(env.game.string_to_action(move))
        rgb[viewer] = env.render()
        assert rgb[viewer].dtype == np.uint8 and rgb[viewer].ndim == 3
    assert rgb[None].shape == rgb["player_0"].shape and not np.array_equal(rgb[None], rgb["player_0"])


def test_wrapped_env_reads_the_raw_envs_attributes_and_enforces_order():
    from pettingzoo.utils import wrappers as pz_wrappers

    env = fill_v0.env()
    assert isinstance(env, pz_wrappers.OrderEnforcingWrapper)
    with pytest.raises(AttributeError, match="before reset"):
        env.agent_selection
    with pytest.raises(AttributeError):
        env.num_agents
    env.reset(seed=0)
    raw = env.unwrapped
    assert env.agent_selection == raw.agent_selection == "player_0"
    assert env.terminations is raw.terminations and env.infos is raw.infos
    assert env.num_agents == 2 and env.possible_agents == ["player_0", "player_1"]


def test_seed_test_with_the_real_clock():
    seed_test(functools.partial(fill_v0.env, time_limit=True, traps=True), num_cycles=200)


def test_pictures_keep_one_frame_size_per_board():
    env = fill_v0.raw_env(render_mode="rgb_array", viewer="all", traps=True, gems=True, size=7)
    env.reset(seed=4)
    shapes = set()
    rng = random.Random(4)
    while not env.game.is_terminal():
        shapes.add(env.render().shape)
        env.step(rng.choice(env.game.legal_actions()))
    shapes.add(env.render().shape)
    assert len(shapes) == 1
