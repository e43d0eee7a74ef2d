"""Shared core of the suite: the engine contract, the game description, the one AEC adapter,
notation, rendering and observation helpers."""

from envs.core.aec import SuiteEnv
from envs.core.wrapping import IllegalActionWrapper, classic_wrappers, module_docstring, public_envs, wrapped_factory
from envs.core.description import (
    BoardView, Gallery, GameDescription, GameFacts, PlayRules, Renderers, Sampling, TestOptions,
)
from envs.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    IllegalActionError,
    OptionError,
    SnapshotError,
    ranked_returns,
)
from envs.core.observer import Observer

__all__ = [
    "CHANCE", "TERMINAL", "BoardView", "Gallery", "Game", "GameDescription", "GameFacts", "IllegalActionError",
    "IllegalActionWrapper", "Observer", "OptionError", "PlayRules", "Renderers", "Sampling", "SnapshotError",
    "SuiteEnv", "TestOptions", "classic_wrappers", "module_docstring", "public_envs", "ranked_returns", "wrapped_factory",
]
