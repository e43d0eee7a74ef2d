"""The checks every layer shares: one integer check for JSON-read data (snapshots, options,
agent files, requests) and one record of a game's options (agent files, results, the bot
server's answers)."""

from __future__ import annotations

import json
import time

import pytest

import envs
from envs.core.game import is_int


@pytest.mark.parametrize("value, low, high, expected", [
    (3, None, None, True), (-7, None, None, True), (True, None, None, False), (False, 0, 1, False),
    (1.0, None, None, False), ("1", None, None, False), (None, None, None, False),
    (0, 0, 4, True), (4, 0, 4, True), (5, 0, 4, False), (-1, 0, 4, False),
    (10**9, 1, None, True), (0, 1, None, False), (-5, None, 0, True), (1, None, 0, False),
])
def test_an_integer_is_an_int_not_a_bool_within_the_bounds_given(value, low, high, expected):
    assert is_int(value, low, high) is expected


def test_an_int_subclass_other_than_bool_counts():
    class Count(int):
        pass

    assert is_int(Count(3), 0, 3) and not is_int(Count(4), 0, 3)


def test_portable_options_leave_out_the_run_time_options_by_name_and_keep_the_rest_as_json():
    fill = envs.describe("fill")
    resolved = fill.resolve_options({"size": 6, "rock_cells": (1, 2, 3)})
    assert callable(resolved["clock"])
    portable = fill.portable_options(resolved)
    assert "clock" not in portable and set(portable) == set(resolved) - {"clock"}
    assert json.loads(json.dumps(portable)) == portable  # tuples became lists: a JSON round trip is exact
    assert fill.portable_options(dict(resolved, clock=None)) == portable  # by name, whatever its value
    for description in envs.DESCRIPTIONS:
        options = description.resolve_options({})
        assert description.resolve_options(description.portable_options(options)).keys() == options.keys()


def test_portable_options_refuse_a_value_a_file_cannot_record():
    linecatch = envs.describe("linecatch")
    options = dict(linecatch.resolve_options({}), rows=time.monotonic)
    with pytest.raises(ValueError, match="option 'rows'"):
        linecatch.portable_options(options)
