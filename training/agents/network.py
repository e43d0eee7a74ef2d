"""The policy-value network of the search-and-learn agents, run with numpy alone.

A small residual convolutional tower over a game's planes (``Observer.planes``), with

* a **policy head**: a 1×1 convolution gives ``cell_channels`` logits at every cell and a
  linear layer over the pooled features gives the ``global_actions`` logits; the game's
  :class:`~envs.core.observer.PolicyLayout` says which of them is which action;
* a **value head**: the expected return of every seat, told from the observing seat's side
  (entry ``j`` is relative seat ``j``: 0 = me, then the others in turn order), in [−1, 1];
* a **margin head**: each seat's expected final score margin over the best other seat, squashed
  as ``tanh(margin / margin_scale)`` (the scale is the run's, recorded in the file) — where the
  game has points it tells a big lead from a narrow one, which a game of dice needs.

Search scores a position with ``(1 − value_mix) · value + value_mix · margin`` (both recorded
in the file's metadata: :func:`search_values`).

Training (``training.jobs.alphazero``) uses a torch copy of this network with batch
normalisation; the saved file holds the weights with the normalisation folded into the
convolutions, as plain float32 arrays, so playing needs numpy only — no torch, no unpickling.

An agent file of kind ``"network"`` is a zip holding ``meta.json`` (kind, format, game, options,
shapes, architecture, how it was trained) and ``weights.npz``; :func:`load_network` reads it
through the suite's one agent-file reader (``training.agents.files``) and refuses anything that
does not fit its metadata.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.game import is_int
from training.agents.archive import MAX_PARAMETERS, ArraySpec, CheckpointError, read_npz_member
from training.agents.kinds import NETWORK_FORMAT

FORMAT_VERSION = 1
VALUE_HIDDEN = 64


class NetworkFileError(CheckpointError):
    """An agent file that cannot be used here (the suite's one CheckpointError); the message
    says which check failed."""


@dataclass(frozen=True)
class Architecture:
    """The network's shape: input planes, tower width and depth, heads."""

    planes: tuple[int, int, int]  # (H, W, C)
    filters: int
    blocks: int
    cell_channels: int
    global_actions: int
    players: int

    def __post_init__(self) -> None:
        if len(self.planes) != 3 or min(self.planes) < 1:
            raise ValueError(f"planes must be (H, W, C) with positive sizes, not {self.planes}")
        if self.filters < 1 or self.blocks < 0 or self.players < 1:
            raise ValueError("filters and players must be positive, blocks non-negative")
        if self.cell_channels < 0 or self.global_actions < 0 or self.cell_channels + self.global_actions == 0:
            raise ValueError("the policy head needs cell channels or global actions")

    @property
    def head_size(self) -> int:
        """Logits before the layout's index picks the actions: cells × channels + globals."""
        height, width, _ = self.planes
        return height * width * self.cell_channels + self.global_actions

    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        """Every array of a saved network and its shape (convolutions as (out, in, kh, kw))."""
        height, width, channels = self.planes
        f = self.filters
        shapes: dict[str, tuple[int, ...]] = {"stem.w": (f, channels, 3, 3), "stem.b": (f,)}
        for i in range(self.blocks):
            for j in (1, 2):
                shapes[f"block{i}.conv{j}.w"] = (f, f, 3, 3)
                shapes[f"block{i}.conv{j}.b"] = (f,)
        if self.cell_channels:
            shapes["policy.cell.w"] = (self.cell_channels, f, 1, 1)
            shapes["policy.cell.b"] = (self.cell_channels,)
        if self.global_actions:
            shapes["policy.global.w"] = (self.global_actions, 2 * f)
            shapes["policy.global.b"] = (self.global_actions,)
        for head in ("value", "margin"):
            shapes[f"{head}.fc1.w"] = (VALUE_HIDDEN, 2 * f)
            shapes[f"{head}.fc1.b"] = (VALUE_HIDDEN,)
            shapes[f"{head}.fc2.w"] = (self.players, VALUE_HIDDEN)
            shapes[f"{head}.fc2.b"] = (self.players,)
        return shapes


def conv_matrix(weight: np.ndarray) -> np.ndarray:
    """A torch-shaped (out, in, 3, 3) convolution weight as the (9·in, out) matrix that
    :func:`conv3x3` multiplies its columns by (offset-major, channel-minor)."""
    return np.ascontiguousarray(weight.transpose(2, 3, 1, 0).reshape(-1, weight.shape[0]))


def conv3x3(x: np.ndarray, matrix: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """'Same' 3×3 convolution of NHWC ``x`` by a :func:`conv_matrix` weight.

    The columns are built by nine slice copies of the padded input into one contiguous
    array: three to four times faster than reshaping a sliding-window view, whose strided
    gather cost more than the matrix product (measured on 21×21 and 7×7 tables)."""
    n, h, w, c = x.shape
    padded = np.zeros((n, h + 2, w + 2, c), np.float32)
    padded[:, 1:-1, 1:-1] = x
    columns = np.empty((n, h, w, 9, c), np.float32)
    for offset in range(9):
        dy, dx = divmod(offset, 3)
        columns[:, :, :, offset] = padded[:, dy:dy + h, dx:dx + w]
    out = columns.reshape(n * h * w, 9 * c) @ matrix
    out += bias
    return out.reshape(n, h, w, matrix.shape[1])


class PolicyValueNet:
    """The network's forward pass in numpy (float32). ``forward(planes)`` takes ``(N, H, W, C)``
    and returns ``(head logits (N, head_size), values (N, players), margins (N, players))``;
    :meth:`action_logits` picks the actions' logits through the layout's index."""

    def __init__(self, architecture: Architecture, weights: dict[str, np.ndarray], index: np.ndarray):
        self.architecture = architecture
        self.weights = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()}
        self.index = np.asarray(index, dtype=np.int64)
        expected = architecture.weight_shapes()
        for name, shape in expected.items():
            if name not in self.weights:
                raise NetworkFileError(f"the network has no array {name!r}")
            if self.weights[name].shape != shape:
                raise NetworkFileError(f"array {name!r} has shape {self.weights[name].shape}, the architecture needs {shape}")
        extra = sorted(set(self.weights) - set(expected))
        if extra:
            raise NetworkFileError(f"the network has an array its architecture does not use: {extra[0]!r}")
        if self.index.ndim != 1 or (self.index.size and (self.index.min() < 0 or self.index.max() >= architecture.head_size)):
            raise NetworkFileError("the policy layout's index does not fit the network's policy head")
        # the 3×3 convolutions' weights as the matrices conv3x3 multiplies by, prepared once
        self.conv_matrices = {name: conv_matrix(value) for name, value in self.weights.items()
                              if value.ndim == 4 and value.shape[2:] == (3, 3)}

    def forward(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        arch, w = self.architecture, self.weights
        x = np.asarray(planes, dtype=np.float32)
        if x.ndim == 3:
            x = x[None]
        if x.shape[1:] != arch.planes:
            raise ValueError(f"the network reads planes of shape {arch.planes}, not {x.shape[1:]}")
        conv = self.conv_matrices
        x = np.maximum(conv3x3(x, conv["stem.w"], w["stem.b"]), 0.0)
        for i in range(arch.blocks):
            y = np.maximum(conv3x3(x, conv[f"block{i}.conv1.w"], w[f"block{i}.conv1.b"]), 0.0)
            y = conv3x3(y, conv[f"block{i}.conv2.w"], w[f"block{i}.conv2.b"])
            x = np.maximum(x + y, 0.0)
        n = x.shape[0]
        pooled = np.concatenate([x.mean(axis=(1, 2)), x.max(axis=(1, 2))], axis=1)  # (N, 2F)
        parts = []
        if arch.cell_channels:
            cell = x.reshape(-1, arch.filters) @ w["policy.cell.w"].reshape(arch.cell_channels, -1).T
            cell += w["policy.cell.b"]
            parts.append(cell.reshape(n, -1))
        if arch.global_actions:
            parts.append(pooled @ w["policy.global.w"].T + w["policy.global.b"])
        head = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        heads = []
        for name in ("value", "margin"):
            hidden = np.maximum(pooled @ w[f"{name}.fc1.w"].T + w[f"{name}.fc1.b"], 0.0)
            heads.append(np.tanh(hidden @ w[f"{name}.fc2.w"].T + w[f"{name}.fc2.b"]))
        return head, heads[0], heads[1]

    def action_logits(self, head: np.ndarray) -> np.ndarray:
        return head[..., self.index]

    def evaluate(self, planes: np.ndarray, value_mix: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Action logits ``(N, actions)`` and search values ``(N, players)`` (the value head,
        mixed with the margin head by ``value_mix``) of a batch of planes."""
        head, values, margins = self.forward(planes)
        return self.action_logits(head), search_values(values, margins, value_mix)


def search_values(values: np.ndarray, margins: np.ndarray, value_mix: float) -> np.ndarray:
    """What a search backs up: the expected return mixed with the squashed margin."""
    if not value_mix:
        return values
    return (1.0 - value_mix) * values + value_mix * margins


def squash_margins(raw: np.ndarray, scale: float) -> np.ndarray:
    """The margin head's target: ``tanh(raw margin / scale)``."""
    return np.tanh(np.asarray(raw, np.float64) / scale).astype(np.float32)


# ----- agent files ---------------------------------------------------------------------------------

def save_network(path: str | Path, architecture: Architecture, weights: dict[str, np.ndarray],
                 index: np.ndarray, meta: dict[str, Any]) -> Path:
    """Write an agent file: ``meta.json`` (the given metadata plus format and architecture)
    and ``weights.npz`` (float32 arrays and the policy index)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    PolicyValueNet(architecture, weights, index)  # refuse to write what could not be read
    record = dict(meta, kind="network", format=NETWORK_FORMAT, format_version=FORMAT_VERSION, architecture=asdict(architecture))
    buffer = io.BytesIO()
    arrays = {name: np.asarray(value, np.float32) for name, value in weights.items()}
    arrays["policy.index"] = np.asarray(index, np.int64)
    np.savez_compressed(buffer, **arrays)
    temporary = path.with_suffix(path.suffix + ".part")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.json", json.dumps(record, indent=1, sort_keys=True))
        archive.writestr("weights.npz", buffer.getvalue())
    temporary.replace(path)  # a run killed while saving never leaves half a file behind
    return path


def architecture_from_meta(meta: dict[str, Any]) -> Architecture:
    raw = meta.get("architecture")
    if not isinstance(raw, dict):
        raise NetworkFileError("meta.json has no 'architecture' object")
    fields = ("planes", "filters", "blocks", "cell_channels", "global_actions", "players")
    missing = [f for f in fields if f not in raw]
    if missing:
        raise NetworkFileError(f"meta.json's architecture lacks {missing[0]!r}")
    planes = raw["planes"]
    if not (isinstance(planes, list) and len(planes) == 3 and all(is_int(v, 1, 4096) for v in planes)):
        raise NetworkFileError(f"meta.json's architecture 'planes' must be three sizes 1…4096, not {planes!r:.80}")
    limits = {"filters": (1, 1024), "blocks": (0, 64), "cell_channels": (0, 4096),
              "global_actions": (0, 1 << 20), "players": (1, 16)}
    for name, (low, high) in limits.items():
        if not is_int(raw[name], low, high):
            raise NetworkFileError(f"meta.json's architecture {name!r} must be an integer {low}…{high}, not {raw[name]!r:.80}")
    try:
        return Architecture(tuple(planes), raw["filters"], raw["blocks"], raw["cell_channels"],
                            raw["global_actions"], raw["players"])
    except ValueError as error:
        raise NetworkFileError(f"meta.json's architecture is inconsistent: {error}") from None


def network_array_specs(meta: dict[str, Any], shown: str) -> dict:
    """What the arrays of a network file must be, from its metadata (checked first)."""
    if meta.get("format") != NETWORK_FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise NetworkFileError(f"agent file {shown} is not a {NETWORK_FORMAT} file of version {FORMAT_VERSION}")
    architecture = architecture_from_meta(meta)
    actions = meta.get("num_actions")
    if not is_int(actions, 1, 1 << 20):
        raise NetworkFileError(f"agent file {shown}: meta.json's 'num_actions' must be an integer 1…{1 << 20}")
    shapes = architecture.weight_shapes()
    parameters = sum(int(np.prod(shape)) for shape in shapes.values())
    if parameters > MAX_PARAMETERS:
        raise NetworkFileError(f"agent file {shown} declares {parameters} weights; at most {MAX_PARAMETERS} are allowed")
    specs = {name: ArraySpec(shape) for name, shape in shapes.items()}
    specs["policy.index"] = ArraySpec((actions,), dtypes=(np.dtype(np.int64),), cast=None, finite=False)
    return specs


def read_zip(archive, meta: dict[str, Any], shown: str) -> PolicyValueNet:
    """The network kind's part of ``training.agents.files.read_agent_file``: the network of an
    opened agent file whose metadata has been read."""
    arrays = read_npz_member(archive, "weights.npz", network_array_specs(meta, shown), "")
    index = arrays.pop("policy.index")
    return PolicyValueNet(architecture_from_meta(meta), arrays, index)


