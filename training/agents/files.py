"""Agent files: the one reader for every kind of file an agent lives in.

Every agent file says what it is in its metadata: ``kind``, one of :data:`KINDS`.

* The **zip family** — a zip archive of ``meta.json`` and an npz of plain arrays, read with
  numpy alone (``training.agents.archive``):

  - ``"maskppo"``: a MaskablePPO policy (sb3-contrib's ``MlpPolicy`` actor: a few dense layers
    over the flat observation), ``policy.npz`` — ``training.agents.checkpoint``;
  - ``"rllib-ppo"``: an RLlib PPO policy, converted to the same layers and arrays;
  - ``"network"``: a policy-value network of the search-and-learn job (a residual convolutional
    tower over the planes, policy, value and margin heads), ``weights.npz`` —
    ``training.agents.network`` and ``training.agents.network_agent``.

* The **ONNX family** — one ONNX model whose ``metadata_props`` carry the metadata (each value
  JSON text), run by onnxruntime alone, read and checked first by ``training.agents.onnx_file``:

  - ``"onnx-policy"``: an exported policy (input ``observation``) — ``training.agents.onnx_agent``;
  - ``"onnx-network"``: an exported network (input ``planes``, output ``value`` too) —
    ``training.agents.onnx_network``.

Each kind's metadata also has a ``format`` (and ``format_version``) naming the layout of its
arrays; a kind belongs to exactly one format. Files written before ``kind`` existed (every
agent file shipped until now) lack it: :func:`kind_of` derives it from ``format`` — the only
place that does — ``"abstract-games-suite/policy"`` being ``"rllib-ppo"`` when its ``algo``
says RLlib and ``"maskppo"`` otherwise. The shipped files are left byte for byte as they were
measured (their evaluation records name them; a rewritten file would no longer be the file
measured). A file that declares a kind must declare its kind's format.

:func:`read_agent_file` opens a file as ``training.agents.archive.open_agent_file`` does (a
regular file, at most 64 MB, never blocking on a named pipe), tells a zip archive from an ONNX
model by its first bytes, reads its metadata, dispatches on the kind — never on the file's
name — and returns an :class:`AgentFile` (kind, metadata, sha256, what the kind reads).
:func:`load_agent_file` makes the agent. A file in a folder that holds a manifest
(``agents.json``, ``training.agents.manifest``) must be listed there with the same sha256.
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterable

from training.agents.archive import (
    MAX_ARCHIVE_BYTES, CheckpointError, _Fault, archive_faults, open_agent_file, open_zip, read_json_member,
)
from training.agents.checkpoint import FORMAT as POLICY_FORMAT
from training.agents.checkpoint import _shown
from training.agents.network import FORMAT as NETWORK_FORMAT
from training.agents.onnx_file import NETWORK_ONNX_FORMAT, POLICY_ONNX_FORMAT

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


@dataclass(frozen=True)
class Kind:
    """One kind of agent file: its container, the ``format`` its metadata declares, how
    messages name it, and the module that reads it (``read``) and plays it (``agent``)."""

    name: str
    container: str  # "zip" or "onnx"
    format: str
    what: str
    module: str
    summary: str


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Kind("maskppo", "zip", POLICY_FORMAT, "checkpoint", "training.agents.checkpoint",
         "a MaskablePPO policy: dense layers over the flat observation"),
    Kind("rllib-ppo", "zip", POLICY_FORMAT, "checkpoint", "training.agents.checkpoint",
         "an RLlib PPO policy: dense layers over the flat observation"),
    Kind("network", "zip", NETWORK_FORMAT, "agent file", "training.agents.network_agent",
         "a policy-value network over the planes"),
    Kind("onnx-policy", "onnx", POLICY_ONNX_FORMAT, "ONNX agent", "training.agents.onnx_agent",
         "an exported policy (input observation)"),
    Kind("onnx-network", "onnx", NETWORK_ONNX_FORMAT, "ONNX agent", "training.agents.onnx_network",
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


@dataclass
class AgentFile:
    """An agent file read and checked: its kind, its metadata, the sha256 of its bytes, and what
    its kind's reader made of the rest (policy layers, a network, a checked ONNX model)."""

    path: Path
    kind: str
    meta: dict[str, Any]
    sha256: str
    content: Any

    @property
    def shown(self) -> str:
        return repr(str(self.path))

    @property
    def what(self) -> str:
        return KINDS[self.kind].what


def _module(kind: str):
    return importlib.import_module(KINDS[kind].module)


def _wanted(kind: str, kinds: Iterable[str] | None, shown: str) -> None:
    if kinds is not None and kind not in kinds:
        wanted = " or ".join(f"{KINDS[k].summary} ({k})" for k in kinds)
        raise CheckpointError(f"{KINDS[kind].what} {shown} is {KINDS[kind].summary} (kind {kind!r}), not {wanted}")


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


def _read_zip(stream: BinaryIO, size: int, shown: str, kinds: Iterable[str] | None) -> tuple[str, dict, Any]:
    found: list[str] = []  # the kind, once the metadata has told it: damage is then worded for it
    with archive_faults(shown, lambda: KINDS[found[0]].what if found else "agent file"):
        with open_zip(stream, size, "the file") as archive:
            meta = read_json_member(archive, "meta.json", "")
            if not isinstance(meta, dict):
                raise _Fault(f"meta.json holds {type(meta).__name__}, not a JSON object")
            kind = kind_of(meta, "zip", shown)
            _wanted(kind, kinds, shown)
            found.append(kind)
            return kind, meta, _module(kind).read_zip(archive, meta, shown)


def _onnx_meta(data: bytes, shown: str) -> dict[str, Any]:
    from training.agents.onnx_file import decode_props, read_props

    props = read_props(data, shown)
    if "format" not in props and "kind" not in props:
        raise CheckpointError(
            f"ONNX agent {shown} has no suite metadata (no 'format' in its metadata_props): "
            "export it with python -m training.export_onnx"
        )
    return decode_props(props, shown)


def _read_onnx(data: bytes, shown: str, kinds: Iterable[str] | None) -> tuple[str, dict, Any]:
    meta = _onnx_meta(data, shown)
    kind = kind_of(meta, "onnx", shown)
    _wanted(kind, kinds, shown)
    return kind, meta, _module(kind).read_onnx(data, meta, shown)


def read_agent_file(path: str | Path, kinds: Iterable[str] | None = None) -> AgentFile:
    """Read and check an agent file of any kind (of one of ``kinds`` when given): the file
    itself (a regular file of at most 64 MB), its place in its folder's manifest if the folder
    has one, its container (told by its first bytes), its metadata and kind, then everything
    the kind holds, each size checked before it is read. Every fault is a CheckpointError that
    names it."""
    from training.agents.manifest import check_listed

    path = Path(path)
    shown = repr(str(path))
    with open_agent_file(path, "agent file", MAX_ARCHIVE_BYTES) as (stream, size):
        digest = sha256_of(stream, size)
        check_listed(path, digest)
        head = stream.read(4)
        stream.seek(0)
        if head in ZIP_MAGIC:
            kind, meta, content = _read_zip(stream, size, shown, kinds)
        else:
            kind, meta, content = _read_onnx(stream.read(size), shown, kinds)
    return AgentFile(path, kind, meta, digest, content)


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
        meta = _onnx_meta(stream.read(size), shown)
        return kind_of(meta, "onnx", shown), meta


def load_agent_file(path: str | Path, game: str, seed: int | None = None, sample: bool = False,
                    kinds: Iterable[str] | None = None, **options: Any):
    """The agent an agent file holds, for ``game`` under ``options`` (the file's own when none
    are given), checked against them. ``sample`` asks a policy (``maskppo``, ``rllib-ppo``,
    ``onnx-policy``) to draw its moves from its distribution, seeded, instead of its best move."""
    import envs

    name = envs.canonical_name(game)
    agent_file = read_agent_file(path, kinds)
    return _module(agent_file.kind).agent(agent_file, name, seed=seed, sample=sample, options=options)


__all__ = ["KINDS", "AgentFile", "Kind", "derived_kind", "kind_of", "load_agent_file", "read_agent_file", "read_agent_meta"]
