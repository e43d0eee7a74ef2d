"""The one ONNX reader: an exported agent file read and checked without the ``onnx`` package.

An ONNX model is a protocol buffer (onnx.proto). The few messages the exporters write are read
here straight from the wire format, so that a file is checked — sizes, operators, attributes,
initializers — before onnxruntime allocates anything for it (a ``ConstantOfShape`` node can ask
for gigabytes; an initializer can point at a file elsewhere on the disk). Both exported kinds
use it: ``training.agents.onnx_agent`` (a policy: input ``observation``) and
``training.agents.onnx_network`` (a policy-value network: input ``planes``) each pass the
operators they write and the nodes they expect; :func:`read_model` does the rest.

Every ``metadata_props`` value is JSON text (:func:`decode_props`). The file itself is opened
by ``training.agents.files`` (a regular file, read up to a bound).
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

import numpy as np

from training.agents.archive import MAX_JSON_DEPTH, CheckpointError, _refuse_constant, json_depth_exceeds

# Opset 17 / IR 8 load in every onnxruntime since 1.13 and in onnxruntime-web: the graphs need
# nothing newer, and a newer default would only lock out older runtimes.
OPSET = 17
IR_VERSION = 8
MASKED_LOGIT = -1e8  # the logit of an illegal action, as in sb3-contrib's masked distribution
ACTION_MASK, MASKED_LOGITS, PROBABILITIES = "action_mask", "masked_logits", "probabilities"

# field numbers of onnx.proto, and the ones the exporters write (anything else is refused)
MODEL_FIELDS = {1: "ir_version", 2: "producer_name", 3: "producer_version", 4: "domain", 5: "model_version",
                6: "doc_string", 7: "graph", 8: "opset_import", 14: "metadata_props"}
GRAPH_FIELDS = {1: "node", 2: "name", 5: "initializer", 10: "doc_string", 11: "input", 12: "output", 13: "value_info"}
NODE_FIELDS = {1: "input", 2: "output", 3: "name", 4: "op_type", 5: "attribute", 6: "doc_string", 7: "domain"}
ATTRIBUTE_FIELDS = {1: "name", 3: "i", 8: "ints", 20: "type"}
TENSOR_FIELDS = {1: "dims", 2: "data_type", 8: "name", 9: "raw_data", 12: "doc_string"}
PAIR_FIELDS = {1: "key", 2: "value"}
OPSET_FIELDS = {1: "domain", 2: "version"}
MAX_FIELDS = 4096
MAX_DIMS, MAX_DIM = 4, 1 << 20
ONNX_FLOAT, ONNX_INT64 = 1, 7
ATTRIBUTE_INT, ATTRIBUTE_INTS = 2, 7
ONNX_DTYPES = {ONNX_FLOAT: "<f4", ONNX_INT64: "<i8"}

Node = tuple[str, list[str], list[str], dict[str, Any]]


class _Fault(Exception):
    """A file that is not what the exporters write; :func:`read_model` words it."""


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


def _node(data: memoryview, index: int, operators: tuple[str, ...]) -> Node:
    """One node: its operator (one of ``operators``), inputs, outputs and integer attributes."""
    what = f"node {index}"
    fields = _message(data, NODE_FIELDS, what)
    if _text(_one(fields, "domain", what, memoryview(b"")), what):
        raise _Fault(f"{what} is in a custom operator domain")
    op = _text(_one(fields, "op_type", what), what)
    if op not in operators:
        raise _Fault(f"{what} is a {op[:40]!r} operator; the exporter writes only {', '.join(operators)}")
    inputs = [_text(v, what) for v in fields.get("input", [])]
    outputs = [_text(v, what) for v in fields.get("output", [])]
    attributes: dict[str, Any] = {}
    for raw in fields.get("attribute", []):
        attribute = _message(raw, ATTRIBUTE_FIELDS, f"an attribute of {what} ({op})")
        name = _text(_one(attribute, "name", what), what)
        kind = _one(attribute, "type", what)
        if kind == ATTRIBUTE_INT and "i" in attribute:
            attributes[name] = _ints(attribute["i"], what)[0]
        elif kind == ATTRIBUTE_INTS and "ints" in attribute:
            attributes[name] = tuple(_ints(attribute["ints"], what))
        else:
            raise _Fault(f"attribute {name!r} of {what} ({op}) is not an integer or a list of integers")
    return op, inputs, outputs, attributes


def _initializer(data: memoryview, dtypes: tuple[int, ...]) -> tuple[str, np.ndarray]:
    """One initializer held in the file (no external data): float32 (or int64 where ``dtypes``
    allows), at most four dimensions, every float finite."""
    fields = _message(data, TENSOR_FIELDS, "an initializer")
    name = _text(_one(fields, "name", "an initializer"), "an initializer name")
    what = f"initializer {name!r}"
    kind = _one(fields, "data_type", what)
    if kind not in dtypes:
        raise _Fault(f"{what} is not float32 (ONNX data type {kind})")
    dims = tuple(_ints(fields.get("dims", []), what))
    if len(dims) > MAX_DIMS or any(d < 1 or d > MAX_DIM for d in dims):
        raise _Fault(f"{what} has dims {dims}")
    raw = _one(fields, "raw_data", what, memoryview(b""))
    dtype = np.dtype(ONNX_DTYPES[kind])
    if len(raw) != math.prod(dims) * dtype.itemsize:
        raise _Fault(f"{what} holds {len(raw)} bytes for dims {dims}")
    values = np.frombuffer(raw, dtype).reshape(dims)
    if kind == ONNX_FLOAT and not np.isfinite(values).all():
        raise _Fault(f"{what} holds values that are not finite")
    return name, values


def show_node(node: Node | None) -> str:
    if node is None:
        return "missing"
    op, inputs, outputs, attributes = node
    shown = f"{op}({', '.join(inputs)}) -> {', '.join(outputs)}"
    return shown + (f" {attributes}" if attributes else "")


def read_header(data: bytes) -> tuple[dict[str, list], dict[str, str]]:
    """The model message of an ONNX file whose IR version and opset are the exporters', and its
    metadata_props (raw texts, each key once). Raises _Fault."""
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


def read_props(data: bytes, shown: str) -> dict[str, str]:
    """The raw metadata_props of an ONNX file (its header checked), for the reader to tell the
    file's kind before its graph is read."""
    try:
        return read_header(data)[1]
    except _Fault as fault:
        raise CheckpointError(f"ONNX agent {shown} is damaged or not an ONNX model: {fault}") from None


def decode_props(props: dict[str, str], shown: str) -> dict[str, Any]:
    """The metadata of an ONNX agent: every metadata_props value decoded as strict JSON, nested
    at most MAX_JSON_DEPTH levels."""
    meta: dict[str, Any] = {}
    for key, text in props.items():
        try:
            meta[key] = json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:
            raise CheckpointError(f"ONNX agent {shown} is damaged: metadata {key!r} is nested deeper than {MAX_JSON_DEPTH} levels") from None
        except ValueError:
            raise CheckpointError(f"ONNX agent {shown} is damaged: metadata {key!r} is not JSON ({text[:60]!r})") from None
        if json_depth_exceeds(meta[key], MAX_JSON_DEPTH):
            raise CheckpointError(f"ONNX agent {shown} is damaged: metadata {key!r} is nested deeper than {MAX_JSON_DEPTH} levels")
    return meta


def read_model(data: bytes, shown: str, operators: tuple[str, ...], wanted: Callable[[list[Node]], list[Node]],
               dtypes: tuple[int, ...] = (ONNX_FLOAT,), label: str = "is damaged or not an ONNX model of the suite",
               ) -> dict[str, np.ndarray]:
    """Check an ONNX file's graph against exactly what an exporter writes — ``wanted(nodes)``,
    the nodes in order (operators, inputs, outputs, attributes), and initializers of ``dtypes``
    held in the file — and return its initializers by name. Raises CheckpointError naming the
    node, field or initializer."""
    try:
        model, _ = read_header(data)
        graph = _message(_one(model, "graph", "the model"), GRAPH_FIELDS, "the graph")
        nodes = [_node(raw, i, operators) for i, raw in enumerate(graph.get("node", []))]
        wanted = wanted(nodes)
        for index in range(max(len(wanted), len(nodes))):
            got = nodes[index] if index < len(nodes) else None
            want = wanted[index] if index < len(wanted) else None
            if got != want:
                raise CheckpointError(
                    f"ONNX agent {shown} is not the suite exporter's graph: node {index} is {show_node(got)}; the exporter "
                    f"writes {show_node(want) if want else 'no more nodes'} there ({', '.join(operators)} only)"
                )
        initializers: dict[str, np.ndarray] = {}
        for raw in graph.get("initializer", []):
            name, values = _initializer(raw, dtypes)
            if name in initializers:
                raise _Fault(f"initializer {name!r} appears twice")
            initializers[name] = values
    except _Fault as fault:
        raise CheckpointError(f"ONNX agent {shown} {label}: {fault}") from None
    return initializers


def inference(data: bytes, shown: str):
    """An onnxruntime session on a checked file, one thread (bots share the machine with their
    game), errors as exceptions rather than log lines."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    try:
        return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types for unreadable models
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"ONNX agent {shown} is damaged or not an ONNX model: {first_line}") from None
