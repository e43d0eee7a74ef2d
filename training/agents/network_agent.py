"""Agents that play from a policy-value network file (kind ``"network"``): the policy alone.

``load_agent(<file>.zip, game)`` on a network file (``training.agents.network``) returns a
:class:`NetworkAgent`: the masked argmax of the network's policy, no search. It reads the
env's default flat observation (building the planes itself) or the planes of an env made with
``observation_format="planes"``. ``"mcts:N:net=PATH"`` / ``"mcts:N:net=trained"`` search with the
network (:class:`training.search.guided.GuidedMCTSAgent`, through :func:`load_network_for`);
``trained`` is the network the game's manifest names (``training.agents.manifest``).

Any of them handed an observation that does not fit (another board size) raises a ValueError
naming the options the network was trained for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import envs
from training.agents.checkpoint import refuse_other_options
from training.agents.network import NetworkFileError, PolicyValueNet

# search settings an agent file may record for mcts:N:net= (training.search.guided.GuidedMCTSAgent)
SEARCH_SETTINGS = {"value_mix", "hook_value_weight", "c_scale", "playout"}


def check_network(path: str | Path, net: PolicyValueNet, meta: dict[str, Any], game: str,
                  options: dict[str, Any]) -> tuple[PolicyValueNet, dict[str, Any]]:
    """A network (from a file, or an ONNX export's initializers) checked against ``game``
    under ``options``; its metadata with ``resolved_options`` added."""
    description = envs.describe(game)
    if meta.get("game") != description.name:
        raise NetworkFileError(f"agent file {str(path)!r} was trained for {meta.get('game')!r}, not {description.name!r}"
                               f"{envs.registry.version_note(meta.get('game'), description.name)}")
    trained_for = meta.get("options")
    if not isinstance(trained_for, dict):
        raise NetworkFileError(f"agent file {str(path)!r}: meta.json has no 'options' object")
    try:
        trained = description.resolve_options(dict(trained_for))
    except (ValueError, TypeError) as error:
        raise NetworkFileError(f"agent file {str(path)!r}: its recorded options are invalid: {error}") from None
    resolved = description.resolve_options(dict(options)) if options else trained
    observer = description.observer(resolved)
    shape = tuple(observer.planes_shape())
    if shape != net.architecture.planes or description.engine.num_actions_for(resolved) != len(net.index):
        raise ValueError(
            f"agent file {str(path)!r} was trained for {description.name} with options {trained_for} "
            f"(planes {net.architecture.planes}, {len(net.index)} actions); these options give planes {shape} and "
            f"{description.engine.num_actions_for(resolved)} actions"
        )
    refuse_other_options(repr(str(path)), description.name, trained, resolved)  # the same shape, another game
    mix, scale = meta.get("value_mix", 0.0), meta.get("margin_scale", 1.0)
    if not (isinstance(mix, (int, float)) and not isinstance(mix, bool) and 0.0 <= mix <= 1.0):
        raise NetworkFileError(f"agent file {str(path)!r}: meta.json's 'value_mix' must be a number 0…1, not {mix!r:.40}")
    if not (isinstance(scale, (int, float)) and not isinstance(scale, bool) and 0.0 < scale < 1e9):
        raise NetworkFileError(f"agent file {str(path)!r}: meta.json's 'margin_scale' must be a positive number, not {scale!r:.40}")
    hook_weight = meta.get("hook_value_weight", 0.0)
    if not (isinstance(hook_weight, (int, float)) and not isinstance(hook_weight, bool) and 0.0 <= hook_weight <= 1.0):
        raise NetworkFileError(f"agent file {str(path)!r}: meta.json's 'hook_value_weight' must be a number 0…1, "
                               f"not {hook_weight!r:.40}")
    search = meta.get("search", {})
    if not isinstance(search, dict) or set(search) - SEARCH_SETTINGS:
        raise NetworkFileError(f"agent file {str(path)!r}: meta.json's 'search' must be an object with some of "
                               f"{', '.join(sorted(SEARCH_SETTINGS))}, not {search!r:.80}")
    for key, value in search.items():
        high = 1e6 if key in ("c_scale", "playout") else 1.0
        if not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= high
                and (key != "c_scale" or value > 0) and (key != "playout" or isinstance(value, int))):
            raise NetworkFileError(f"agent file {str(path)!r}: meta.json's search setting {key!r} is out of range: {value!r:.40}")
    layout = observer.policy_layout()
    if not np.array_equal(layout.index, net.index):
        raise NetworkFileError(f"agent file {str(path)!r}: its policy layout differs from the game's (another code version?)")
    meta = dict(meta, resolved_options=description.portable_options(resolved))
    return net, meta


def check_observation(observation, observer, meta: dict[str, Any]) -> None:
    """A flat observation must have the observer's length: else it is of other options."""
    vector = observation["observation"] if isinstance(observation, dict) else observation
    if np.shape(vector) != (observer.size,):
        raise ValueError(
            f"this agent was trained for {meta.get('game')} with options {meta.get('options')}: it reads flat "
            f"observations of {observer.size} entries, not shape {np.shape(vector)} (a game with other options?)"
        )


def observation_planes(observation, observer, meta: dict[str, Any]) -> np.ndarray:
    """The planes a network reads, from an observation holding the flat vector (the observer
    builds the planes) or the planes themselves; any other shape is of other options."""
    vector = np.asarray(observation["observation"], np.float32)
    planes_shape = tuple(observer.planes_shape())
    if vector.shape == (observer.size,):
        return observer.planes(vector)
    if vector.shape == planes_shape:
        return vector
    raise ValueError(
        f"this agent was trained for {meta.get('game')} with options {meta.get('options')}: it reads flat "
        f"observations of {observer.size} entries or planes {planes_shape}, not shape {vector.shape} "
        "(a game with other options?)"
    )


class NetworkAgent:
    """The network's policy alone: the legal action with the highest logit."""

    name = "network"

    def __init__(self, net: PolicyValueNet, meta: dict[str, Any], observer):
        self.net, self.meta, self.observer = net, meta, observer

    def logits(self, observation) -> tuple[np.ndarray, np.ndarray]:
        planes = observation_planes(observation, self.observer, self.meta)
        mask = np.asarray(observation["action_mask"])
        if mask.shape != (len(self.net.index),):
            raise ValueError(f"this agent plays {len(self.net.index)} actions; the mask has shape {mask.shape}")
        logits, _ = self.net.evaluate(planes)
        return logits[0], mask

    def act(self, observation) -> int:
        logits, mask = self.logits(observation)
        legal = np.flatnonzero(mask)
        if not len(legal):
            raise ValueError("the observation's action mask is empty: this seat is not to act now")
        return int(legal[int(np.argmax(logits[legal]))])

    def action_probabilities(self, observation) -> np.ndarray:
        logits, mask = self.logits(observation)
        legal = np.flatnonzero(mask)
        if not len(legal):
            raise ValueError("the observation's action mask is empty: this seat is not to act now")
        out = np.zeros(len(mask), np.float64)
        z = logits[legal].astype(np.float64)
        z = np.exp(z - z.max())
        out[legal] = z / z.sum()
        return out


def agent(agent_file, game: str, seed: int | None = None, sample: bool = False,
          options: dict[str, Any] | None = None) -> NetworkAgent:
    """The network kind's agent (``training.agents.files.load_agent_file``): its policy alone."""
    if sample:
        raise ValueError(f"agent file {agent_file.shown} is a network: its agent plays its best move (no sampling)")
    net, meta = check_network(agent_file.path, agent_file.content, agent_file.meta, game, options or {})
    description = envs.describe(game)
    observer = description.observer(description.resolve_options(meta["resolved_options"]))
    return NetworkAgent(net, meta, observer)


