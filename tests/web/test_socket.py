"""The WebSocket at /ws: the bot protocol of ``training.serve`` (one implementation behind both
transports), the web requests, and the bounds that make the server safe on a network: hostile
messages each answered with an error while the server keeps serving, agent files only as
listed, message size, games per client and per server, clients at once, think time, one
client's games unreachable from another's, other clients answered while a bot thinks, and
sockets from other sites' pages refused."""

from __future__ import annotations

import io
import json
import threading
import time

import pytest

from tests.web.servers import SocketClient, ThreadServer  # first: it skips these tests without the web extra
from training import load_agent
from training.serving.stdio import serve
from training.serving.web.app import WebConfig
from websockets.exceptions import ConnectionClosed, InvalidStatus

# Requests whose answers must be the same over stdin and over the socket (the limits in
# "hello" are each server's own, so hello is compared field by field apart from them).
SAME_REQUESTS = [
    {"id": 1, "type": "list_games"},
    {"id": 2, "type": "list_agents", "game": "loom"},
    {"id": 3, "type": "new_game", "game": "linecatch", "options": {"rows": 3, "cols": 3}, "agent": "solver", "seed": 0},
    {"id": 4, "type": "move", "actions": ["b2", "a1", 8]},
    {"id": 5, "type": "legal", "actions": [0]},
    {"id": 6, "type": "why_illegal", "actions": ["b2"], "move": "b2"},
    {"id": 7, "type": "move", "actions": "a1"},
    {"id": 8, "type": "resign"},
    {"id": 9, "type": "new_game", "game": "chess", "agent": "random"},
    {"id": 10, "type": "web_new_game", "game": "loom", "opponent": "heuristic", "seat": 1, "seed": 7},
    {"id": 11, "type": "web_bot", "game_id": "g1"},
    {"id": 12, "type": "web_play", "game_id": "g1", "move": 16},
    {"id": 13, "type": "web_why", "game_id": "g1", "element": "cloth1-0"},
    {"id": 14, "type": "web_play", "game_id": "g1", "move": "9@z9"},
    {"id": 15, "type": "web_undo", "game_id": "g1"},
    {"id": 16, "type": "web_view", "game_id": "g9"},
    {"id": 17, "type": "web_close", "game_id": "g1"},
    {"id": 18, "type": "web_new_game", "game": "loom", "opponent": "mcts:100000000"},
]


def stdio_answers(requests: list[dict]) -> list[dict]:
    lines = "".join(json.dumps(r) + "\n" for r in requests).encode()
    out = io.BytesIO()
    serve(io.BytesIO(lines), out, max_simulations=2000)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_socket_answers_as_the_stdin_server_does(web):
    client = SocketClient(web.ws_url)
    try:
        over_socket = [client.send_raw(json.dumps(request)) for request in SAME_REQUESTS]
        hello = client.ok("hello")
    finally:
        client.close()
    over_stdin = stdio_answers(SAME_REQUESTS + [{"id": 19, "type": "hello"}])
    for answer in over_socket + over_stdin:
        answer.pop("link", None)  # a game's link is drawn afresh for each game: unguessable
    assert over_socket == over_stdin[:-1]
    stdin_hello = over_stdin[-1]
    for limit in ("max_line_bytes", "move_time_limit_s", "max_games", "id"):
        hello.pop(limit), stdin_hello.pop(limit)
    assert hello == stdin_hello
    codes = [a["error"]["code"] for a in over_socket if not a["ok"]]
    assert codes == ["bad_request", "unknown_type", "unknown_game", "illegal_action", "illegal_action", "no_undo", "no_game",
                     "over_limit"]


def test_one_clients_games_are_unreachable_from_another(web):
    first, second = SocketClient(web.ws_url), SocketClient(web.ws_url)
    try:
        game = first.ok("web_new_game", game="linecatch", opponent="heuristic", seed=1)
        for request in ("web_view", "web_bot", "web_undo", "web_close"):
            answer = second.ask(request, game_id=game["game_id"])
            assert answer["error"]["code"] == "no_game", answer
        answer = second.ask("web_play", game_id=game["game_id"], move=0)
        assert answer["error"]["code"] == "no_game"
        assert first.ok("web_view", game_id=game["game_id"])["game_id"] == game["game_id"]
    finally:
        first.close()
        second.close()


HOSTILE = [
    (b"\xff\xfe\x00garbage", "bad_json"),
    ("not json at all", "bad_json"),
    ("", "bad_json"),
    ("[1, 2, 3]", "bad_request"),
    ('{"type": 5}', "bad_request"),
    ('{"type": "web_play", "game_id": 7, "move": 0}', "bad_request"),
    ('{"type": "web_play", "game_id": "g1", "move": [1]}', "bad_request"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "heuristic", "seat": "0"}', "bad_request"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "heuristic", "seat": 9}', "bad_request"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "heuristic", "seed": -1}', "bad_request"),
    ('{"type": "hello", "x": ' + "[" * 5000 + "]" * 5000 + "}", None),  # too deep: bad_json or bad_request
    ('{"type": "hello", "x": ' + "[" * 100 + "]" * 100 + "}", "bad_request"),
    ('{"type": "hello", "id": 1e999}', "bad_request"),
    ('{"type": "hello", "x": ' + "9" * 6000 + "}", "bad_json"),
    ('{"type": "hello", "pad": "' + "x" * 100_000 + '"}', "line_too_long"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "mcts:100000000"}', "over_limit"),
    ('{"type": "web_new_game", "game": "uzor", "opponent": "heuristic", "options": {"board_size": 1001}}', "bad_options"),
    ('{"type": "web_new_game", "game": "uzor", "opponent": "heuristic", "options": {"patterns": [{"name": "x"}]}}',
     "bad_options"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "heuristic", "options": {"render_mode": "human"}}', "bad_options"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "/etc/passwd"}', "bad_agent"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "../../etc/passwd.zip"}', "bad_agent"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "checkpoints/loom/../../../tmp/x.zip"}', "bad_agent"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "checkpoints/knot/knot__maskppo__0.zip"}', "bad_agent"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "mcts:10:net=/etc/x.zip"}', "bad_agent"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "C:\\\\Windows\\\\x.onnx"}', "bad_agent"),
    ('{"type": "web_new_game", "game": "loom", "opponent": "~/x.onnx"}', "bad_agent"),
    ('{"type": "new_game", "game": "loom", "agent": "pyproject.toml"}', "bad_agent"),
    ('{"type": "web_view", "game_id": "../g1"}', "no_game"),
    ('{"type": "web_why", "game_id": "g1", "element": 5}', "bad_request"),
]


def test_hostile_messages_are_each_answered_with_an_error_and_the_server_keeps_serving(web):
    client = SocketClient(web.ws_url)
    try:
        for message, code in HOSTILE:
            answer = client.send_raw(message)
            assert answer["ok"] is False, (message[:80], answer)
            assert code is None or answer["error"]["code"] == code, (message[:80], answer)
            assert answer["error"]["code"] != "internal"
            assert len(answer["error"]["message"]) <= 1100
        assert client.ok("hello")["protocol"]
        # past the frame limit (4x the message limit) the connection is closed unread (1009) ...
        client.socket.send("x" * (web.config.frame_limit + 1))
        with pytest.raises(ConnectionClosed) as closed:
            client.socket.recv(timeout=10)
        assert closed.value.rcvd.code == 1009
    finally:
        client.close()
    # ... and the server serves the next client
    other = SocketClient(web.ws_url)
    try:
        assert other.ok("list_games")["games"]
    finally:
        other.close()


def test_games_per_client_and_per_server_are_bounded_and_freed_when_a_client_leaves():
    server = ThreadServer(WebConfig(max_games=2, max_server_games=3))
    try:
        first, second = SocketClient(server.ws_url), SocketClient(server.ws_url)
        for _ in range(2):
            first.ok("web_new_game", game="linecatch", opponent="random")
        answer = first.ask("web_new_game", game="linecatch", opponent="random")
        assert answer["error"]["code"] == "over_limit" and "--max-games 2" in answer["error"]["message"]
        second.ok("web_new_game", game="linecatch", opponent="random")
        answer = second.ask("web_new_game", game="linecatch", opponent="random")
        assert answer["error"]["code"] == "over_limit" and "--max-server-games" in answer["error"]["message"]
        first.close()  # its two games are kept for their links (a reload), held by nobody
        deadline = time.monotonic() + 10
        while server.state.connections != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        kept = list(server.state.games.kept.values())
        assert server.state.games.count == 3 and sum(game.owner is None for game in kept) == 2
        # at the limit, the kept game nobody holds that waited longest gives way to a new one
        oldest = min((game for game in kept if game.owner is None), key=lambda game: game.used)
        second.ok("web_new_game", game="linecatch", opponent="random")
        assert server.state.games.count == 3 and oldest.link not in server.state.games.kept
        answer = second.ask("web_resume", link=oldest.link)
        assert answer["error"]["code"] == "no_game"
        second.close()
    finally:
        server.close()


def test_clients_at_once_are_bounded():
    server = ThreadServer(WebConfig(max_connections=2))
    try:
        clients = [SocketClient(server.ws_url) for _ in range(2)]
        extra = SocketClient(server.ws_url)
        answer = json.loads(extra.socket.recv(timeout=10))
        assert answer["error"]["code"] == "over_limit" and "--max-connections" in answer["error"]["message"]
        with pytest.raises(ConnectionClosed):
            extra.socket.recv(timeout=10)
        assert clients[0].ok("hello")
        for client in clients:
            client.close()
    finally:
        server.close()


def test_a_socket_from_another_sites_page_is_refused(web):
    with pytest.raises(InvalidStatus) as refused:
        SocketClient(web.ws_url, origin="http://evil.example")
    assert refused.value.response.status_code == 403
    own = SocketClient(web.ws_url, origin=web.url)
    try:
        assert own.ok("hello")
    finally:
        own.close()


def test_a_bot_over_the_think_time_is_stopped_and_other_clients_are_answered_meanwhile():
    """A search that would run for many seconds is stopped at the limit with over_limit; while
    it runs in a worker thread, another client's requests are answered at once."""
    limit = 2.0
    server = ThreadServer(WebConfig(move_time_limit=limit, max_simulations=100_000))
    try:
        slow, quick = SocketClient(server.ws_url), SocketClient(server.ws_url)
        # a search this long is refused at the start (its trial says it cannot meet the limit):
        # it is put in the game afterwards, as a bot that turns out slower than it looked
        refused = slow.ask("web_new_game", game="uzor", opponent="mcts:100000", seat=1, seed=3)
        assert refused["error"]["code"] == "too_slow" and f"{limit:g} s this server allows" in refused["error"]["message"]
        game = slow.ok("web_new_game", game="uzor", opponent="random", seat=1, seed=3)
        (held,) = [g for s in server.state.servers.values() for g in s.web.games.values()]
        held.agents[0] = load_agent("mcts:100000", "uzor", seed=4)
        held.specs[0] = "mcts:100000"
        result = {}

        def ask_the_bot():
            started = time.monotonic()
            result["answer"] = slow.ask("web_bot", game_id=game["game_id"])
            result["took"] = time.monotonic() - started

        thinker = threading.Thread(target=ask_the_bot)
        thinker.start()
        time.sleep(0.3)
        latencies = []
        view = None
        for request, fields in [("hello", {}), ("list_games", {}),
                                ("web_new_game", {"game": "linecatch", "opponent": "heuristic", "seed": 2})]:
            started = time.monotonic()
            view = quick.ok(request, **fields)
            latencies.append(time.monotonic() - started)
        while not view["over"] and "answer" not in result:
            started = time.monotonic()
            request = "web_play" if view["your_turn"] else "web_bot"
            fields = {"move": view["actions"][0]["action"]} if view["your_turn"] else {}
            view = quick.ok(request, game_id=view["game_id"], **fields)
            latencies.append(time.monotonic() - started)
        thinker.join(timeout=60)
        answer = result["answer"]
        assert answer["error"]["code"] == "over_limit", answer
        assert limit <= result["took"] < limit + 5
        assert max(latencies) < 2.0, latencies  # a search holds the GIL in turns: still answered within moments
        assert slow.ok("web_view", game_id=game["game_id"])["to_move"] == 0  # the game goes on
        slow.close()
        quick.close()
    finally:
        server.close()
