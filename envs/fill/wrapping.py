"""PettingZoo's classic wrapper chain, with the hot attributes read straight from the raw env.

``env()`` wraps the raw env as every classic environment does (terminate on illegal action,
assert in bounds, enforce order). Each wrapper forwards attribute reads it does not define
through ``BaseWrapper.__getattr__``, one level per wrapper: about forty forwarded reads per
step (``agent_selection`` alone some twenty), which cost more than the whole Fill step. The
subclasses here answer those reads (``agent_selection``, ``terminations``, ``truncations``,
``infos``, ``agents``, ``rewards``, ``_cumulative_rewards``, ``possible_agents``) with a
property reading the raw env directly. Values and behaviour are unchanged: only the raw env
ever assigns these attributes, and the order-enforcing wrapper still refuses them before
``reset()``. (A candidate for the shared core: nothing here is specific to Fill.)
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from envs.core.aec import IllegalActionWrapper

HOT = ("agent_selection", "terminations", "truncations", "infos", "agents", "rewards",
       "_cumulative_rewards", "possible_agents")
BEFORE_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}


def _direct(name: str) -> property:
    def read(self):
        return getattr(self._raw, name)

    return property(read, doc=f"``{name}`` of the raw env, read directly.")


def _guarded(name: str) -> property:
    def read(self):
        if name in BEFORE_RESET and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(read, doc=f"``{name}`` of the raw env, read directly (after reset).")


class DirectIllegalActionWrapper(IllegalActionWrapper):
    def __init__(self, env, illegal_reward: float):
        super().__init__(env, illegal_reward=illegal_reward)
        self._raw = env.unwrapped


class DirectAssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env):
        super().__init__(env)
        self._raw = env.unwrapped


class DirectOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    def __init__(self, env):
        super().__init__(env)
        self._raw = env.unwrapped


for _name in HOT:
    setattr(DirectIllegalActionWrapper, _name, _direct(_name))
    setattr(DirectAssertOutOfBoundsWrapper, _name, _direct(_name))
    setattr(DirectOrderEnforcingWrapper, _name, _guarded(_name))


def classic_wrappers(raw: Any):
    """``raw`` inside the classic chain: illegal action −1 and game over, bounds, order."""
    wrapped = DirectIllegalActionWrapper(raw, illegal_reward=-1)
    wrapped = DirectAssertOutOfBoundsWrapper(wrapped)
    return DirectOrderEnforcingWrapper(wrapped)
