"""Base of the per-game observers: the only place where what a seat may see is decided.

An observer gives one seat's view of a state in two formats:

* **flat** (``observe``): a float32 vector in ``[0, 1]`` laid out in named blocks
  (:class:`Layout`); ``decode`` turns it back into named fields;
* **planes** (``planes``): a float32 ``(H, W, C)`` array for convolutional networks, built from
  the flat vector alone. The flat vector holds everything the seat knows (the contract: public
  history is kept in it), so planes can show nothing the seat may not know.

For networks that learn from search it also says how the policy head maps onto action numbers
(:class:`PolicyLayout`) and which symmetries the game really has (:class:`Symmetry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces


class Layout:
    """Hands out consecutive named blocks of an observation vector:
    ``start = layout.take(width, "scores")``; ``layout.size`` is the length so far
    (observers declare their blocks at once with :meth:`Observer.lay_out`).

    ``name_at(index)`` names the block holding an entry (for error messages) and
    ``view(vector, name)`` returns a block's slice of a vector.
    """

    def __init__(self) -> None:
        self.size = 0
        self.blocks: dict[str, tuple[int, int]] = {}

    def take(self, width: int, name: str | None = None) -> int:
        start = self.size
        self.size += width
        if name is not None:
            if name in self.blocks:
                raise ValueError(f"observation block {name!r} is taken twice")
            self.blocks[name] = (start, self.size)
        return start

    def name_at(self, index: int) -> str:
        for name, (start, end) in self.blocks.items():
            if start <= index < end:
                return name
        return f"entry {index}"

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        start, end = self.blocks[name]
        return vector[start:end]


@dataclass(frozen=True)
class PolicyLayout:
    """Where each action's logit comes from in a network's policy head.

    A per-cell head gives ``cell_channels`` logits at every ``(row, col)`` of the planes' grid
    and a global head ``global_actions`` more. Action ``a``'s logit is entry ``index[a]`` of
    ``concat(cell_logits.reshape(-1), global_logits)``, the cell logits in ``(row, col,
    channel)`` order. A game whose actions are not cells uses ``cell_channels = 0``.
    """

    cell_channels: int
    global_actions: int
    index: np.ndarray  # int64, one entry per action

    def __post_init__(self) -> None:
        index = np.asarray(self.index)
        if index.ndim != 1 or index.dtype.kind not in "iu":
            raise ValueError("PolicyLayout.index is a 1-d integer array, one entry per action")
        if len(set(index.tolist())) != len(index):
            raise ValueError("PolicyLayout.index maps two actions to one logit")


D4 = ("identity", "rot90", "rot180", "rot270", "flip_rows", "flip_cols", "transpose", "antitranspose")


def transform_grid(array: np.ndarray, transform: str) -> np.ndarray:
    """One of the eight symmetries of a square (``D4``) applied to the grid axes of an
    ``(..., H, W, C)`` array: rotations counter-clockwise by quarter turns, flips of the row
    order (``flip_rows``: top row to the bottom) or the column order, and the two diagonal
    reflections. ``flip_rows``, ``flip_cols`` and ``rot180`` keep a non-square grid's shape."""
    rows, cols = array.ndim - 3, array.ndim - 2
    if transform == "identity":
        return array
    if transform == "rot90":
        return np.rot90(array, 1, axes=(rows, cols))
    if transform == "rot180":
        return np.rot90(array, 2, axes=(rows, cols))
    if transform == "rot270":
        return np.rot90(array, 3, axes=(rows, cols))
    if transform == "flip_rows":
        return np.flip(array, rows)
    if transform == "flip_cols":
        return np.flip(array, cols)
    if transform == "transpose":
        return np.swapaxes(array, rows, cols)
    if transform == "antitranspose":
        return np.rot90(np.swapaxes(array, rows, cols), 2, axes=(rows, cols))
    raise ValueError(f"unknown grid transform {transform!r}; the transforms are {', '.join(D4)}")


@dataclass(frozen=True)
class Symmetry:
    """A symmetry of a game: relabelling the board by ``transform`` (then permuting channels)
    maps every position to an equally good one.

    * ``planes`` map by :func:`transform_grid` and then ``channels`` (``new[..., c] =
      old[..., channels[c]]``; ``None`` keeps the channels);
    * action ``a`` becomes ``actions[a]``; chance outcome ``o`` becomes ``chance[o]`` (``None``:
      chance outcomes are not board-shaped and stay as they are).

    Tested, not assumed: replaying a game with every action and chance outcome mapped gives,
    at every step, the mapped planes and the mapped mask (``tests/core``).
    """

    name: str
    transform: str
    actions: np.ndarray
    channels: np.ndarray | None = None
    chance: np.ndarray | None = None

    def apply_planes(self, planes: np.ndarray) -> np.ndarray:
        out = transform_grid(planes, self.transform)
        if self.channels is not None:
            out = out[..., self.channels]
        return np.ascontiguousarray(out)

    def apply_policy(self, policy: np.ndarray) -> np.ndarray:
        """A vector over actions (a policy, a mask) in the mapped position: ``out[actions[a]] =
        policy[a]`` along the last axis."""
        out = np.empty_like(policy)
        out[..., self.actions] = policy
        return out


class Observer:
    """Turns an engine state into one seat's observation, and back into named fields.

    Every flat entry lies in ``[0, 1]`` (counts and scores are divided by a stated scale) so
    that a network sees inputs of one size; ``decode`` multiplies the scales back out.
    """

    size: int

    def __init__(self, options: dict[str, Any]):
        self.options = options
        self.layout = Layout()  # the flat vector's named blocks, for decode and error messages

    def lay_out(self, **widths: int) -> None:
        """Lays the flat vector out as named blocks of the given widths, in the order given
        (``lay_out(hand=5, scores=2)``): each block's first index becomes the attribute named by
        the block in capitals (``self.HAND``, ``self.SCORES``) and ``size`` the vector's length."""
        for name, width in widths.items():
            attribute = name.upper()
            if hasattr(self, attribute):  # two names alike but for case, or a name the class uses
                raise ValueError(f"observation block {name!r} would replace the observer's attribute {attribute}")
            setattr(self, attribute, self.layout.take(width, name))
        self.size = self.layout.size

    def space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (self.size,), np.float32)

    def observe(self, game, player: int) -> np.ndarray:
        raise NotImplementedError

    def decode(self, observation) -> dict[str, Any]:
        raise NotImplementedError

    # ----- board-shaped observations ----------------------------------------------------------
    # A game with planes implements planes_shape, planes, policy_layout and symmetries.
    def planes_shape(self) -> tuple[int, int, int]:
        """``(H, W, C)`` of :meth:`planes`."""
        raise NotImplementedError(f"{type(self).__name__} has no planes layout")

    def planes(self, observation) -> np.ndarray:
        """The float32 planes of flat observations, every entry in ``[0, 1]``: one vector (or
        the env's dict) gives ``(H, W, C)``, a batch ``(N, size)`` gives ``(N, H, W, C)``.
        Per-cell facts are channels; global facts (scores, hands, round, phase) are constant
        planes after them (``docs/observations.md`` lists every channel)."""
        raise NotImplementedError(f"{type(self).__name__} has no planes layout")

    def planes_space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, self.planes_shape(), np.float32)

    def policy_layout(self) -> PolicyLayout:
        """How a network's policy head maps onto this game's actions."""
        raise NotImplementedError(f"{type(self).__name__} has no policy layout")

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The game's symmetries under these options, the identity first."""
        raise NotImplementedError(f"{type(self).__name__} declares no symmetries")


def as_vector(observation) -> np.ndarray:
    """Accept the env's dict or the bare vector."""
    if isinstance(observation, dict):
        observation = observation["observation"]
    return np.asarray(observation)
