"""TorchRL: ``PettingZooWrapper(env=<game>_v0.env(), use_mask=True)``, its ``check_env_specs``
and a rollout of masked random actions to the end of the game, on every game."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envs
from tests.clients import CASES, is_outcome

pytest.importorskip("torchrl", reason="the clients extra is not installed (pip install -e .[clients])")

import torch  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402


def wrapped(game: str, options: dict, seed: int):
    pettingzoo_env = envs.load(game).env(**options)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested using version")
        return PettingZooWrapper(env=pettingzoo_env, use_mask=True, seed=seed), pettingzoo_env


@pytest.mark.parametrize(("game", "options"), CASES)
def test_torchrl_checks_the_specs_and_plays_a_whole_game_of_legal_moves(game, options):
    env, pettingzoo_env = wrapped(game, options, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an illegal move's warning (env() ends the game on it) fails the test
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        check_env_specs(env)
        rollout = env.rollout(10_000, break_when_any_done=True)
    agents = pettingzoo_env.possible_agents
    game_state = pettingzoo_env.unwrapped.game
    assert game_state.is_terminal(), "the rollout stopped before the game ended"
    # Every action was legal for the agent that acted (its "mask" says it was to act).
    for step in range(rollout.batch_size[0]):
        acting = [a for a in agents if bool(rollout[step][a, "mask"].all())]
        assert len(acting) == 1, (step, acting)
        agent = acting[0]
        index = int(rollout[step][agent, "action"].reshape(-1)[0])  # a group of one agent: shape [1]
        assert bool(rollout[step][agent, "action_mask"].reshape(-1)[index]), (step, agent, index)
    final = rollout[-1]
    rewards = [float(final["next", a, "reward"].sum()) for a in agents]
    assert rewards == [float(r) for r in game_state.returns()] and is_outcome(rewards)
    scores = final["next", agents[0], "info", "scores"]
    assert scores.shape[-1] == len(agents) and scores.dtype == torch.float32
    assert np.allclose(scores.numpy().reshape(-1), game_state.scores())
