"""The suite's environments. ``from envs import linecatch_v0``; ``linecatch_v0.env(rows=4)``.

``envs.describe("loom")`` gives a game's description (engine, observer, renderers, sampling,
facts; see :mod:`envs.core.description`), ``envs.GAMES`` the env names in order and
``envs.DESCRIPTIONS`` the descriptions (both lists kept up to date by
:func:`envs.registry.register`). Every env id is also registered with PettingZoo's registry
under the ``abstract/`` namespace: ``pettingzoo.make("aec", "abstract/linecatch-v0")``.
"""

from __future__ import annotations

from envs.registry import GAMES as DESCRIPTIONS
from envs.registry import NAMES as GAMES
from envs.registry import canonical_name, describe, module, register


def load(name: str):
    """The env module of a game: ``load("loom_v0")`` or ``load("loom")``."""
    return module(name)


__all__ = ["DESCRIPTIONS", "GAMES", "canonical_name", "describe", "load", "module", "register"]
