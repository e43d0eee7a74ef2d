"""Snapshots and options no game can produce are refused by name; a property-based fuzz over
Fill snapshots: every mutant restores to a consistent game or raises a SnapshotError that
names a field."""

from __future__ import annotations

import copy
import json
import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs import fill_v0
from envs.core.game import OptionError, SnapshotError, draw_outcome
from envs.fill.observer import FillObserver
from envs.fill.positions import position
from envs.fill.rules import OVER, FillGame
from envs.fill.snapshots import STATE_KEYS
from tests.fill.helpers import settle
from tests.fuzz.strategies import huge_ints, json_values, long_list, nested, paths

MAX_MESSAGE = 1000


# ----- the defects, one test each ------------------------------------------------------------------

def test_a_live_trap_on_a_rock_is_refused():
    game = position("""
    . . . . . .
    . # # . . .
    . . . . . .
    . . . . R .
    . . . . . .
    . . . . . .
    """, traps=True)
    game.apply(game.string_to_action("trap a1"))
    snap = json.loads(json.dumps(game.snapshot()))
    FillGame.from_snapshot(snap)
    snap["state"]["live_trap"][1] = game.string_to_action("e4")  # the rock
    with pytest.raises(SnapshotError, match="'live_trap'.*e4, a rock"):
        FillGame.from_snapshot(snap)


def test_a_filled_cell_not_joined_to_the_seed_is_refused():
    game = position(". . . . . .\n. # # . . .\n" + ". . . . . .\n" * 4)
    snap = json.loads(json.dumps(game.snapshot()))
    snap["state"]["filled"].append(game.string_to_action("f6"))  # touches no filled cell
    with pytest.raises(SnapshotError, match="'filled'.*f6 is not joined to the seed"):
        FillGame.from_snapshot(snap)
    snap["state"]["filled"] = [game.string_to_action(c) for c in ("b2", "c2", "e2", "f2")]  # d2 missing
    with pytest.raises(SnapshotError, match="'filled'.*not joined"):
        FillGame.from_snapshot(snap)
    with pytest.raises(ValueError, match="no Fill game reaches this picture"):
        position("# . . . . #\nR R R R R R\n" + ". . . . . .\n" * 4)


def played(options: dict, moves: int, seed: int = 3) -> FillGame:
    """A game of ``moves`` random actions (chance resolved at random) with these options."""
    rng = random.Random(seed)
    game = FillGame(FillGame.resolve_options(options))
    for _ in range(moves):
        if game.is_chance_node():
            game.apply(draw_outcome(game.chance_outcomes(), rng))
        elif not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
    while game.is_chance_node():
        game.apply(draw_outcome(game.chance_outcomes(), rng))
    return game


def test_more_filled_cells_than_the_turns_played_allow_are_refused():
    game = played({}, 10)
    snap = json.loads(json.dumps(game.snapshot()))
    FillGame.from_snapshot(snap)
    assert len(snap["state"]["filled"]) > 3
    assert snap["state"]["phase"] == "fill"
    snap["state"]["turns"] = [1, 1]  # the seed and one fill, the second turn not yet filled
    with pytest.raises(SnapshotError, match=r"'filled' holds \d+ cells.*'turns'.*at most 2"):
        FillGame.from_snapshot(snap)


def test_with_gems_a_used_double_allows_one_more_filled_cell_and_no_more():
    game = played({"gems": True}, 12)
    snap = json.loads(json.dumps(game.snapshot()))
    state = snap["state"]
    # three gems: two still on the board, the third collected as a Double token, held
    assert state["turns"] == [4, 4] and len(state["filled"]) == 8 and len(state["gems"]) == 2
    assert state["tokens"] == [[], [["double", 8, 3]]]
    FillGame.from_snapshot(snap)
    # the seed, six finished turns, player_1's in progress: one cell too many with the token held
    state["turns"] = [3, 4]
    with pytest.raises(SnapshotError, match=r"'filled' holds 8 cells.*at most 7"):
        FillGame.from_snapshot(snap)
    state["tokens"], state["phase"] = [[], []], "fill"  # the Double played: one fill more is possible
    FillGame.from_snapshot(snap)
    state["turns"] = [3, 3]
    with pytest.raises(SnapshotError, match=r"'filled' holds 8 cells.*at most 7"):
        FillGame.from_snapshot(snap)


def test_more_gems_and_tokens_than_the_game_has_gems_are_refused():
    game = played({"gems": True}, 12)
    snap = json.loads(json.dumps(game.snapshot()))
    state = snap["state"]
    assert len(state["gems"]) == 2 and state["tokens"] == [[], [["double", 8, 3]]]
    state["tokens"][0] = [["pass", 8, 3]]  # a fourth gem's token
    with pytest.raises(SnapshotError, match="'gems' and 'tokens' account for 4 gems.*more than the 3 a game has"):
        FillGame.from_snapshot(snap)


def test_a_double_with_no_double_token_collected_is_refused():
    game = played({"gems": True}, 10)
    snap = json.loads(json.dumps(game.snapshot()))
    assert snap["state"]["phase"] == "fill" and len(snap["state"]["gems"]) == 3
    snap["state"]["double"] = True  # every gem still on the board: no Double to play
    with pytest.raises(SnapshotError, match="'double' is set but no Double token can have been collected"):
        FillGame.from_snapshot(snap)


def test_a_double_in_a_game_without_gems_is_refused():
    game = played({}, 6)
    snap = json.loads(json.dumps(game.snapshot()))
    assert snap["state"]["phase"] == "fill"
    snap["state"]["double"] = True  # a second fill for free
    with pytest.raises(SnapshotError, match="'double' is set but the option 'gems' is off"):
        FillGame.from_snapshot(snap)
    snap["state"]["double"] = False
    snap["state"]["tokens"][1] = [["double", 8, 1]]  # a token with no gem to collect it from
    with pytest.raises(SnapshotError, match="'tokens' holds tokens but the option 'gems' is off"):
        FillGame.from_snapshot(snap)


@pytest.mark.parametrize("rule_on", [False, True])
def test_scripts_are_checked_whether_or_not_their_rule_is_on(rule_on):
    for bad, words in (([float("nan")], "'rock_cells' holds nan"), ([40], "'rock_cells' holds cell 40"),
                       ("a1", "'rock_cells' must be a list"), ([[1]], "'rock_cells' holds"),
                       (["a" * 500], "'rock_cells' holds"), ([np.array([1])], "'rock_cells' holds array([1])"),
                       ([np.array([1.5])], "'rock_cells' holds"), ([np.array(1.0)], "'rock_cells' holds")):
        with pytest.raises(OptionError, match=re.escape(words)):
            fill_v0.raw_env(rocks=rule_on, rock_cells=bad)
    for bad, words in (([(0, "double", 1)], "each gem is a (cell, kind) pair"), ([(float("nan"), "pass")], "holds nan"),
                       ({(0, "pass")}, "must be a list"), ([(3, "bomb")], "kind 'bomb'"), ([(3, 7)], "kind 7"),
                       ([(np.array([1]), "pass")], "'gem_cells' holds array([1])"),
                       ([(np.array([[1]]), "double")], "'gem_cells' holds array([[1]])")):
        with pytest.raises(OptionError, match=re.escape(words)):
            fill_v0.raw_env(gems=rule_on, gem_cells=bad)
    # numpy integers (and 0-d integer arrays) are cells like ints
    env = fill_v0.raw_env(rocks=rule_on, rock_cells=[np.int64(1), np.array(2)], gems=rule_on,
                          gem_cells=[(np.int32(20), "pass")])
    assert env.options["rock_cells"] == (1, 2) and env.options["gem_cells"] == ((20, "pass"),)


@pytest.mark.parametrize("rule_on", [False, True])
def test_any_accepted_script_leaves_a_json_snapshot_the_env_restores(rule_on):
    env = fill_v0.raw_env(rocks=rule_on, rock_cells={5, 1, "c3"}, gems=rule_on, gem_cells=((20, "pass"), ["f6", "double"]))
    env.reset(seed=1)
    env.step(env.legal_actions()[0])
    text = json.dumps(env.snapshot(), allow_nan=False)
    assert env.game.options["rock_cells"] == (1, 5, 14)  # a set, in cell order
    env.restore(json.loads(text))
    assert json.dumps(env.snapshot(), allow_nan=False) == text


def test_long_bad_inputs_give_short_messages():
    huge = [0] * 100_000
    cells = list(range(100_000))
    for options in ({"rock_cells": cells}, {"rocks": True, "rock_cells": cells}, {"gem_cells": huge},
                    {"gems": True, "gem_cells": [(0, "pass")] * 50_000 + [huge]}, {"clocked": huge + ["x"]}, {"clock": huge}):
        with pytest.raises(OptionError) as error:
            fill_v0.raw_env(**options)
        assert len(str(error.value)) <= MAX_MESSAGE
    game = FillGame(FillGame.resolve_options({}))
    with pytest.raises(ValueError) as error:
        game.string_to_action("c" * 100_000)
    assert len(str(error.value)) <= MAX_MESSAGE
    long_script = FillGame.resolve_options({"gems": True, "gem_cells": [(0, "pass")] * 5000})
    assert FillObserver(long_script).slots == 36  # a script places at most one gem a cell


# ----- the fuzz --------------------------------------------------------------------------------------

FUZZ_OPTIONS = [
    {"traps": True, "rocks": True, "gems": True},
    {"size": 7, "lines": "strict", "traps": True, "gems": True, "gem_cells": [(3, "trap"), (40, "pass"), (20, "double")]},
    {"size": 8, "lines": "off", "rocks": True, "rock_cells": [0, 9, 63], "time_limit": True},
    {},
]


def collect_snapshots() -> list[dict]:
    """Snapshots from every phase of seeded random games (chance nodes and the end included)."""
    rng = random.Random(0)
    out = []
    for options in FUZZ_OPTIONS:
        for seed in range(4):
            game = FillGame(FillGame.resolve_options(options))
            while True:
                if rng.random() < 0.35 or game.is_terminal():
                    out.append(json.loads(json.dumps(game.snapshot())))
                if game.is_terminal():
                    break
                if game.is_chance_node():
                    game.apply(draw_outcome(game.chance_outcomes(), rng))
                else:
                    game.apply(rng.choice(game.legal_actions()))
    return out


SNAPSHOTS = collect_snapshots()


def nearby(value):
    """Values a slip of the pen would give: other small numbers, other names, flipped flags."""
    if isinstance(value, bool):
        return st.just(not value)
    if isinstance(value, int):
        return st.integers(value - 3, value + 3) | st.integers(-2, 70)
    if isinstance(value, float):
        return st.floats(allow_nan=True, allow_infinity=True) | st.just(value + 1.0) | st.just(-value)
    if isinstance(value, str):
        return st.sampled_from(["seed", "choose", "token", "trap", "fill", "second-fill", "over", "rocks", "gems",
                                "", "time", "no legal cell", "double", "pass", "trap-token"])
    if isinstance(value, list):
        return st.lists(st.integers(-1, 64), max_size=6) | st.just(value[::-1]) | st.just(value + value[-1:])
    return st.none()


@st.composite
def mutant(draw):
    snapshot = copy.deepcopy(draw(st.sampled_from(SNAPSHOTS)))
    state = snapshot["state"]
    field = draw(st.sampled_from(STATE_KEYS + ("options",)))
    root = snapshot if field == "options" else state
    where = draw(st.sampled_from(paths(root[field]))) if root[field] is not None else ()
    parent, key = root, field
    for step in where:
        parent, key = parent[key], step
    if draw(st.booleans()):
        replacement = draw(nearby(parent[key]))
    else:
        # (nested at most 400 deep, so that hypothesis can print a failing case; deeper JSON is
        # the core's generic fuzz's, tests/fuzz)
        replacement = draw(json_values() | nested(30, 400) | long_list() | huge_ints)
    if field == "options" and not where:
        return snapshot, field
    parent[key] = replacement
    return snapshot, field


def frozen() -> float:
    """A clock that stands still: snapshots of a timed game then round-trip exactly."""
    return 0.0


def check_consistent(game: FillGame, play: bool = True) -> None:
    """A restored game must observe, list its legal actions as why_illegal does, round-trip its
    snapshot through JSON and (with ``play``) play on to the end."""
    observer = FillObserver(game.options)
    rng = random.Random(0)
    for _ in range(400 if play else 1):
        for seat in (0, 1):
            vec = observer.observe(game, seat)
            assert vec.shape == (observer.size,) and np.all((vec >= 0) & (vec <= 1))
            observer.planes(vec)
        text = json.dumps(game.snapshot(), allow_nan=False)
        assert FillGame.from_snapshot(json.loads(text), clock=frozen).snapshot() == game.snapshot()
        if game.is_terminal():
            assert game.phase == OVER and sorted(game.returns()) == [-1, 1]
            return
        legal = game.legal_actions()
        top = game.max_chance_outcomes_for(game.options) if game.is_chance_node() else game.n + 7
        assert legal and legal == [a for a in range(top) if game.why_illegal(a) is None]
        if game.is_chance_node():
            assert abs(sum(p for _, p in game.chance_outcomes()) - 1) < 1e-9
            game.apply(draw_outcome(game.chance_outcomes(), rng))
        else:
            game.apply(rng.choice(legal))
    if play:
        raise AssertionError("the game did not end")


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutant())
def test_every_mutated_snapshot_restores_consistently_or_names_a_field(case):
    snapshot, field = case
    try:
        # the state through Fill's own validator, so that no other exception can hide behind
        # the framing's catch-all (the core turns stray errors into "malformed")
        _, options = FillGame.read_snapshot(snapshot, clock=frozen)
        game = FillGame.from_state_dict(options, snapshot["state"])
    except SnapshotError as error:
        message = str(error)
        assert len(message) <= MAX_MESSAGE
        if message == "snapshot is nested too deeply to be a snapshot":
            return  # the core's answer for JSON nested past Python's recursion limit
        named = re.findall(r"snapshot fields? '(\w+)'|snapshot (options) are invalid", message)
        assert named, message
        return
    check_consistent(game)


def test_the_fuzz_snapshots_cover_every_phase():
    phases = {snap["state"]["phase"] for snap in SNAPSHOTS}
    assert phases >= {"rocks", "seed", "gems", "choose", "token", "trap", "fill", "over"}


def small_changes(value, rng: random.Random):
    """A few near misses of a JSON value: one number nudged, an entry dropped or repeated, a
    flag flipped, another name."""
    out = []
    if isinstance(value, bool):
        out.append(not value)
    elif isinstance(value, int):
        out += [value + 1, value - 1, rng.randrange(-1, 65)]
    elif isinstance(value, float):
        out += [value - 1.0, value + 0.5]
    elif isinstance(value, str):
        out.append(rng.choice(["seed", "choose", "token", "trap", "fill", "second-fill", "over", "rocks", "gems",
                               "", "time", "no legal cell"]))
    elif isinstance(value, list):
        if value:
            out += [value[1:], value + value[:1]]
            index = rng.randrange(len(value))
            for changed in small_changes(value[index], rng)[:2]:
                out.append(value[:index] + [changed] + value[index + 1:])
        out.append(value + [rng.randrange(0, 64)])
    elif value is None:
        out += [0, [0, 0]]
    return out


def test_near_miss_snapshots_field_by_field_restore_consistently_or_name_a_field():
    """Seeded mutation of every field of the fuzz snapshots by near misses (the kind of slip a
    hand-edited or a buggy front end's snapshot has): each restores to a consistent game or is
    refused naming a field."""
    rng = random.Random(4)
    accepted = refused = 0
    for snapshot in SNAPSHOTS[::3]:
        for field in STATE_KEYS:
            for change in small_changes(snapshot["state"][field], rng):
                damaged = copy.deepcopy(snapshot)
                damaged["state"][field] = change
                try:
                    _, options = FillGame.read_snapshot(damaged, clock=frozen)
                    game = FillGame.from_state_dict(options, damaged["state"])
                except SnapshotError as error:
                    assert re.search(r"snapshot fields? '\w+'", str(error)), str(error)
                    refused += 1
                    continue
                accepted += 1
                check_consistent(game, play=accepted % 4 == 0)
    assert accepted > 50 and refused > 300


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutant(), st.integers(0, 1))
def test_completing_a_mutated_partial_snapshot_gives_a_valid_snapshot_or_a_snapshot_error(case, seat):
    from envs.fill.sampling import complete_snapshot, strip_hidden

    snapshot, _ = case
    try:
        partial = strip_hidden(FillGame.from_snapshot(snapshot, clock=frozen).snapshot(), seat)
    except SnapshotError:
        partial = snapshot  # an invalid one is handed over as it is
    try:
        completed = complete_snapshot(partial, seat, random.Random(0))
    except SnapshotError as error:
        assert len(str(error)) <= MAX_MESSAGE
        return
    FillGame.from_snapshot(json.loads(json.dumps(completed, allow_nan=False)), clock=frozen)
