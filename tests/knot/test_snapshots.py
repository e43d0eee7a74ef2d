"""Knot snapshots: what a restore refuses (with the field named), and property-based fuzz over
mutated snapshots and corrupted observations, for 2, 3 and 4 players: every mutant either
restores to a consistent position or raises a ``SnapshotError`` naming the field — never
another exception; every corrupted observation either samples states that show it exactly or
is refused with a ``ValueError``."""

from __future__ import annotations

import copy
import json
import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from envs.core.game import CHANCE, OptionError, SnapshotError, draw_outcome, short_repr
from envs.knot.observer import KnotObserver
from envs.knot.rules import KnotGame
from envs.knot.sampling import complete_snapshot, sampler, strip_hidden
from envs.knot.snapshot import STATE_KEYS
from tests.knot.helpers import play_randomly, position, random_step

OPTION_SETS = [{}, {"players": 3}, {"players": 4}, {"players": 2, "size": 4}, {"players": 3, "size": 5},
               {"players": 4, "size": 4, "deck": [12, 4, 12, 2]}]


def game_after(options: dict, seed: int, steps: int | None) -> KnotGame:
    game = KnotGame(KnotGame.resolve_options(dict(options)))
    return play_randomly(game, random.Random(seed), steps)


def restored(snapshot: dict, **changes) -> KnotGame:
    edited = copy.deepcopy(snapshot)
    edited["state"].update(changes)
    return KnotGame.from_snapshot(edited)


# ----- refusals, each naming the field ------------------------------------------------------------

def mid_game(players=2, seed=3, steps=60):
    game = game_after({"players": players}, seed, steps)
    while game.current_player() == CHANCE:
        random_step(game, random.Random(seed))
    return game


def test_the_player_to_act_is_the_turns_own():
    snap = mid_game().snapshot()
    state = snap["state"]
    with pytest.raises(SnapshotError, match="'player' and 'turn'"):
        restored(snap, player=1 - state["player"])
    with pytest.raises(SnapshotError, match="'player' and 'turn'"):
        restored(snap, turn=state["turn"] + 1)


def test_a_finished_game_in_which_someone_can_still_place_is_refused():
    game, rng = mid_game(), random.Random(0)
    while not (game.phase == 0 and game.placed == 0 and game.legal_actions() != [16 * game.n]):
        random_step(game, rng)
    snap = game.snapshot()
    with pytest.raises(SnapshotError, match="'phase' is 'over' but player_"):
        restored(snap, phase="over", placed=0, growable=[])


def test_unknown_and_missing_fields_are_named():
    snap = mid_game().snapshot()
    with pytest.raises(SnapshotError, match="'colour' is not part of a knot_v0 state"):
        restored(snap, colour=1)
    for key in STATE_KEYS:
        broken = copy.deepcopy(snap)
        del broken["state"][key]
        with pytest.raises(SnapshotError, match=f"'{key}' is missing"):
            KnotGame.from_snapshot(broken)


def test_cross_field_refusals_name_every_field_involved():
    game = mid_game(players=3, seed=5, steps=90)
    snap = game.snapshot()
    state = snap["state"]
    owner = state["strands"][0][3]
    cases = [
        ({"known": [[5, 5, 5, 5]] + state["known"][1:]}, "'known' and 'hands'"),
        ({"pile": [state["pile"][0] + 1] + state["pile"][1:]}, "'pile', 'hands', 'market' and 'strands'"),
        ({"scores": [s + 2 for s in state["scores"]]}, "'scores' is .* the closed ribbons of 'strands' bank"),
        ({"placed_any": [p != owner for p in range(3)]}, "'placed_any' and 'strands'"),
        ({"strands": state["strands"] + [state["strands"][0]]}, "'strands': strand .* does not fit"),
        ({"strands": [[0, 3, 0, 0]] + state["strands"]}, "Flip faces the edge|does not fit"),
        ({"hands": [[6, 0, 0, 0]] + state["hands"][1:]}, r"'hands\[0\]'"),
        ({"placed_any": [1, 0, 0]}, "'placed_any' must hold 3 booleans"),
        ({"phase": "dance"}, "'phase' is 'dance'"),
        ({"closed": [10**6]}, "'closed' holds 1000000"),
        ({"growable": [-3]}, "'growable' holds -3"),
        ({"pending": "blind", "phase": "over"}, "'pending' names a draw outside the draw phase"),
    ]
    for changes, words in cases:
        with pytest.raises(SnapshotError, match=words):
            restored(snap, **changes)


def test_a_scripted_pile_must_be_what_is_left_of_the_script():
    pile = [k for k in range(4) for _ in range((24, 18, 18, 12)[k])]
    random.Random(1).shuffle(pile)
    game = game_after({"pile": pile}, 2, 40)
    snap = game.snapshot()
    counts = snap["state"]["pile"]
    kinds = [k for k in range(4) if counts[k]]
    if len(kinds) >= 2:
        changed = list(counts)
        changed[kinds[0]] -= 1
        changed[kinds[1]] += 1
        # the totals still fit once a hand gives the strand back
        with pytest.raises(SnapshotError, match="'pile'"):
            restored(snap, pile=changed)


def test_long_values_are_cut_in_messages():
    snap = mid_game().snapshot()
    for changes in ({"strands": [list(range(10**5))]}, {"phase": "x" * 10**5}, {"growable": ["y" * 10**5]},
                    {"closed": [[0] * 10**5]}, {"placed_any": [0] * 10**5}):
        with pytest.raises(SnapshotError) as error:
            restored(snap, **changes)
        assert len(str(error.value)) < 400, str(error.value)[:200]
    with pytest.raises(OptionError) as error:
        KnotGame.resolve_options({"pile": ["z" * 10**5]})
    assert len(str(error.value)) < 400


# ----- fuzz: mutate valid snapshots field by field ---------------------------------------------------

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 40), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4), st.lists(st.integers(-2, 8), max_size=6),
    st.lists(st.lists(st.integers(-1, 40), max_size=5), max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from(["place", "draw", "over", "deal", "market 0", "market 1", "blind"]),
)
FIELDS = list(STATE_KEYS)

MUTATION = st.one_of(
    st.tuples(st.just("replace"), st.sampled_from(FIELDS), JUNK),
    st.tuples(st.just("delete"), st.sampled_from(FIELDS), st.none()),
    st.tuples(st.just("extra"), st.text(min_size=1, max_size=5), JUNK),
    st.tuples(st.just("nudge"), st.sampled_from(FIELDS), st.tuples(st.integers(0, 200), st.integers(0, 3), st.integers(-2, 2))),
    st.tuples(st.just("strand"), st.integers(0, 200), st.tuples(st.integers(0, 3), st.integers(-1, 100))),
    st.tuples(st.just("strands"), st.sampled_from(["drop", "copy", "swap", "shuffle"]), st.integers(0, 200)),
    st.tuples(st.just("swap_seats"), st.sampled_from(["hands", "known", "scores", "placed_any"]), st.integers(0, 3)),
    st.tuples(st.just("phase"), st.sampled_from(["place", "draw", "over", "deal"]),
              st.sampled_from([None, "market 0", "market 1", "blind"])),
    st.tuples(st.just("option"), st.sampled_from(["players", "size", "deck", "pile"]), JUNK),
)

# A refusal names the field it changed or one that a cross-field check compares with it.
RELATED = {
    "pile": {"pile", "phase", "pending"},
    "hands": {"hands", "known", "phase", "pending", "pile"},
    "market": {"market", "phase", "pending", "pile"},
    "known": {"known", "phase"},
    "strands": {"strands", "closed", "scores", "growable", "placed", "placed_any", "phase", "pile"},
    "closed": {"closed"},
    "scores": {"scores", "phase"},
    "turn": {"turn", "placed", "phase"},
    "player": {"player", "growable", "phase", "pending"},
    "phase": {"phase", "growable", "placed", "pending"},
    "placed": {"placed", "growable"},
    "placed_any": {"placed_any", "phase"},
    "growable": {"growable"},
    "pending": {"pending", "phase"},
}


def leaf_paths(value, path=()):
    """Every integer leaf of a JSON value, as a path of keys and indices."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [path]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaf_paths(v, path + (i,))]
    return []


def set_at(root, path, value):
    for key in path[:-1]:
        root = root[key]
    root[path[-1]] = value


def get_at(root, path):
    for key in path:
        root = root[key]
    return root


def mutate(snapshot: dict, kind: str, what, value, rng: random.Random) -> tuple[dict, set[str] | None]:
    """The mutant and the field names a refusal may name (None: any snapshot field)."""
    mutant = copy.deepcopy(snapshot)
    state = mutant["state"]
    if kind == "replace":
        state[what] = value
        return mutant, {what}
    if kind == "delete":
        del state[what]
        return mutant, {what}
    if kind == "extra":
        if what in state:
            return mutant, set()
        state[what] = value
        return mutant, {what}
    if kind == "nudge":
        index, _, delta = value
        paths = leaf_paths(state[what])
        if paths == [()]:
            state[what] += delta
        elif paths:
            path = paths[index % len(paths)]
            set_at(state[what], path, get_at(state[what], path) + delta)
        return mutant, RELATED[what]
    if kind == "strand":
        strands = state["strands"]
        if strands:
            field, new = value
            strands[what % len(strands)][field] = new
        return mutant, RELATED["strands"]
    if kind == "strands":
        strands = state["strands"]
        if strands:
            i = value % len(strands)
            if what == "drop":
                strands.pop(i)
            elif what == "copy":
                strands.append(list(strands[i]))
            elif what == "swap":
                strands[0], strands[i] = strands[i], strands[0]
            else:
                rng.shuffle(strands)
        return mutant, RELATED["strands"]
    if kind == "swap_seats":
        seats = len(state["hands"])
        a, b = value % seats, (value + 1) % seats
        state[what][a], state[what][b] = state[what][b], state[what][a]
        return mutant, RELATED[what] | {"player"}
    if kind == "phase":
        state["phase"] = what
        state["pending"] = value
        return mutant, RELATED["phase"] | {"hands", "market", "strands", "known", "scores", "turn", "player"}
    if kind == "option":
        mutant["options"][what] = value
        return mutant, None
    raise AssertionError(kind)


def names_a_field(message: str, allowed: set[str] | None) -> bool:
    named = set(re.findall(r"'([a-z_]+)(?:\[\d+\])?'", message))
    if allowed is None:
        return bool(named) or "option" in message
    return bool(named & allowed) or any(short_repr(name) in message for name in allowed)


def check_consistent(game: KnotGame, rng: random.Random) -> None:
    """A restored position behaves: its snapshot round-trips (also along a play-out), every
    seat observes it (flat and planes), legal moves are legal, chance sums to one, and it plays
    to the end."""
    observer = KnotObserver(game.options)
    steps = 0
    while True:
        if steps % 7 == 0 or game.is_terminal():  # every few steps: affordable, and enough
            snapshot = game.snapshot()
            assert json.loads(json.dumps(snapshot)) == snapshot
            assert KnotGame.from_snapshot(snapshot).snapshot() == snapshot
            for seat in range(game.n_players):
                vector = observer.observe(game, seat)
                assert vector.shape == (observer.size,) and vector.min() >= 0 and vector.max() <= 1
                assert observer.planes(vector).shape == observer.planes_shape()
        if game.is_terminal():
            assert game.legal_actions() == [] and len(game.returns()) == game.n_players
            return
        legal = game.legal_actions()
        assert legal
        if game.current_player() == CHANCE:
            outcomes = game.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and [k for k, _ in outcomes] == legal
            game.apply(draw_outcome(outcomes, rng))
        else:
            probe = rng.randrange(game.num_actions)
            assert (game.why_illegal(probe) is None) == (probe in legal)
            assert game.why_illegal(legal[0]) is None
            game.apply(rng.choice(legal))
        steps += 1
        assert steps < 5000, "the game must end"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 10_000), steps=st.integers(0, 400),
       mutation=MUTATION)
def test_a_mutated_snapshot_restores_consistently_or_is_refused_by_name(options, seed, steps, mutation):
    rng = random.Random(seed)
    game = game_after(options, seed, steps)
    snapshot = game.snapshot()
    kind, what, value = mutation
    mutant, allowed = mutate(snapshot, kind, what, value, rng)
    try:
        again = KnotGame.from_snapshot(json.loads(json.dumps(mutant, allow_nan=True)))
    except SnapshotError as error:
        event(f"refused: {kind}")
        assert names_a_field(str(error), allowed), (kind, what, str(error))
        assert len(str(error)) < 600
        return
    event(f"accepted: {kind}")
    check_consistent(again, rng)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 10_000), steps=st.integers(0, 300),
       seat=st.integers(0, 3), mutation=MUTATION)
def test_complete_snapshot_completes_or_refuses_a_mutated_partial(options, seed, steps, seat, mutation):
    rng = random.Random(seed)
    game = game_after(options, seed, steps)
    seat %= game.n_players
    partial = strip_hidden(game.snapshot(), seat)
    kind, what, value = mutation
    mutant, _ = mutate(partial, kind, what, value, rng)
    try:
        completed = complete_snapshot(mutant, seat, rng)
    except SnapshotError as error:
        event("refused")
        assert str(error)
        return
    except ValueError as error:  # a bad seat or option is a ValueError too
        event("refused (value)")
        assert str(error)
        return
    event("completed")
    check_consistent(KnotGame.from_snapshot(completed), rng)


# ----- fuzz: corrupted observations ----------------------------------------------------------------

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 10_000), steps=st.integers(0, 300),
       edits=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from([0.0, 1.0, 0.5, 0.2, 1 / 3])),
                      min_size=0, max_size=3))
def test_a_corrupted_observation_samples_states_that_show_it_or_is_refused(options, seed, steps, edits):
    game = game_after(options, seed, steps)
    rng = random.Random(seed)
    while game.current_player() == CHANCE:
        random_step(game, rng)
    if game.is_terminal():
        return
    observer = KnotObserver(game.options)
    seat = game.current_player()
    vector = observer.observe(game, seat).copy()
    for index, value in edits:
        vector[index % observer.size] = value
    mask = np.zeros(game.num_actions, np.int8)
    mask[game.legal_actions()] = 1
    observation = {"observation": vector, "action_mask": mask}
    try:
        draw = sampler(observation, game.options)
    except ValueError as error:
        event("refused")
        assert str(error)
        return
    event("sampled")
    for i in range(2):
        state = draw(random.Random(i))
        assert observer.observe(state, seat).tobytes() == vector.tobytes()
        assert state.legal_actions() == np.flatnonzero(mask).tolist()


def test_positions_built_for_scenarios_restore():
    """The scenario helper's positions are valid snapshots too (turns go round, the game is on)."""
    g = position([("run/n@c3", 0), ("run/n@e3", 1)], hands=[[1, 1, 1, 1], [1, 1, 1, 1]])
    assert KnotGame.from_snapshot(g.snapshot()).snapshot() == g.snapshot()
