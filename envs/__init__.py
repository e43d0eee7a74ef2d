"""The suite's environments. ``from envs import linecatch_v0``; ``linecatch_v0.env(rows=4)``.

``envs.describe("loom")`` gives a game's description (engine, observer, renderers, sampling,
facts; see :mod:`envs.core.description`), ``envs.GAMES`` the env names in order. Where the
installed PettingZoo has a registry (1.27 on), every env id is also registered with it under
the ``abstract/`` namespace: ``pettingzoo.make("aec", "abstract/linecatch-v0")``. An older
PettingZoo (some libraries pin one: AgileRL wants ``pettingzoo<1.27``) has none: the envs work
the same, made with ``envs.<game>_v0.env()``, and ``REGISTERED_WITH_PETTINGZOO`` is False.
"""

from __future__ import annotations

from envs.registry import GAMES as DESCRIPTIONS
from envs.registry import canonical_name, describe, module, names

GAMES = names()


def load(name: str):
    """The env module of a game: ``load("loom_v0")`` or ``load("loom")``."""
    return module(name)


def _register_with_pettingzoo() -> bool:
    """Register every env id with PettingZoo's registry; False (nothing done) where the
    installed PettingZoo has none (before 1.27)."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:
        return False
    for game in DESCRIPTIONS:
        env_id = f"abstract/{game.short_name}-v0"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"envs.{game.name}:env")
    return True


REGISTERED_WITH_PETTINGZOO = _register_with_pettingzoo()

__all__ = ["DESCRIPTIONS", "GAMES", "REGISTERED_WITH_PETTINGZOO", "canonical_name", "describe", "load", "module"]
