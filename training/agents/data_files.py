"""The JSON data files beside the shipped agent files, read by one reader: each game's manifest
``checkpoints/<game>/agents.json`` (``training.agents.manifest``) and its strength levels
``checkpoints/<game>/levels.json`` (``training.agents.levels``).

:func:`read_json_file` reads either as an agent file is read — a regular file, at most
``MAX_DATA_FILE_BYTES`` — then as strict UTF-8 JSON (no NaN or Infinity), nested at most
``MAX_DEPTH`` deep. Every fault, there or in the fields the callers check with :class:`Fields`
below, is a :class:`DataFileError` whose message names the file and the field::

    levels file checkpoints/loom/levels.json is damaged: option_sets[0].levels[2] has no 'spec'

so that a damaged file is a clear error for a person (and ``bad_agent`` over the protocol),
never a ``KeyError`` or ``TypeError`` from deep inside.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from training.agents.archive import CheckpointError, _refuse_constant, json_depth_exceeds, read_small_file

MAX_DATA_FILE_BYTES = 1 << 20
MAX_DEPTH = 32
ROOT = Path(__file__).resolve().parents[2]


class DataFileError(CheckpointError):
    """A manifest or levels file that is damaged; the message names the file and the field."""


def shown_path(path: Path) -> str:
    """A path as messages show it: relative to the repository where it lies inside it."""
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except (OSError, ValueError):
        return str(path)


def damaged(what: str, path: Path, message: str, error: type[DataFileError] = DataFileError) -> DataFileError:
    return error(f"{what} {shown_path(path)} is damaged: {message}")


def read_json_file(path: str | Path, what: str, error: type[DataFileError] = DataFileError,
                   limit: int = MAX_DATA_FILE_BYTES) -> Any:
    """A data file's JSON document, read within the bounds of the module docstring."""
    path = Path(path)
    try:
        data = read_small_file(path, what, limit)
    except DataFileError:
        raise
    except CheckpointError as fault:
        text = str(fault)
        if "bytes; an agent file is at most" in text:
            text = f"{what} {shown_path(path)} is larger than {limit} bytes, the most a {what} may be"
        raise error(text) from None
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as fault:
        raise damaged(what, path, f"it is not UTF-8 text ({fault.reason} at byte {fault.start})", error) from None
    except RecursionError:
        raise damaged(what, path, f"it nests lists and objects deeper than {MAX_DEPTH} levels", error) from None
    except ValueError as fault:
        raise damaged(what, path, f"it is not JSON ({str(fault)[:100]})", error) from None
    if json_depth_exceeds(document, MAX_DEPTH):
        raise damaged(what, path, f"it nests lists and objects deeper than {MAX_DEPTH} levels", error)
    return document


def shown_value(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


class Fields:
    """Checks of a document's fields, each fault a :class:`DataFileError` naming the file and
    the field's path (``option_sets[0].levels[2].spec``)."""

    def __init__(self, what: str, path: Path, error: type[DataFileError] = DataFileError):
        self.what, self.path, self.error = what, Path(path), error

    def fail(self, where: str, message: str) -> DataFileError:
        return damaged(self.what, self.path, f"{where} {message}" if where else message, self.error)

    def object(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"must be an object, not {shown_value(value)}")
        return value

    def list(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"must be a list, not {shown_value(value)}")
        return value

    def text(self, value: Any, where: str, empty: bool = False, longest: int = 1000) -> str:
        if not isinstance(value, str) or (not empty and not value) or len(value) > longest:
            raise self.fail(where, f"must be a {'' if empty else 'non-empty '}string of at most {longest} characters, "
                                   f"not {shown_value(value)}")
        return value

    def integer(self, value: Any, where: str, least: int | None = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or (least is not None and value < least):
            bound = f" of at least {least}" if least is not None else ""
            raise self.fail(where, f"must be a whole number{bound}, not {shown_value(value)}")
        return value

    def number(self, value: Any, where: str, least: float | None = None, none: bool = False) -> float | None:
        if none and value is None:
            return None
        if (not isinstance(value, (int, float)) or isinstance(value, bool)
                or (least is not None and not value >= least)):
            bound = f" of at least {least:g}" if least is not None else ""
            raise self.fail(where, f"must be a number{bound}{' or null' if none else ''}, not {shown_value(value)}")
        return value

    def options(self, value: Any, where: str, game: str) -> dict[str, Any]:
        """A game's options: an object the game accepts (its own message, with the field's)."""
        import envs

        options = self.object(value, where)
        try:
            envs.describe(game).resolve_options(dict(options))
        except (ValueError, TypeError) as fault:
            raise self.fail(where, f"are not options {envs.describe(game).name} accepts: {fault}") from None
        return options


def in_game_folder(spec: str, short_name: str) -> bool:
    """Whether a level's agent file (``checkpoints/<game>/<file>``, relative to the repository)
    names a file in the game's own folder of shipped agents: no absolute path, no '..', no
    other folder."""
    if "\\" in spec or any(ord(c) < 32 for c in spec):
        return False
    relative = PurePosixPath(spec)
    return (not relative.is_absolute() and ".." not in relative.parts and len(relative.parts) == 3
            and relative.parts[:2] == ("checkpoints", short_name))


__all__ = ["DataFileError", "Fields", "MAX_DATA_FILE_BYTES", "MAX_DEPTH", "in_game_folder", "read_json_file"]
