"""Strength levels a player can choose: ``agent_levels(game, **options)`` and ``level:K`` specs.

Each game's levels are data, ``checkpoints/<game>/levels.json``, written by the calibration
(``python -m training.levels``, ``training.evaluation.calibration``) and read here, never
recomputed. The file holds one entry per option set: the options, the candidate agents the
calibration chooses among, and the levels it chose, weakest first. Each level is a dict:

* ``"level"`` — 1, 2, …; ``"name"`` — a word a player reads (beginner, novice, casual, …);
* ``"spec"`` — the ``load_agent`` spec that plays it;
* ``"elo"`` — its rating, level 1 at 0 (maximum likelihood over every pair played), with
  ``"elo_interval95"``;
* ``"ms_per_move"`` — mean think time a move on one core, over every game it played;
* ``"vs_below"`` — its record against the level below (``None`` for level 1): ``games``,
  ``wins``, ``draws``, ``losses``, ``score`` (draws half) and ``interval95`` (Wilson).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import envs

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
LEVEL_PREFIX = "level:"


def levels_file(game: str) -> Path:
    """Where a game's levels lie: ``checkpoints/<game>/levels.json``."""
    return CHECKPOINTS / envs.describe(game).short_name / "levels.json"


def option_key(game: str, options: dict[str, Any]) -> str:
    """The options with defaults filled in, as canonical JSON: two option sets that mean the
    same game (``{}`` and ``{"rows": 5, "cols": 5}``) have the same key."""
    description = envs.describe(game)
    resolved = description.portable_options(description.resolve_options(options))
    return json.dumps(resolved, sort_keys=True)


@lru_cache(maxsize=None)
def _read(path: str, modified: float) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def read_levels_file(game: str) -> dict[str, Any]:
    """The game's levels file (``{"game", "option_sets": [...]}``), or an empty one."""
    path = levels_file(game)
    if not path.is_file():
        return {"game": envs.describe(game).name, "option_sets": []}
    return _read(str(path), path.stat().st_mtime)


def option_set(game: str, options: dict[str, Any]) -> dict[str, Any] | None:
    """The levels file's entry for these options (defaults filled in), or None."""
    key = option_key(game, options)
    for entry in read_levels_file(game)["option_sets"]:
        if option_key(game, entry.get("options", {})) == key:
            return entry
    return None


def levelled_option_sets(game: str) -> list[dict[str, Any]]:
    """The option sets of a game that have levels: ``[{"options": {...}, "label": "5×5"}, ...]``."""
    return [{"options": entry.get("options", {}), "label": entry.get("label", "")}
            for entry in read_levels_file(game)["option_sets"] if entry.get("levels")]


def agent_levels(game: str, **options: Any) -> list[dict[str, Any]]:
    """The levels for a game and options, weakest first (see the module's docstring).

    Options without levels raise a ValueError that names the option sets that have them."""
    from training.agents.load import game_name

    name = game_name(game)
    entry = option_set(name, options)
    if entry is None or not entry.get("levels"):
        have = levelled_option_sets(name)
        listing = "; ".join(f"{json.dumps(o['options']) if o['options'] else 'the defaults'} ({o['label']})"
                            for o in have) or "none"
        raise ValueError(
            f"no levels for {name} with options {json.loads(option_key(name, options))}; "
            f"the option sets with levels: {listing}"
        )
    return [dict(level) for level in entry["levels"]]


def level_spec(spec: str, game: str, **options: Any) -> str:
    """The ``load_agent`` spec that plays ``level:K`` for a game and options; a ValueError names
    the valid range (or the option sets with levels)."""
    text = spec[len(LEVEL_PREFIX):]
    levels = agent_levels(game, **options)
    try:
        number = int(text)
    except ValueError:
        number = None
    if number is None or not 1 <= number <= len(levels):
        raise ValueError(f"{spec!r}: the levels for these options are level:1 … level:{len(levels)}")
    return in_repository(levels[number - 1]["spec"])


def in_repository(spec: str) -> str:
    """A level's agent file is named relative to the repository (``checkpoints/…``): made
    absolute, so that a level loads from any working folder."""
    if spec.startswith("checkpoints/"):
        path = CHECKPOINTS.parent / spec
        if path.exists():
            return str(path)
    return spec


def default_level(game: str, max_ms_per_move: float = 1000.0, **options: Any) -> str | None:
    """The strongest level that thinks at most ``max_ms_per_move`` a move (an opponent a person
    does not wait for), as ``"level:K"``; None where the options have no levels."""
    try:
        levels = agent_levels(game, **options)
    except ValueError:
        return None
    quick = [level for level in levels if (level.get("ms_per_move") or 0.0) <= max_ms_per_move]
    return f"{LEVEL_PREFIX}{(quick or levels[:1])[-1]['level']}"


def is_level_spec(spec: str) -> bool:
    return isinstance(spec, str) and spec.startswith(LEVEL_PREFIX)


__all__ = ["agent_levels", "default_level", "in_repository", "is_level_spec", "level_spec", "levelled_option_sets", "levels_file", "option_key"]
