"""Agent-file kinds: the ``format`` each kind's metadata declares, the table of kinds, and
telling a file's kind from its metadata (:func:`kind_of`; :func:`derived_kind` for files written
before ``kind`` existed). :func:`read_agent_meta` reads only a file's metadata and kind (for the
manifest's checks); ``training.agents.files`` reads the whole file. The kinds' own modules
(``checkpoint``, ``network``, ``onnx_file`` …) and the manifest import this module; it imports
only the leaf readers (``archive``, ``onnx_file``) and ``base``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from training.agents.archive import (
    MAX_ARCHIVE_BYTES, CheckpointError, _Fault, archive_faults, open_agent_file, open_zip, read_json_member,
)
from training.agents.base import short
from training.agents.onnx_file import decode_props, read_props

POLICY_FORMAT = "abstract-games-suite/policy"  # kinds "maskppo" and "rllib-ppo"
NETWORK_FORMAT = "abstract-games-suite/policy-value-net"  # kind "network"
POLICY_ONNX_FORMAT = "abstract-games-suite/policy-onnx"  # kind "onnx-policy"
NETWORK_ONNX_FORMAT = "abstract-games-suite/policy-value-onnx"  # kind "onnx-network"


def _shown(value: Any) -> str:
    return short(value, 60)


ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


@dataclass(frozen=True)
class Kind:
    """One kind of agent file: its container, the ``format`` its metadata declares, how
    messages name it and what it holds (``training.agents.files`` says which module reads it
    and which plays it)."""

    name: str
    container: str  # "zip" or "onnx"
    format: str
    what: str
    summary: str


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Kind("maskppo", "zip", POLICY_FORMAT, "checkpoint",
         "a MaskablePPO policy: dense layers over the flat observation"),
    Kind("rllib-ppo", "zip", POLICY_FORMAT, "checkpoint",
         "an RLlib PPO policy: dense layers over the flat observation"),
    Kind("network", "zip", NETWORK_FORMAT, "agent file",
         "a policy-value network over the planes"),
    Kind("onnx-policy", "onnx", POLICY_ONNX_FORMAT, "ONNX agent",
         "an exported policy (input observation)"),
    Kind("onnx-network", "onnx", NETWORK_ONNX_FORMAT, "ONNX agent",
         "an exported policy-value network (input planes)"),
)}
POLICY_KINDS = ("maskppo", "rllib-ppo")
NETWORK_KINDS = ("network",)


def derived_kind(meta: dict[str, Any], container: str) -> str | None:
    """The kind of a file written before ``kind`` existed, from its ``format`` (None when the
    format is not the suite's). Writers call it too, so a file says what the reader would
    derive."""
    found = meta.get("format")
    if container == "zip" and found == POLICY_FORMAT:
        return "rllib-ppo" if str(meta.get("algo", "")).lower().startswith("rllib") else "maskppo"
    for kind in KINDS.values():
        if kind.container == container and kind.format == found:
            return kind.name
    return None


def kind_of(meta: dict[str, Any], container: str, shown: str) -> str:
    """The kind of an agent file: the ``kind`` its metadata declares (checked against its
    container and format), or, for a file that declares none, the one derived from its format."""
    declared = meta.get("kind")
    if declared is None:
        derived = derived_kind(meta, container)
        if derived is not None:
            return derived
        formats = sorted({kind.format for kind in KINDS.values() if kind.container == container})
        shown_format = _shown(meta.get("format"))
        if container == "onnx":
            raise CheckpointError(f"{shown} is not a suite ONNX agent (format {shown_format}, expected one of {', '.join(map(repr, formats))})")
        raise CheckpointError(f"{shown} is not a suite checkpoint (format {shown_format}, expected one of {', '.join(map(repr, formats))})")
    if not isinstance(declared, str) or declared not in KINDS:
        raise CheckpointError(f"agent file {shown} declares kind {_shown(declared)}; the kinds are {', '.join(KINDS)}")
    kind = KINDS[declared]
    if kind.container != container:
        raise CheckpointError(
            f"agent file {shown} declares kind {declared!r} ({'an ONNX model' if kind.container == 'onnx' else 'a zip archive'}), "
            f"but it is {'a zip archive' if container == 'zip' else 'not a zip archive'}"
        )
    if meta.get("format") != kind.format:
        raise CheckpointError(
            f"agent file {shown} declares kind {declared!r}, whose format is {kind.format!r}, but its format is "
            f"{_shown(meta.get('format'))}"
        )
    return declared


def sha256_of(stream: BinaryIO, size: int) -> str:
    """The sha256 of an opened agent file's ``size`` bytes (the stream left at its start)."""
    digest = hashlib.sha256()
    left = size
    while left > 0:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            break
        digest.update(chunk)
        left -= len(chunk)
    stream.seek(0)
    return digest.hexdigest()


def onnx_meta(data: bytes, shown: str) -> dict[str, Any]:
    props = read_props(data, shown)
    if "format" not in props and "kind" not in props:
        raise CheckpointError(
            f"ONNX agent {shown} has no suite metadata (no 'format' in its metadata_props): "
            "export it with abstract-games export-onnx"
        )
    return decode_props(props, shown)


def read_agent_meta(path: str | Path) -> tuple[str, dict[str, Any]]:
    """The kind and metadata of an agent file, without reading its arrays or graph (for
    listing: the manifest's checks)."""
    path = Path(path)
    shown = repr(str(path))
    with open_agent_file(path, "agent file", MAX_ARCHIVE_BYTES) as (stream, size):
        if stream.read(4) in ZIP_MAGIC:
            stream.seek(0)
            with archive_faults(shown, "agent file"):
                with open_zip(stream, size, "the file") as archive:
                    meta = read_json_member(archive, "meta.json", "")
                    if not isinstance(meta, dict):
                        raise _Fault(f"meta.json holds {type(meta).__name__}, not a JSON object")
            return kind_of(meta, "zip", shown), meta
        stream.seek(0)
        meta = onnx_meta(stream.read(size), shown)
        return kind_of(meta, "onnx", shown), meta


__all__ = ["KINDS", "NETWORK_KINDS", "POLICY_KINDS", "Kind", "derived_kind", "kind_of", "onnx_meta", "read_agent_meta", "sha256_of"]
