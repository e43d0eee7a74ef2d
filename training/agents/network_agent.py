"""Agents that play from a policy-value network file: the policy alone, and ``"trained"``.

``load_agent(<file>.zip, game)`` on a network file (``training.agents.network``) returns a
:class:`NetworkAgent`: the masked argmax of the network's policy, no search. It reads the
env's default flat observation (building the planes itself) or the planes of an env made with
``observation_format="planes"``. ``load_agent("trained", game, **options)`` returns the agent
shipped in ``checkpoints/<game>/`` for exactly those options (a network or a policy checkpoint:
the best recorded score against the heuristic), and says what is shipped when none is. ``"mcts:N:net=PATH"`` / ``"mcts:N:net=trained"`` search with the network
(:class:`training.search.guided.GuidedMCTSAgent`).

Any of them handed an observation that does not fit (another board size) raises a ValueError
naming the options the network was trained for.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.core.game import json_ready
from training.agents.network import FORMAT, NetworkFileError, PolicyValueNet, load_network

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINTS = ROOT / "checkpoints"
# search settings an agent file may record for mcts:N:net= (training.search.guided.GuidedMCTSAgent)
SEARCH_SETTINGS = {"value_mix", "hook_value_weight", "c_scale", "playout"}


def is_network_file(path: str | Path) -> bool:
    """True for an agent file whose meta.json declares the network format. It reads the meta
    member only, through the checked reader (zip directory, sizes, JSON depth), so a damaged
    or hostile file answers False here and is refused by the loader with its reason."""
    from training.agents.checkpoint import _Fault, open_zip, read_json_member

    try:
        with open(path, "rb") as source:
            size = os.fstat(source.fileno()).st_size
            with open_zip(source, size, "the file") as archive:
                meta = read_json_member(archive, "meta.json", "")
    except (_Fault, OSError, ValueError, zipfile.BadZipFile, zlib.error, EOFError, RuntimeError,
            NotImplementedError, struct.error, KeyError):
        return False
    return isinstance(meta, dict) and meta.get("format") == FORMAT


def load_network_for(path: str | Path, game: str, options: dict[str, Any]) -> tuple[PolicyValueNet, dict[str, Any]]:
    """Load a network file and check it against ``game`` under ``options`` (its own options
    when none are given): the game, the planes' shape, the actions and the policy layout."""
    if str(path) == "trained":
        path = shipped_agent(game, options, networks_only=True)
    net, meta = load_network(path)
    description = envs.describe(game)
    if meta.get("game") != description.name:
        raise NetworkFileError(f"agent file {str(path)!r} was trained for {meta.get('game')!r}, not {description.name!r}")
    trained_for = meta.get("options")
    if not isinstance(trained_for, dict):
        raise NetworkFileError(f"agent file {str(path)!r}: meta.json has no 'options' object")
    try:
        resolved = description.resolve_options(options if options else trained_for)
    except ValueError as error:
        if options:
            raise
        raise NetworkFileError(f"agent file {str(path)!r}: its recorded options are invalid: {error}") from None
    observer = description.observer(resolved)
    shape = tuple(observer.planes_shape())
    if shape != net.architecture.planes or description.engine.num_actions_for(resolved) != len(net.index):
        raise ValueError(
            f"agent file {str(path)!r} was trained for {description.name} with options {trained_for} "
            f"(planes {net.architecture.planes}, {len(net.index)} actions); these options give planes {shape} and "
            f"{description.engine.num_actions_for(resolved)} actions"
        )
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


def load_network_agent(path: str | Path, game: str, seed: int | None = None, **options: Any) -> NetworkAgent:
    net, meta = load_network_for(path, game, options)
    description = envs.describe(game)
    observer = description.observer(description.resolve_options(meta["resolved_options"]))
    return NetworkAgent(net, meta, observer)


def recorded_score(path: Path, opponent: str = "heuristic") -> float:
    """The score against ``opponent`` that an agent file's ``.evaluation.json`` records (-1 when
    there is none): how ``"trained"`` ranks the agents shipped for the same options. The
    trainer's ``final_evaluation`` is pooled with the file's ``independent_checks`` (games of the
    file's policy alone against the same opponent, written by ``training.evaluate --json``), so
    a file measured on more games is ranked by all of them."""
    report = path.with_suffix(".evaluation.json")
    try:
        document = json.loads(report.read_text())
        final = document["final_evaluation"][opponent]
        score = final["score"]
    except (OSError, ValueError, KeyError, TypeError):
        return -1.0
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        return -1.0
    games = final.get("games") if isinstance(final, dict) else None
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        return float(score)  # no game count: nothing to pool with
    points, total = float(score) * games, games
    for pair in independent_pairs(document):
        if pair.get("opponent") != opponent:
            continue
        agent, n, s = pair.get("agent"), pair.get("games"), pair.get("score")
        if (isinstance(agent, str) and ":" not in agent and Path(agent).name == path.name
                and isinstance(n, int) and n > 0 and isinstance(s, (int, float))):
            points, total = points + float(s) * n, total + n
    return points / total


def independent_pairs(document: Any):
    """The pair records (dicts) of an evaluation JSON's ``independent_checks``, skipping
    anything malformed; the callers check the fields they use."""
    checks = document.get("independent_checks") if isinstance(document, dict) else None
    for check in checks if isinstance(checks, list) else []:
        pairs = check.get("pairs") if isinstance(check, dict) else None
        yield from (pair for pair in (pairs if isinstance(pairs, list) else []) if isinstance(pair, dict))


def recorded_search_score(path: Path) -> float:
    """The score the network-guided search with an agent file (``mcts:N:net=<the file>``, no
    other settings) records in its ``.evaluation.json`` against a plain search, pooled over
    every such check (-1 when there is none): how ``mcts:N:net=trained`` ranks the networks
    shipped for the same options. A search leans on the value head as much as on the policy,
    so the network best alone is not always the one best searched with."""
    try:
        document = json.loads(path.with_suffix(".evaluation.json").read_text())
    except (OSError, ValueError):
        return -1.0
    points = total = 0.0
    for pair in independent_pairs(document):
        agent, opponent, n, score = pair.get("agent"), pair.get("opponent"), pair.get("games"), pair.get("score")
        parts = agent.split(":") if isinstance(agent, str) else []
        if (len(parts) == 3 and parts[0] == "mcts" and parts[1].isdigit() and parts[2].startswith("net=")
                and Path(parts[2][4:]).name == path.name
                and isinstance(opponent, str) and opponent.startswith("mcts") and "net=" not in opponent
                and isinstance(n, int) and not isinstance(n, bool) and n > 0 and isinstance(score, (int, float))):
            points, total = points + float(score) * n, total + n
    return points / total if total else -1.0


def shipped_agents(game: str, networks_only: bool = False) -> list[tuple[Path, dict[str, Any]]]:
    """The agent files shipped for a game (``checkpoints/<game>/*.zip``: networks and policy
    checkpoints) and their recorded options, read through the checked reader."""
    from training.agents.checkpoint import _Fault, open_zip, read_json_member

    description = envs.describe(game)
    folder = CHECKPOINTS / description.short_name
    found = []
    for path in sorted(folder.glob("*.zip")) if folder.is_dir() else []:
        try:
            with open(path, "rb") as source, open_zip(source, os.fstat(source.fileno()).st_size, "the file") as archive:
                meta = read_json_member(archive, "meta.json", "")
        except (_Fault, OSError, zipfile.BadZipFile):
            continue
        if not isinstance(meta, dict) or meta.get("game") != description.name:
            continue
        if networks_only and meta.get("format") != FORMAT:
            continue
        found.append((path, meta.get("options", {}) if isinstance(meta.get("options"), dict) else {}))
    return found


def shipped_agent(game: str, options: dict[str, Any], networks_only: bool = False) -> Path:
    """The shipped agent for exactly these options (defaults filled in): of several, the one
    whose evaluation records the best score against the heuristic. ``networks_only`` asks for a
    policy-value network to search with (``mcts:N:net=trained``): of several, the one whose
    guided search records the best score against a plain search, then as above."""
    description = envs.describe(game)
    wanted = json_ready(description.portable_options(description.resolve_options(options)))
    shipped = shipped_agents(game, networks_only)
    matching = []
    for path, recorded in shipped:
        try:
            theirs = json_ready(description.portable_options(description.resolve_options(recorded)))
        except ValueError:
            continue
        if theirs == wanted:
            matching.append(path)
    if matching:
        if networks_only:
            return max(matching, key=lambda path: (recorded_search_score(path), recorded_score(path), path.name))
        return max(matching, key=lambda path: (recorded_score(path), path.name))
    kind = "network" if networks_only else "agent"
    listing = "; ".join(f"{p.relative_to(CHECKPOINTS.parent)} (options {o or 'default'})" for p, o in shipped) or "none"
    raise ValueError(
        f"no trained {description.name} {kind} is shipped for options "
        f"{description.portable_options(description.resolve_options(options))}; shipped: {listing}"
    )
