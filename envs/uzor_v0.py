"""
# Uzor

(doc page below)
"""

from envs.core import GameSpec, make_env_factories
from envs.uzor import render
from envs.uzor.observer import UzorObserver
from envs.uzor.rules import UzorGame

SPEC = GameSpec(
    game_cls=UzorGame,
    observer_cls=UzorObserver,
    render_ansi=render.ansi,
    render_rgb=render.rgb,
    extra_methods=("completions", "acceptance"),
)

raw_env, env = make_env_factories(SPEC, "uzor_v0", __name__)

BENCHMARK_OPTIONS = {"default 21x21": {}}

__all__ = ["env", "raw_env", "SPEC", "BENCHMARK_OPTIONS"]
