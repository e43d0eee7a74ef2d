"""Strength levels a player can choose: ``agent_levels(game, **options)`` and ``level:K`` specs.

Each game's levels are data, ``checkpoints/<game>/levels.json``, written by the calibration
(``abstract-games levels``, ``training.evaluation.calibration``) and read here, never
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
from training.agents.data_files import DataFileError, Fields, in_game_folder, read_json_file, shown_value
from training.agents.files import names_a_file

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


class LevelsError(DataFileError):
    """A levels file that is damaged: the message names the file and the field."""


@lru_cache(maxsize=16)
def _read(path: str, game: str, modified: float, size: int) -> dict[str, Any]:
    return check_levels(read_json_file(path, "levels file", LevelsError), Path(path), game)


def read_levels_file(game: str) -> dict[str, Any]:
    """The game's levels file (``{"game", "option_sets": [...]}``), or an empty one; read by the
    data files' one reader (``training.agents.data_files``: a regular file of at most 1 MB,
    strict JSON) and checked (``check_levels``): a damaged file raises a ``LevelsError``
    naming the file and the field."""
    name = envs.describe(game).name
    path = levels_file(game)
    if not (path.exists() or path.is_symlink()):
        return {"game": name, "option_sets": []}
    try:
        status = path.stat()
        modified, size = status.st_mtime, status.st_size
    except OSError:
        modified = size = -1  # the reader says what is wrong
    return _read(str(path), name, modified, size)


LEVEL_FIELDS_CHECKED = ("level", "name", "spec", "elo", "ms_per_move")


def check_levels(document: Any, path: Path, game: str) -> dict[str, Any]:
    """A levels document checked field by field (what ``agent_levels``, ``level_spec`` and the
    servers read): ``option_sets``, a list of objects whose ``options`` the game accepts and
    whose ``levels`` are objects numbered 1, 2, … with a ``name``, a ``spec`` (a bot, a search,
    or an agent file in the game's own folder, ``checkpoints/<game>/<file>``; never another
    level), an ``elo`` and a ``ms_per_move`` (numbers, or null)."""
    description = envs.describe(game)
    fields = Fields("levels file", path, LevelsError)
    top = fields.object(document, "the file")
    if "game" in top and top["game"] not in (description.name, description.short_name):
        raise fields.fail("'game'", f"is {shown_value(top['game'])}, but the file lies in {description.short_name}'s folder"
                                    f"{envs.registry.version_note(top['game'], description.name)}")
    if "option_sets" not in top:
        raise fields.fail("", "it has no 'option_sets' (a list of option sets, each with its levels)")
    for index, entry in enumerate(fields.list(top["option_sets"], "option_sets")):
        where = f"option_sets[{index}]"
        fields.object(entry, where)
        fields.options(entry.get("options", {}), f"{where}.options", game)
        if "label" in entry:
            fields.text(entry["label"], f"{where}.label", empty=True)
        for number, level in enumerate(fields.list(entry.get("levels", []), f"{where}.levels"), start=1):
            at = f"{where}.levels[{number - 1}]"
            fields.object(level, at)
            missing = [key for key in LEVEL_FIELDS_CHECKED if key not in level]
            if missing:
                raise fields.fail(at, f"has no {missing[0]!r}")
            if fields.integer(level["level"], f"{at}.level") != number:
                raise fields.fail(f"{at}.level", f"is {level['level']}; the levels are numbered 1, 2, … in order")
            fields.text(level["name"], f"{at}.name", longest=80)
            spec = fields.text(level["spec"], f"{at}.spec", longest=300)
            check_level_spec(spec, description.short_name, fields, f"{at}.spec")
            fields.number(level["elo"], f"{at}.elo", none=True)
            fields.number(level["ms_per_move"], f"{at}.ms_per_move", least=0, none=True)
    return top


def check_level_spec(spec: str, short_name: str, fields: Fields, where: str) -> None:
    """A level plays a bot, a search or an agent file of the game's own folder (named relative
    to the repository): never another level, an absolute path, or a file elsewhere."""
    if is_level_spec(spec):
        raise fields.fail(where, f"is {spec!r}: a level plays an agent, not another level")
    head = spec.split(":")[0]
    if head != "mcts" and names_a_file(spec) and not in_game_folder(spec, short_name):
        raise fields.fail(where, f"names the agent file {spec!r}; a level's agent file lies in the game's own folder, "
                                 f"named checkpoints/{short_name}/<file> (no absolute path, no '..')")


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
    name = envs.canonical_name(game)
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
        path = CHECKPOINTS / spec[len("checkpoints/"):]
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


__all__ = ["LevelsError", "agent_levels", "check_levels", "default_level", "in_repository", "is_level_spec", "level_spec", "levelled_option_sets", "levels_file", "option_key"]
