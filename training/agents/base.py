"""The one agent interface: ``agent.act(env.observe(name)) -> int``.

Every bot and every trained model implements it. An agent sees only what its seat's
observation holds (the dict with ``"observation"`` and ``"action_mask"``), so it is honest by
construction; rule-based bots decode the vector through the game's observer.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

import numpy as np


class Agent(Protocol):
    def act(self, observation: dict[str, np.ndarray]) -> int: ...


def legal_from_mask(observation: dict[str, Any]) -> list[int]:
    mask = observation["action_mask"]
    legal = np.flatnonzero(mask).tolist()
    if not legal:
        raise ValueError("the observation's action mask is empty: this seat is not to act now")
    return legal


class RandomAgent:
    """Uniform over the legal actions, seeded."""

    name = "random"

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.rng.choice(legal_from_mask(observation))

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy ``act`` draws from: uniform over the legal actions, 0 elsewhere."""
        legal = legal_from_mask(observation)
        probabilities = np.zeros(len(observation["action_mask"]), np.float64)
        probabilities[legal] = 1.0 / len(legal)
        return probabilities
