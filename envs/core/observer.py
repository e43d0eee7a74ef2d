"""Base of the per-game observers: the only place where what a seat may see is decided."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


class Observer:
    """Turns an engine state into one seat's observation vector, and back into named fields.

    Every entry lies in ``[0, 1]`` (counts and scores are divided by a stated scale) so that a
    network sees inputs of one size; ``decode`` multiplies the scales back out.
    """

    size: int

    def __init__(self, options: dict[str, Any]):
        self.options = options

    def space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (self.size,), np.float32)

    def observe(self, game, player: int) -> np.ndarray:
        raise NotImplementedError

    def decode(self, observation) -> dict[str, Any]:
        raise NotImplementedError


class Layout:
    """Hands out consecutive blocks of an observation vector: ``start = layout.take(width)``;
    ``layout.size`` is the length so far."""

    def __init__(self) -> None:
        self.size = 0

    def take(self, width: int) -> int:
        start = self.size
        self.size += width
        return start


def as_vector(observation) -> np.ndarray:
    """Accept the env's dict or the bare vector."""
    if isinstance(observation, dict):
        observation = observation["observation"]
    return np.asarray(observation)
