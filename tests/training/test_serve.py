"""The bot server (training.serve) driven as a front end would: a subprocess fed JSON lines.

A scripted client keeps its own env, sends each position either as the list of actions since
the start or as a snapshot with the opponents' hidden items removed, plays every answer in its
own env (so an answer that is illegal there fails the test) and goes on to the end. Then every
kind of bad request gets its error answer, and the server still answers afterwards.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import envs
from tests.cases import search
from training.serving.protocol import REQUESTS

ROOT = Path(__file__).resolve().parents[2]
ANSWER_TIMEOUT_S = 60


def strict_json(line: bytes):
    """An answer line parsed as strict JSON: UTF-8, no NaN or Infinity, no lone surrogates."""
    def refuse(name):
        raise AssertionError(f"{name} in an answer: not strict JSON ({line[:200]!r})")

    text = line.decode("utf-8")  # raises on anything that is not UTF-8
    value = json.loads(text, parse_constant=refuse)
    return value


class ServerProcess:
    """``python -m training.serve`` in a subprocess; ``request`` sends one line, reads one answer."""

    def __init__(self, *args: str, cwd: Path = ROOT):
        import os

        # PYTHONPATH: this checkout's code, whatever the working folder
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "training.serve", *args],
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment,
        )
        self.lines: queue.Queue = queue.Queue()
        # a reader thread, so a server that stops answering fails the test instead of hanging it
        threading.Thread(target=self._read, daemon=True).start()
        self.ids = itertools.count(1)

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send_raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answer(self) -> dict:
        line = self.lines.get(timeout=ANSWER_TIMEOUT_S)
        assert line is not None, "the server closed its output"
        assert line.endswith(b"\n")
        return strict_json(line)

    def request(self, kind: str, **fields) -> dict:
        request_id = next(self.ids)
        self.send_raw(json.dumps({"id": request_id, "type": kind, **fields}).encode() + b"\n")
        answer = self.answer()
        assert answer["id"] == request_id
        return answer

    def ok(self, kind: str, **fields) -> dict:
        answer = self.request(kind, **fields)
        assert answer["ok"], answer
        assert answer["type"] == kind
        return answer

    def close(self) -> int:
        if self.process.poll() is None:
            self.send_raw(b'{"type": "quit"}\n')
        return self.process.wait(timeout=ANSWER_TIMEOUT_S)


@pytest.fixture(scope="module")
def server():
    process = ServerProcess()
    yield process
    process.close()


def error_of(answer: dict) -> dict:
    assert answer["ok"] is False, answer
    assert set(answer) == {"id", "ok", "error"} and set(answer["error"]) == {"code", "message"}
    return answer["error"]


def assert_still_serving(server: ServerProcess) -> None:
    assert server.ok("hello")["protocol"] == "abstract-games-suite/bot-protocol"


# ----- what a front end hides: each game's sampling.strip_hidden (its documented form) --------------

def partial_snapshot(env, seat: int) -> dict:
    return envs.describe(env.metadata["name"]).sampling.strip_hidden(env.snapshot(), seat)


# ----- full games through the protocol ----------------------------------------------------------------

def full_game(game: str) -> tuple[dict, str]:
    """The options (the game's search-test options: small, with its optional hidden items, so
    that there is hidden information to leave out) and the agent: the shipped agent where one
    fits the options, else the random bot."""
    from training.agents import manifest

    options = search(game)
    if not envs.describe(game).shipped:
        return options, "random"
    try:
        return options, manifest.resolve(game, options, "trained").relative_to(ROOT).as_posix()
    except ValueError:  # no trained agent for these options
        return options, "random"


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_full_game_through_the_protocol(server, game):
    options, agent = full_game(game)
    seed = 7
    started = server.ok("new_game", game=game, options=options, agent=agent, seed=seed)
    assert started["game"] == game and started["completes_hidden_items"]
    env = envs.load(game).raw_env(**options)
    env.reset(seed=seed)
    history: list[int] = []
    probability_checks = 0
    for move_number in itertools.count():
        if env.game.is_terminal():
            break
        seat = env.game.current_player()
        if move_number % 2 == 0:
            position = {"actions": history}
        else:
            position = {"snapshot": partial_snapshot(env, seat), "seat": seat}
            # the completed position shows the seat exactly its own legal actions
            legal = server.ok("legal", **position)
            assert [entry["action"] for entry in legal["legal"]] == env.legal_actions()
        wants_probabilities = move_number % 5 == 0
        answer = server.ok("move", probabilities=wants_probabilities, **position)
        action = answer["action"]
        assert answer["seat"] == seat
        assert env.why_illegal(action) is None, (move_number, answer)
        assert answer["notation"] == env.action_to_string(action)
        if wants_probabilities:
            entries = answer["probabilities"]
            assert [e["action"] for e in entries] == env.legal_actions()
            assert sum(e["p"] for e in entries) == pytest.approx(1.0, abs=1e-9)
            assert all(e["p"] >= 0 for e in entries)
            probability_checks += 1
        env.step(action)
        history.append(action)
    assert probability_checks >= 2
    final = server.ok("legal", actions=history)
    assert final["over"] and final["legal"] == [] and final["seat"] is None
    assert final["scores"] == env.game.scores() and final["returns"] == env.game.returns()
    assert error_of(server.request("move", actions=history))["code"] == "game_over"


def test_actions_may_be_given_in_notation_and_mixed_with_numbers(server):
    server.ok("new_game", game="linecatch", options={"rows": 3, "cols": 3}, agent="solver", seed=0)
    env = envs.load("linecatch").raw_env(rows=3, cols=3)
    env.reset(seed=0)
    env.step(env.string_to_action("b2"))
    env.step(env.string_to_action("a1"))
    by_notation = server.ok("move", actions=["b2", 0])
    by_snapshot = server.ok("move", snapshot=env.snapshot(), seat=0)
    assert by_notation["action"] == by_snapshot["action"]  # the solver is deterministic
    assert env.why_illegal(by_notation["action"]) is None


def test_probabilities_of_a_trained_agent_are_the_softmax_of_its_masked_logits(server):
    from training.players.load import load_agent

    path = "checkpoints/loom/loom__maskppo__0.zip"
    server.ok("new_game", game="loom", agent=path, seed=3)
    local = load_agent(str(ROOT / path), "loom", seed=3)
    env = envs.load("loom").raw_env()
    env.reset(seed=3)
    history = []
    for _ in range(6):
        seat = env.game.current_player()
        answer = server.ok("move", actions=history, probabilities=True)
        observation = env.observe(env.possible_agents[seat])
        logits = local.masked_logits(observation).astype(np.float64)
        legal = env.legal_actions()
        expected = np.exp(logits[legal] - logits[legal].max())
        expected /= expected.sum()
        got = np.array([e["p"] for e in answer["probabilities"]])
        assert got == pytest.approx(expected, abs=1e-6)
        assert answer["action"] == legal[int(np.argmax(expected))]  # greedy: the likeliest action
        env.step(answer["action"])
        history.append(answer["action"])


def test_an_exported_onnx_agent_plays_a_full_game_through_the_protocol(tmp_path):
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from training.agents.export_onnx import export_onnx

    export_onnx(ROOT / "checkpoints/knot/knot__maskppo__0.zip", tmp_path / "knot.onnx")
    server = ServerProcess("--agents-dir", str(tmp_path))  # agent files: relative paths under it
    server.ok("new_game", game="knot", agent="knot.onnx", seed=2)
    env = envs.load("knot").raw_env()
    env.reset(seed=2)
    history = []
    while not env.game.is_terminal():
        answer = server.ok("move", actions=history, probabilities=len(history) % 10 == 0)
        assert env.why_illegal(answer["action"]) is None
        if "probabilities" in answer:
            best = max(answer["probabilities"], key=lambda entry: entry["p"])
            assert best["action"] == answer["action"]  # the greedy policy plays its likeliest move
        env.step(answer["action"])
        history.append(answer["action"])
    assert server.ok("legal", actions=history)["over"]
    assert server.close() == 0


def test_omitted_hidden_items_are_drawn_reproducibly_from_the_seed():
    """Two servers given the same requests answer the same, hidden items drawn or not."""
    game = "uzor_v0"
    env = envs.load(game).raw_env(board_size=11)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(12):
        env.step(int(rng.choice(env.legal_actions())))
    seat = env.game.current_player()
    answers = []
    for _ in range(2):
        process = ServerProcess()
        try:
            process.ok("new_game", game=game, options={"board_size": 11}, agent="heuristic", seed=5)
            answers.append([process.ok("move", snapshot=partial_snapshot(env, seat), seat=seat)["action"] for _ in range(3)])
        finally:
            assert process.close() == 0
    assert answers[0] == answers[1]
    assert all(env.why_illegal(action) is None for action in answers[0])


# ----- errors: every kind gets its answer and the server reads on --------------------------------------

def loom_position(actions: int):
    env = envs.load("loom").raw_env()
    env.reset(seed=11)
    history = []
    for _ in range(actions):
        history.append(env.legal_actions()[0])
        env.step(history[-1])
    return env, history


@pytest.fixture
def loom_game(server):
    server.ok("new_game", game="loom", agent="random", seed=11)
    return server


@pytest.mark.parametrize(
    "line, code, words",
    [
        (b"{not json", "bad_json", "not valid JSON"),
        (b'{"type": "hello"} trailing', "bad_json", "not valid JSON"),
        (b'{"type": "h\xff\xfe"}', "bad_json", "not UTF-8"),
        (b'{"type": "hello", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "bad_json", "recursion"),
        (b'{"type": "hello", "x": ' + b"9" * 5000 + b"}", "bad_json", "not valid JSON"),
        (b"[1, 2]", "bad_request", "a request is a JSON object, not an array"),
        (b'"hello"', "bad_request", "not a string"),
        (b'{"id": 1}', "bad_request", "needs a 'type'"),
        (b'{"id": 1, "type": 5}', "bad_request", "'type' must be a string"),
        (b'{"id": {"a": 1}, "type": "hello"}', "bad_request", "'id' must be a string, a number or null"),
        (b'{"id": 1, "type": "teleport"}', "unknown_type", "unknown request type 'teleport'"),
        (b'{"id": 1, "type": "new_game", "game": "loom"}', "bad_request", "needs the field 'agent'"),
        (b'{"id": 1, "type": "new_game", "game": 5, "agent": "random"}', "bad_request", "'game' must be a string, not an integer"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "random", "seed": true}', "bad_request", "'seed' must be an integer"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "random", "seed": -1}', "bad_request", "'seed' must be an integer 0"),
        (b'{"id": 1, "type": "hello", "verbose": true}', "bad_request", "unknown field 'verbose'"),
        (b'{"id": 1, "type": "move", "actions": [], "probabilites": true}', "bad_request", "unknown field 'probabilites'"),
        (b'{"id": 1, "type": "move", "actions": {}}', "bad_request", "'actions' must be an array, not an object"),
        (b'{"id": 1, "type": "move", "actions": [], "snapshot": {}, "seat": 0}', "bad_request", "not both"),
        (b'{"id": 1, "type": "move"}', "bad_request", "one of them is missing"),
        (b'{"id": 1, "type": "move", "snapshot": {}}', "bad_request", "needs 'seat'"),
        (b'{"id": 1, "type": "move", "actions": [], "seat": 2}', "bad_request", "'seat' must be 0"),
        (b'{"id": 1, "type": "move", "actions": [[1]]}', "bad_request", "actions[0] = [1]"),
        (b'{"id": 1, "type": "why_illegal", "actions": [], "move": 1.5}', "bad_request", "'move' must be an action number"),
        (b'{"id": 1, "type": "new_game", "game": "chess", "agent": "random"}', "unknown_game", "unknown game 'chess'"),
        (b'{"id": 1, "type": "list_agents", "game": "go"}', "unknown_game", "unknown game 'go'"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "random", "options": {"dice": 3}}', "bad_options", "unknown option 'dice'"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "random", "options": {"render_mode": "human"}}', "bad_options", "unknown option 'render_mode'"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "random", "options": {"bounty": "eight"}}', "bad_options", "'bounty'"),
        (b'{"id": 1, "type": "new_game", "game": "knot", "agent": "random", "options": {"players": 9}}', "bad_options", "'players'"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "grandmaster"}', "bad_agent", "unknown agent 'grandmaster'"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "__import__(\'os\').system(\'true\')"}', "bad_agent", "neither a suite checkpoint"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "model.pt"}', "bad_agent", "no torch or pickle files"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "checkpoints/loom/missing.zip"}', "bad_agent", "does not exist"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "checkpoints/knot/knot__maskppo__0.zip"}', "bad_agent", "trained for 'knot_v0'"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "README.md.zip"}', "bad_agent", "does not exist"),
        (b'{"id": 1, "type": "move", "snapshot": {"game": "loom_v0"}, "seat": 0}', "bad_snapshot", "snapshot"),
        (b'{"id": 1, "type": "move", "snapshot": {"game": "knot_v0", "version": 1, "options": {}, "state": {}}, "seat": 0}', "bad_snapshot", "loom_v0"),
        (b'{"id": 1, "type": "move", "actions": ["sideways"]}', "illegal_action", "'sideways' is not a weave"),
        (b'{"id": 1, "type": "move", "actions": [99]}', "illegal_action", "actions[0] = 99 is illegal: action 99 is outside 0"),
    ],
)
def test_a_bad_request_gets_an_error_answer_and_the_server_reads_on(loom_game, line, code, words):
    loom_game.send_raw(line + b"\n")
    error = error_of(loom_game.answer())
    assert error["code"] == code, error
    assert words in error["message"], error
    assert_still_serving(loom_game)


def test_an_illegal_action_in_the_list_is_named_with_the_why_illegal_sentence(loom_game):
    env, history = loom_position(3)
    illegal = next(a for a in range(32) if env.why_illegal(a) is not None)
    answer = loom_game.request("move", actions=history + [illegal, env.legal_actions()[0]])
    error = error_of(answer)
    assert error["code"] == "illegal_action"
    assert error["message"] == f"actions[3] = {illegal} is illegal: {env.why_illegal(illegal)}"
    assert_still_serving(loom_game)


def test_why_illegal_and_legal_answer_for_numbers_and_notation(loom_game):
    env, history = loom_position(2)
    legal = loom_game.ok("legal", actions=history)
    assert legal["seat"] == env.game.current_player() and legal["over"] is False
    assert legal["legal"] == [{"action": a, "notation": env.action_to_string(a)} for a in env.legal_actions()]
    illegal = next(a for a in range(32) if env.why_illegal(a) is not None)
    answer = loom_game.ok("why_illegal", actions=history, move=illegal)
    assert answer["legal"] is False and answer["reason"] == env.why_illegal(illegal)
    good = env.action_to_string(env.legal_actions()[0])
    answer = loom_game.ok("why_illegal", actions=history, move=good)
    assert answer == {**answer, "action": env.legal_actions()[0], "legal": True, "reason": None}
    answer = loom_game.ok("why_illegal", actions=history, move="9@z9")
    assert answer["action"] is None and answer["legal"] is False and "9@z9" in answer["reason"]


def test_a_snapshot_for_the_wrong_seat_or_with_a_missing_public_item_is_refused(loom_game):
    env, _ = loom_position(4)
    seat = env.game.current_player()
    error = error_of(loom_game.request("move", snapshot=env.snapshot(), seat=1 - seat))
    assert error["code"] == "not_your_turn" and f"player_{seat}'s turn" in error["message"]
    broken = env.snapshot()
    del broken["state"]["cloths"]
    error = error_of(loom_game.request("move", snapshot=broken, seat=seat))
    assert error["code"] == "bad_snapshot" and "cloths" in error["message"]
    other_options = env.snapshot()
    other_options["options"]["bounty"] = 3
    error = error_of(loom_game.request("move", snapshot=other_options, seat=seat))
    assert error["code"] == "bad_snapshot" and "options" in error["message"]
    assert_still_serving(loom_game)


@pytest.mark.parametrize("form", ["current", "all rounds"])
def test_a_loom_snapshot_without_the_round_s_throw_on_the_table_is_refused(loom_game, form):
    """At the start of a round (nothing taken yet) the round's throw is on the table: a
    snapshot whose entry for it is null is refused, not answered for dice drawn anew."""
    env, _ = loom_position(4)
    seat = env.game.current_player()
    snapshot = env.snapshot()
    state = snapshot["state"]
    assert state["taken"] == -1 and len(state["throws"]) == state["round"] + 1
    state["throws"][state["round"]] = None
    if form == "all rounds":  # the older form: every round listed, null for the rounds to come
        state["throws"] += [None] * (16 - len(state["throws"]))
    error = error_of(loom_game.request("move", snapshot=snapshot, seat=seat))
    assert error["code"] == "bad_snapshot", error
    assert "'throws'" in error["message"] and f"round {state['round']}" in error["message"], error
    assert_still_serving(loom_game)


def test_an_agent_without_probabilities_says_so(server):
    started = server.ok("new_game", game="loom", agent="heuristic", seed=0)
    assert started["probabilities"] is False
    error = error_of(server.request("move", actions=[], probabilities=True))
    assert error["code"] == "no_probabilities" and "'heuristic' has no probabilities" in error["message"]
    assert server.ok("move", actions=[])["seat"] == 0  # without asking, it plays


def test_a_failed_new_game_keeps_the_current_game(server):
    server.ok("new_game", game="linecatch", options={"rows": 3, "cols": 3}, agent="random", seed=1)
    error_of(server.request("new_game", game="linecatch", agent="nobody"))
    answer = server.ok("legal", actions=[])
    assert len(answer["legal"]) == 9


def test_listing_games_and_agents(server):
    games = server.ok("list_games")["games"]
    assert [g["game"] for g in games] == envs.GAMES
    assert next(g for g in games if g["game"] == "loom_v0")["default_options"] == {"bounty": 8, "throws": None}
    agents = server.ok("list_agents", game="knot")
    assert agents["game"] == "knot_v0" and {"random", "heuristic"} <= set(agents["agents"])
    assert "checkpoints/knot/knot__maskppo__0.zip" in agents["checkpoints"]
    assert server.ok("hello")["requests"] == list(REQUESTS)


def test_no_game_oversized_lines_blank_lines_and_quit():
    process = ServerProcess("--max-line-bytes", "200")
    try:
        assert error_of(process.request("move", actions=[]))["code"] == "no_game"
        process.send_raw(b"\n   \n")  # blank lines get no answer
        process.send_raw(b'{"id": 1, "type": "hello", "pad": "' + b"x" * 100_000 + b'"}\n')
        error = error_of(process.answer())
        assert error["code"] == "line_too_long" and "200 bytes" in error["message"]
        exactly_at_limit = b'{"id": 2, "type": "hello"}'.ljust(200)
        process.send_raw(exactly_at_limit + b"\n")
        assert process.answer()["ok"] is True
        assert set(process.ok("quit")) == {"id", "ok", "type"}
        assert process.process.wait(timeout=ANSWER_TIMEOUT_S) == 0
    finally:
        process.close()


def test_end_of_input_ends_the_server_and_its_stdout_holds_only_answers():
    result = subprocess.run(
        [sys.executable, "-m", "training.serve"], cwd=ROOT, capture_output=True, timeout=ANSWER_TIMEOUT_S,
        input=b'{"id": "a", "type": "new_game", "game": "loom", "agent": "heuristic"}\n{"id": "b", "type": "move", "actions": []}',
    )
    assert result.returncode == 0
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["id"] for a in answers] == ["a", "b"] and all(a["ok"] for a in answers)


# ----- hostile input: every request answered, strict JSON, no disk probing, bounded work ----

@pytest.mark.parametrize(
    "line, code, words",
    [
        (rb'{"id": "\ud800", "type": "hello"}', "bad_request", "field 'id' holds a lone UTF-16 surrogate"),
        (rb'{"id": "a\udfffb", "type": "legal", "actions": []}', "bad_request", "lone UTF-16 surrogate"),
        (rb'{"id": 1, "type": "why_illegal", "actions": [], "move": "\udfff"}', "bad_request", "field 'move' holds a lone UTF-16 surrogate"),
        (rb'{"id": 1, "type": "move", "actions": ["\ud83d"]}', "bad_request", "field 'actions'[0] holds a lone"),
        (rb'{"id": 1, "type": "new_game", "game": "loom", "agent": "random", "options": {"\udc00": 1}}', "bad_request", "a key in field 'options' holds a lone"),
        (b'{"id": 1e400, "type": "hello"}', "bad_request", "the number 1e400 is out of range"),
        (b'{"id": -1e400, "type": "hello"}', "bad_request", "out of range"),
        (b'{"id": NaN, "type": "hello"}', "bad_json", "NaN is not JSON"),
        (b'{"id": Infinity, "type": "hello"}', "bad_json", "Infinity is not JSON"),
        (b'{"id": 1, "type": "move", "actions": [1e999]}', "bad_request", "out of range"),
        (b'{"id": 1, "type": "move", "snapshot": ' + b"[" * 500 + b"]" * 500 + b', "seat": 0}', "bad_request", "nested deeper than 64 levels"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "random", "options": ' + b'{"a": ' * 300 + b"1" + b"}" * 300 + b"}", "bad_request", "nested deeper than 64 levels"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "mcts:100000000"}', "over_limit", "asks for 100000000 simulations a move; this server allows at most 2000"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "mcts:100000000:c=0.5"}', "over_limit", "--max-simulations"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "mcts:20000:net=checkpoints/loom/az.zip"}', "over_limit", "20000 simulations"),
        (b'{"id": 1, "type": "new_game", "game": "loom", "agent": "mcts:" ' + b'"' + b"9" * 5000 + b'"}', "bad_json", "not valid JSON"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_hostile_requests_get_strict_json_answers_and_the_server_reads_on(loom_game, line, code, words):
    loom_game.send_raw(line + b"\n")
    error = error_of(loom_game.answer())
    assert error["code"] == code, error
    assert words in error["message"], error
    assert_still_serving(loom_game)


def test_an_unknown_field_with_a_huge_name_gets_a_short_message(loom_game):
    loom_game.send_raw(json.dumps({"id": 1, "type": "hello", "x" * 200_000: 1}).encode() + b"\n")
    error = error_of(loom_game.answer())
    assert error["code"] == "bad_request" and len(error["message"]) < 1200


OUTSIDE = "is refused: agent files are named by a relative path under this server's agents folder"


@pytest.mark.parametrize("spec", [
    "/etc/hostname.zip", "/nonexistent/agent.zip", "/etc/passwd.onnx", "../README.md.zip", "checkpoints/../../x.zip",
    "checkpoints/loom/../../../etc.onnx", "~/agent.zip", "checkpoints\\loom\\loom__maskppo__0.zip", "a\x00b.zip",
    "mcts:10:net=/etc/hostname.zip", "mcts:10:net=../x.zip", "mcts:10:m=4:net=/nonexistent.zip",
])
def test_agent_files_outside_the_agents_folder_are_refused_without_touching_the_disk(loom_game, spec):
    error = error_of(loom_game.request("new_game", game="loom", agent=spec))
    assert error["code"] == "bad_agent" and OUTSIDE in error["message"], error
    assert "does not exist" not in error["message"] and "damaged" not in error["message"]


def test_an_agents_dir_is_the_only_folder_agent_files_come_from(tmp_path):
    import shutil

    agents = tmp_path / "agents"
    (agents / "loom").mkdir(parents=True)
    shutil.copy(ROOT / "checkpoints/loom/loom__maskppo__0.zip", agents / "loom" / "bot.zip")
    (agents / "escape.zip").symlink_to(ROOT / "checkpoints/loom/loom__maskppo__0.zip")  # a link out: refused
    (agents / "nowhere.zip").symlink_to(tmp_path / "missing.zip")  # a dangling link out: the same answer
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    process = ServerProcess("--agents-dir", str(agents), cwd=elsewhere)
    try:
        assert process.ok("new_game", game="loom", agent="loom/bot.zip", seed=1)["probabilities"] is True
        assert process.ok("move", actions=[])["seat"] == 0
        missing = error_of(process.request("new_game", game="loom", agent="checkpoints/loom/loom__maskppo__0.zip"))
        assert missing["code"] == "bad_agent" and "does not exist" in missing["message"]
        for spec in ("escape.zip", "nowhere.zip"):
            error = error_of(process.request("new_game", game="loom", agent=spec))
            assert OUTSIDE in error["message"], error
        assert process.ok("list_agents", game="loom")["checkpoints"] == []  # the shipped ones are outside
    finally:
        assert process.close() == 0


def test_a_move_over_the_time_limit_gets_an_over_limit_answer_and_the_server_reads_on():
    import time

    process = ServerProcess("--move-time-limit", "0.5", "--max-simulations", "100000")
    try:
        hello = process.ok("hello")
        assert hello["max_simulations"] == 100000 and hello["move_time_limit_s"] == 0.5
        process.ok("new_game", game="loom", agent="mcts:100000", seed=0)
        started = time.monotonic()
        error = error_of(process.request("move", actions=[]))
        assert time.monotonic() - started < 10
        assert error["code"] == "over_limit" and "longer than 0.5 s" in error["message"], error
        error = error_of(process.request("move", actions=[], probabilities=True))
        assert error["code"] == "over_limit" and "its probabilities" in error["message"], error
        process.ok("new_game", game="loom", agent="mcts:20", seed=0)
        assert process.ok("move", actions=[])["seat"] == 0
    finally:
        assert process.close() == 0


def test_the_limits_are_command_line_options_checked_at_start():
    for args, words in [
        (["--max-simulations", "0"], "--max-simulations must be at least 1"),
        (["--move-time-limit", "-1"], "--move-time-limit must be a number of seconds >= 0"),
        (["--move-time-limit", "nan"], "--move-time-limit must be a number of seconds >= 0"),
        (["--agents-dir", "/nonexistent-folder"], "is not a folder"),
    ]:
        done = subprocess.run([sys.executable, "-m", "training.serve", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=ANSWER_TIMEOUT_S, input="")
        assert done.returncode == 2 and words in done.stderr, (args, done.stderr)


def test_a_damaged_checkpoint_through_the_server_is_bad_agent_within_512_mb(tmp_path):
    """Zip bombs and a NaN-weighted file through new_game, the server under a 512 MB cap."""
    from tests.fuzz import craft
    from tests.fuzz.bounded import run_bounded

    folder = ROOT / "checkpoints" / "linecatch"
    made = [
        craft.many_entries_zip(tmp_path / "million.zip", 1_000_000),  # a 53 MB directory of a million entries
        craft.bomb_checkpoint(tmp_path / "npz_bomb.zip", "policy.npz"),
        craft.bomb_checkpoint(tmp_path / "meta_bomb.zip", "meta.json"),
        craft.huge_array_checkpoint(tmp_path / "terabytes.zip", (1 << 20, 1 << 20), 4096),
    ]
    meta = craft.valid_meta()
    arrays = craft.valid_arrays(meta)
    arrays["w0"][0, 0] = np.nan
    made.append(craft.write_checkpoint(tmp_path / "nan.zip", meta, arrays))
    lines = b"".join(
        json.dumps({"id": i, "type": "new_game", "game": "linecatch", "options": craft.OPTIONS, "agent": path.name}).encode() + b"\n"
        for i, path in enumerate(made)
    ) + b'{"id": "last", "type": "hello"}\n'
    code = "import sys; sys.argv = ['serve', '--agents-dir', sys.argv[1]]; from training.serving.stdio import main; main()"
    done = run_bounded(code, str(tmp_path), input=lines)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    answers = [strict_json(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [0, 1, 2, 3, 4, "last"]
    for answer in answers[:5]:
        assert error_of(answer)["code"] == "bad_agent" and "is damaged" in answer["error"]["message"], answer
    assert folder.is_dir()
