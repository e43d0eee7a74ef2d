"""An agent that plays an exported policy (.onnx) with onnxruntime alone: no torch, no unpickling.

``load_agent("bot.onnx", "loom", seed=0)`` returns an :class:`OnnxAgent`, checked against the
game and options exactly like a .zip checkpoint (the metadata travels in the ONNX file, see
``training.export_onnx``). This module imports neither torch nor the ``onnx`` package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from training.checkpoint import CheckpointError, check_fits

# The graph's contract (training.export_onnx writes it, this module reads it; docs/onnx.md).
ONNX_FORMAT = "abstract-games-suite/policy-onnx"
ONNX_FORMAT_VERSION = 1
MASKED_LOGIT = -1e8  # the logit of an illegal action, as in sb3-contrib's masked distribution
OBSERVATION, ACTION_MASK = "observation", "action_mask"
MASKED_LOGITS, PROBABILITIES = "masked_logits", "probabilities"


def open_session(path: Path):
    """An onnxruntime session on ``path``, one thread (bots share the machine with their game)."""
    import onnxruntime

    shown = repr(str(path))
    if not path.is_file():
        raise CheckpointError(f"ONNX agent {shown} does not exist")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # errors reach the caller as exceptions; no stderr noise
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types for unreadable models
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"ONNX agent {shown} is damaged or not an ONNX model: {first_line}") from None


def read_metadata(path: Path, session) -> dict[str, Any]:
    """The suite metadata of an ONNX agent (every metadata_props value is JSON)."""
    shown = repr(str(path))
    props = session.get_modelmeta().custom_metadata_map
    if "format" not in props:
        raise CheckpointError(
            f"ONNX agent {shown} has no suite metadata (no 'format' in its metadata_props): "
            "export it with python -m training.export_onnx"
        )
    meta = {}
    for key, text in props.items():
        try:
            meta[key] = json.loads(text)
        except json.JSONDecodeError:
            raise CheckpointError(f"ONNX agent {shown} is damaged: metadata {key!r} is not JSON ({text[:60]!r})") from None
    if meta["format"] != ONNX_FORMAT:
        raise CheckpointError(f"{shown} is not a suite ONNX agent (format {meta['format']!r}, expected {ONNX_FORMAT!r})")
    if meta.get("format_version") != ONNX_FORMAT_VERSION:
        raise CheckpointError(
            f"ONNX agent {shown} has format version {meta.get('format_version')!r}; this code reads {ONNX_FORMAT_VERSION}"
        )
    for key in ("game", "options", "observation_shape", "action_n"):
        if key not in meta:
            raise CheckpointError(f"ONNX agent {shown} is missing metadata {key!r}")
    return meta


def check_graph(path: Path, session, observation_size: int, action_n: int) -> None:
    """The graph's inputs and outputs are the ones the suite exports, sized for these spaces."""
    expected_inputs = {OBSERVATION: observation_size, ACTION_MASK: action_n}
    inputs = {node.name: node for node in session.get_inputs()}
    outputs = {node.name for node in session.get_outputs()}
    problems = []
    if set(inputs) != set(expected_inputs):
        problems.append(f"inputs {sorted(inputs)} (expected {sorted(expected_inputs)})")
    else:
        for name, width in expected_inputs.items():
            node = inputs[name]
            if node.type != "tensor(float)" or len(node.shape) != 2 or node.shape[1] != width:
                problems.append(f"input {name!r} is {node.type} {node.shape} (expected float [batch, {width}])")
    if not {MASKED_LOGITS, PROBABILITIES} <= outputs:
        problems.append(f"outputs {sorted(outputs)} (expected {MASKED_LOGITS!r} and {PROBABILITIES!r})")
    if problems:
        raise CheckpointError(f"ONNX agent {str(path)!r} does not fit its declared spaces: " + "; ".join(problems))


class OnnxAgent:
    """Plays an exported policy: masked argmax of the logits (or a seeded sample from the policy)."""

    def __init__(self, session, meta: dict[str, Any] | None = None, sample: bool = False, seed: int | None = None):
        self.session = session
        self.meta = meta or {}
        self.sample = sample
        self.rng = np.random.default_rng(seed)

    def _run(self, observation: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        vector = np.asarray(observation["observation"], np.float32).reshape(1, -1)
        mask = np.asarray(observation["action_mask"], np.float32).reshape(1, -1)
        if not (mask > 0).any():
            raise ValueError("the observation's action mask is empty: this seat is not to act now")
        logits, probabilities = self.session.run([MASKED_LOGITS, PROBABILITIES], {OBSERVATION: vector, ACTION_MASK: mask})
        return logits[0], probabilities[0]

    def masked_logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy's logits, -1e8 on illegal actions (the graph's ``masked_logits``)."""
        return self._run(observation)[0]

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy's distribution over all actions (float64, zeros on illegal ones, sums to 1)."""
        mask = np.asarray(observation["action_mask"]) > 0
        probabilities = np.where(mask, self._run(observation)[1].astype(np.float64), 0.0)
        return probabilities / probabilities.sum()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        if not self.sample:
            return int(np.argmax(self.masked_logits(observation)))
        probabilities = self.action_probabilities(observation)
        return int(self.rng.choice(len(probabilities), p=probabilities))


def load_onnx_agent(path: str | Path, game: str, seed: int | None = None, sample: bool = False, **options: Any) -> OnnxAgent:
    """Load ``path`` as an agent for ``game`` under ``options`` (checked against its metadata)."""
    path = Path(path)
    session = open_session(path)
    meta = read_metadata(path, session)
    observation_shape, action_n = check_fits(path, meta, game, options)
    check_graph(path, session, observation_shape[0], action_n)
    return OnnxAgent(session, meta, sample=sample, seed=seed)
