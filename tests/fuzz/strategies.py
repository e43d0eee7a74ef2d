"""Hypothesis strategies for hostile input: JSON of every shape, text with lone surrogates,
numbers out of every range, deep nesting and long lists, and mutations of real values."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

# All of Unicode, lone surrogates included (hypothesis leaves them out of text by default).
ANY_CHARACTER = st.characters(codec=None, exclude_categories=())
text = st.text(ANY_CHARACTER, max_size=12) | st.sampled_from(["", "a1", "5@b3", "\ud800", "x\udfffy", "\x00", "NaN", "..", "/"])

huge_ints = st.sampled_from([2**31, 2**63, -(2**63) - 1, 10**30, -(10**30), 2**64 + 1])
numbers = (
    st.integers(-3, 40) | huge_ints | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.5, -0.0, 1e308, 1e-320, 3.0])
)
scalars = st.none() | st.booleans() | numbers | text


def json_values(max_leaves: int = 20) -> st.SearchStrategy:
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=5) | st.dictionaries(text, children, max_size=5),
        max_leaves=max_leaves,
    )


@st.composite
def nested(draw, low: int = 30, high: int = 3000) -> Any:
    """An array or object nested ``low``…``high`` levels deep (built without recursion)."""
    depth = draw(st.integers(low, high))
    value: Any = draw(scalars)
    as_object = draw(st.booleans())
    for _ in range(depth):
        value = {"k": value} if as_object else [value]
    return value


def long_list() -> st.SearchStrategy:
    return st.integers(1_000, 100_000).map(lambda n: [0] * n) | st.integers(1_000, 50_000).map(lambda n: list(range(n)))


def hostile_values() -> st.SearchStrategy:
    return json_values() | nested() | long_list() | huge_ints


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indexes) into a JSON value, the root included (lists cut at 8 items,
    depth at 8 levels)."""
    found = [prefix]
    if len(prefix) >= 8:
        return found
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value[:8]):
            found += paths(child, prefix + (index,))
    return found


@st.composite
def mutated(draw, value: Any, replacements: st.SearchStrategy | None = None) -> Any:
    """``value`` (a JSON document) with one to three places replaced, deleted or extended."""
    result = copy.deepcopy(value)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(paths(result)))
        if not where:
            return draw(replacements or hostile_values())
        parent = result
        for key in where[:-1]:
            parent = parent[key]
        key = where[-1]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "delete":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
        elif action == "add" and isinstance(parent, dict):
            parent[draw(text)] = draw(replacements or hostile_values())
        elif action == "add":
            parent.insert(key, draw(replacements or hostile_values()))
        else:
            parent[key] = draw(replacements or hostile_values())
    return result


def dumps(value: Any) -> str:
    """JSON text of ``value`` without recursion (json.dumps stops near 1,000 levels); NaN and
    Infinity written as Python's json does, lone surrogates escaped."""
    try:
        return json.dumps(value, allow_nan=True)  # the C encoder, when the nesting allows it
    except RecursionError:
        pass
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Token):
            out.append(item.text)
        elif isinstance(item, dict):
            out.append("{")
            stack.append(_Token("}"))
            for index, (key, child) in enumerate(reversed(list(item.items()))):
                stack.append(child)
                stack.append(_Token(json.dumps(str(key)) + ": "))
                if index < len(item) - 1:
                    stack.append(_Token(", "))
        elif isinstance(item, list):
            out.append("[")
            stack.append(_Token("]"))
            for index, child in enumerate(reversed(item)):
                stack.append(child)
                if index < len(item) - 1:
                    stack.append(_Token(", "))
        else:
            out.append(json.dumps(item, allow_nan=True))
    return "".join(out)


class _Token:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text
