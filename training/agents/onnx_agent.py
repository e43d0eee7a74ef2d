"""An agent that plays an exported policy (kind ``"onnx-policy"``) with onnxruntime alone: no
torch, no unpickling.

``load_agent("bot.onnx", "loom", seed=0)`` returns an :class:`OnnxAgent`, checked against the
game and options exactly like a .zip checkpoint (the metadata travels in the ONNX file, see
``training.agents.export_onnx``). The file is read by ``training.agents.files`` and checked node
by node by ``training.agents.onnx_file`` before onnxruntime sees it. This module imports neither
torch nor the ``onnx`` package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from training.agents.archive import MAX_LAYERS, MAX_PARAMETERS, CheckpointError
from training.agents.checkpoint import check_fits, check_policy_meta, observation_misfit
from training.agents.kinds import POLICY_ONNX_FORMAT
from training.agents.onnx_file import ACTION_MASK, MASKED_LOGIT, MASKED_LOGITS, PROBABILITIES, inference, read_model

# The graph's contract (training.agents.export_onnx writes it, this module reads it; docs/onnx.md).
ONNX_FORMAT = POLICY_ONNX_FORMAT
ONNX_FORMAT_VERSION = 1
OBSERVATION = "observation"
ACTIVATION_OPS = {"tanh": "Tanh", "relu": "Relu"}
EXPORTED_OPS = ("Gemm", *ACTIVATION_OPS.values(), "Greater", "Where", "Softmax")


def expected_nodes(layers: int, activation: str) -> list[tuple[str, list[str], list[str], dict[str, int]]]:
    """The nodes ``training.agents.export_onnx.build_model`` writes for ``layers`` linear layers."""
    nodes, current = [], OBSERVATION
    for i in range(layers):
        nodes.append(("Gemm", [current, f"w{i}", f"b{i}"], [f"linear{i}"], {"transB": 1}))
        current = f"linear{i}"
        if i < layers - 1:
            nodes.append((ACTIVATION_OPS[activation], [current], [f"hidden{i}"], {}))
            current = f"hidden{i}"
    nodes.append(("Greater", [ACTION_MASK, "zero"], ["legal"], {}))
    nodes.append(("Where", ["legal", current, "masked_logit"], [MASKED_LOGITS], {}))
    nodes.append(("Softmax", [MASKED_LOGITS], [PROBABILITIES], {"axis": 1}))
    return nodes


def read_onnx(data: bytes, meta: dict[str, Any], shown: str) -> tuple[bytes, list[tuple[np.ndarray, np.ndarray]]]:
    """The onnx-policy kind's part of ``training.agents.files.read_agent_file``: the metadata
    checked as a .zip's is, the graph checked against exactly what the exporter writes for it —
    opset, operators in order, their inputs, outputs and attributes, float32 initializers held
    in the file with the shapes of a chain of layers fitting the declared spaces. Returns the
    file's bytes and its layers."""
    if not (type(meta.get("format_version")) is int and meta.get("format_version") == ONNX_FORMAT_VERSION):
        raise CheckpointError(
            f"ONNX agent {shown} has format version {meta.get('format_version')!r:.80}; this code reads {ONNX_FORMAT_VERSION}"
        )
    check_policy_meta(meta, shown, what="ONNX agent")
    activation = meta.get("activation", "tanh")

    def wanted(nodes):
        layers = sum(1 for node in nodes if node[0] == "Gemm")
        if not 1 <= layers <= MAX_LAYERS:
            raise CheckpointError(f"ONNX agent {shown} is not the suite exporter's graph: {layers} Gemm nodes "
                                  f"(the exporter writes 1…{MAX_LAYERS})")
        return expected_nodes(layers, activation)

    initializers = read_model(data, shown, EXPORTED_OPS, wanted)
    layers = sum(1 for name in initializers if name.startswith("w"))
    names = {f"w{i}" for i in range(layers)} | {f"b{i}" for i in range(layers)} | {"zero", "masked_logit"}
    if set(initializers) != names:
        raise CheckpointError(f"ONNX agent {shown} is not the suite exporter's graph: initializers {sorted(initializers)[:12]}, expected {sorted(names)}")
    if initializers["zero"].shape != () or initializers["zero"] != 0 or initializers["masked_logit"].shape != ():
        raise CheckpointError(f"ONNX agent {shown} is not the suite exporter's graph: its mask constants are not scalars 0 and {MASKED_LOGIT:g}")
    weights = [(initializers[f"w{i}"], initializers[f"b{i}"]) for i in range(layers)]
    for i, (weight, bias) in enumerate(weights):
        if weight.ndim != 2 or bias.shape != (weight.shape[0],) or (i and weight.shape[1] != weights[i - 1][0].shape[0]):
            raise CheckpointError(f"ONNX agent {shown} is damaged: layer {i} has inconsistent shapes")
    if sum(w.size + b.size for w, b in weights) > MAX_PARAMETERS:
        raise CheckpointError(f"ONNX agent {shown} is damaged: more than {MAX_PARAMETERS} weights")
    observation_size, action_n = int(weights[0][0].shape[1]), int(weights[-1][0].shape[0])
    if [observation_size] != meta["observation_shape"] or action_n != meta["action_n"]:
        raise CheckpointError(
            f"ONNX agent {shown} does not fit its declared spaces: its graph takes {observation_size} observation "
            f"values and {action_n} actions, its metadata says {meta['observation_shape']} and {meta['action_n']}"
        )
    return data, weights


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
        vector = np.asarray(observation["observation"], np.float32)
        size = self.meta["observation_shape"][0]
        if vector.ndim != 1 or vector.shape[0] != size:
            raise ValueError(observation_misfit(self.meta, size, vector.shape))
        vector = vector.reshape(1, -1)
        mask = np.asarray(observation["action_mask"], np.float32).reshape(1, -1)
        if mask.shape[1] != self.meta["action_n"]:
            raise ValueError(f"this agent plays {self.meta['action_n']} actions; this action mask has {mask.shape[1]}")
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


def agent(agent_file, game: str, seed: int | None = None, sample: bool = False,
          options: dict[str, Any] | None = None) -> OnnxAgent:
    """The onnx-policy kind's agent (``training.agents.files.load_agent_file``), checked against
    ``game`` under ``options`` (the file's own when none are given)."""
    data, _ = agent_file.content
    observation_shape, action_n = check_fits(agent_file.path, agent_file.meta, game, options or {})
    session = inference(data, agent_file.shown)
    check_graph(agent_file.path, session, observation_shape[0], action_n)
    return OnnxAgent(session, agent_file.meta, sample=sample, seed=seed)


