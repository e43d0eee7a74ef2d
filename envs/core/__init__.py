"""Shared core of the suite: the engine contract, the one AEC adapter, notation, rendering."""

from envs.core.aec import GameSpec, IllegalActionWrapper, SuiteEnv, classic_wrappers, make_env_factories
from envs.core.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    OptionError,
    SnapshotError,
    ranked_returns,
)
from envs.core.observer import Observer

__all__ = [
    "TERMINAL", "Game", "GameSpec", "IllegalActionError", "IllegalActionWrapper", "Observer",
    "OptionError", "SnapshotError", "SuiteEnv", "classic_wrappers", "make_env_factories", "ranked_returns",
]
