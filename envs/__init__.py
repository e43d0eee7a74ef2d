"""The suite's environments. ``from envs import linecatch_v0``; ``linecatch_v0.env(rows=4)``.

``envs.describe("loom")`` gives a game's description (engine, observer, renderers, sampling,
facts; see :mod:`envs.core.description`), ``envs.GAMES`` the env names in order and
``envs.DESCRIPTIONS`` the descriptions (both lists kept up to date by
:func:`envs.registry.register`). ``envs.make_jax("linecatch", rows=4)`` gives a game's JAX env
with Pgx's API (``docs/jax.md``; needs the ``jax`` extra) and ``envs.jax_games()`` the games
that have one. Where the installed PettingZoo has a registry (1.27 on), every
env id is also registered with it under the ``abstract/`` namespace:
``pettingzoo.make("aec", "abstract/linecatch-v0")``. An older PettingZoo (some libraries pin one:
AgileRL wants ``pettingzoo<1.27``) has none: the envs work the same, made with
``envs.<game>_v0.env()``, and ``REGISTERED_WITH_PETTINGZOO`` is False.
"""

from __future__ import annotations

from envs.registry import GAMES as DESCRIPTIONS
from envs.registry import NAMES as GAMES
from envs.registry import PETTINGZOO_HAS_REGISTRY, canonical_name, describe, jax_games, make_jax, module, register


def load(name: str):
    """The env module of a game: ``load("loom_v0")`` or ``load("loom")``."""
    return module(name)


REGISTERED_WITH_PETTINGZOO = PETTINGZOO_HAS_REGISTRY  # every game registered there, where it can be

__all__ = [
    "DESCRIPTIONS", "GAMES", "REGISTERED_WITH_PETTINGZOO", "canonical_name", "describe", "jax_games", "load",
    "make_jax", "module", "register",
]
