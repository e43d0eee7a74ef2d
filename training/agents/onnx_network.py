"""Policy-value networks (``training.agents.network``) as ONNX: the exporter and the checked loader.

``python -m training.export_onnx <network>.zip`` writes the graph (this module's
:func:`build_network_model`, built from the numpy weights with ``onnx.helper``, no torch);
``load_agent("<network>.onnx", game)`` plays it with onnxruntime alone
(:class:`OnnxNetworkAgent`). Inputs (``batch`` dynamic):

* ``planes``: float32 ``[batch, H, W, C]`` — the game's planes (``docs/observations.md``,
  "Planes"), what ``env(observation_format="planes")`` observes;
* ``action_mask``: float32 ``[batch, num_actions]``, an entry ``> 0`` marks a legal action.

Outputs: ``masked_logits`` (−1e8 on illegal actions; play the argmax), ``probabilities``
(their softmax) and ``value`` (``[batch, players]``, the expected return of each seat told
from the observing seat's side, in [−1, 1]).

Before onnxruntime sees a file, it is checked node by node against exactly what the exporter
writes for the architecture its metadata declares (operators, inputs, outputs, attributes,
float32 initializers held in the file with the shapes the architecture needs, one int64
index), as ``training.agents.onnx_agent`` does for MaskablePPO policies.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from training.agents.checkpoint import CheckpointError
from training.agents.network import FORMAT, Architecture, PolicyValueNet, architecture_from_meta
from training.agents.network_agent import observation_planes
from training.agents.onnx_agent import (
    ACTION_MASK, GRAPH_FIELDS, IR_VERSION, MASKED_LOGIT, MASKED_LOGITS, NODE_FIELDS, OPSET, PROBABILITIES, TENSOR_FIELDS,
    _Fault, _ints, _message, _one, _text, read_model_header,
)

NETWORK_ONNX_FORMAT = "abstract-games-suite/policy-value-onnx"
NETWORK_ONNX_FORMAT_VERSION = 1
PLANES, VALUE = "planes", "value"
ATTRIBUTE_FIELDS = {1: "name", 3: "i", 8: "ints", 20: "type"}
ONNX_FLOAT, ONNX_INT64 = 1, 7
ATTRIBUTE_INT, ATTRIBUTE_INTS = 2, 7
PADS = (1, 1, 1, 1)


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
    props = {**meta, "format": NETWORK_ONNX_FORMAT, "format_version": NETWORK_ONNX_FORMAT_VERSION, "network_format": FORMAT}
    helper.set_model_props(model, {key: json.dumps(value, sort_keys=True) for key, value in props.items()})
    onnx.checker.check_model(model, full_check=True)
    return model


# ----- checking a file before onnxruntime sees it ---------------------------------------------------

def _node(data: memoryview, index: int) -> tuple[str, list[str], list[str], dict[str, Any]]:
    what = f"node {index}"
    fields = _message(data, NODE_FIELDS, what)
    if _text(_one(fields, "domain", what, memoryview(b"")), what):
        raise _Fault(f"{what} is in a custom operator domain")
    op = _text(_one(fields, "op_type", what), what)
    inputs = [_text(v, what) for v in fields.get("input", [])]
    outputs = [_text(v, what) for v in fields.get("output", [])]
    attributes: dict[str, Any] = {}
    for raw in fields.get("attribute", []):
        attribute = _message(raw, ATTRIBUTE_FIELDS, f"an attribute of {what} ({op[:40]})")
        name = _text(_one(attribute, "name", what), what)
        kind = _one(attribute, "type", what)
        if kind == ATTRIBUTE_INT and "i" in attribute:
            attributes[name] = _ints(attribute["i"], what)[0]
        elif kind == ATTRIBUTE_INTS and "ints" in attribute:
            attributes[name] = tuple(_ints(attribute["ints"], what))
        else:
            raise _Fault(f"attribute {name!r} of {what} ({op[:40]}) is not an integer or a list of integers")
    return op, inputs, outputs, attributes


def _initializer(data: memoryview) -> tuple[str, np.ndarray]:
    fields = _message(data, TENSOR_FIELDS, "an initializer")
    name = _text(_one(fields, "name", "an initializer"), "an initializer name")
    what = f"initializer {name!r}"
    kind = _one(fields, "data_type", what)
    dims = tuple(_ints(fields.get("dims", []), what))
    if len(dims) > 4 or any(d < 1 or d > 1 << 20 for d in dims):
        raise _Fault(f"{what} has dims {dims}")
    raw = _one(fields, "raw_data", what, memoryview(b""))
    size = {ONNX_FLOAT: 4, ONNX_INT64: 8}.get(kind)
    if size is None:
        raise _Fault(f"{what} has ONNX data type {kind}; the exporter writes float32 and one int64 index")
    if len(raw) != math.prod(dims) * size:
        raise _Fault(f"{what} holds {len(raw)} bytes for dims {dims}")
    values = np.frombuffer(raw, "<f4" if kind == ONNX_FLOAT else "<i8").reshape(dims)
    if kind == ONNX_FLOAT and not np.isfinite(values).all():
        raise _Fault(f"{what} holds values that are not finite")
    return name, values


def check_network_model_bytes(data: bytes, shown: str) -> tuple[dict[str, Any], PolicyValueNet]:
    """Check an exported network file against the exporter's graph for the architecture its
    metadata declares; return the metadata and the network its initializers hold."""
    try:
        model, props = read_model_header(data)
        meta: dict[str, Any] = {}
        for key, text in props.items():
            try:
                meta[key] = json.loads(text)
            except (ValueError, RecursionError):
                raise _Fault(f"metadata {key!r} is not JSON") from None
        if meta.get("format") != NETWORK_ONNX_FORMAT or meta.get("format_version") != NETWORK_ONNX_FORMAT_VERSION:
            raise _Fault(f"it is not a {NETWORK_ONNX_FORMAT} file of version {NETWORK_ONNX_FORMAT_VERSION}")
        arch = architecture_from_meta(meta)
        graph = _message(_one(model, "graph", "the model"), GRAPH_FIELDS, "the graph")
        nodes = [_node(raw, i) for i, raw in enumerate(graph.get("node", []))]
        wanted = expected_nodes(arch)
        for index in range(max(len(wanted), len(nodes))):
            got = nodes[index] if index < len(nodes) else None
            want = wanted[index] if index < len(wanted) else None
            if got != want:
                raise _Fault(f"node {index} is {got[0] + str(got[1:]) if got else 'missing'}, the exporter writes "
                             f"{want[0] + str(want[1:]) if want else 'no more nodes'} there")
        initializers = {}
        for raw in graph.get("initializer", []):
            name, values = _initializer(raw)
            if name in initializers:
                raise _Fault(f"initializer {name!r} appears twice")
            initializers[name] = values
    except _Fault as fault:
        raise CheckpointError(f"ONNX agent {shown} is damaged or not a suite network graph: {fault}") from None
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
    weights = {name: initializers[name] for name in shapes}
    # the margin head is not in the graph; zeros stand for it (only the policy and value are read)
    for name, shape in arch.weight_shapes().items():
        weights.setdefault(name, np.zeros(shape, np.float32))
    return meta, PolicyValueNet(arch, weights, index)


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


def is_network_onnx(data: bytes) -> bool:
    """Whether an ONNX file's metadata declares the network format (a cheap look, no checks)."""
    return NETWORK_ONNX_FORMAT.encode() in data[-65536:] or NETWORK_ONNX_FORMAT.encode() in data[:65536]


def load_onnx_network_agent(path: Path, data: bytes, game: str, options: dict[str, Any]) -> OnnxNetworkAgent:
    import onnxruntime

    import envs

    shown = repr(str(path))
    meta, net = check_network_model_bytes(data, shown)
    description = envs.describe(game)
    if meta.get("game") != description.name:
        raise CheckpointError(f"ONNX agent {shown} was trained for {meta.get('game')!r}, not {description.name!r}")
    recorded = meta.get("options") if isinstance(meta.get("options"), dict) else {}
    resolved = description.resolve_options(options if options else recorded)
    observer = description.observer(resolved)
    if tuple(observer.planes_shape()) != net.architecture.planes or len(net.index) != description.engine.num_actions_for(resolved):
        raise ValueError(f"ONNX agent {shown} was trained for {description.name} with options {recorded}; these options "
                         f"give planes {tuple(observer.planes_shape())} (the network reads {net.architecture.planes})")
    if not np.array_equal(observer.policy_layout().index, net.index):
        raise CheckpointError(f"ONNX agent {shown}: its policy layout differs from the game's (another code version?)")
    session_options = onnxruntime.SessionOptions()
    session_options.intra_op_num_threads = 1
    session_options.inter_op_num_threads = 1
    session_options.log_severity_level = 4
    session = onnxruntime.InferenceSession(data, session_options, providers=["CPUExecutionProvider"])
    return OnnxNetworkAgent(session, meta, observer)


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
