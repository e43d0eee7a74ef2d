"""Option checks shared by every game: each error names the option and what is allowed."""

from __future__ import annotations

from typing import Any, Iterable

from envs.core.game import OptionError


def check_int(options: dict[str, Any], name: str, low: int, high: int) -> int:
    value = options[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionError(f"option {name!r} must be an integer {low}…{high}, not {value!r}")
    return value


def check_bool(options: dict[str, Any], name: str) -> bool:
    value = options[name]
    if not isinstance(value, bool):
        raise OptionError(f"option {name!r} must be True or False, not {value!r}")
    return value


def check_choice(options: dict[str, Any], name: str, allowed: Iterable[Any]) -> Any:
    allowed = list(allowed)
    value = options[name]
    # type-exact: True must not pass for 1, nor 1 for True
    if not any(value == a and type(value) is type(a) for a in allowed):
        shown = ", ".join(repr(a) for a in allowed)
        raise OptionError(f"option {name!r} must be one of {shown}, not {value!r}")
    return value
