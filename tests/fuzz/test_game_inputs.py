"""Every game's public API fed hostile input (hypothesis): actions of every type, options of
every shape, snapshots malformed at the generic layer (shapes, types, huge values) through
``restore``. The contract: a clear ``ValueError`` (or the documented PettingZoo convention),
the state unchanged after a refusal, short messages, bounded time, and a state that plays on.

Semantic snapshot mutations (a hand swapped, a flag flipped) are each game's own tests.
"""

from __future__ import annotations

import json
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.core.game import SnapshotError
from tests.fuzz import strategies as fuzz
from tests.fuzz.conftest import examples

GAMES = envs.GAMES
MAX_MESSAGE = 1000  # characters; a message never repeats a huge input
MAX_SECONDS = 10


def played(env, seed: int, moves: int):
    """``env`` (raw) reset with ``seed`` and ``moves`` seeded random legal moves into the game."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if env.game.is_terminal():
            break
        env.step(int(rng.choice(env.legal_actions())))
    return env


def num_actions(env) -> int:
    return int(env.unwrapped.action_space(env.possible_agents[0]).n)


def integer_like(action) -> bool:
    if isinstance(action, (bool, np.bool_)):
        return False
    if isinstance(action, np.ndarray):
        return action.shape == () and action.dtype.kind in "iu"
    return isinstance(action, (int, np.integer))


def actions(num_actions: int) -> st.SearchStrategy:
    ints = st.integers(-3, num_actions + 3) | fuzz.huge_ints
    return st.one_of(
        ints, ints,
        ints.filter(lambda a: 0 <= a < 2**63).map(np.int64), st.integers(0, 127).map(np.int8),
        st.integers(0, 255).map(np.uint64), st.integers(0, num_actions - 1).map(lambda a: np.array(a)),
        st.booleans(), st.booleans().map(np.bool_), st.floats(allow_nan=True), st.integers(0, num_actions - 1).map(float),
        st.integers(0, num_actions - 1).map(np.float32), st.integers(0, num_actions - 1).map(lambda a: np.array(float(a))),
        st.integers(0, num_actions - 1).map(lambda a: np.array([a])), st.just(np.zeros((2, 2), int)),
        fuzz.text, st.none(), st.lists(st.integers(0, 3), max_size=3), st.just(object()), st.just(1 + 2j),
    )


def check_message(error: BaseException) -> None:
    assert len(str(error)) <= MAX_MESSAGE, f"{type(error).__name__} message of {len(str(error))} characters"


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=examples(80))
@given(data=st.data())
def test_raw_env_actions_are_played_or_refused_with_a_value_error_and_no_change(game, data):
    env = envs.load(game).raw_env()
    played(env, data.draw(st.integers(0, 5)), data.draw(st.integers(0, 12)))
    if env.game.is_terminal():
        return
    before = json.dumps(env.snapshot(), sort_keys=True)
    action = data.draw(actions(num_actions(env)))
    legal = integer_like(action) and 0 <= int(action) < num_actions(env) and int(action) in env.legal_actions()
    if legal:
        env.step(action)
        return
    with pytest.raises(ValueError) as refused:
        env.step(action)
    check_message(refused.value)
    assert json.dumps(env.snapshot(), sort_keys=True) == before


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=examples(60))
@given(data=st.data())
def test_env_actions_follow_the_classic_convention(game, data):
    """env(): a legal int plays; an illegal int in range ends the game, −1 to the offender, with
    a warning; an int out of range trips PettingZoo's bounds assertion; anything that is not an
    integer is a ValueError and changes nothing."""
    env = envs.load(game).env()
    env.reset(seed=data.draw(st.integers(0, 5)))
    rng = np.random.default_rng(0)
    for _ in range(data.draw(st.integers(0, 10))):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            return
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    observation, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        return
    raw = env.unwrapped
    agent = env.agent_selection
    before = json.dumps(raw.snapshot(), sort_keys=True)
    action = data.draw(actions(num_actions(raw)))
    if action is None:  # PettingZoo's own convention: None only for an agent that is done
        with pytest.raises((AssertionError, ValueError)):
            env.step(action)
        assert json.dumps(raw.snapshot(), sort_keys=True) == before
        return
    if not integer_like(action):
        with pytest.raises(ValueError) as refused:
            env.step(action)
        check_message(refused.value)
        assert json.dumps(raw.snapshot(), sort_keys=True) == before
        return
    index = int(action)
    if not 0 <= index < num_actions(raw):
        with pytest.raises((AssertionError, ValueError)):
            env.step(action)
        assert json.dumps(raw.snapshot(), sort_keys=True) == before
        return
    if observation["action_mask"][index]:
        env.step(action)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.step(action)
    assert any("Illegal move" in str(w.message) for w in caught)
    assert all(env.terminations.values()) and env.rewards[agent] == -1


def option_values(game: str) -> st.SearchStrategy:
    names = sorted(k for k in envs.describe(game).engine.OPTIONS if k not in envs.describe(game).runtime_options)
    value = fuzz.json_values(8) | fuzz.huge_ints | fuzz.nested(30, 400) | fuzz.long_list()
    return st.dictionaries(st.sampled_from(names) | fuzz.text, value, max_size=3)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=examples(80))
@given(data=st.data())
def test_options_are_resolved_or_refused_with_a_short_value_error(game, data):
    options = data.draw(option_values(game))
    started = time.monotonic()
    try:
        env = envs.load(game).raw_env(**options)
    except ValueError:
        return  # (how long its message may be: test_option_errors_cut_the_offending_value)
    finally:
        assert time.monotonic() - started < MAX_SECONDS, options
    env.reset(seed=0)
    assert env.game.is_terminal() or env.legal_actions()
    json.dumps(env.snapshot(), allow_nan=False)  # accepted options leave a JSON snapshot


def positions(game: str) -> list[dict]:
    env = envs.load(game).raw_env()
    return [played(env, seed, moves).snapshot() for seed, moves in ((0, 0), (1, 3), (2, 9), (3, 30))]


SNAPSHOTS = {game: positions(game) for game in GAMES}
GENERIC_VALUES = (
    fuzz.scalars | st.lists(fuzz.scalars, max_size=4) | st.dictionaries(fuzz.text, fuzz.scalars, max_size=3)
    | fuzz.nested(30, 3000) | fuzz.long_list() | fuzz.huge_ints
)


@st.composite
def generic_snapshot_damage(draw, snapshot: dict):
    """Damage at the generic layer: the document, its four framing fields, or one top-level
    state field replaced by a value of another shape (wrong type, huge, deep, long), or removed."""
    damaged = json.loads(json.dumps(snapshot))
    where = draw(st.sampled_from(["document", "game", "version", "options", "state", "option", "field", "field", "field"]))
    value = draw(GENERIC_VALUES)
    if where == "document":
        return value
    if where == "option":
        key = draw(st.sampled_from(sorted(damaged["options"])) | fuzz.text)
        damaged["options"][key] = value
    elif where == "field":
        key = draw(st.sampled_from(sorted(damaged["state"])))
        if draw(st.integers(0, 4)) == 0:
            del damaged["state"][key]
        else:
            damaged["state"][key] = value
    elif draw(st.integers(0, 4)) == 0:
        del damaged[where]
    else:
        damaged[where] = value
    return damaged


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=examples(100))
@given(data=st.data())
def test_restore_refuses_malformed_snapshots_with_a_short_snapshot_error_and_no_change(game, data):
    env = envs.load(game).raw_env()
    played(env, 7, 5)
    before = json.dumps(env.snapshot(), sort_keys=True)
    damaged = data.draw(generic_snapshot_damage(data.draw(st.sampled_from(SNAPSHOTS[game]))))
    started = time.monotonic()
    try:
        env.restore(damaged)
    except SnapshotError:
        # (how long its message may be: test_snapshot_errors_cut_the_offending_value)
        assert json.dumps(env.snapshot(), sort_keys=True) == before
        return
    finally:
        assert time.monotonic() - started < MAX_SECONDS
    # accepted: the state is a real one — JSON again, restorable, playable
    snapshot = env.snapshot()
    text = json.dumps(snapshot, allow_nan=False)
    env.restore(json.loads(text))
    if not env.game.is_terminal():
        legal = env.legal_actions()
        assert legal and all(0 <= a < num_actions(env) for a in legal)
        env.observe(env.possible_agents[env.game.current_player()])
        env.step(legal[0])


@pytest.mark.parametrize("game", GAMES)
def test_env_keeps_no_stale_mask_or_ending_across_restore(game):
    """A stale-mask reproduction on every game: step, read last(), restore, the same
    legal step again; and after an illegal-move ending, restore makes the game playable."""
    env = envs.load(game).env()
    raw = env.unwrapped
    for seed in range(3):
        env.reset(seed=seed)
        saved = raw.snapshot()
        action = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
        env.step(action)
        env.last()
        raw.restore(saved)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an "illegal move" warning fails the test
            env.step(action)
        raw.restore(saved)
        illegal = np.flatnonzero(env.last()[0]["action_mask"] == 0)
        if len(illegal):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.step(int(illegal[0]))
            assert all(env.terminations.values())
            raw.restore(saved)
            observation, reward, terminated, truncated, _ = env.last()
            assert not terminated and not truncated and observation["action_mask"][action]
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                env.step(action)


@pytest.mark.parametrize("game", GAMES)
def test_raw_env_step_after_every_agent_left_says_so(game):
    from envs.core.game import IllegalActionError

    env = envs.load(game).raw_env()
    played(env, 0, 10_000)
    for agent in list(env.agents):
        env.step(None)  # each agent, terminated, steps out
    assert env.agents == []
    with pytest.raises(IllegalActionError, match="every agent has left"):
        env.step(0)


# ----- messages never repeat a huge input (a 200,000-entry list once gave a 600 KB message) -----

HUGE = [0] * 100_000


@pytest.mark.parametrize("game", GAMES)
def test_option_errors_cut_the_offending_value(game):
    description = envs.describe(game)
    lengths = {}
    for name in description.engine.OPTIONS:
        if name in description.runtime_options:
            continue
        try:
            envs.load(game).raw_env(**{name: HUGE})
        except ValueError as error:
            lengths[name] = len(str(error))
    assert lengths and max(lengths.values()) <= MAX_MESSAGE, {k: v for k, v in lengths.items() if v > MAX_MESSAGE}


@pytest.mark.parametrize("game", GAMES)
def test_snapshot_errors_cut_the_offending_value(game):
    env = envs.load(game).raw_env()
    played(env, 0, 3)
    snapshot = env.snapshot()
    lengths = {}
    for part in ("options", "state"):
        for key in snapshot[part]:
            damaged = json.loads(json.dumps(snapshot))
            damaged[part][key] = HUGE
            try:
                env.restore(damaged)
            except SnapshotError as error:
                lengths[f"{part}.{key}"] = len(str(error))
    assert lengths and max(lengths.values()) <= MAX_MESSAGE, {k: v for k, v in lengths.items() if v > MAX_MESSAGE}
