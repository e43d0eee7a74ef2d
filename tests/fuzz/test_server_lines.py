"""The bot server fed hostile request lines (hypothesis): every line gets one strict-JSON answer
within the time limit, client mistakes are never ``internal``, messages stay short, and the
server — a real process under a 512 MB address-space cap — never dies and keeps its game."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from tests.fuzz import strategies as fuzz
from tests.fuzz.bounded import BoundedServer
from tests.fuzz.conftest import examples
from training.serving.protocol import REQUESTS

MOVE_TIME_LIMIT = 2.0
CODES = {
    "bad_json", "bad_request", "unknown_type", "line_too_long", "no_game", "unknown_game", "bad_options", "bad_agent",
    "bad_snapshot", "illegal_action", "not_your_turn", "game_over", "no_probabilities", "agent_error", "over_limit",
    "no_undo",
}
FIELDS = sorted({name for required, optional in REQUESTS.values() for name in (*required, *optional)} | {"id", "type"})


def strict(line: bytes) -> dict:
    def refuse(name):
        raise AssertionError(f"{name} in an answer: {line[:300]!r}")

    assert line.endswith(b"\n") and line.count(b"\n") == 1
    answer = json.loads(line.decode("utf-8"), parse_constant=refuse)
    assert isinstance(answer, dict) and isinstance(answer.get("ok"), bool), answer
    return answer


@pytest.fixture(scope="module")
def server():
    process = BoundedServer("--move-time-limit", str(MOVE_TIME_LIMIT), "--max-simulations", "300")
    yield process
    assert process.close() == 0


def positions(game: str) -> list[dict]:
    """A few real positions of ``game``: snapshots along one seeded random game."""
    import numpy as np

    env = envs.load(game).raw_env()
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    found = []
    while not env.game.is_terminal() and len(found) < 6:
        found.append(env.snapshot())
        for _ in range(3):
            if env.game.is_terminal():
                break
            env.step(int(rng.choice(env.legal_actions())))
    return found


SNAPSHOTS = {game: positions(game) for game in envs.GAMES}
AGENTS = ["random", "heuristic", "mcts:5", "mcts:300", "mcts:301", "mcts:100000000", "mcts:5:c=2", "mcts:x", "trained",
          "mcts:5:net=trained", "checkpoints/loom/loom__maskppo__0.zip", "checkpoints/knot/knot__maskppo__0.zip",
          "../x.zip", "/etc/passwd.zip", "a.pkl", "missing.onnx", "mcts:5:net=/etc/x.zip", "", "solver"]


@st.composite
def field_value(draw, name: str, game: str):
    plausible = {
        "id": st.none() | st.integers() | fuzz.text | st.floats() | fuzz.huge_ints,
        "type": st.sampled_from([kind for kind in REQUESTS if kind != "quit"]) | fuzz.scalars,
        "game": st.sampled_from(envs.GAMES + ["loom", "knot", "chess"]) | fuzz.text,
        "agent": st.sampled_from(AGENTS) | fuzz.text,
        "options": st.dictionaries(st.sampled_from(sorted(envs.describe(game).engine.OPTIONS)) | fuzz.text, fuzz.json_values(6), max_size=3),
        "seed": st.integers(-5, 2**64) | fuzz.numbers,
        "actions": st.lists(st.integers(-2, 600) | fuzz.text, max_size=30),
        "snapshot": fuzz.mutated(draw(st.sampled_from(SNAPSHOTS[game]))),
        "seat": st.integers(-2, 5) | fuzz.numbers,
        "move": st.integers(-2, 600) | fuzz.text,
        "probabilities": st.booleans() | fuzz.scalars,
    }.get(name, fuzz.json_values())
    return draw(st.one_of(plausible, plausible, fuzz.hostile_values()))


@st.composite
def request_lines(draw) -> tuple[bytes, object]:
    game = draw(st.sampled_from(envs.GAMES))
    request = {"type": draw(st.sampled_from([kind for kind in REQUESTS if kind != "quit"]))}
    for name in draw(st.lists(st.sampled_from(FIELDS) | fuzz.text, max_size=6, unique=True)):
        request[name] = draw(field_value(name, game))
    if draw(st.integers(0, 9)) == 0:  # sometimes not an object at all
        request = draw(fuzz.hostile_values())
    line = fuzz.dumps(request).encode()  # NaN and Infinity may go in; surrogates as \ud800
    if draw(st.integers(0, 9)) == 0 and line:
        at = draw(st.integers(0, len(line) - 1))
        line = line[:at] + draw(st.binary(max_size=4)) + line[at + 1:]
    # "quit" would end the server the examples share (its own test is in tests/training/test_serve.py)
    line = line.replace(b"\n", b" ").replace(b'"quit"', b'"hello"')
    return (line if line.strip() else b"{}"), request  # a blank line gets no answer, by design


def check_answer(server: BoundedServer, line: bytes, request) -> dict:
    started = time.monotonic()
    answer = strict(server.ask(line, timeout=60))
    took = time.monotonic() - started
    assert took < MOVE_TIME_LIMIT + 20, (took, line[:300])
    if not answer["ok"]:
        error = answer["error"]
        assert error["code"] in CODES, (error, line[:300])  # never "internal" for what a client sends
        assert len(error["message"]) <= 1100, len(error["message"])
    return answer


@settings(max_examples=examples(250))
@given(request_lines())
def test_every_line_gets_one_strict_json_answer_and_never_internal(server, case):
    line, _ = case
    check_answer(server, line, None)


@settings(max_examples=examples(60))
@given(st.sampled_from(envs.GAMES), st.data())
def test_positions_with_mutated_snapshots_and_actions_are_answered(server, game, data):
    """With a game started, move/legal/why_illegal on mutated real snapshots and action lists."""
    started = strict(server.ask(json.dumps({"id": 0, "type": "new_game", "game": game, "agent": "random", "seed": 1}).encode()))
    assert started["ok"], started
    snapshot = data.draw(st.sampled_from(SNAPSHOTS[game]))
    for _ in range(3):
        kind = data.draw(st.sampled_from(["move", "legal", "why_illegal"]))
        request = {"id": 1, "type": kind}
        if data.draw(st.booleans()):
            request.update(snapshot=data.draw(fuzz.mutated(snapshot)), seat=data.draw(st.integers(0, 3)))
        else:
            request["actions"] = data.draw(st.lists(st.integers(-1, 500) | fuzz.text, max_size=40))
        if kind == "why_illegal":
            request["move"] = data.draw(st.integers(-5, 10**6) | fuzz.text)
        answer = check_answer(server, fuzz.dumps(request).encode(), request)
        unparsed = not answer["ok"] and answer["error"]["code"] in ("bad_json", "line_too_long")
        assert answer["id"] == (None if unparsed else 1), answer
    # the game is still the one started
    assert strict(server.ask(b'{"id": 2, "type": "legal", "actions": []}'))["ok"]
