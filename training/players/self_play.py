"""The self-play env of ``wrappers.self_play`` with its opponents resolved by the training
stack: a bot name, an agent file or any other ``load_agent`` spec, a policy payload (a frozen
snapshot of the learner: ``training.agents.checkpoint.PolicyAgent.policy_payload``) or an agent
object."""

from __future__ import annotations

from typing import Any

from training.agents.checkpoint import PolicyAgent
from training.players.load import load_agent
from wrappers import self_play


def make_opponent(entry: Any, game: str, options: dict[str, Any], seed: int):
    """An agent from a pool entry (a ``load_agent`` spec, a policy payload or an agent object)."""
    if isinstance(entry, str):
        return load_agent(entry, game, seed=seed, **options)
    if isinstance(entry, dict) and "layers" in entry:
        return PolicyAgent(entry["layers"], entry.get("activation", "tanh"), sample=entry.get("sample", False), seed=seed)
    if hasattr(entry, "act"):
        return entry
    raise ValueError(f"an opponent is a bot name, a checkpoint path, a policy payload or an agent, not {entry!r}")


class SelfPlayEnv(self_play.SelfPlayEnv):
    """``wrappers.self_play.SelfPlayEnv`` whose pool entries may be any ``load_agent`` spec or
    policy payload (:func:`make_opponent`)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, make_opponent=make_opponent, **kwargs)


__all__ = ["SelfPlayEnv", "make_opponent"]
