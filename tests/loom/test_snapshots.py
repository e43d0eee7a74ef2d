"""Loom snapshots: what a restore refuses (with the field named) and a property-based fuzz over
mutated snapshots: every mutant either restores to a consistent position or raises a
``SnapshotError`` naming what is wrong — never another exception."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from envs.core import SnapshotError
from envs.core.game import draw_outcome
from envs.loom import sampling
from envs.loom.cloth import cloth_score
from envs.loom.observer import LoomObserver
from envs.loom.rules import ROUNDS, LoomGame
from envs.loom.throws import assign_threads, threads_fit
from tests.loom.util import random_play, throw_dice


def game_after(moves: int, seed: int = 0, **options) -> LoomGame:
    return random_play(LoomGame(LoomGame.resolve_options(options)), random.Random(seed), moves=moves)


def restore_state(snapshot: dict, **changes) -> LoomGame:
    edited = copy.deepcopy(snapshot)
    edited["state"].update(changes)
    return LoomGame.from_snapshot(edited)


def rescored(state: dict, bounty: int = 8) -> dict:
    state["scores"] = [cloth_score(c, bounty) for c in state["cloths"]]
    return state


# ----- the defects: each refused, the field named ---------------------------------------------------

def test_taken_flipped_after_the_drafter_wove_is_refused():
    for seed in range(40):
        game = game_after(2 * (seed % 15) + 0, seed)
        low, high = game.throws[game.round]
        if low == high:
            continue
        game.apply(game.legal_actions()[-1])  # the drafter takes thread 1 if it can
        snapshot = game.snapshot()
        taken = snapshot["state"]["taken"]
        with pytest.raises(SnapshotError, match="'taken'"):
            restore_state(snapshot, taken=1 - taken)


def test_a_changed_past_throw_is_refused():
    refused = 0
    for seed in range(40):
        game = game_after(17, seed)
        snapshot = game.snapshot()
        throws = snapshot["state"]["throws"]
        index = seed % game.round
        pair = throws[index]
        for new in ([pair[0], min(6, pair[1] + 1)], [max(1, pair[0] - 1), pair[1]]):
            if new == pair:
                continue
            changed = [list(p) for p in throws]
            changed[index] = new
            with pytest.raises(SnapshotError, match="'throws'"):
                restore_state(snapshot, throws=changed)
            refused += 1
    assert refused > 40


def test_a_dye_no_throw_gave_is_refused_even_with_its_scores_recomputed():
    for seed in range(40):
        game = game_after(12, seed)
        snapshot = game.snapshot()
        state = copy.deepcopy(snapshot["state"])
        cell = next(c for c in range(16) if state["cloths"][0][c])
        state["cloths"][0][cell] = state["cloths"][0][cell] % 6 + 1
        with pytest.raises(SnapshotError, match="'cloths'"):
            restore_state(snapshot, **rescored(state))


def test_two_cloths_that_swap_threads_between_rounds_are_refused():
    """The dye totals fit, yet no way of giving each round one thread to each cloth does:
    rounds (1, 2) and (3, 4), cloth 0 holding 1 and 2, cloth 1 holding 3 and 4."""
    game = LoomGame(LoomGame.resolve_options({}))
    state = {"throws": [[1, 2], [3, 4]], "cloths": [[1, 0, 2] + [0] * 13, [3, 0, 4] + [0] * 13],
             "scores": [0, 0], "round": 2, "taken": -1}
    with pytest.raises(SnapshotError, match="no way to give each finished round"):
        restore_state(dict(game.snapshot(), state=rescored(state)))
    state["cloths"] = [[1, 0, 3] + [0] * 13, [2, 0, 4] + [0] * 13]
    assert restore_state(dict(game.snapshot(), state=rescored(state))).cloths == state["cloths"]


def test_other_impossible_states_are_refused_by_name():
    game = game_after(6, 3)
    snapshot = game.snapshot()
    state = snapshot["state"]
    cases = [
        ({"throws": state["throws"] + [[1, 2]]}, "'throws'"),  # a throw to come: not in the state
        ({"throws": [[p[1], p[0]] if p[0] != p[1] else p for p in state["throws"]]}, "lower dye first"),
        ({"throws": None}, "'throws'"),
        ({"round": 17}, "'round'"),
        ({"taken": True}, "'taken'"),
        ({"scores": [state["scores"][0] + 1, state["scores"][1]]}, "scores"),
        ({"cloths": [state["cloths"][0]]}, "'cloths'"),
    ]
    for changes, words in cases:
        with pytest.raises(SnapshotError, match=words):
            restore_state(snapshot, **changes)
    drafted = game_after(7, 3).snapshot()  # the drafter has woven: a thread is taken
    with pytest.raises(SnapshotError, match="'taken' is .*no throw for round 3"):
        restore_state(drafted, throws=drafted["state"]["throws"][:-1])
    # taken = 1 when both threads show one dye: the drafter weaves thread 0.
    double = LoomGame(LoomGame.resolve_options({"throws": [(4, 4)] * 16}))
    throw_dice(double, random.Random(0))
    double.apply(0)
    with pytest.raises(SnapshotError, match="'taken' is 1 with both threads"):
        restore_state(double.snapshot(), taken=1)
    # A scripted game's snapshot must follow its script.
    scripted = game_after(4, 1, throws=[(1, 2)] * 16)
    with pytest.raises(SnapshotError, match="scripted"):
        restore_state(scripted.snapshot(), throws=[[1, 3]] + scripted.snapshot()["state"]["throws"][1:])


def test_hakimi_check_agrees_with_the_round_by_round_search():
    rng = random.Random(0)
    fits = 0
    for _ in range(3000):
        rounds = rng.randint(0, 12)
        throws = [tuple(sorted((rng.randint(1, rng.choice([3, 6])), rng.randint(1, 6)))) for _ in range(rounds)]
        dyes = [d for pair in throws for d in pair]
        rng.shuffle(dyes)
        if dyes and rng.random() < 0.2:
            dyes[0] = rng.randint(1, 6)
        cloths = [dyes[:rounds], dyes[rounds:]]
        fit = threads_fit(throws, cloths)
        assert fit == (assign_threads(throws, cloths) is not None), (throws, cloths)
        fits += fit
    assert 300 < fits < 2700


# ----- fuzz: mutate valid snapshots field by field ----------------------------------------------------

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 40), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4), st.lists(st.integers(-2, 8), max_size=18),
    st.lists(st.lists(st.integers(-1, 7), max_size=3), max_size=18),
    st.lists(st.lists(st.integers(-1, 7), min_size=16, max_size=16), min_size=2, max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
FIELDS = ["throws", "cloths", "scores", "round", "taken"]

MUTATION = st.one_of(
    st.tuples(st.just("replace"), st.sampled_from(FIELDS), JUNK),
    st.tuples(st.just("delete"), st.sampled_from(FIELDS), st.none()),
    st.tuples(st.just("dye"), st.tuples(st.integers(0, 1), st.integers(0, 15), st.integers(-1, 7), st.booleans()),
              st.none()),
    st.tuples(st.just("throw"), st.tuples(st.integers(0, 16), st.integers(0, 1), st.integers(0, 7)), st.none()),
    st.tuples(st.just("throw_count"), st.integers(-2, 2), st.none()),
    st.tuples(st.just("round"), st.integers(-2, 2), st.none()),
    st.tuples(st.just("taken"), st.integers(-2, 2), st.none()),
    st.tuples(st.just("score"), st.tuples(st.integers(0, 1), st.integers(-2, 2)), st.none()),
    st.tuples(st.just("swap_cloths"), st.booleans(), st.none()),
    st.tuples(st.just("bounty"), JUNK, st.none()),
    st.tuples(st.just("script"), st.booleans(), st.none()),
    st.tuples(st.just("null_throws"), st.lists(st.integers(0, 16), max_size=5), st.none()),
)

# What a refusal must name, per mutation.
NAMES = {
    "replace": None, "delete": None, "dye": ("cloth",), "throw": ("throws",), "throw_count": ("'throws'",),
    "round": ("round",), "taken": ("taken",), "score": ("scores",), "swap_cloths": ("cloth", "scores"),
    "bounty": ("bounty", "options"), "script": ("throws", "option"), "null_throws": ("throws",),
}


def mutate(snapshot: dict, kind: str, what, value, rng: random.Random) -> dict:
    mutant = copy.deepcopy(snapshot)
    state = mutant["state"]
    if kind == "replace":
        state[what] = value
    elif kind == "delete":
        del state[what]
    elif kind == "dye":
        player, cell, dye, rescore = what
        state["cloths"][player][cell] = dye
        if rescore and all(0 <= d <= 6 for d in state["cloths"][player]):
            rescored(state, mutant["options"]["bounty"])
    elif kind == "throw":
        index, side, dye = what
        if index < len(state["throws"]):
            state["throws"][index][side] = dye
    elif kind == "throw_count":
        if what > 0:
            state["throws"] += [[rng.randint(1, 6), 6] for _ in range(what)]
        elif what < 0:
            state["throws"] = state["throws"][:what]
    elif kind == "round":
        state["round"] += what
    elif kind == "taken":
        state["taken"] += what
    elif kind == "score":
        state["scores"][what[0]] += what[1]
    elif kind == "swap_cloths":
        state["cloths"].reverse()
        if what:
            state["scores"].reverse()
    elif kind == "bounty":
        mutant["options"]["bounty"] = what
    elif kind == "null_throws":
        for index in what:
            if index < len(state["throws"]):
                state["throws"][index] = None
    elif kind == "script":
        thrown = [list(p) for p in state["throws"]]
        future = [[rng.randint(1, 6), 6] for _ in range(ROUNDS - len(thrown))]
        if what and thrown:
            thrown[0] = [1, 1] if thrown[0] != [1, 1] else [2, 2]
        mutant["options"]["throws"] = thrown + future
    return mutant


def check_consistent(game: LoomGame, rng: random.Random) -> None:
    """A restored position behaves: its snapshot round-trips, both seats observe it, the
    cloths fit the throws (by the independent round-by-round search), and it plays to the end
    with scores equal to the recount."""
    snapshot = game.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot
    assert LoomGame.from_snapshot(snapshot).snapshot() == snapshot
    observer = LoomObserver(game.options)
    for seat in (0, 1):
        vector = observer.observe(game, seat)
        assert vector.shape == (observer.size,) and vector.min() >= 0 and vector.max() <= 1
        assert observer.planes(vector).shape == (4, 4, 44)
    dyes = [[d for d in cloth if d] for cloth in game.cloths]
    if game.taken >= 0:
        dyes[game.round % 2].remove(game.throws[game.round][game.taken])
    assert assign_threads(game.throws[:game.round], dyes) is not None
    while not game.is_terminal():
        if game.is_chance_node():
            outcomes = game.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            game.apply(draw_outcome(outcomes, rng))
            continue
        legal = game.legal_actions()
        assert legal and all(game.why_illegal(a) is None for a in legal)
        game.apply(rng.choice(legal))
    assert game.points == [cloth_score(c, game.bounty) for c in game.cloths]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 48), mutation=MUTATION)
def test_a_mutated_snapshot_restores_consistently_or_is_refused_by_name(seed, steps, mutation):
    rng = random.Random(seed)
    options = LoomGame.resolve_options({"bounty": rng.choice([0, 8, 30])})
    game = LoomGame(options)
    for _ in range(steps):  # some positions stop at a chance node, some at the end
        if game.is_terminal():
            break
        game.apply(draw_outcome(game.chance_outcomes(), rng) if game.is_chance_node()
                   else rng.choice(game.legal_actions()))
    kind, what, value = mutation
    mutant = mutate(game.snapshot(), kind, what, value, rng)
    try:
        restored = LoomGame.from_snapshot(json.loads(json.dumps(mutant)) if _jsonable(mutant) else mutant)
    except SnapshotError as error:
        event(f"{kind}: refused")
        message = str(error)
        names = (what,) if kind in ("replace", "delete") else NAMES[kind]
        assert any(name in message for name in names), (kind, what, message)
        assert "malformed" not in message, message  # a refusal says what is wrong, not a caught crash
        assert len(message) < 400
        return
    event(f"{kind}: restored")
    check_consistent(restored, rng)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 48), mutation=MUTATION)
def test_complete_snapshot_of_a_mutant_completes_it_or_refuses_it(seed, steps, mutation):
    """What front ends send goes through ``complete_snapshot``: a ``SnapshotError`` or a
    snapshot the engine restores; a valid snapshot comes back as it was."""
    rng = random.Random(seed)
    game = LoomGame(LoomGame.resolve_options({"bounty": rng.choice([0, 8])}))
    for _ in range(steps):
        if game.is_terminal():
            break
        game.apply(draw_outcome(game.chance_outcomes(), rng) if game.is_chance_node()
                   else rng.choice(game.legal_actions()))
    original = game.snapshot()
    assert sampling.complete_snapshot(original, 0, random.Random(0)) == original
    kind, what, value = mutation
    mutant = mutate(original, kind, what, value, rng)
    try:
        completed = sampling.complete_snapshot(mutant, 0, random.Random(1))
    except SnapshotError as error:
        event(f"{kind}: refused")
        assert "malformed" not in str(error) and len(str(error)) < 400, str(error)
        return
    event(f"{kind}: completed")
    restored = LoomGame.from_snapshot(completed)
    assert restored.cloths == mutant["state"]["cloths"]
    check_consistent(restored, rng)


def _jsonable(value) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


def test_restoring_a_refused_snapshot_leaves_the_game_as_it_was():
    game = game_after(9, 2)
    before = game.snapshot()
    broken = copy.deepcopy(before)
    broken["state"]["taken"] = 1 - broken["state"]["taken"] if broken["state"]["taken"] >= 0 else 0
    with pytest.raises(SnapshotError):
        game.restore(broken)
    assert game.snapshot() == before
    assert np.array_equal(LoomObserver(game.options).observe(game, 0),
                          LoomObserver(game.options).observe(LoomGame.from_snapshot(before), 0))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 31), entries=st.lists(st.integers(0, 353), min_size=1,
                                                                                 max_size=3),
       value=st.sampled_from([0.0, 1.0, 0.5]))
def test_the_sampler_refuses_a_corrupted_observation_or_reproduces_it(seed, moves, entries, value):
    game = game_after(moves, seed)
    seat = game.current_player()
    observer = LoomObserver(game.options)
    vector = observer.observe(game, seat)
    vector[entries] = value
    mask = np.zeros(32, np.int8)
    mask[game.legal_actions()] = 1
    try:
        state = sampling.sampler({"observation": vector, "action_mask": mask}, {})(random.Random(0))
    except ValueError as error:
        event("refused")
        assert not isinstance(error, (KeyError, IndexError)) and len(str(error)) < 600, repr(error)
        return
    event("reproduced")
    assert observer.observe(state, seat).tobytes() == vector.tobytes()
    assert state.legal_actions() == np.flatnonzero(mask).tolist()
