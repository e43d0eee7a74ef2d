"""An agent that plays an exported policy (.onnx) with onnxruntime alone: no torch, no unpickling.

``load_agent("bot.onnx", "loom", seed=0)`` returns an :class:`OnnxAgent`, checked against the
game and options exactly like a .zip checkpoint (the metadata travels in the ONNX file, see
``training.export_onnx``). This module imports neither torch nor the ``onnx`` package.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from training.agents.checkpoint import (
    MAX_ARCHIVE_BYTES, MAX_JSON_DEPTH, MAX_LAYERS, MAX_PARAMETERS, MAX_WIDTH, CheckpointError, _refuse_constant,
    check_fits, check_policy_meta, json_depth_exceeds, observation_misfit,
)

# The graph's contract (training.export_onnx writes it, this module reads it; docs/onnx.md).
ONNX_FORMAT = "abstract-games-suite/policy-onnx"
ONNX_FORMAT_VERSION = 1
MASKED_LOGIT = -1e8  # the logit of an illegal action, as in sb3-contrib's masked distribution
OBSERVATION, ACTION_MASK = "observation", "action_mask"
MASKED_LOGITS, PROBABILITIES = "masked_logits", "probabilities"


# The exporter's graph, which load_onnx_agent checks node by node before onnxruntime sees it.
OPSET = 17
IR_VERSION = 8
ACTIVATION_OPS = {"tanh": "Tanh", "relu": "Relu"}
EXPORTED_OPS = ("Gemm", *ACTIVATION_OPS.values(), "Greater", "Where", "Softmax")


# ----- the ONNX file, read without the onnx package ---------------------------------------------------
#
# An ONNX model is a protocol buffer (onnx.proto). The few messages the exporter writes are read
# here straight from the wire format, so that a file is checked — sizes, operators, attributes,
# initializers — before onnxruntime allocates anything for it (a ConstantOfShape node can ask
# for gigabytes; an initializer can point at a file elsewhere on the disk).

class _Fault(Exception):
    pass


# field numbers of onnx.proto, and the ones the exporter writes (anything else is refused)
MODEL_FIELDS = {1: "ir_version", 2: "producer_name", 3: "producer_version", 4: "domain", 5: "model_version",
                6: "doc_string", 7: "graph", 8: "opset_import", 14: "metadata_props"}
GRAPH_FIELDS = {1: "node", 2: "name", 5: "initializer", 10: "doc_string", 11: "input", 12: "output", 13: "value_info"}
NODE_FIELDS = {1: "input", 2: "output", 3: "name", 4: "op_type", 5: "attribute", 6: "doc_string", 7: "domain"}
ATTRIBUTE_FIELDS = {1: "name", 3: "i", 20: "type"}
TENSOR_FIELDS = {1: "dims", 2: "data_type", 8: "name", 9: "raw_data", 12: "doc_string"}
PAIR_FIELDS = {1: "key", 2: "value"}
OPSET_FIELDS = {1: "domain", 2: "version"}
MAX_FIELDS = 4096
ONNX_FLOAT, ONNX_ATTRIBUTE_INT = 1, 2


def _varint(data: memoryview, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise _Fault("a truncated or overlong varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _message(data: memoryview, known: dict[int, str], what: str) -> dict[str, list]:
    """One protobuf message: field name -> values (ints, or memoryviews of length-delimited
    fields), refusing fields outside ``known`` and groups."""
    fields: dict[str, list] = {}
    at = count = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if number not in known:
            raise _Fault(f"{what} has field {number}, which the exporter does not write")
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            length, at = _varint(data, at)
            if at + length > len(data):
                raise _Fault(f"{what} is truncated")
            value, at = data[at:at + length], at + length
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if at + width > len(data):
                raise _Fault(f"{what} is truncated")
            value, at = int.from_bytes(data[at:at + width], "little"), at + width
        else:
            raise _Fault(f"{what} uses protobuf wire type {wire}")
        count += 1
        if count > MAX_FIELDS:
            raise _Fault(f"{what} has more than {MAX_FIELDS} fields")
        fields.setdefault(known[number], []).append(value)
    return fields


def _text(value: Any, what: str) -> str:
    if not isinstance(value, memoryview):
        raise _Fault(f"{what} is not a string")
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise _Fault(f"{what} is not UTF-8") from None


def _one(fields: dict, name: str, what: str, default: Any = None) -> Any:
    values = fields.get(name, [])
    if len(values) > 1:
        raise _Fault(f"{what} has {len(values)} {name} fields")
    if not values:
        if default is None:
            raise _Fault(f"{what} has no {name}")
        return default
    return values[0]


def _ints(values: list, what: str) -> list[int]:
    """A repeated int64 field, packed or not."""
    out: list[int] = []
    for value in values:
        if isinstance(value, memoryview):
            at = 0
            while at < len(value):
                number, at = _varint(value, at)
                out.append(number)
        else:
            out.append(value)
    return [n - (1 << 64) if n >= 1 << 63 else n for n in out]


def _node(data: memoryview, index: int) -> tuple[str, list[str], list[str], dict[str, int]]:
    what = f"node {index}"
    fields = _message(data, NODE_FIELDS, what)
    if _text(_one(fields, "domain", what, memoryview(b"")), what):
        raise _Fault(f"{what} is in a custom operator domain")
    op = _text(_one(fields, "op_type", what), what)
    if op not in EXPORTED_OPS:
        raise _Fault(f"{what} is a {op[:40]!r} operator; the exporter writes only {', '.join(EXPORTED_OPS)}")
    inputs = [_text(v, what) for v in fields.get("input", [])]
    outputs = [_text(v, what) for v in fields.get("output", [])]
    attributes = {}
    for raw in fields.get("attribute", []):
        attribute = _message(raw, ATTRIBUTE_FIELDS, f"an attribute of {what} ({op})")
        name = _text(_one(attribute, "name", what), what)
        if _one(attribute, "type", what) != ONNX_ATTRIBUTE_INT or "i" not in attribute:
            raise _Fault(f"attribute {name!r} of {what} ({op}) is not an integer")
        attributes[name] = _ints(attribute["i"], what)[0]
    return op, inputs, outputs, attributes


def _initializer(data: memoryview) -> tuple[str, tuple[int, ...], np.ndarray]:
    fields = _message(data, TENSOR_FIELDS, "an initializer")
    name = _text(_one(fields, "name", "an initializer"), "an initializer name")
    what = f"initializer {name!r}"
    if _one(fields, "data_type", what) != ONNX_FLOAT:
        raise _Fault(f"{what} is not float32 (ONNX data type {fields['data_type'][0]})")
    dims = tuple(_ints(fields.get("dims", []), what))
    if any(d < 1 or d > MAX_WIDTH for d in dims) or len(dims) > 2:
        raise _Fault(f"{what} has dims {dims}")
    raw = _one(fields, "raw_data", what, memoryview(b""))
    if len(raw) != math.prod(dims) * 4:
        raise _Fault(f"{what} holds {len(raw)} bytes for dims {dims}")
    values = np.frombuffer(raw, "<f4").reshape(dims)
    if not np.isfinite(values).all():
        raise _Fault(f"{what} holds values that are not finite")
    return name, dims, values


def expected_nodes(layers: int, activation: str) -> list[tuple[str, list[str], list[str], dict[str, int]]]:
    """The nodes ``training.export_onnx.build_model`` writes for ``layers`` linear layers."""
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


def _show_node(node) -> str:
    op, inputs, outputs, attributes = node
    shown = f"{op}({', '.join(inputs)}) -> {', '.join(outputs)}"
    return shown + (f" {attributes}" if attributes else "")


def read_model_header(data: bytes) -> tuple[dict[str, list], dict[str, str]]:
    """The model message of an ONNX file whose IR version and opset are the exporter's, and
    its metadata_props (raw texts, each key once). Raises _Fault."""
    model = _message(memoryview(data), MODEL_FIELDS, "the model")
    if _one(model, "ir_version", "the model") != IR_VERSION:
        raise _Fault(f"it has IR version {model['ir_version'][0]}; the exporter writes {IR_VERSION}")
    opsets = [_message(raw, OPSET_FIELDS, "an opset import") for raw in model.get("opset_import", [])]
    found = [(_text(_one(o, "domain", "an opset", memoryview(b"")), "an opset"), _one(o, "version", "an opset", -1)) for o in opsets]
    if found != [("", OPSET)]:
        raise _Fault(f"it imports opsets {found}; the exporter writes only the default domain at version {OPSET}")
    props = {}
    for raw in model.get("metadata_props", []):
        pair = _message(raw, PAIR_FIELDS, "a metadata entry")
        key = _text(_one(pair, "key", "a metadata entry"), "a metadata key")
        if key in props:
            raise _Fault(f"metadata {key!r} appears twice")
        props[key] = _text(_one(pair, "value", "a metadata entry", memoryview(b"")), f"metadata {key!r}")
    return model, props


def check_model_bytes(data: bytes, shown: str) -> dict[str, str]:
    """Check an ONNX file against what the exporter writes — opset, operators in order, their
    inputs, outputs and attributes, float32 initializers held in the file with the shapes the
    network needs — and return its metadata_props (raw JSON texts). Raises CheckpointError."""
    try:
        model, props = read_model_header(data)
        graph = _message(_one(model, "graph", "the model"), GRAPH_FIELDS, "the graph")
        nodes = [_node(raw, i) for i, raw in enumerate(graph.get("node", []))]
        layers = sum(1 for node in nodes if node[0] == "Gemm")
        text = props.get("activation", '"tanh"')
        activation = {'"tanh"': "tanh", '"relu"': "relu"}.get(text.strip())
        if not 1 <= layers <= MAX_LAYERS or activation is None:
            raise _Fault(f"{layers} Gemm nodes and activation {text[:40]!r} (the exporter writes 1…{MAX_LAYERS} and tanh or relu)")
        wanted = expected_nodes(layers, activation)
        for index in range(max(len(wanted), len(nodes))):
            got = nodes[index] if index < len(nodes) else None
            want = wanted[index] if index < len(wanted) else None
            if got != want:
                raise CheckpointError(
                    f"ONNX agent {shown} is not the suite exporter's graph: node {index} is "
                    + (_show_node(got) if got else "missing")
                    + "; the exporter writes " + (_show_node(want) if want else "no more nodes")
                    + f" there (Gemm, {' or '.join(ACTIVATION_OPS.values())}, Greater, Where and Softmax only)"
                )
        initializers = {}
        for raw in graph.get("initializer", []):
            name, dims, values = _initializer(raw)
            if name in initializers:
                raise _Fault(f"initializer {name!r} appears twice")
            initializers[name] = values
    except _Fault as fault:
        raise CheckpointError(f"ONNX agent {shown} is damaged or not an ONNX model of the suite: {fault}") from None
    names = {f"w{i}" for i in range(layers)} | {f"b{i}" for i in range(layers)} | {"zero", "masked_logit"}
    if set(initializers) != names:
        raise CheckpointError(f"ONNX agent {shown} is not the suite exporter's graph: initializers {sorted(initializers)}, expected {sorted(names)}")
    if initializers["zero"].shape != () or initializers["zero"] != 0 or initializers["masked_logit"].shape != ():
        raise CheckpointError(f"ONNX agent {shown} is not the suite exporter's graph: its mask constants are not scalars 0 and {MASKED_LOGIT:g}")
    weights = [(initializers[f"w{i}"], initializers[f"b{i}"]) for i in range(layers)]
    for i, (weight, bias) in enumerate(weights):
        if weight.ndim != 2 or bias.shape != (weight.shape[0],) or (i and weight.shape[1] != weights[i - 1][0].shape[0]):
            raise CheckpointError(f"ONNX agent {shown} is damaged: layer {i} has inconsistent shapes")
    if sum(w.size + b.size for w, b in weights) > MAX_PARAMETERS:
        raise CheckpointError(f"ONNX agent {shown} is damaged: more than {MAX_PARAMETERS} weights")
    props["__widths__"] = json.dumps([int(weights[0][0].shape[1]), int(weights[-1][0].shape[0])])
    return props


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


def open_session(path: Path):
    """Check ``path`` (see ``check_model_bytes``), then an onnxruntime session on it, one thread
    (bots share the machine with their game); returns the session and the raw metadata."""
    import onnxruntime

    shown = repr(str(path))
    if not path.is_file():
        raise CheckpointError(f"ONNX agent {shown} does not exist")
    with open(path, "rb") as source:
        size = os.fstat(source.fileno()).st_size
        if size > MAX_ARCHIVE_BYTES:
            raise CheckpointError(f"ONNX agent {shown} is {size} bytes; an agent file is at most {MAX_ARCHIVE_BYTES}")
        data = source.read(MAX_ARCHIVE_BYTES + 1)
    props = check_model_bytes(data, shown)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # errors reach the caller as exceptions; no stderr noise
    try:
        return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"]), props
    except Exception as error:  # onnxruntime raises its own exception types for unreadable models
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"ONNX agent {shown} is damaged or not an ONNX model: {first_line}") from None


def read_metadata(path: Path, props: dict[str, str]) -> dict[str, Any]:
    """The suite metadata of an ONNX agent (every metadata_props value is JSON)."""
    shown = repr(str(path))
    if "format" not in props:
        raise CheckpointError(
            f"ONNX agent {shown} has no suite metadata (no 'format' in its metadata_props): "
            "export it with python -m training.export_onnx"
        )
    meta = {}
    for key, text in props.items():
        if key == "__widths__":
            continue
        try:
            meta[key] = json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:
            raise CheckpointError(f"ONNX agent {shown} is damaged: metadata {key!r} is nested deeper than {MAX_JSON_DEPTH} levels") from None
        except ValueError:
            raise CheckpointError(f"ONNX agent {shown} is damaged: metadata {key!r} is not JSON ({text[:60]!r})") from None
        if json_depth_exceeds(meta[key], MAX_JSON_DEPTH):
            raise CheckpointError(f"ONNX agent {shown} is damaged: metadata {key!r} is nested deeper than {MAX_JSON_DEPTH} levels")
    if meta["format"] != ONNX_FORMAT:
        raise CheckpointError(f"{shown} is not a suite ONNX agent (format {meta['format']!r:.80}, expected {ONNX_FORMAT!r})")
    if not (type(meta.get("format_version")) is int and meta.get("format_version") == ONNX_FORMAT_VERSION):
        raise CheckpointError(
            f"ONNX agent {shown} has format version {meta.get('format_version')!r:.80}; this code reads {ONNX_FORMAT_VERSION}"
        )
    check_policy_meta(meta, shown, what="ONNX agent")
    observation_size, action_n = json.loads(props["__widths__"])
    if [observation_size] != meta["observation_shape"] or action_n != meta["action_n"]:
        raise CheckpointError(
            f"ONNX agent {shown} does not fit its declared spaces: its graph takes {observation_size} observation "
            f"values and {action_n} actions, its metadata says {meta['observation_shape']} and {meta['action_n']}"
        )
    return meta


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


def load_onnx_agent(path: str | Path, game: str, seed: int | None = None, sample: bool = False, **options: Any) -> OnnxAgent:
    """Load ``path`` as an agent for ``game`` under ``options`` (checked against its metadata).
    An exported policy-value network (``training.agents.onnx_network``) becomes its own agent."""
    path = Path(path)
    if path.is_file() and path.stat().st_size <= MAX_ARCHIVE_BYTES:
        from training.agents.onnx_network import is_network_onnx, load_onnx_network_agent

        data = path.read_bytes()
        if is_network_onnx(data):
            return load_onnx_network_agent(path, data, game, options)
    session, props = open_session(path)
    meta = read_metadata(path, props)
    observation_shape, action_n = check_fits(path, meta, game, options)
    check_graph(path, session, observation_shape[0], action_n)
    return OnnxAgent(session, meta, sample=sample, seed=seed)
