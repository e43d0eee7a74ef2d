"""The one list of the suite's games: their descriptions, in the order of the docs.

``describe("fill")`` (or ``"fill_v0"``) returns a game's :class:`~envs.core.description.GameDescription`;
``GAMES`` lists them all. Every game module is imported here, so a game that fails to import
fails loudly instead of silently dropping out of every test that loops over the games.
"""

from __future__ import annotations

from envs import fill_v0, knot_v0, linecatch_v0, loom_v0, uzor_v0
from envs.core.description import GameDescription

GAMES: tuple[GameDescription, ...] = (
    linecatch_v0.GAME,
    loom_v0.GAME,
    fill_v0.GAME,
    uzor_v0.GAME,
    knot_v0.GAME,
)
MODULES = {
    linecatch_v0.GAME.name: linecatch_v0,
    loom_v0.GAME.name: loom_v0,
    fill_v0.GAME.name: fill_v0,
    uzor_v0.GAME.name: uzor_v0,
    knot_v0.GAME.name: knot_v0,
}
_BY_NAME = {game.name: game for game in GAMES}


def names() -> list[str]:
    """The env names, in order: ``["linecatch_v0", "loom_v0", ...]``."""
    return [game.name for game in GAMES]


def canonical_name(name: str) -> str:
    """``"loom"``, ``"loom_v0"`` or PettingZoo's ``"abstract/loom-v0"`` → ``"loom_v0"``;
    a ``ValueError`` lists the games for anything else."""
    text = name if isinstance(name, str) else ""
    if text.startswith("abstract/") and text.endswith("-v0"):
        text = text[len("abstract/"):-len("-v0")]
    full = text if text.endswith("_v0") else f"{text}_v0"
    if full not in _BY_NAME:
        raise ValueError(f"unknown game {name!r}; the games are: {', '.join(names())}")
    return full


def describe(name: str) -> GameDescription:
    """The description of a game, by any of the names :func:`canonical_name` accepts."""
    return _BY_NAME[canonical_name(name)]


def module(name: str):
    """The public env module of a game (``envs.loom_v0``): ``env()``, ``raw_env``."""
    return MODULES[canonical_name(name)]
