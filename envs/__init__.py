"""The suite's environments. ``from envs import linecatch_v0``; ``linecatch_v0.env(rows=4)``.

Every env id is also registered with PettingZoo's registry (where the installed PettingZoo has
one) under the ``abstract/`` namespace: ``pettingzoo.make("aec", "abstract/linecatch-v0")``.
"""

from __future__ import annotations

import importlib
import importlib.util

# The suite's games, in the order of the spec. A game whose module is not built yet is skipped.
ALL_GAMES = ["linecatch_v0", "loom_v0", "fill_v0", "uzor_v0", "knot_v0"]
GAMES = [name for name in ALL_GAMES if importlib.util.find_spec(f"envs.{name}") is not None]


def load(name: str):
    """The env module of a game: ``load("loom_v0")`` or ``load("loom")``."""
    full = name if name.endswith("_v0") else f"{name}_v0"
    if full not in GAMES:
        raise ValueError(f"unknown game {name!r}; the games are: {', '.join(GAMES)}")
    return importlib.import_module(f"envs.{full}")


def _register_with_pettingzoo() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo before the registry (< 1.27): nothing to register with
        return
    for name in GAMES:
        env_id = f"abstract/{name[:-3]}-v0"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"envs.{name}:env")


_register_with_pettingzoo()
