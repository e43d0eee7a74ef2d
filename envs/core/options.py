"""Option checks shared by every game: each error names the option and what is allowed."""

from __future__ import annotations

from typing import Any, Iterable

from envs.core.game import OptionError, short_repr


def check_int(options: dict[str, Any], name: str, low: int, high: int) -> int:
    value = options[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionError(f"option {name!r} must be an integer {low}…{high}, not {short_repr(value)}")
    return value


def check_bool(options: dict[str, Any], name: str) -> bool:
    value = options[name]
    if not isinstance(value, bool):
        raise OptionError(f"option {name!r} must be True or False, not {short_repr(value)}")
    return value


def check_choice(options: dict[str, Any], name: str, allowed: Iterable[Any]) -> Any:
    allowed = list(allowed)
    value = options[name]
    # type-exact: True must not pass for 1, nor 1 for True
    if not any(value == a and type(value) is type(a) for a in allowed):
        shown = ", ".join(repr(a) for a in allowed)
        raise OptionError(f"option {name!r} must be one of {shown}, not {short_repr(value)}")
    return value


def check_int_pairs(
    options: dict[str, Any], name: str, count: int, low: int, high: int, *, plural: str, entry: str, rule: str
) -> list[tuple[int, int]] | None:
    """``None``, or exactly ``count`` pairs of integers ``low…high`` (scripted chance: dice,
    tile orders). ``plural`` names the pairs, ``entry`` one of them, ``rule`` what a pair is."""
    value = options[name]
    if value is None:
        return None
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        raise OptionError(f"option {name!r} must be None or a list of {count} {plural}, not {value!r:.60}")
    if len(value) != count:
        raise OptionError(f"option {name!r} must hold {count} {plural}, not {len(value)}")
    out = []
    for i, pair in enumerate(value):
        ok = (
            isinstance(pair, (list, tuple))
            and len(pair) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and low <= x <= high for x in pair)
        )
        if not ok:
            raise OptionError(f"option {name!r}: {entry} {i} is {short_repr(pair)}; {rule}")
        out.append((pair[0], pair[1]))
    return out
