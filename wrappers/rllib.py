"""Any suite game as an RLlib multi-agent env, with action masking (needs the ``rllib`` extra).

RLlib's PettingZoo support (``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``) turns an
AEC env into a ``MultiAgentEnv``: each ``step`` returns the observation of the next agent to
act only, so multi-step turns (the same seat acting again) and 2–4 players need nothing
special, and when the game ends every seat gets its final observation, reward and
``terminated``. Two things are adapted here, without touching the games:

* the observation keys: the suite (like PettingZoo's classic games) gives
  ``{"observation", "action_mask"}``; RLlib's masking module
  (``ActionMaskingTorchRLModule``) expects ``{"observations", "action_mask"}``, with the mask
  as floats (it takes its log). :class:`MaskKeysWrapper` renames and converts;
* the seat order: RLlib's wrapper rebuilds ``agents`` from a set; here they keep the engine's
  order (``player_0``, ``player_1``, …).

The env is the *raw* env: a masked policy never plays an illegal move, and if one ever did,
the engine's ``IllegalActionError`` stops the run with the reason instead of a silent −1.

``score_shaping`` (env_config, default 0) is ``SelfPlayEnv``'s shaping for every seat: each
observation a seat receives adds ``weight × change of (its points − best other points)`` since
its previous observation, so over a game a seat collects ``weight × final margin`` on top of
its return — a denser signal than the win/loss alone.

:class:`MaskedRandomRLModule` is the frozen "random" opponent for policy mapping: uniform over
the legal moves (RLlib's own ``RandomRLModule`` samples the whole action space).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils import BaseWrapper
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

import envs

ENV_NAME = "abstract_games_suite"
"""The name :func:`register` gives the env in RLlib's (Tune's) env registry."""

OBSERVATIONS, ACTION_MASK = "observations", "action_mask"


class MaskKeysWrapper(BaseWrapper):
    """The suite's ``{"observation", "action_mask"}`` as ``{"observations", "action_mask"}``
    (float32 mask), the layout RLlib's masking module reads."""

    def __init__(self, env):
        super().__init__(env)
        self._spaces = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            mask = inner["action_mask"]
            self._spaces[agent] = gymnasium.spaces.Dict(
                {
                    ACTION_MASK: gymnasium.spaces.Box(0.0, 1.0, mask.shape, np.float32),
                    OBSERVATIONS: inner["observation"],
                }
            )

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        inner = self.env.observe(agent)
        return {ACTION_MASK: inner["action_mask"].astype(np.float32), OBSERVATIONS: inner["observation"]}


class SuiteMultiAgentEnv(PettingZooEnv):
    """A suite game for RLlib: ``SuiteMultiAgentEnv({"game": "knot", "options": {"players": 3}})``.

    ``config`` is RLlib's ``env_config``: ``game`` (an env name) and ``options`` (the env
    options, checked by the game: a bad option fails here with the game's message).
    """

    def __init__(self, config: dict[str, Any] | None = None):
        config = dict(config or {})
        unknown = set(config) - {"game", "options", "score_shaping"}
        if unknown:
            raise ValueError(f"env_config takes 'game', 'options' and 'score_shaping', not {', '.join(sorted(unknown))}")
        self.score_shaping = float(config.get("score_shaping", 0.0))
        if "game" not in config:
            raise ValueError("env_config needs 'game' (an env name such as 'linecatch' or 'knot_v0')")
        module = envs.load(config["game"])
        raw = module.raw_env(**dict(config.get("options") or {}))
        super().__init__(MaskKeysWrapper(raw))
        # PettingZooEnv rebuilt these from a set; keep the engine's seat order.
        self.possible_agents = list(raw.possible_agents)
        self.agents = list(raw.possible_agents)
        self._agent_ids = set(self.possible_agents)
        self.game_module = module

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        # Each seat's margin when it last observed (the start position for everyone).
        self._margins = dict.fromkeys(self.possible_agents, 0.0)
        self._margins.update(self._current_margins())
        return observations, infos

    def step(self, action):
        observations, rewards, terminated, truncated, infos = super().step(action)
        self.agents = list(self.env.agents)
        if self.score_shaping:
            margins = self._current_margins()
            for agent in rewards:
                rewards[agent] += self.score_shaping * (margins[agent] - self._margins[agent])
                self._margins[agent] = margins[agent]
        return observations, rewards, terminated, truncated, infos

    def _current_margins(self) -> dict[str, float]:
        scores = self.env.unwrapped.game.scores()
        return {
            agent: float(scores[i] - max(s for j, s in enumerate(scores) if j != i))
            for i, agent in enumerate(self.possible_agents)
        }


def env_creator(env_config: dict[str, Any]) -> SuiteMultiAgentEnv:
    return SuiteMultiAgentEnv(dict(env_config))


def register() -> str:
    """Register the env with RLlib under :data:`ENV_NAME` (idempotent) and return the name."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, env_creator)
    return ENV_NAME


class MaskedRandomRLModule(RLModule):
    """Plays uniformly among the legal moves; never trained (keep it out of
    ``policies_to_train``). Seeded with ``model_config={"seed": n}``."""

    def setup(self):
        self._rng = np.random.default_rng((self.model_config or {}).get("seed"))

    def _forward(self, batch, **kwargs):
        masks = np.asarray(batch[Columns.OBS][ACTION_MASK], dtype=np.float64)
        if masks.ndim == 1:
            masks = masks[None]
        actions = []
        for mask in masks:
            legal = np.flatnonzero(mask > 0)
            # A seat with nothing legal (a terminal observation) still needs a placeholder.
            actions.append(int(self._rng.choice(legal)) if len(legal) else 0)
        return {Columns.ACTIONS: np.array(actions, dtype=np.int64)}

    def _forward_train(self, *args, **kwargs):
        raise NotImplementedError("the random opponent is frozen: leave it out of policies_to_train")

    def compile(self, *args, **kwargs):  # TorchRLModule API, called on some code paths
        pass
