"""The shared AEC adapter, checked over every registered game."""

from __future__ import annotations

import json
import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs
from envs.core import IllegalActionError, OptionError, SnapshotError

GAMES = envs.GAMES


def play_random(env, rng: random.Random, max_steps: int = 100_000) -> list[int]:
    """Random legal play to the end through the AEC API; returns the actions taken."""
    actions = []
    for agent in env.agent_iter(max_steps):
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        actions.append(action)
        env.step(action)
    return actions


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_seed_and_render(game):
    module = envs.load(game)
    api_test(module.env(), num_cycles=300)
    seed_test(module.env, num_cycles=300)
    render_test(module.env)


@pytest.mark.skipif(not hasattr(pettingzoo, "aec_registry"), reason="the installed PettingZoo has no registry (before 1.27)")
@pytest.mark.parametrize("game", GAMES)
def test_registered_with_pettingzoo(game):
    env = pettingzoo.make("aec", envs.describe(game).env_id)
    env.reset(seed=3)
    assert env.unwrapped.metadata["name"] == game


def test_envs_import_and_play_with_a_pettingzoo_without_a_registry():
    """PettingZoo before 1.27 (AgileRL pins one) has no ``aec_registry``/``register``: the
    suite imports without registering, and every game plays as usual."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
import random, sys
import numpy as np
import pettingzoo
for name in ("aec_registry", "register"):   # as before 1.27: no registry
    if hasattr(pettingzoo, name):
        delattr(pettingzoo, name)
sys.modules["pettingzoo.env_registry"] = None
import envs
assert envs.REGISTERED_WITH_PETTINGZOO is False
for game in envs.GAMES:
    env = envs.load(game).env()
    env.reset(seed=0)
    rng = random.Random(0)
    for agent in env.agent_iter(20000):
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
print("played", len(envs.GAMES))
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"played {len(GAMES)}"


@pytest.mark.parametrize("game", GAMES)
def test_unknown_option_and_render_mode_are_named(game):
    module = envs.load(game)
    with pytest.raises(OptionError, match="unknown option 'colour'"):
        module.raw_env(colour=3)
    with pytest.raises(OptionError, match="render_mode"):
        module.raw_env(render_mode="svg")


@pytest.mark.parametrize("game", GAMES)
def test_rewards_scores_and_masks_through_a_game(game):
    env = envs.load(game).raw_env()
    env.reset(seed=11)
    rng = random.Random(5)
    steps = 0
    while not any(env.terminations.values()):
        acting = env.agent_selection
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            if agent == acting:
                assert mask.sum() > 0, "the acting agent must have a legal action"
            else:
                assert mask.sum() == 0, "idle agents' masks are all zeros"
            scores = env.infos[agent]["scores"]
            assert scores.dtype == np.float32 and scores.tolist() == [float(s) for s in env.game.scores()]
            assert env.rewards[agent] == 0
        env.step(rng.choice(env.game.legal_actions()))
        steps += 1
    returns = env.game.returns()
    for i, agent in enumerate(env.possible_agents):
        assert env._cumulative_rewards[agent] == returns[i]
        assert returns[i] in (-1, 0, 1)
    # Dead steps remove every agent in turn; each one first sees its final reward.
    seen = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        seen[agent] = reward
        env.step(None)
    assert seen == {a: float(returns[i]) for i, a in enumerate(env.possible_agents)}
    assert env.agents == []


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_raw_raises_with_reason_and_wrapped_ends_the_game(game):
    module = envs.load(game)
    raw = module.raw_env()
    raw.reset(seed=2)
    n = raw.action_space(raw.agent_selection).n
    history = []
    while len(raw.game.legal_actions()) == n:  # play until some action is illegal
        history.append(raw.game.legal_actions()[0])
        raw.step(history[-1])
    legal = set(raw.game.legal_actions())
    illegal = next(a for a in range(n) if a not in legal)
    before = json.dumps(raw.snapshot())
    with pytest.raises(ValueError) as caught:
        raw.step(illegal)
    assert isinstance(caught.value, IllegalActionError)
    assert str(caught.value) == raw.why_illegal(illegal)
    assert json.dumps(raw.snapshot()) == before, "a refused action must not change the state"

    env = module.env()
    env.reset(seed=2)
    for action in history:
        env.step(action)
    offender = env.agent_selection
    with pytest.warns(UserWarning, match="Illegal move") as warned:
        env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    assert raw.why_illegal(illegal) in str(warned[0].message), "the warning gives the engine's reason"
    assert set(env.unwrapped.infos[offender]) == {"scores"}, "infos hold numbers and arrays only"


@pytest.mark.parametrize("game", GAMES)
def test_snapshot_json_restore_continues_identically(game):
    """A restored game continues exactly as the original. Future chance is not in a snapshot,
    so with chance the continuation is the same for envs whose chance generators are seeded
    alike (reset(seed) before restore); a game without chance continues as the original."""
    module = envs.load(game)
    deterministic = envs.describe(game).facts.chance == "deterministic"
    rng = random.Random(7)
    for trial in range(5):
        env = module.raw_env()
        env.reset(seed=trial)
        for _ in range(rng.randrange(1, 25)):
            if env.game.is_terminal():
                break
            env.step(rng.choice(env.game.legal_actions()))
        text = json.dumps(env.snapshot())
        copies = []
        for _ in range(2):
            copy = module.raw_env()
            copy.reset(seed=1000 + trial)
            copy.restore(json.loads(text))
            assert copy.snapshot() == json.loads(text)
            copies.append(copy)
        followers = copies + ([env] if deterministic else [])
        lead = followers[0]
        while not lead.game.is_terminal():
            for agent in lead.possible_agents:
                views = [f.observe(agent) for f in followers]
                for view in views[1:]:
                    assert np.array_equal(views[0]["observation"], view["observation"])
                    assert np.array_equal(views[0]["action_mask"], view["action_mask"])
            assert len({f.agent_selection for f in followers}) == 1
            action = rng.choice(lead.game.legal_actions())
            for follower in followers:
                follower.step(action)
        assert all(f.game.scores() == lead.game.scores() and f.rewards == lead.rewards for f in followers)


@pytest.mark.parametrize("game", GAMES)
def test_clone_is_independent(game):
    env = envs.load(game).raw_env()
    env.reset(seed=4)
    original = json.dumps(env.snapshot())
    twin = env.game.clone()
    rng = random.Random(1)
    while not twin.is_terminal():
        twin.apply(rng.choice(twin.legal_actions()))
    assert json.dumps(env.snapshot()) == original


@pytest.mark.parametrize("game", GAMES)
def test_malformed_snapshots_are_refused_with_a_reason(game):
    env = envs.load(game).raw_env()
    env.reset(seed=0)
    good = env.snapshot()
    with pytest.raises(SnapshotError, match="not 'nonsense_v0'|of game"):
        env.restore({**good, "game": "nonsense_v0"})
    with pytest.raises(SnapshotError, match="no 'state'"):
        env.restore({k: v for k, v in good.items() if k != "state"})
    with pytest.raises(SnapshotError, match="version"):
        env.restore({**good, "version": 99})
    with pytest.raises(SnapshotError):
        env.restore("{not json")
    with pytest.raises(SnapshotError):
        env.restore({**good, "state": {}})
    env.restore(good)  # the good one still works


@pytest.mark.parametrize("game", GAMES)
def test_every_game_reads_snapshot_keys_and_the_version_one_strict_way(game):
    """Unknown or missing state fields, unknown top-level entries and a version that is not the
    integer (a bool, a float) are refused by every game, the message naming the key; a partial
    snapshot for the bot server's completer may leave state fields out but add none."""
    description = envs.describe(game)
    env = envs.load(game).raw_env()
    env.reset(seed=0)
    good = env.snapshot()
    engine = description.engine
    field = next(iter(good["state"]))
    cases = [
        ({**good, "state": {**good["state"], "colour": 1}}, f"snapshot field 'colour' is not part of a {game} state"),
        ({**good, "state": {k: v for k, v in good["state"].items() if k != field}}, f"snapshot field '{field}' is missing"),
        ({**good, "comment": "hi"}, "snapshot has an unknown entry 'comment'"),
        ({**good, "version": True}, "snapshot 'version' is True, not an integer"),
        ({**good, "version": float(good["version"])}, f"snapshot 'version' is {float(good['version'])}, not an integer"),
    ]
    for snapshot, words in cases:
        for restore in (env.restore, engine.from_snapshot, lambda snap: engine.from_snapshot(json.dumps(snap))):
            with pytest.raises(SnapshotError) as refused:
                restore(snapshot)
            assert str(refused.value).startswith(words), str(refused.value)
    for snapshot, words in (cases[0], cases[2], cases[3]):
        with pytest.raises(SnapshotError, match=words):
            description.sampling.complete_snapshot(snapshot, 0, random.Random(0))
    env.restore(good)
    assert tuple(good["state"]) == engine.STATE_KEYS  # what state_dict writes is what is read


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_game_different_seed_may_differ(game):
    module = envs.load(game)

    def trajectory(seed):
        env = module.raw_env()
        env.reset(seed=seed)
        rng = random.Random(99)
        out = [json.dumps(env.snapshot())]
        while not env.game.is_terminal():
            env.step(rng.choice(env.game.legal_actions()))
            out.append(json.dumps(env.snapshot()))
        return out

    assert trajectory(123) == trajectory(123)


@pytest.mark.parametrize("game", GAMES)
def test_notation_round_trips_every_legal_action(game):
    env = envs.load(game).raw_env()
    env.reset(seed=8)
    rng = random.Random(8)
    for _ in range(40):
        if env.game.is_terminal():
            break
        for action in env.game.legal_actions():
            text = env.action_to_string(action)
            assert env.string_to_action(text) == action, (action, text)
        env.step(rng.choice(env.game.legal_actions()))


@pytest.mark.parametrize("game", GAMES)
def test_wrapped_env_asserts_actions_outside_the_space(game):
    env = envs.load(game).env()
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    for bad in (n, -1, n + 5):
        with pytest.raises(AssertionError, match="not in action space"):
            env.step(bad)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.int64(legal))  # numpy integers are accepted like ints
    assert not any(env.terminations.values()) or env.unwrapped.game.is_terminal()
