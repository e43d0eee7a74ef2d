"""Agent files: the one reader for every kind of file an agent lives in.

Every agent file says what it is in its metadata: ``kind``, one of ``training.agents.kinds.KINDS``.

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
agent file shipped until now) lack it: ``training.agents.kinds.kind_of`` derives it from
``format`` — the only place that does — ``"abstract-games-suite/policy"`` being ``"rllib-ppo"`` when its ``algo``
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

from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterable

from training.agents import checkpoint, network, network_agent, onnx_agent, onnx_network
from training.agents.archive import (
    MAX_ARCHIVE_BYTES, CheckpointError, _Fault, archive_faults, open_agent_file, open_zip, read_json_member,
)
from training.agents.kinds import KINDS, NETWORK_KINDS, POLICY_KINDS, ZIP_MAGIC, kind_of, onnx_meta, sha256_of
from training.agents.manifest import check_listed, resolve
from training.agents.network import PolicyValueNet

# What each kind holds, read from its opened zip archive or ONNX bytes, and the agent that plays it.
READERS = {"maskppo": checkpoint.read_zip, "rllib-ppo": checkpoint.read_zip, "network": network.read_zip,
           "onnx-policy": onnx_agent.read_onnx, "onnx-network": onnx_network.read_onnx}
PLAYERS = {"maskppo": checkpoint.agent, "rllib-ppo": checkpoint.agent, "network": network_agent.agent,
           "onnx-policy": onnx_agent.agent, "onnx-network": onnx_network.agent}
if not set(READERS) == set(PLAYERS) == set(KINDS):  # a kind added in training.agents.kinds and not here
    raise ImportError(f"every kind of agent file needs its reader and its player in training.agents.files: {sorted(KINDS)}")


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


def _wanted(kind: str, kinds: Iterable[str] | None, shown: str) -> None:
    if kinds is not None and kind not in kinds:
        wanted = " or ".join(f"{KINDS[k].summary} ({k})" for k in kinds)
        raise CheckpointError(f"{KINDS[kind].what} {shown} is {KINDS[kind].summary} (kind {kind!r}), not {wanted}")


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
            return kind, meta, READERS[kind](archive, meta, shown)


def _read_onnx(data: bytes, shown: str, kinds: Iterable[str] | None) -> tuple[str, dict, Any]:
    meta = onnx_meta(data, shown)
    kind = kind_of(meta, "onnx", shown)
    _wanted(kind, kinds, shown)
    return kind, meta, READERS[kind](data, meta, shown)


def read_agent_file(path: str | Path, kinds: Iterable[str] | None = None) -> AgentFile:
    """Read and check an agent file of any kind (of one of ``kinds`` when given): the file
    itself (a regular file of at most 64 MB), its place in its folder's manifest if the folder
    has one, its container (told by its first bytes), its metadata and kind, then everything
    the kind holds, each size checked before it is read. Every fault is a CheckpointError that
    names it."""
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


def load_agent_file(path: str | Path, game: str, seed: int | None = None, sample: bool = False,
                    kinds: Iterable[str] | None = None, **options: Any):
    """The agent an agent file holds, for ``game`` under ``options`` (the file's own when none
    are given), checked against them. ``sample`` asks a policy (``maskppo``, ``rllib-ppo``,
    ``onnx-policy``) to draw its moves from its distribution, seeded, instead of its best move."""
    import envs

    name = envs.canonical_name(game)
    agent_file = read_agent_file(path, kinds)
    return PLAYERS[agent_file.kind](agent_file, name, seed=seed, sample=sample, options=options)


def read_checkpoint(path: str | Path) -> tuple[dict[str, Any], list[tuple[Any, Any]]]:
    """A policy checkpoint's metadata and layers (float32 ``(weight out×in, bias)``), every
    size checked before it is read."""
    agent_file = read_agent_file(path, POLICY_KINDS)
    return agent_file.meta, agent_file.content


def load_checkpoint_agent(path: str | Path, game: str, seed: int | None = None, sample: bool = False, **options: Any):
    """Load ``path`` as a policy agent for ``game`` under ``options`` (checked against its metadata)."""
    return load_agent_file(path, game, seed=seed, sample=sample, kinds=POLICY_KINDS, **options)


def read_network_file(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The metadata and arrays of a network file (kind ``network``: the weights and
    ``policy.index``), every size checked before it is read."""
    net, meta = load_network(path)
    return meta, {**net.weights, "policy.index": net.index}


def load_network(path: str | Path) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network of a network file (kind ``network``) and its metadata, checked."""
    agent_file = read_agent_file(path, NETWORK_KINDS)
    return agent_file.content, agent_file.meta


def load_network_for(path: str | Path, game: str, options: dict[str, Any]) -> tuple[PolicyValueNet, dict[str, Any]]:
    """Load a network file and check it against ``game`` under ``options`` (its own options
    when none are given): the game, the planes' shape, the actions and the policy layout.
    ``"trained"`` is the network the game's manifest gives the role ``net`` for these options."""
    if str(path) == "trained":
        path = resolve(game, options, "net")
    agent_file = read_agent_file(path, NETWORK_KINDS)
    return network_agent.check_network(agent_file.path, agent_file.content, agent_file.meta, game, options)


def load_onnx_agent(path: str | Path, game: str, seed: int | None = None, sample: bool = False, **options: Any):
    """Load an exported agent file (a policy, or a policy-value network: ``training.agents.onnx_network``)
    as an agent for ``game`` under ``options`` (checked against its metadata)."""
    return load_agent_file(path, game, seed=seed, sample=sample, kinds=("onnx-policy", "onnx-network"), **options)


def names_a_file(spec: str) -> bool:
    """Whether a spec that names no bot is read as an agent file: a path, with a folder
    separator or a file suffix (a bare word is an unknown bot, whatever lies in the working
    folder). What the file is, its metadata says, not its name."""
    return "/" in spec or "\\" in spec or "." in spec


__all__ = ["AgentFile", "load_agent_file", "load_checkpoint_agent", "load_network", "load_network_for", "load_onnx_agent",
           "names_a_file", "read_agent_file", "read_checkpoint", "read_network_file"]
