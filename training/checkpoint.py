"""The suite's checkpoint format, and the agent that plays from one.

A checkpoint is one zip file holding

* ``meta.json`` — format and version, game, env options, observation and action spaces,
  network shape, steps trained, seed, code version, the command that made it;
* ``policy.npz`` — the policy network's weights as plain numpy arrays (``allow_pickle=False``).

Loading needs numpy only: no torch, no unpickling, so a front end can run a bot without the
training stack, and a damaged or foreign file can only fail with a message. The network is the
actor of SB3's ``MlpPolicy`` (``MaskablePPO``): observation → hidden layers (tanh or relu) →
logits; illegal actions are masked out and the best remaining logit is played.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.core.game import json_ready

FORMAT = "abstract-games-suite/policy"
FORMAT_VERSION = 1
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here; the message says which check failed."""


def env_spaces(game: str, options: dict[str, Any]) -> tuple[list[int], int]:
    raw = envs.load(game).raw_env(**options)
    agent = raw.possible_agents[0]
    return list(raw.observation_space(agent)["observation"].shape), int(raw.action_space(agent).n)


def portable_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options a checkpoint records: run-time objects (a clock function) are left out."""
    kept = {}
    for key, value in json_ready(options).items():
        try:
            json.dumps(value)
        except TypeError:
            continue
        kept[key] = value
    return kept


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
    full_meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "layers": len(layers), **json_ready(meta)}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.json", json.dumps(full_meta, indent=2, sort_keys=True))
        archive.writestr("policy.npz", buffer.getvalue())
    return path


def read_checkpoint(path: str | Path) -> tuple[dict[str, Any], list[tuple[np.ndarray, np.ndarray]]]:
    path = Path(path)
    shown = repr(str(path))
    if not path.is_file():
        raise CheckpointError(f"checkpoint {shown} does not exist")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            for required in ("meta.json", "policy.npz"):
                if required not in names:
                    raise CheckpointError(f"checkpoint {shown} is damaged or foreign: it has no {required}")
            meta = json.loads(archive.read("meta.json"))
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                found = meta.get("format") if isinstance(meta, dict) else None
                raise CheckpointError(f"{shown} is not a suite checkpoint (format {found!r}, expected {FORMAT!r})")
            if meta.get("format_version") != FORMAT_VERSION:
                raise CheckpointError(
                    f"checkpoint {shown} has format version {meta.get('format_version')!r}; this code reads {FORMAT_VERSION}"
                )
            weights = np.load(io.BytesIO(archive.read("policy.npz")), allow_pickle=False)
            layers = [(weights[f"w{i}"], weights[f"b{i}"]) for i in range(int(meta["layers"]))]
    except CheckpointError:
        raise
    except zipfile.BadZipFile as error:
        raise CheckpointError(f"checkpoint {shown} is damaged: not a readable zip archive ({error})") from None
    except (json.JSONDecodeError, KeyError, ValueError, OSError, EOFError, zipfile.LargeZipFile) as error:
        raise CheckpointError(f"checkpoint {shown} is damaged: {error!r}") from None
    for i, (weight, bias) in enumerate(layers):
        if weight.ndim != 2 or bias.shape != (weight.shape[0],):
            raise CheckpointError(f"checkpoint {shown} is damaged: layer {i} has inconsistent shapes")
        if i and weight.shape[1] != layers[i - 1][0].shape[0]:
            raise CheckpointError(f"checkpoint {shown} is damaged: layer {i} does not fit layer {i - 1}")
    return meta, layers


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


def check_fits(path: str | Path, meta: dict[str, Any], game: str, options: dict[str, Any]) -> tuple[list[int], int]:
    """Check an agent file's metadata against ``game`` under ``options`` (its own options when
    none are given); return the spaces those options give. Shared by .zip and .onnx agents."""
    name = envs.canonical_name(game)
    if meta.get("game") != name:
        raise CheckpointError(f"checkpoint {str(path)!r} was trained for {meta.get('game')!r}, not {name!r}")
    wanted = envs.describe(name).resolve_options(dict(options) if options else dict(meta.get("options", {})))
    observation_shape, action_n = env_spaces(name, wanted)
    if observation_shape != list(meta.get("observation_shape", [])) or action_n != meta.get("action_n"):
        raise CheckpointError(
            f"checkpoint {str(path)!r} expects observation shape {meta.get('observation_shape')} and "
            f"{meta.get('action_n')} actions (options {meta.get('options')}); options {json_ready(wanted)} "
            f"give shape {observation_shape} and {action_n} actions"
        )
    return observation_shape, action_n


def load_checkpoint_agent(path: str | Path, game: str, seed: int | None = None, sample: bool = False, **options: Any) -> PolicyAgent:
    """Load ``path`` as an agent for ``game`` under ``options`` (checked against its metadata)."""
    meta, layers = read_checkpoint(path)
    observation_shape, action_n = check_fits(path, meta, game, options)
    if layers[0][0].shape[1] != observation_shape[0] or layers[-1][0].shape[0] != action_n:
        raise CheckpointError(f"checkpoint {str(path)!r} is damaged: its network does not fit its declared spaces")
    return PolicyAgent(layers, meta.get("activation", "tanh"), sample=sample, seed=seed, meta=meta)
