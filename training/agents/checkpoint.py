"""The suite's policy checkpoints (kinds ``"maskppo"`` and ``"rllib-ppo"``), and the agent that
plays from one.

A checkpoint is one zip file holding

* ``meta.json`` — kind, format and version, game, env options, observation and action spaces,
  network shape, steps trained, seed, code version, the command that made it;
* ``policy.npz`` — the policy network's weights as plain numpy arrays (``allow_pickle=False``).

Loading needs numpy only: no torch, no unpickling, so a front end can run a bot without the
training stack, and a damaged or foreign file can only fail with a message (``training.agents.archive``
reads the file, every size checked before it is read; ``training.agents.files`` is the one
reader of every kind of agent file, this module the policy kinds' part of it). The network is the actor of SB3's
``MlpPolicy`` (``MaskablePPO``): observation → hidden layers (tanh or relu) → logits; illegal
actions are masked out and the best remaining logit is played.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.core.game import is_int, json_ready
from training.agents.archive import MAX_LAYERS, MAX_PARAMETERS, MAX_WIDTH, ArraySpec, CheckpointError, read_npz_member
from training.agents.kinds import POLICY_FORMAT, derived_kind

FORMAT_VERSION = 1
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


def env_spaces(game: str, options: dict[str, Any]) -> tuple[list[int], int]:
    raw = envs.load(game).raw_env(**options)
    agent = raw.possible_agents[0]
    return list(raw.observation_space(agent)["observation"].shape), int(raw.action_space(agent).n)


def code_version() -> str:
    import subprocess

    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=5,
            cwd=Path(__file__).resolve().parent,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def save_checkpoint(path: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> Path:
    """Write ``layers`` (``(weight, bias)`` per linear layer, weight shaped out × in) and meta."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for i, (weight, bias) in enumerate(layers):
        arrays[f"w{i}"] = np.asarray(weight, np.float32)
        arrays[f"b{i}"] = np.asarray(bias, np.float32)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    full_meta = {"format": POLICY_FORMAT, "format_version": FORMAT_VERSION, "layers": len(layers), **json_ready(meta)}
    if "kind" not in full_meta:  # the file says what it is: "maskppo", or "rllib-ppo" from RLlib
        full_meta["kind"] = derived_kind(full_meta, "zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.json", json.dumps(full_meta, indent=2, sort_keys=True))
        archive.writestr("policy.npz", buffer.getvalue())
    return path


# ----- the policy format ----------------------------------------------------------------------------

def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def check_policy_meta(meta: Any, shown: str, what: str = "checkpoint") -> None:
    """The fields of a policy's metadata (a .zip's meta.json, an .onnx's metadata_props) that the
    loader relies on: their types and ranges. Raises CheckpointError naming the field."""
    def fault(message: str) -> CheckpointError:
        return CheckpointError(f"{what} {shown} is damaged: {message}")

    if not isinstance(meta, dict):
        raise fault(f"its metadata is {type(meta).__name__}, not a JSON object")
    for key in ("game", "observation_shape", "action_n"):
        if key not in meta:
            raise CheckpointError(f"{what} {shown} is missing metadata {key!r}")
    if not isinstance(meta["game"], str):
        raise fault(f"metadata 'game' must be a string, not {_shown(meta['game'])}")
    if not isinstance(meta.get("options", {}), dict):
        raise fault(f"metadata 'options' must be an object, not {_shown(meta['options'])}")
    shape = meta["observation_shape"]
    if not (isinstance(shape, list) and len(shape) == 1 and is_int(shape[0], 1, MAX_WIDTH)):
        raise fault(f"metadata 'observation_shape' must be a list of one positive integer (at most {MAX_WIDTH}), not {_shown(shape)}")
    if not is_int(meta["action_n"], 1, MAX_WIDTH):
        raise fault(f"metadata 'action_n' must be an integer 1…{MAX_WIDTH}, not {_shown(meta['action_n'])}")
    activation = meta.get("activation", "tanh")
    if not (isinstance(activation, str) and activation in ACTIVATIONS):
        raise fault(f"metadata 'activation' must be one of {', '.join(ACTIVATIONS)}, not {_shown(activation)}")


def policy_array_specs(meta: Any, shown: str) -> dict[str, ArraySpec]:
    """Check a policy checkpoint's meta.json; the arrays it declares (w0, b0, …), shaped from its
    spaces and ``net_arch`` (hidden widths not fixed when it has none)."""
    if not isinstance(meta, dict) or meta.get("format") != POLICY_FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise CheckpointError(f"{shown} is not a suite checkpoint (format {_shown(found)}, expected {POLICY_FORMAT!r})")
    version = meta.get("format_version")
    if not is_int(version, FORMAT_VERSION, FORMAT_VERSION):
        raise CheckpointError(f"checkpoint {shown} has format version {_shown(version)}; this code reads {FORMAT_VERSION}")
    layers = meta.get("layers")
    if not is_int(layers, 1, MAX_LAYERS):
        raise CheckpointError(f"checkpoint {shown} is damaged: metadata 'layers' must be an integer 1…{MAX_LAYERS}, not {_shown(layers)}")
    check_policy_meta(meta, shown)
    hidden: list[int | None] = [None] * (layers - 1)
    if "net_arch" in meta:
        net_arch = meta["net_arch"]
        if not (isinstance(net_arch, list) and all(is_int(width, 1, MAX_WIDTH) for width in net_arch)):
            raise CheckpointError(
                f"checkpoint {shown} is damaged: metadata 'net_arch' must be a list of integers 1…{MAX_WIDTH}, not {_shown(net_arch)}"
            )
        if len(net_arch) != layers - 1:
            raise CheckpointError(
                f"checkpoint {shown} is damaged: metadata 'net_arch' has {len(net_arch)} hidden sizes, but 'layers' is {layers}"
            )
        hidden = list(net_arch)
    widths = [meta["observation_shape"][0], *hidden, meta["action_n"]]
    known = [(a, b) for a, b in zip(widths, widths[1:]) if a is not None and b is not None]
    if len(known) == layers and sum(a * b + b for a, b in known) > MAX_PARAMETERS:
        raise CheckpointError(f"checkpoint {shown} is damaged: its declared network has more than {MAX_PARAMETERS} weights")
    specs = {}
    for i, (fan_in, fan_out) in enumerate(zip(widths, widths[1:])):
        specs[f"w{i}"] = ArraySpec((fan_out, fan_in))
        specs[f"b{i}"] = ArraySpec((fan_out,))
    return specs


def read_zip(archive, meta: dict[str, Any], shown: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy kinds' part of ``training.agents.files.read_agent_file``: the layers of an
    opened checkpoint whose metadata has been read (float32 ``(weight out×in, bias)``)."""
    arrays = read_npz_member(archive, "policy.npz", policy_array_specs(meta, shown), "")
    layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(meta["layers"])]
    for i, (weight, bias) in enumerate(layers):
        if i and weight.shape[1] != layers[i - 1][0].shape[0]:
            raise CheckpointError(f"checkpoint {shown} is damaged: layer {i} does not fit layer {i - 1}")
    return layers


def observation_misfit(meta: dict[str, Any], size: int, shape: tuple) -> str:
    """The message for an observation that does not fit an agent: what it was trained for."""
    trained = (
        f"this agent was trained for {meta['game']} with options {meta.get('options', {})} and takes"
        if meta.get("game") else "this agent takes"
    )
    got = f"size {shape[-1]}" if len(shape) in (1, 2) else f"shape {tuple(shape)}"
    return (
        f"{trained} observations of size {size}; this observation has {got}: "
        "play it in an env made with the options it was trained for"
    )


class PolicyAgent:
    """Plays a trained policy: masked argmax of the logits (or a masked sample, seeded)."""

    def __init__(self, layers, activation: str = "tanh", sample: bool = False, seed: int | None = None, meta=None):
        if activation not in ACTIVATIONS:
            raise CheckpointError(f"unknown activation {activation!r}; known: {', '.join(ACTIVATIONS)}")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = ACTIVATIONS[activation]
        self.activation_name = activation
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self.meta = meta or {}

    def logits(self, vector: np.ndarray) -> np.ndarray:
        x = np.asarray(vector, np.float32)
        size = self.layers[0][0].shape[1]
        if x.ndim not in (1, 2) or x.shape[-1] != size:
            raise ValueError(observation_misfit(self.meta, size, x.shape))
        last = len(self.layers) - 1
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight.T + bias
            if i < last:
                x = self.activation(x)
        return x

    def masked_logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        logits = self.logits(observation["observation"])
        return np.where(np.asarray(observation["action_mask"]) > 0, logits, -np.inf)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        masked = self.masked_logits(observation)
        if not np.isfinite(masked).any():
            raise ValueError("the observation's action mask is empty: this seat is not to act now")
        if not self.sample:
            return int(np.argmax(masked))
        shifted = np.exp(masked - masked[np.isfinite(masked)].max())
        return int(self.rng.choice(len(shifted), p=shifted / shifted.sum()))

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy's distribution: softmax of the masked logits (0 on illegal actions).

        Computed in float64 so the legal entries sum to 1 within rounding; a greedy agent
        (``sample=False``) plays the most probable action of this distribution.
        """
        masked = self.masked_logits(observation).astype(np.float64)
        finite = np.isfinite(masked)
        if not finite.any():
            raise ValueError("the observation's action mask is empty: this seat is not to act now")
        weights = np.where(finite, np.exp(masked - masked[finite].max()), 0.0)
        return weights / weights.sum()

    def policy_payload(self) -> dict[str, Any]:
        """Picklable description (for opponents in subprocess envs)."""
        return {"layers": self.layers, "activation": self.activation_name}


def options_not_trained_for(game: str, trained: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """The options of ``wanted`` (resolved) that differ from ``trained`` (the file's, resolved),
    as ``{name: wanted value}``: every option but those that change no rule an agent plays by
    (``Game.NEUTRAL_OPTIONS``: scripted chance, clocks) and the run-time ones."""
    description = envs.describe(game)
    engine = description.engine
    neutral = set(engine.NEUTRAL_OPTIONS) | set(engine.RUNTIME_OPTIONS)
    had, asked = description.portable_options(trained), description.portable_options(wanted)
    return {key: value for key, value in asked.items() if key not in neutral and had.get(key) != value}


def refuse_other_options(shown: str, game: str, trained: dict[str, Any], wanted: dict[str, Any],
                         error: type[ValueError] = ValueError) -> None:
    """An agent file plays the options it was trained for (``options_not_trained_for``): any
    other is refused, naming the options, even where the observation has the same shape."""
    differ = options_not_trained_for(game, trained, wanted)
    if differ:
        description = envs.describe(game)
        had = description.portable_options(trained)
        words = ", ".join(f"{key}={_shown(value, 80)} (trained with {_shown(had.get(key), 80)})" for key, value in differ.items())
        raise error(
            f"agent file {shown} was trained for {description.name} with other options: {words}; an agent file plays only "
            f"the options it was trained for (scripted chance and clocks aside)"
        )


def check_fits(path: str | Path, meta: dict[str, Any], game: str, options: dict[str, Any]) -> tuple[list[int], int]:
    """Check an agent file's metadata against ``game`` under ``options`` (its own options when
    none are given); return the spaces those options give. Shared by .zip and .onnx agents.

    Options the caller gives and the game refuses are the caller's ValueError; options the
    file records and the game refuses are a CheckpointError (the file is at fault)."""
    name = envs.canonical_name(game)
    shown = repr(str(path))
    if meta.get("game") != name:
        raise CheckpointError(f"checkpoint {shown} was trained for {_shown(meta.get('game'))}, not {name!r}"
                              f"{envs.registry.version_note(meta.get('game'), name)}")
    description = envs.describe(name)
    recorded = meta.get("options", {})
    try:
        trained = description.resolve_options(dict(recorded))
    except (ValueError, TypeError) as error:
        raise CheckpointError(f"checkpoint {shown} records options the game refuses: {error}") from None
    wanted = description.resolve_options(dict(options)) if options else trained
    observation_shape, action_n = env_spaces(name, wanted)
    if observation_shape != list(meta.get("observation_shape", [])) or action_n != meta.get("action_n"):
        raise CheckpointError(
            f"checkpoint {shown} expects observation shape {meta.get('observation_shape')} and "
            f"{meta.get('action_n')} actions (options {_shown(recorded, 400)}); options {json_ready(wanted)} "
            f"give shape {observation_shape} and {action_n} actions"
        )
    refuse_other_options(shown, name, trained, wanted, CheckpointError)  # the same shape, another game
    return observation_shape, action_n


def agent(agent_file, game: str, seed: int | None = None, sample: bool = False, options: dict[str, Any] | None = None) -> PolicyAgent:
    """The policy kinds' agent (``training.agents.files.load_agent_file``): the checkpoint
    checked against ``game`` under ``options`` (its own when none are given)."""
    meta, layers, path = agent_file.meta, agent_file.content, agent_file.path
    observation_shape, action_n = check_fits(path, meta, game, options or {})
    if layers[0][0].shape[1] != observation_shape[0] or layers[-1][0].shape[0] != action_n:
        raise CheckpointError(f"checkpoint {str(path)!r} is damaged: its network does not fit its declared spaces")
    return PolicyAgent(layers, meta.get("activation", "tanh"), sample=sample, seed=seed, meta=meta)


