"""Stable-Baselines3's and gymnasium's env checkers on ``SelfPlayEnv`` as constructed, on every
game (they step ``action_space.sample()``: an illegal action ends the episode as the learner's
loss, with an ``IllegalMoveWarning``), and an unmasked SB3 algorithm learning on one."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from envs.core.wrapping import IllegalMoveWarning
from tests.clients import CASES
from training.players.self_play import SelfPlayEnv

pytest.importorskip("stable_baselines3", reason="the train extra is not installed (pip install -e .[train])")


@pytest.mark.parametrize(("game", "options"), CASES)
def test_stable_baselines3_check_env_passes_without_warnings(game, options):
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(SelfPlayEnv(game, options, ["random"]), warn=True)
    ignored = (DeprecationWarning, IllegalMoveWarning)  # the checker's sampled actions may be illegal
    assert [str(w.message) for w in caught if not issubclass(w.category, ignored)] == []


@pytest.mark.parametrize(("game", "options"), CASES)
@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_gymnasium_check_env_passes(game, options, render_mode):
    from gymnasium.utils.env_checker import check_env

    env = SelfPlayEnv(game, options, ["random"], render_mode=render_mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=render_mode is None)
    unexpected = [str(w.message) for w in caught
                  if "environment not having a spec" not in str(w.message) and not issubclass(w.category, IllegalMoveWarning)]
    assert unexpected == []


@pytest.mark.filterwarnings("ignore::envs.core.wrapping.IllegalMoveWarning")
def test_unmasked_ppo_learns_on_the_env_as_constructed_and_its_illegal_actions_end_episodes():
    from stable_baselines3 import PPO

    env = SelfPlayEnv("linecatch", {"rows": 3, "cols": 3}, ["random"], seed=0)
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    obs, _ = env.reset(seed=1)
    endings = {"illegal": 0, "played": 0}
    for _ in range(20):
        done, info = False, {}
        while not done:
            action, _ = model.predict(obs, deterministic=False)
            obs, reward, done, _, info = env.step(action)
        endings["illegal" if info.get("illegal_action") else "played"] += 1
        if info.get("illegal_action"):
            assert reward == -1.0
        obs, _ = env.reset()
    assert sum(endings.values()) == 20
    assert np.isfinite(model.policy.parameters().__next__().detach().numpy()).all()
