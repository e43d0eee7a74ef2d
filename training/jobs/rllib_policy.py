"""The learning policy of the RLlib trainer: its RLlib module (action-masking PPO with a plain MLP
actor), which module plays each seat of a game, the score logged against frozen opponents,
and the conversion of the module's weights into the suite's ``PolicyAgent`` layers
(observation normalisation folded in). ``training.train_rllib`` runs the job around it.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from training.jobs.rllib import RLlibTrainConfig


def learner_ids(config: RLlibTrainConfig, players: int) -> list[str]:
    return ["learner"] if config.shared_policy else [f"learner_seat{seat}" for seat in range(players)]


class SeatMapping:
    """RLlib's agent → module mapping: which policy plays each seat of a game.

    Decided per game from the episode's id (every seat of a game sees the same draw): with
    probability ``opponent_share`` the learner takes one seat and the frozen modules the
    others, else the learner(s) play every seat. Picklable, so Ray ships it to env runners.
    """

    def __init__(self, learners: list[str], frozen: list[str], opponent_share: float, players: int, seed: int):
        self.learners, self.frozen = list(learners), list(frozen)
        self.opponent_share, self.players, self.seed = opponent_share, players, seed

    def __call__(self, agent_id: str, episode, **kwargs) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[1])
        own = self.learners[seat % len(self.learners)]
        game = random.Random(f"{self.seed}/{episode.id_}")
        if not self.frozen or game.random() >= self.opponent_share:
            return own
        if seat == game.randrange(self.players):
            return own
        return random.Random(f"{self.seed}/{episode.id_}/{seat}").choice(self.frozen)


def episode_score(returns: list[float]) -> float:
    """Win 1, draw ½, loss 0, from a seat's final return (+1 / 0 / −1)."""
    total = float(sum(returns))
    return 1.0 if total > 0 else 0.5 if total == 0 else 0.0


def make_callbacks():
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class FrozenScoreCallback(RLlibCallback):
        """Logs the learner's score in games against frozen opponents (``score_vs_frozen``)."""

        def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
            modules = {agent: episode.module_for(agent) for agent in episode.agent_ids}
            learners = [a for a, m in modules.items() if m.startswith("learner")]
            if metrics_logger is None or len(learners) != 1 or len(modules) < 2:
                return  # pure self-play: the learner plays itself, its score is ½ by symmetry
            rewards = episode.get_rewards()
            metrics_logger.log_value("score_vs_frozen", episode_score(list(rewards.get(learners[0], []))), reduce="mean", window=200)

    return FrozenScoreCallback


def module_spec(config: RLlibTrainConfig, env_config: dict[str, Any]):
    """The learning policy: RLlib's action-masking PPO module with a plain MLP actor, so it
    converts exactly to the suite's numpy ``PolicyAgent`` (hidden layers + one linear head).
    The spaces are given (not inferred) so the spec also builds snapshots and conversions."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from wrappers.rllib import SuiteMultiAgentEnv

    env = SuiteMultiAgentEnv(env_config)
    seat = env.possible_agents[0]
    model = DefaultModelConfig(
        fcnet_hiddens=list(config.net_arch),
        fcnet_activation=config.activation,
        head_fcnet_hiddens=[],
        vf_share_layers=False,
    )
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=env.observation_spaces[seat],
        action_space=env.action_spaces[seat],
        model_config=model,
    )


def actor_layers(module, activation: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor of RLlib's PPO module (actor encoder + policy head) as ``(weight, bias)``
    pairs for ``PolicyAgent``; any other layout (a different activation, normalisation layers,
    a shared encoder) is refused rather than converted into a different network."""
    import torch.nn as nn

    expected = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    encoder = getattr(module.encoder, "actor_encoder", None)
    if encoder is None:
        raise ValueError("the RLlib module has no separate actor encoder (vf_share_layers=True?); cannot convert it")
    leaves = [m for part in (encoder, module.pi) for m in part.modules() if not list(m.children())]
    layers, expect_linear = [], True
    for leaf in leaves:
        if isinstance(leaf, nn.Linear) and expect_linear:
            layers.append((leaf.weight.detach().cpu().numpy().copy(), leaf.bias.detach().cpu().numpy().copy()))
            expect_linear = False
        elif isinstance(leaf, expected) and not expect_linear:
            expect_linear = True
        elif isinstance(leaf, nn.Identity):
            continue
        else:
            raise ValueError(f"cannot convert the RLlib actor: unexpected {type(leaf).__name__} after {len(layers)} linear layer(s)")
    if expect_linear or not layers:
        raise ValueError("cannot convert the RLlib actor: it does not end with a linear policy head")
    return layers


def fold_normalization(layers: list[tuple[np.ndarray, np.ndarray]], env_config: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The same network on raw observations: a first layer ``W`` applied to
    ``(x − shift) / scale`` is ``W / scale`` applied to ``x`` with bias ``b − (W / scale) · shift``.
    Layers of an env_config without normalisation come back unchanged."""
    if env_config.get("observation_shift") is None:
        return layers
    shift = np.asarray(env_config["observation_shift"], np.float64)
    scale = np.asarray(env_config["observation_scale"], np.float64)
    weight, bias = (np.asarray(a, np.float64) for a in layers[0])
    folded = weight / scale[None, :]
    first = (folded.astype(np.float32), (bias - folded @ shift).astype(np.float32))
    return [first, *layers[1:]]


def learner_layers(algo, spec, module_id: str, activation: str, env_config: dict[str, Any] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The current weights of a learning module, read from the learner (the env runners'
    copies lag one sync behind) into a fresh module built from the same spec, as layers on
    raw observations (the env_config's normalisation folded in)."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}")
    weights = state["learner"]["rl_module"][module_id]
    module = spec.build()
    module.set_state(weights)
    return fold_normalization(actor_layers(module, activation), env_config or {})
