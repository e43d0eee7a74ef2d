"""Policy-value networks (``training.agents.network``) as ONNX (kind ``"onnx-network"``): the
exporter and the checked loader.

``abstract-games export-onnx <network>.zip`` writes the graph (this module's
:func:`build_network_model`, built from the numpy weights with ``onnx.helper``, no torch);
``load_agent("<network>.onnx", game)`` plays it with onnxruntime alone
(:class:`OnnxNetworkAgent`). Inputs (``batch`` dynamic):

* ``planes``: float32 ``[batch, H, W, C]`` — the game's planes (``docs/observations.md``,
  "Planes"), what ``env(observation_format="planes")`` observes;
* ``action_mask``: float32 ``[batch, num_actions]``, an entry ``> 0`` marks a legal action.

Outputs: ``masked_logits`` (−1e8 on illegal actions; play the argmax), ``probabilities``
(their softmax) and ``value`` (``[batch, players]``, the expected return of each seat told
from the observing seat's side, in [−1, 1]). The metadata names the input and its shape as a
policy's does: ``input`` = ``"planes"``, ``observation_shape`` = ``[H, W, C]``, ``action_n``.

Before onnxruntime sees a file, ``training.agents.onnx_file`` checks it node by node against
exactly what the exporter writes for the architecture its metadata declares (operators, inputs,
outputs, attributes, float32 initializers held in the file with the shapes the architecture
needs, one int64 index), as it does for exported policies.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from training.agents.archive import CheckpointError
from training.agents.kinds import NETWORK_FORMAT, NETWORK_ONNX_FORMAT
from training.agents.network import Architecture, PolicyValueNet, architecture_from_meta
from training.agents.network_agent import check_network, observation_planes
from training.agents.onnx_file import (
    ACTION_MASK, IR_VERSION, MASKED_LOGIT, MASKED_LOGITS, ONNX_FLOAT, ONNX_INT64, OPSET, PROBABILITIES, inference, read_model,
)

NETWORK_ONNX_FORMAT_VERSION = 1
PLANES, VALUE = "planes", "value"
PADS = (1, 1, 1, 1)
EXPORTED_OPS = ("Transpose", "Conv", "Relu", "Add", "GlobalAveragePool", "GlobalMaxPool", "Concat", "Flatten", "Gemm",
                "Gather", "Tanh", "Greater", "Where", "Softmax")


def expected_nodes(arch: Architecture) -> list[tuple[str, list[str], list[str], dict[str, Any]]]:
    """The nodes :func:`build_network_model` writes for ``arch``, in order."""
    nodes: list[tuple[str, list[str], list[str], dict[str, Any]]] = [
        ("Transpose", [PLANES], ["nchw"], {"perm": (0, 3, 1, 2)}),
        ("Conv", ["nchw", "stem.w", "stem.b"], ["stem"], {"pads": PADS}),
        ("Relu", ["stem"], ["x0"], {}),
    ]
    current = "x0"
    for i in range(arch.blocks):
        nodes += [
            ("Conv", [current, f"block{i}.conv1.w", f"block{i}.conv1.b"], [f"b{i}c1"], {"pads": PADS}),
            ("Relu", [f"b{i}c1"], [f"b{i}r1"], {}),
            ("Conv", [f"b{i}r1", f"block{i}.conv2.w", f"block{i}.conv2.b"], [f"b{i}c2"], {"pads": PADS}),
            ("Add", [current, f"b{i}c2"], [f"b{i}sum"], {}),
            ("Relu", [f"b{i}sum"], [f"x{i + 1}"], {}),
        ]
        current = f"x{i + 1}"
    nodes += [
        ("GlobalAveragePool", [current], ["mean4"], {}),
        ("GlobalMaxPool", [current], ["max4"], {}),
        ("Concat", ["mean4", "max4"], ["pool4"], {"axis": 1}),
        ("Flatten", ["pool4"], ["pooled"], {"axis": 1}),
    ]
    heads = []
    if arch.cell_channels:
        nodes += [
            ("Conv", [current, "policy.cell.w", "policy.cell.b"], ["cell4"], {}),
            ("Transpose", ["cell4"], ["cell_nhwc"], {"perm": (0, 2, 3, 1)}),
            ("Flatten", ["cell_nhwc"], ["cell"], {"axis": 1}),
        ]
        heads.append("cell")
    if arch.global_actions:
        nodes.append(("Gemm", ["pooled", "policy.global.w", "policy.global.b"], ["global"], {"transB": 1}))
        heads.append("global")
    if len(heads) > 1:
        nodes.append(("Concat", heads, ["head"], {"axis": 1}))
        head = "head"
    else:
        head = heads[0]
    nodes += [
        ("Gather", [head, "policy.index"], ["logits"], {"axis": 1}),
        ("Gemm", ["pooled", "value.fc1.w", "value.fc1.b"], ["value_hidden0"], {"transB": 1}),
        ("Relu", ["value_hidden0"], ["value_hidden"], {}),
        ("Gemm", ["value_hidden", "value.fc2.w", "value.fc2.b"], ["value_logit"], {"transB": 1}),
        ("Tanh", ["value_logit"], [VALUE], {}),
        ("Greater", [ACTION_MASK, "zero"], ["legal"], {}),
        ("Where", ["legal", "logits", "masked_logit"], [MASKED_LOGITS], {}),
        ("Softmax", [MASKED_LOGITS], [PROBABILITIES], {"axis": 1}),
    ]
    return nodes


def graph_arrays(net: PolicyValueNet) -> dict[str, np.ndarray]:
    """The initializers the graph holds: the network's arrays it uses (the margin head is left
    out: it only trains the tower), the policy index and the mask constants."""
    arrays = {name: value for name, value in net.weights.items() if not name.startswith("margin.")}
    arrays["policy.index"] = np.asarray(net.index, np.int64)
    arrays["zero"] = np.zeros((), np.float32)
    arrays["masked_logit"] = np.array(MASKED_LOGIT, np.float32)
    return arrays


def build_network_model(net: PolicyValueNet, meta: dict[str, Any]):
    """The ONNX model (``onnx.ModelProto``) of a policy-value network."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    arch = net.architecture
    height, width, channels = arch.planes
    actions = len(net.index)
    nodes = [helper.make_node(op, inputs, outputs, **{k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()})
             for op, inputs, outputs, attrs in expected_nodes(arch)]
    initializers = [numpy_helper.from_array(value, name) for name, value in graph_arrays(net).items()]
    graph = helper.make_graph(
        nodes, f"{meta.get('game', 'network')}_policy_value",
        [helper.make_tensor_value_info(PLANES, TensorProto.FLOAT, ["batch", height, width, channels]),
         helper.make_tensor_value_info(ACTION_MASK, TensorProto.FLOAT, ["batch", actions])],
        [helper.make_tensor_value_info(MASKED_LOGITS, TensorProto.FLOAT, ["batch", actions]),
         helper.make_tensor_value_info(PROBABILITIES, TensorProto.FLOAT, ["batch", actions]),
         helper.make_tensor_value_info(VALUE, TensorProto.FLOAT, ["batch", arch.players])],
        initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="abstract-games-suite",
        doc_string=(f"Policy-value network of a suite agent for {meta.get('game')}: inputs planes float32 "
                    f"[batch, {height}, {width}, {channels}] and action_mask float32 [batch, {actions}] (> 0 = legal); "
                    f"outputs masked_logits (illegal = {MASKED_LOGIT:g}), probabilities, value [batch, {arch.players}] "
                    "(relative seats). metadata_props values are JSON."),
    )
    model.ir_version = IR_VERSION
    props = {**meta, "kind": "onnx-network", "source_kind": meta.get("kind", "network"), "format": NETWORK_ONNX_FORMAT,
             "format_version": NETWORK_ONNX_FORMAT_VERSION, "network_format": NETWORK_FORMAT,
             "input": PLANES, "observation_shape": [height, width, channels], "action_n": actions}
    helper.set_model_props(model, {key: json.dumps(value, sort_keys=True) for key, value in props.items()})
    onnx.checker.check_model(model, full_check=True)
    return model


# ----- checking a file before onnxruntime sees it ---------------------------------------------------

def read_onnx(data: bytes, meta: dict[str, Any], shown: str) -> tuple[bytes, PolicyValueNet]:
    """The onnx-network kind's part of ``training.agents.files.read_agent_file``: the graph
    checked against the exporter's for the architecture the metadata declares; returns the
    file's bytes and the network its initializers hold."""
    if meta.get("format_version") != NETWORK_ONNX_FORMAT_VERSION or isinstance(meta.get("format_version"), bool):
        raise CheckpointError(f"ONNX agent {shown} has format version {meta.get('format_version')!r:.80}; "
                              f"this code reads {NETWORK_ONNX_FORMAT_VERSION}")
    try:
        arch = architecture_from_meta(meta)
    except CheckpointError as error:
        raise CheckpointError(f"ONNX agent {shown} is damaged or not a suite network graph: {error}") from None
    initializers = read_model(data, shown, EXPORTED_OPS, lambda nodes: expected_nodes(arch), (ONNX_FLOAT, ONNX_INT64),
                              label="is damaged or not a suite network graph")
    shapes = {k: v for k, v in arch.weight_shapes().items() if not k.startswith("margin.")}
    expected = set(shapes) | {"policy.index", "zero", "masked_logit"}
    if set(initializers) != expected:
        raise CheckpointError(f"ONNX agent {shown} is not the suite exporter's graph: initializers {sorted(initializers)[:8]}…")
    for name, shape in shapes.items():
        if initializers[name].shape != shape or initializers[name].dtype != np.float32:
            raise CheckpointError(f"ONNX agent {shown} is damaged: initializer {name!r} has shape {initializers[name].shape}, not {shape}")
    index = initializers["policy.index"]
    if index.dtype != np.int64 or index.ndim != 1 or meta.get("num_actions") != len(index):
        raise CheckpointError(f"ONNX agent {shown} is damaged: its policy index does not fit its {meta.get('num_actions')} actions")
    declared = {"input": PLANES, "observation_shape": list(arch.planes), "action_n": len(index)}
    for key, value in declared.items():
        if key in meta and meta[key] != value:
            raise CheckpointError(f"ONNX agent {shown} does not fit its declared spaces: metadata {key!r} is "
                                  f"{str(meta[key])[:60]}, its graph's is {value}")
    weights = {name: initializers[name] for name in shapes}
    # the margin head is not in the graph; zeros stand for it (only the policy and value are read)
    for name, shape in arch.weight_shapes().items():
        weights.setdefault(name, np.zeros(shape, np.float32))
    try:
        return data, PolicyValueNet(arch, weights, index)
    except CheckpointError as error:
        raise CheckpointError(f"ONNX agent {shown} is damaged: {error}") from None


class OnnxNetworkAgent:
    """Plays an exported network with onnxruntime: the masked argmax of its policy. It reads
    the env's flat observation (the game's observer builds the planes) or the planes."""

    name = "network-onnx"

    def __init__(self, session, meta: dict[str, Any], observer):
        self.session, self.meta, self.observer = session, meta, observer

    def _run(self, observation) -> tuple[np.ndarray, np.ndarray]:
        planes = observation_planes(observation, self.observer, self.meta)
        mask = np.asarray(observation["action_mask"], np.float32).reshape(1, -1)
        if mask.shape[1] != self.meta["num_actions"]:
            raise ValueError(f"this agent plays {self.meta['num_actions']} actions; this action mask has {mask.shape[1]}")
        if not (mask > 0).any():
            raise ValueError("the observation's action mask is empty: this seat is not to act now")
        logits, probabilities = self.session.run([MASKED_LOGITS, PROBABILITIES], {PLANES: planes[None], ACTION_MASK: mask})
        return logits[0], probabilities[0]

    def act(self, observation) -> int:
        return int(np.argmax(self._run(observation)[0]))

    def action_probabilities(self, observation) -> np.ndarray:
        mask = np.asarray(observation["action_mask"]) > 0
        probabilities = np.where(mask, self._run(observation)[1].astype(np.float64), 0.0)
        return probabilities / probabilities.sum()


def agent(agent_file, game: str, seed: int | None = None, sample: bool = False,
          options: dict[str, Any] | None = None) -> OnnxNetworkAgent:
    """The onnx-network kind's agent (``training.agents.files.load_agent_file``): the network
    checked against ``game`` under ``options`` as a .zip network is, its policy alone."""
    import envs

    if sample:
        raise ValueError(f"ONNX agent {agent_file.shown} is a network: its agent plays its best move (no sampling)")
    data, net = agent_file.content
    net, meta = check_network(agent_file.path, net, agent_file.meta, game, options or {})
    description = envs.describe(game)
    observer = description.observer(description.resolve_options(meta["resolved_options"]))
    return OnnxNetworkAgent(inference(data, agent_file.shown), meta, observer)


def verify_network_model(model_bytes: bytes, net: PolicyValueNet, seed: int = 0, count: int = 16) -> float:
    """The exported graph against the numpy network on seeded random planes: the largest logit
    difference (CheckpointError past 1e-4)."""
    import onnxruntime

    session = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    planes = rng.random((count, *net.architecture.planes), dtype=np.float32)
    actions = len(net.index)
    masks = (rng.random((count, actions)) < 0.5).astype(np.float32)
    masks[np.arange(count), rng.integers(0, actions, count)] = 1.0
    exported, values = session.run([MASKED_LOGITS, VALUE], {PLANES: planes, ACTION_MASK: masks})
    logits, expected_values = net.evaluate(planes)
    expected = np.where(masks > 0, logits, MASKED_LOGIT)
    difference = float(max(np.max(np.abs(exported - expected)), np.max(np.abs(values - expected_values))))
    if difference > 1e-4:
        raise CheckpointError(f"the exported graph disagrees with the numpy network by {difference:g}")
    return difference
