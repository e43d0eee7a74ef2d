"""The bot protocol's messages: what a request line must be before the server acts on it, and
how an answer is written.

A request is checked here for its shape only (JSON text, nesting, valid Unicode, a known
``type`` with fields of the right kinds); ``training.serving.bot_server`` answers it, and
``training.serve`` reads and writes the lines (docs/protocol.md).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

import numpy as np

from envs.core.game import is_int

PROTOCOL = "abstract-games-suite/bot-protocol"
PROTOCOL_VERSION = 1
DEFAULT_MAX_LINE_BYTES = 1 << 20
MAX_REQUEST_DEPTH = 64  # nesting of arrays and objects in a request
MAX_MESSAGE_CHARS = 1000  # error messages are cut past this (they may quote the request)

# The server's limits, defined once: the stdin server (``training.serve``) and the web server
# (``training.web``) start from the same values, each a command-line flag of both.
DEFAULT_MAX_SIMULATIONS = 2000  # per move, for "mcts:N…" agents (--max-simulations)
DEFAULT_MOVE_TIME_LIMIT_S = 10.0  # an agent's work on one move or one probabilities answer (--move-time-limit)
DEFAULT_MAX_GAMES = 3  # open web games per client: a connection, or the stdin server (--max-games)
DEFAULT_MAX_SERVER_GAMES = 100  # open web games over a whole server, kept ones included (--max-server-games)
DEFAULT_MAX_GAMES_MEMORY_MB = 1024  # the games' own data over a whole server (--max-games-memory)
DEFAULT_GAME_EXPIRY_S = 3600.0  # a web game nobody has asked about for this long is forgotten (--game-expiry)


class RequestError(Exception):
    """A request the server refuses; becomes the answer's ``error`` object."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class _NumberOutOfRange(ValueError):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberOutOfRange(f"the number {text[:40]} is out of range (beyond a double)")
    return value


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


SURROGATE = re.compile("[\ud800-\udfff]")


def cut(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (messages may quote a long value)."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


def shown(value: Any, limit: int = 80) -> str:
    """A value quoted in a message: its repr, cut."""
    return cut(repr(value), limit)


def request_problem(request: Any) -> str | None:
    """What makes a parsed request unusable as text, if anything: nesting deeper than
    MAX_REQUEST_DEPTH, or a lone UTF-16 surrogate (which no UTF-8 answer can echo) in any
    string or key. Iterative, so that depth costs no recursion."""
    stack = [(request, 1, "the request")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, str):
            if SURROGATE.search(value):
                return f"{where} holds a lone UTF-16 surrogate (\\u{ord(SURROGATE.search(value).group()):04x}); text must be valid Unicode"
            continue
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        if depth > MAX_REQUEST_DEPTH:
            return f"the request is nested deeper than {MAX_REQUEST_DEPTH} levels"
        for key, child in items:
            if isinstance(key, str) and SURROGATE.search(key):
                return f"a key in {where} holds a lone UTF-16 surrogate; text must be valid Unicode"
            place = f"{where}[{key}]" if isinstance(key, int) else (f"field {key!r}" if depth == 1 else f"{where}.{key}")
            stack.append((child, depth + 1, cut(place, 120)))
    return None


# ----- request shapes -----------------------------------------------------------------------------

# kind -> (check, how the message names it)
KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "string": (lambda v: isinstance(v, str), "a string"),
    "integer": (is_int, "an integer"),
    "boolean": (lambda v: isinstance(v, bool), "true or false"),
    "object": (lambda v: isinstance(v, dict), "an object"),
    "array": (lambda v: isinstance(v, list), "an array"),
    "move": (lambda v: is_int(v) or isinstance(v, str), "an action number or its notation (a string)"),
}

# A position is given either as "actions" or as "snapshot" + "seat" (see BotServer.position).
POSITION_FIELDS = {"actions": "array", "snapshot": "object", "seat": "integer"}

# type -> (required fields, optional fields); "id" and "type" are allowed in every request.
REQUESTS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "hello": ({}, {}),
    "list_games": ({}, {}),
    "list_agents": ({"game": "string"}, {"options": "object"}),
    "new_game": ({"game": "string", "agent": "string"}, {"options": "object", "seed": "integer"}),
    "move": ({}, {**POSITION_FIELDS, "probabilities": "boolean"}),
    "legal": ({}, POSITION_FIELDS),
    "why_illegal": ({"move": "move"}, POSITION_FIELDS),
    "quit": ({}, {}),
    # games the server holds for a front end that keeps no state (training.serving.web_games)
    "web_new_game": ({"game": "string", "opponent": "string"}, {"options": "object", "seat": "integer", "seed": "integer"}),
    "web_view": ({"game_id": "string"}, {}),
    "web_resume": ({"link": "string"}, {}),
    "web_play": ({"game_id": "string", "move": "move"}, {}),
    "web_bot": ({"game_id": "string"}, {"stand_in": "string"}),
    "web_hint": ({"game_id": "string"}, {}),
    "web_position": ({"game_id": "string", "step": "integer"}, {}),
    "web_review": ({"game_id": "string"}, {}),
    "web_undo": ({"game_id": "string"}, {}),
    "web_why": ({"game_id": "string", "element": "string"}, {}),
    "web_preview": ({"game_id": "string", "move": "move"}, {}),
    "web_close": ({"game_id": "string"}, {}),
}


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def check_fields(kind: str, request: dict[str, Any]) -> None:
    required, optional = REQUESTS[kind]
    allowed = {"id", "type", *required, *optional}
    unknown = sorted(set(request) - allowed)
    if unknown:
        raise RequestError(
            "bad_request",
            f"unknown field {shown(unknown[0])} in a {kind!r} request; its fields are: {', '.join(sorted(allowed))}",
        )
    for name in required:
        if name not in request:
            raise RequestError("bad_request", f"a {kind!r} request needs the field {name!r}")
    for name, field_kind in {**required, **optional}.items():
        if name in request:
            check, wanted = KINDS[field_kind]
            if not check(request[name]):
                raise RequestError(
                    "bad_request", f"field {name!r} must be {wanted}, not {json_type(request[name])}"
                )


def error_answer(request_id: Any, code: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "error": {"code": code, "message": cut(message)}}


def _plain(value: Any) -> Any:
    """numpy scalars in an answer become plain numbers."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def encode(answer: dict[str, Any]) -> bytes:
    """One answer line: strict JSON (no NaN or Infinity), UTF-8. An answer that cannot be
    written so (a bug) becomes an ``internal`` error with a null id; this never raises."""
    try:
        text = json.dumps(answer, ensure_ascii=False, allow_nan=False, default=_plain)
        return text.encode("utf-8") + b"\n"
    except (TypeError, ValueError, RecursionError) as error:  # UnicodeEncodeError is a ValueError
        fallback = error_answer(None, "internal", f"the answer could not be encoded: {cut(str(error), 200)}")
        return json.dumps(fallback, ensure_ascii=True).encode("ascii") + b"\n"
