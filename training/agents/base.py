"""The one agent interface: ``agent.act(env.observe(name)) -> int``.

Every bot and every trained model implements it. An agent sees only what its seat's
observation holds (the dict with ``"observation"`` and ``"action_mask"``), so it is honest by
construction; rule-based bots decode the vector through the game's observer.
"""

from __future__ import annotations

import numbers
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


MAX_SEED = 2**63 - 1  # seeds are whole numbers 0…MAX_SEED (what every generator the agents use takes)


def check_seed(seed: Any) -> int | None:
    """An agent's seed: None (unseeded) or a whole number 0…``MAX_SEED`` (a numpy integer too);
    anything else — text, a float, NaN, a bool, a number out of range — is a ValueError that
    names the seed."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"an agent's seed must be a whole number 0…{MAX_SEED} or None, not {short(seed)}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"an agent's seed must be a whole number 0…{MAX_SEED} or None, not {short(int(seed))}")
    return int(seed)


def check_agent_options(game: str | None, options: dict[str, Any]) -> dict[str, Any]:
    """The options an agent is made for, resolved by the game (defaults filled in); an unknown
    option or a value the game does not allow is the game's ``OptionError`` (a ValueError) that
    names the option."""
    import envs

    if game is None:
        return dict(options)
    return envs.describe(game).resolve_options(dict(options))


def short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


class RandomAgent:
    """Uniform over the legal actions, seeded."""

    name = "random"

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        check_agent_options(game, options)
        self.rng = random.Random(check_seed(seed))

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.rng.choice(legal_from_mask(observation))

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy ``act`` draws from: uniform over the legal actions, 0 elsewhere."""
        legal = legal_from_mask(observation)
        probabilities = np.zeros(len(observation["action_mask"]), np.float64)
        probabilities[legal] = 1.0 / len(legal)
        return probabilities
