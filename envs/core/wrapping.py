"""PettingZoo's classic wrappers around the one adapter (``envs.core.aec.SuiteEnv``): an illegal
action ends the game as the offender's loss with a warning, out-of-range actions and play
before reset are refused, and every read goes straight to the raw env; ``public_envs`` makes a
game's ``raw_env`` and ``env``."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from envs.core.aec import SuiteEnv
from envs.core.description import GameDescription
from envs.core.game import action_index


class IllegalActionWrapper(wrappers.BaseWrapper):
    """PettingZoo's classic convention for an illegal action: the offender gets −1, everybody
    else 0, and the game is over; a warning gives the engine's ``why_illegal`` sentence.

    Legality is read from the raw env's position at the moment of the step (not from an
    observation cached earlier), and the "ended by an illegal move" flag lives in the raw env,
    so ``env.unwrapped.restore`` and ``reset`` leave nothing stale behind.
    """

    def __init__(self, env: AECEnv, illegal_reward: float):
        super().__init__(env)
        self._raw = env.unwrapped
        self._illegal_reward = illegal_reward

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        done = raw.terminations.get(agent) or raw.truncations.get(agent)
        if done:
            if raw.ended_by_illegal_action:
                raw._was_dead_step(action)
            else:
                self.env.step(action)
            return
        index = action if type(action) is int else action_index(action, raw._num_actions)
        if raw.is_legal_now(index):
            self.env.step(index)
            return
        reason = raw.game.why_illegal(index) or "that action is not legal now"
        warnings.warn(f"Illegal move made by {agent}, game terminating with current player losing: {reason}",
                      IllegalMoveWarning, stacklevel=3)
        raw.end_by_illegal_action(self._illegal_reward)


class IllegalMoveWarning(UserWarning):
    """The warning ``env()`` gives when an illegal action ends the game (the reason in its text)."""


# PettingZoo's wrappers forward every attribute read through a chain of ``__getattr__`` calls;
# in a training loop that chain costs more than the game itself. These subclasses read the
# per-step attributes straight from the raw env (same values, same classes for isinstance).
_PER_STEP_ATTRIBUTES = (
    "agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
    "_cumulative_rewards", "possible_agents",
)


_GUARDED_BEFORE_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}


def _direct(name: str, guard_reset: bool) -> property:
    guarded = guard_reset and name in _GUARDED_BEFORE_RESET

    def read(self):
        if guarded and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(read)


def _with_direct_reads(wrapper_cls: type, guard_reset: bool = False) -> type:
    def __init__(self, env, *args, **kwargs):
        wrapper_cls.__init__(self, env, *args, **kwargs)
        self._raw = env.unwrapped

    namespace = {name: _direct(name, guard_reset) for name in _PER_STEP_ATTRIBUTES}
    namespace["__init__"] = __init__
    namespace["__module__"] = __name__
    return type(wrapper_cls.__name__, (wrapper_cls,), namespace)


_TerminateIllegal = _with_direct_reads(IllegalActionWrapper)


class _AssertOutOfBounds(_with_direct_reads(wrappers.AssertOutOfBoundsWrapper)):
    """PettingZoo's assertion for an int out of range; an action that is no integer at all (a
    bool, a float, an array) is refused first with a ``ValueError`` that says so. A plain
    in-range int skips gymnasium's ``Discrete.contains`` checks."""

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._raw._num_actions:
            self.env.step(action)
            return
        if action is not None:
            action = action_index(action, self._raw._num_actions)
        super().step(action)


class _OrderEnforcing(_with_direct_reads(wrappers.OrderEnforcingWrapper, guard_reset=True)):
    """PettingZoo's order checks; ``observe`` and ``last`` go straight to the raw env (the
    wrappers between only pass ``observe`` on), and ``step`` with a plain int in range to the
    illegal-action wrapper (the bounds wrapper between passes such an int on unchanged), with
    the same checks and results."""

    _fast_step = None  # the illegal-action wrapper's step (classic_wrappers sets it)

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple:
        raw = self._raw
        agent = self.agent_selection  # refused before reset, as PettingZoo's wrapper does
        assert agent is not None
        observation = raw.observe(agent) if observe else None  # (reset has been called: observe's check)
        return (observation, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent],
                raw.infos[agent])

    def step(self, action: Any) -> None:
        # A plain int in range, after reset, with agents left: the checks below pass it on
        # unchanged to the illegal-action wrapper, which this calls at once.
        fast = self._fast_step
        if fast is not None and type(action) is int and self._has_reset:
            raw = self._raw
            if raw.agents and 0 <= action < raw._num_actions:
                self._has_updated = True
                fast(action)
                return
        super().step(action)


_OrderEnforcing.__name__ = _OrderEnforcing.__qualname__ = "OrderEnforcingWrapper"  # str(env) as before


def classic_wrappers(raw: SuiteEnv) -> AECEnv:
    """PettingZoo's classic chain (illegal action −1 and game over, bounds, order) over ``raw``."""
    illegal = _TerminateIllegal(raw, illegal_reward=-1)
    ordered = _OrderEnforcing(_AssertOutOfBounds(illegal))
    ordered._fast_step = illegal.step
    return ordered


def public_envs(game: GameDescription) -> tuple[type[SuiteEnv], Callable[..., AECEnv]]:
    """``raw_env, env = public_envs(GAME)``: a game's unwrapped AEC class (raises ValueError on
    illegal actions) and its ``env(**options)`` factory, named as PettingZoo's classic modules
    name them and living in the game's public module (so that pickling finds them there)."""
    module = game.module or f"envs.{game.name}"
    doc = f"The unwrapped {game.name} AEC environment (raises ValueError on illegal actions)."
    raw = type("raw_env", (SuiteEnv,), {"__doc__": doc, "__module__": module}, game=game)
    return raw, wrapped_factory(raw)


def wrapped_factory(raw_env: type[SuiteEnv]):
    """The ``env(**options)`` factory of a game: ``raw_env`` in PettingZoo's classic wrappers."""

    def env(**options: Any) -> AECEnv:
        """The environment with PettingZoo's classic wrappers (illegal action: −1 and game over)."""
        return classic_wrappers(raw_env(**options))

    env.__module__ = raw_env.__module__
    env.__qualname__ = "env"
    return env


TABLE_SLOT = "{pettingzoo_table}"


def pettingzoo_table(raw_env: type[SuiteEnv], actions: str = "", observation: str = "") -> str:
    """The table PettingZoo's env pages open with, measured on an env of the game's default
    options, so that its numbers cannot go stale; ``actions`` and ``observation`` say how the
    sizes follow the options (``"rows*cols"``; ``"(5*rows*cols + 3,), or (rows, cols, 8) as planes"``)."""
    description = raw_env.description
    env = raw_env()
    planes = raw_env(observation_format="planes")
    first = env.possible_agents[0]
    flat, grid = env.observation_space(first)["observation"], planes.observation_space(first)["observation"]
    facts = description.facts
    agents = str(len(env.possible_agents))
    if facts.min_players != facts.max_players:
        agents += f" by default; {facts.min_players} to {facts.max_players} with the `players` option"
    default_sizes = " (default options)" if description.resolve_options({}) else ""
    rows = [
        ("Import", f"`from envs import {description.name}`"),
        ("Actions", "Discrete"),
        ("Parallel API", "No"),
        ("Manual Control", f"No (terminal play: `abstract-games play --game {description.short_name}`)"),
        ("Agents", f"`agents= {env.possible_agents}`"),
        ("Agents", agents),
        ("Action Shape", "(1,)"),
        ("Action Values", f"Discrete({env.action_space(first).n}){default_sizes}"
         + (f"; in general Discrete({actions})" if actions else "")),
        ("Observation Shape", f"{flat.shape}, or {grid.shape} with `observation_format=\"planes\"`{default_sizes}"
         + (f"; in general {observation}" if observation else "")),
        ("Observation Values", f"[{float(flat.low.min()):g}, {float(flat.high.max()):g}]"),
    ]
    lines = [f"| {'Import':<18} | {rows[0][1]} |", f"|{'-' * 20}|{'-' * 40}|"]
    lines += [f"| {name:<18} | {value} |" for name, value in rows[1:]]
    return "\n".join(lines)


def module_docstring(doc: str, raw_env: type[SuiteEnv], actions: str = "", observation: str = "") -> str:
    """An env module's docstring with its ``{pettingzoo_table}`` line filled in
    (:func:`pettingzoo_table`): ``__doc__ = module_docstring(__doc__, raw_env, ...)``."""
    if TABLE_SLOT not in doc:
        raise ValueError(f"{raw_env.description.name}'s module docstring has no {TABLE_SLOT} line to fill")
    return doc.replace(TABLE_SLOT, pettingzoo_table(raw_env, actions, observation), 1)
