"""The suite's environments. ``from envs import linecatch_v0``; ``linecatch_v0.env(rows=4)``.

``envs.describe("loom")`` gives a game's description (engine, observer, renderers, sampling,
facts; see :mod:`envs.core.description`), ``envs.GAMES`` the env names in order. Every env id
is also registered with PettingZoo's registry under the ``abstract/`` namespace:
``pettingzoo.make("aec", "abstract/linecatch-v0")``.
"""

from __future__ import annotations

from envs.registry import GAMES as DESCRIPTIONS
from envs.registry import canonical_name, describe, module, names

GAMES = names()


def load(name: str):
    """The env module of a game: ``load("loom_v0")`` or ``load("loom")``."""
    return module(name)


def _register_with_pettingzoo() -> None:
    from pettingzoo import aec_registry, register

    for game in DESCRIPTIONS:
        env_id = f"abstract/{game.short_name}-v0"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"envs.{game.name}:env")


_register_with_pettingzoo()

__all__ = ["DESCRIPTIONS", "GAMES", "canonical_name", "describe", "load", "module"]
