"""Tianshou: ``PettingZooEnv`` around every game, masked random policies (its own
``MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy``) playing whole games through a
``Collector`` over two vectorised envs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envs
from tests.clients import CASES, is_outcome

pytest.importorskip("tianshou", reason="the clients extra is not installed (pip install -e .[clients])")

from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

EPISODES = 4


@pytest.mark.parametrize(("game", "options"), CASES)
def test_tianshou_masked_random_policies_play_whole_games(game, options):
    def make():
        return PettingZooEnv(envs.load(game).env(**options))

    probe = make()
    policy = MultiAgentPolicy(
        {agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(probe.action_space) for agent in probe.agents}
    )
    vector_env = DummyVectorEnv([make, make])
    vector_env.seed(0)
    np.random.seed(0)  # the random policy draws from numpy's global generator
    collector = Collector(policy, vector_env, VectorReplayBuffer(50_000, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stats = collector.collect(n_episode=EPISODES, reset_before_collect=True)
    illegal = [str(w.message) for w in caught if "illegal" in str(w.message).lower()]
    assert not illegal, illegal[:3]
    assert stats.n_collected_episodes == EPISODES
    returns = np.asarray(stats.returns).reshape(EPISODES, len(probe.agents))
    assert all(is_outcome(row) for row in returns), returns
    # what the buffer holds: observations of the env's shape, masks with a legal action each
    batch = collector.buffer[:]
    assert batch.obs.obs.shape[1:] == probe.observation_space["observation"].shape
    masks = np.asarray(batch.obs.mask)
    assert masks.any(axis=1).all()
    assert masks[np.arange(len(batch.act)), batch.act.astype(int)].all()  # every action taken was legal
