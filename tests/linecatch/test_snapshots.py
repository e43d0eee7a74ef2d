"""Snapshots: impossible positions refused by field, every real position accepted, and a fuzz
over mutated snapshots (each mutant restores to a consistent game or is refused by name)."""

from __future__ import annotations

import copy
import json
import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs import linecatch_v0
from envs.core import SnapshotError
from envs.linecatch.observer import LinecatchObserver
from envs.linecatch.rules import NO_MARK, LinecatchGame
from envs.linecatch.snapshots import STATE_FIELDS


def snapshot_of(rows=3, cols=3, pro=False, **state):
    return {"game": "linecatch_v0", "version": 1, "options": {"rows": rows, "cols": cols, "pro": pro},
            "state": state}


def grid(text: str) -> list[int]:
    """``"x.. ..."`` → per square: ``.`` white (−1 as a mark), digits marks, ``#`` black."""
    return [c for c in text.replace(" ", "")]


def position(black: str, marks: str, scores, to_move, **options):
    b = [0 if c == "." else 1 for c in grid(black)]
    m = [NO_MARK if c in ".#" else int(c) for c in grid(marks)]
    return snapshot_of(**options, black=b, marks=m, scores=list(scores), to_move=to_move)


# ----- positions no game leaves behind --------------------------------------------------------

@pytest.mark.parametrize("snapshot, field, fragment", [
    # Row 1 caught, yet its marks alternate: no order of catches explains them.
    (position("### ... ...", "010 ... ...", [2, 1], 0), "marks", "no order of catches"),
    # Row 1 caught by player_0 (its squares only it crosses), the points given to player_1.
    (position("### ... ...", "000 ... ...", [0, 3], 0), "scores", "cannot be split"),
    # Two rows of 5 caught, split 3 / 7: no line pays 3.
    (position("##### ##### ..... ..... .....", "00000 11111 ..... ..... .....", [3, 7], 0,
              rows=5, cols=5), "scores", "cannot be split"),
    # Every line of a full 3×3 board caught by player_0's points alone, yet a player_1 mark.
    (position("### ### ###", "000 010 000", [18, 0], 0), "scores", "player_1 has no points"),
    # The empty board with player_1 to move: player_0 always moves first.
    (position("... ... ...", "... ... ...", [0, 0], 1), "to_move", "player_0 is to move"),
    # Three squares, no catch: every move passed the turn, so player_1 is to move.
    (position("#.. .#. ..#", "... ... ...", [0, 0], 0), "to_move", "player_1 is to move"),
    # One catch (row 1, one move) and one plain move: four moves, three passes → player_1.
    (position("### #.. ...", "000 ... ...", [3, 0], 0), "to_move", "player_1 is to move"),
    # Marks on a square no caught line crosses, and a caught line without marks.
    (position("#.. ... ...", "0.. ... ...", [0, 0], 1), "marks", "square a1 is marked"),
    (position("### ... ...", "00. ... ...", [3, 0], 1), "marks", "square c1 is unmarked"),
    (position("### ... ...", "000 ... ...", [3, 1], 1), "scores", "does not add up"),
])
def test_impossible_positions_are_refused_naming_the_field(snapshot, field, fragment):
    with pytest.raises(SnapshotError, match=fragment) as refused:
        LinecatchGame.from_snapshot(snapshot)
    assert f"'{field}'" in str(refused.value)
    env = linecatch_v0.raw_env()
    env.reset(seed=0)
    before = env.snapshot()
    with pytest.raises(SnapshotError):
        env.restore(snapshot)
    assert env.snapshot() == before  # a refused restore changes nothing


@pytest.mark.parametrize("moves, marks", [
    # Row 1 by player_0, then column a by player_1 across a1 (a1's mark: the latest catch).
    ("a1 b1 c1 b2 a2 c3 a3", "100 1.. 1.."),
    # Row 1 and column a by player_0 at once: a1 last.
    ("b1 a2 c1 a3 a1", "000 0.. 0.."),
    # Three plain moves, then player_1 catches row 1 and is to move again.
    ("a2 a1 b1 c1", "111 ... ..."),
    # A finished board.
    ("a1 b2 c3 b1 c1 a2 c2 a3 b3", None),
])
def test_positions_played_to_are_accepted(moves, marks):
    game = LinecatchGame(LinecatchGame.resolve_options({"rows": 3, "cols": 3}))
    for name in moves.split():
        game.apply(game.string_to_action(name))
    if marks is not None:
        assert game.marks == [NO_MARK if c == "." else int(c) for c in grid(marks)]
    snapshot = game.snapshot()
    assert LinecatchGame.from_snapshot(snapshot).snapshot() == snapshot


def test_unknown_and_missing_state_fields_are_named():
    good = LinecatchGame(LinecatchGame.resolve_options({"rows": 3, "cols": 3})).snapshot()
    extra = copy.deepcopy(good)
    extra["state"]["rng"] = [1, 2]
    with pytest.raises(SnapshotError, match="snapshot field 'rng' is not part of a linecatch_v0 state"):
        LinecatchGame.from_snapshot(extra)
    for field in STATE_FIELDS:
        missing = copy.deepcopy(good)
        del missing["state"][field]
        with pytest.raises(SnapshotError, match=f"'{field}'"):
            LinecatchGame.from_snapshot(missing)


def test_every_position_of_random_games_round_trips():
    rng = random.Random(31)
    for _ in range(300):
        options = LinecatchGame.resolve_options(
            {"rows": rng.randint(3, 7), "cols": rng.randint(3, 7), "pro": rng.random() < 0.5})
        game = LinecatchGame(options)
        while True:
            snapshot = json.loads(json.dumps(game.snapshot()))
            again = LinecatchGame.from_snapshot(snapshot)
            assert again.snapshot() == snapshot and again.remaining == game.remaining
            if game.is_terminal():
                break
            game.apply(rng.choice(game.legal_actions()))


# ----- the reproductions that concern Linecatch ---------------------------------------------------

def test_restore_leaves_no_stale_mask_or_ending():
    env = linecatch_v0.env(rows=3, cols=3)
    env.reset(seed=0)
    start = env.unwrapped.snapshot()
    env.step(4)
    env.last()
    env.unwrapped.restore(start)
    env.step(4)  # legal again after the restore
    assert not any(env.terminations.values()) and set(env.rewards.values()) == {0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(4)  # now illegal: the wrapped env ends the game with -1 for the mover
    assert all(env.terminations.values())
    env.unwrapped.restore(start)
    env.step(0)
    assert not any(env.terminations.values())


@pytest.mark.parametrize("action", [True, np.bool_(False), 2.5, np.array([3]), np.array(3.0), "a1", None])
def test_actions_that_are_not_integers_are_refused_and_change_nothing(action):
    env = linecatch_v0.raw_env(rows=3, cols=3)
    env.reset(seed=0)
    before = env.snapshot()
    with pytest.raises(ValueError):
        env.step(action)
    assert env.snapshot() == before
    assert env.game.why_illegal(action) is not None
    env.step(np.int64(3))  # numpy integers stay accepted
    assert env.game.black[3] == 1


# ----- fuzz: mutate valid snapshots field by field -----------------------------------------------

def sample_snapshots() -> list[dict]:
    rng = random.Random(77)
    out = []
    for options in ({"rows": 3, "cols": 3}, {"rows": 4, "cols": 5, "pro": True}, {"rows": 5, "cols": 5}):
        resolved = LinecatchGame.resolve_options(options)
        for _ in range(4):
            game = LinecatchGame(resolved)
            for _ in range(rng.randrange(game.num_actions + 1)):
                game.apply(rng.choice(game.legal_actions()))
            out.append(game.snapshot())
    return out


SNAPSHOTS = sample_snapshots()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=True) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def mutants(draw):
    snapshot = copy.deepcopy(draw(st.sampled_from(SNAPSHOTS)))
    state = snapshot["state"]
    field = draw(st.sampled_from(STATE_FIELDS * 3 + ("(extra)",)))
    kind = draw(st.sampled_from(["entry", "entry-valid", "swap", "whole", "drop", "grow", "shrink"]))
    if field == "(extra)":
        state[draw(st.text(min_size=1, max_size=5).filter(lambda k: k not in STATE_FIELDS))] = draw(JSON)
    elif kind == "whole":
        state[field] = draw(JSON)
    elif kind == "drop":
        del state[field]
    elif field == "to_move":
        state[field] = draw(st.integers(-2, 3) | JSON) if kind == "entry" else 1 - state[field]
    else:
        values = state[field]
        index = draw(st.integers(0, len(values) - 1))
        if kind == "entry":
            values[index] = draw(JSON)
        elif kind == "entry-valid":  # another value the field's type allows
            low = NO_MARK if field == "marks" else 0
            values[index] = draw(st.integers(low, 1 if field != "scores" else 60))
        elif kind == "swap":
            other = draw(st.integers(0, len(values) - 1))
            values[index], values[other] = values[other], values[index]
        elif kind == "grow":
            values.append(values[index])
        else:
            values.pop(index)
    return snapshot, field


def assert_consistent(game: LinecatchGame) -> None:
    """A restored game behaves like a game: observations, legal actions, round trip, play-out."""
    size, geo = game.geo.size, game.geo
    observer = LinecatchObserver(game.options)
    for seat in (0, 1):
        vector = observer.observe(game, seat)
        assert vector.shape == (observer.size,) and vector.min() >= 0 and vector.max() <= 1
        fields = observer.decode(vector)
        assert fields["black"].ravel().tolist() == [bool(b) for b in game.black]
    assert game.legal_actions() == [c for c in range(size) if not game.black[c]]
    assert (game.current_player() in (0, 1)) == (not game.is_terminal())
    snapshot = game.snapshot()
    assert LinecatchGame.from_snapshot(json.loads(json.dumps(snapshot))).snapshot() == snapshot
    rng = random.Random(0)
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
    assert sum(game.scores()) == geo.total_points


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_a_mutated_snapshot_restores_consistently_or_is_refused_by_name(case):
    snapshot, field = case
    try:
        game = LinecatchGame.from_snapshot(snapshot)
    except SnapshotError as error:
        message = str(error)
        assert len(message) < 400
        assert field in message or "is not part of a linecatch_v0 state" in message or any(f"'{f}'" in message for f in STATE_FIELDS), message
        return
    assert_consistent(game)
