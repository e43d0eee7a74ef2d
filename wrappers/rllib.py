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

``observation_shift`` / ``observation_scale`` (env_config, optional, together): the network
sees ``(observation − shift) / scale``. The suite's observations mix 0/1 board planes with
small fractions (Linecatch's "points this square catches now" is 0.25 at most on 5×5, a
tenth of a board bit's spread), and PPO learned the small features far slower than the
board; :func:`observation_statistics` measures the shift and scale once from random play,
and ``training.jobs.rllib_policy.fold_normalization`` folds them into the first layer of the
converted checkpoint, so the suite's agents still read raw observations.

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
    (float32 mask), the layout RLlib's masking module reads; with ``shift`` and ``scale``
    the observation is normalised, ``(observation − shift) / scale``."""

    def __init__(self, env, shift: np.ndarray | None = None, scale: np.ndarray | None = None):
        super().__init__(env)
        self._shift, self._scale = shift, scale
        self._spaces = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            mask = inner["action_mask"]
            observations = inner["observation"]
            if shift is not None:
                # Normalised values leave the game's bounds.
                observations = gymnasium.spaces.Box(-np.inf, np.inf, observations.shape, np.float32)
            self._spaces[agent] = gymnasium.spaces.Dict(
                {
                    ACTION_MASK: gymnasium.spaces.Box(0.0, 1.0, mask.shape, np.float32),
                    OBSERVATIONS: observations,
                }
            )

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        inner = self.env.observe(agent)
        observation = inner["observation"]
        if self._shift is not None:
            observation = ((observation - self._shift) / self._scale).astype(np.float32)
        return {ACTION_MASK: inner["action_mask"].astype(np.float32), OBSERVATIONS: observation}


def observation_statistics(game: str, options: dict[str, Any], games: int, seed: int, floor: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and spread of the observations every seat gets at its turns over
    ``games`` random games (seeded): the ``observation_shift`` and ``observation_scale`` of
    the env. The spread is floored at ``floor`` so that a feature random play (almost) never
    moves is not blown up when it does."""
    if games < 1:
        raise ValueError(f"observation statistics need at least 1 game, not {games!r}")
    module = envs.load(game)
    rng = np.random.default_rng(seed)
    rows = []
    for index in range(games):
        env = module.raw_env(**dict(options or {}))
        env.reset(seed=seed * 100_003 + index)
        while not env.game.is_terminal():
            observation = env.observe(env.agent_selection)
            rows.append(observation["observation"])
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    stacked = np.asarray(rows, np.float64)
    return stacked.mean(0).astype(np.float32), np.maximum(stacked.std(0), floor).astype(np.float32)


class SuiteMultiAgentEnv(PettingZooEnv):
    """A suite game for RLlib: ``SuiteMultiAgentEnv({"game": "knot", "options": {"players": 3}})``.

    ``config`` is RLlib's ``env_config``: ``game`` (an env name) and ``options`` (the env
    options, checked by the game: a bad option fails here with the game's message).
    """

    def __init__(self, config: dict[str, Any] | None = None):
        config = dict(config or {})
        known = {"game", "options", "score_shaping", "observation_shift", "observation_scale"}
        unknown = set(config) - known
        if unknown:
            raise ValueError(f"env_config takes {', '.join(sorted(known))}, not {', '.join(sorted(unknown))}")
        self.score_shaping = float(config.get("score_shaping", 0.0))
        if "game" not in config:
            raise ValueError("env_config needs 'game' (an env name such as 'linecatch' or 'knot_v0')")
        module = envs.load(config["game"])
        raw = module.raw_env(**dict(config.get("options") or {}))
        shift, scale = normalization_arrays(config, raw.observation_space(raw.possible_agents[0])["observation"].shape)
        super().__init__(MaskKeysWrapper(raw, shift, scale))
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


def normalization_arrays(config: dict[str, Any], shape: tuple[int, ...]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``observation_shift`` and ``observation_scale`` of an env_config, checked: both or
    neither, one number per observation feature, every scale positive."""
    shift, scale = config.get("observation_shift"), config.get("observation_scale")
    if shift is None and scale is None:
        return None, None
    if shift is None or scale is None:
        raise ValueError("env_config needs both 'observation_shift' and 'observation_scale', or neither")
    shift, scale = np.asarray(shift, np.float32), np.asarray(scale, np.float32)
    for name, values in (("observation_shift", shift), ("observation_scale", scale)):
        if values.shape != tuple(shape):
            raise ValueError(f"env_config '{name}' needs {int(np.prod(shape))} numbers (the observation's shape {tuple(shape)}), not shape {values.shape}")
    if not np.all(scale > 0) or not np.all(np.isfinite(shift)):
        raise ValueError("env_config 'observation_scale' must be positive and 'observation_shift' finite everywhere")
    return shift, scale


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
