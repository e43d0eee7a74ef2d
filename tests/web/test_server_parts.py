"""The parts under the web page, without a browser: every legal action of every game belongs to
an element its picture draws, the web requests play whole games of every game on the stdin
server too (Knot with 3 and 4 players included), and the thread time limit neither misses nor
leaks."""

from __future__ import annotations

import contextlib
import gc
import json
import random
import re
import threading
import time

import pytest

import envs
from training.serving.bot_server import BotServer
from training.serving.deadline import thread_deadline

STEPS = 45  # moves looked at per game (two games per case)
CASES = [
    ("linecatch", {}), ("linecatch", {"rows": 3, "cols": 7, "pro": True}), ("loom", {}),
    ("fill", {}), ("fill", {"traps": True, "gems": True, "rocks": True, "size": 7, "lines": "strict"}),
    ("uzor", {"board_size": 9}), ("knot", {}), ("knot", {"players": 3, "size": 5}),
]


@pytest.mark.parametrize("game,options", CASES, ids=lambda x: str(x))
def test_every_legal_action_belongs_to_an_element_the_picture_draws(game, options):
    description = envs.describe(game)
    board = description.board
    env = envs.load(game).raw_env(**options)
    rng = random.Random(0)
    for seed in range(2):
        env.reset(seed=seed)
        for _ in range(STEPS):
            if env.game.is_terminal():
                break
            seat = env.game.current_player()
            picture = board.svg(env.game, (seat,))
            drawn = set(re.findall(r'data-el="([a-z0-9-]+)"', picture))
            assert len(drawn) == picture.count('class="el"'), "an element is drawn twice"
            legal = env.legal_actions()
            for action in legal:
                assert board.element(env.game, action) in drawn, (game, action, env.action_to_string(action))
            other = board.svg(env.game, ((seat + 1) % len(env.possible_agents),))
            buttons = {name for name in re.findall(r'data-el="([a-z-]+)"', other)}
            assert not buttons & {"end", "continue", "pass", "stay", "swap", "no-token", "no-trap"}, \
                "a button drawn for a seat that does not act"
            action = rng.choice(legal)
            if board.can_preview(env.game, action):
                assert board.svg(env.game, (seat,), preview=action) != picture
            env.step(action)


@pytest.mark.parametrize("players", [3, 4])
def test_knot_with_more_players_through_the_web_requests_on_the_stdin_server(players):
    server = BotServer()
    rng = random.Random(players)

    def ask(**request):
        answer = server.answer_line(json.dumps(request).encode())
        assert answer["ok"], answer
        return answer

    view = ask(type="web_new_game", game="knot", opponent="heuristic", seat=1, seed=players,
               options={"players": players, "size": 5, "deck": [8, 6, 8, 4]})
    assert [p["name"] for p in view["players"]] == ["heuristic", "you"] + ["heuristic"] * (players - 2)
    bots_seen = set()
    while not view["over"]:
        if view["your_turn"]:
            view = ask(type="web_play", game_id=view["game_id"], move=rng.choice(view["actions"])["action"])
        else:
            view = ask(type="web_bot", game_id=view["game_id"])
            assert {move["seat"] for move in view["bot_moves"]} <= {view["players"][0]["seat"], *range(2, players)}
            bots_seen.update(move["seat"] for move in view["bot_moves"])
    assert bots_seen == {0, *range(2, players)}
    assert view["result"]["outcome"] in ("win", "draw", "loss")


class Late(BaseException):
    pass


def test_the_thread_time_limit_stops_long_work_and_never_leaks_into_later_code():
    outcomes = []

    def work():
        try:
            with thread_deadline(0.2, Late):
                while True:
                    time.sleep(0.001)
        except Late:
            outcomes.append("stopped")
        stray = 0
        for _ in range(300):  # limits that fire as the work ends must not surface afterwards
            try:
                with thread_deadline(0.0005, Late):
                    sum(range(2000))
            except Late:
                pass
            try:
                for _ in range(200):
                    pass
            except Late:
                stray += 1
        outcomes.append(stray)

    started = time.monotonic()
    worker = threading.Thread(target=work)
    worker.start()
    worker.join(timeout=30)
    assert outcomes == ["stopped", 0]
    assert time.monotonic() - started < 10


@contextlib.contextmanager
def busy_garbage_collector():
    """Collections every few allocations, each spending milliseconds in a gc callback (Python
    code the collector runs in whichever thread allocates, and which swallows an exception
    raised in it, as a finalizer does): an asynchronous time-out usually lands there."""

    def spin(phase, info):
        if phase == "start":
            started = time.perf_counter()
            while time.perf_counter() - started < 0.004:
                pass

    threshold = gc.get_threshold()
    gc.set_threshold(50)
    gc.callbacks.append(spin)
    try:
        yield
    finally:
        gc.callbacks.remove(spin)
        gc.set_threshold(*threshold)


def linecatch_observation():
    env = envs.load("linecatch").raw_env()
    env.reset(seed=0)
    return env.observe(env.agent_selection)


def test_a_search_in_a_worker_thread_stops_at_its_limit_while_the_collector_swallows_exceptions():
    """The deadline holds whatever the collector runs in the thread: the search itself checks it."""
    from training.search.mcts import MCTSAgent

    observation = linecatch_observation()
    agent = MCTSAgent("linecatch_v0", seed=0, simulations=10**7)  # hours, unbounded
    outcomes = []

    def work():
        started = time.monotonic()
        try:
            with thread_deadline(0.3, Late):
                outcomes.append(agent.act(observation))
        except Late:
            outcomes.append("stopped")
        outcomes.append(time.monotonic() - started)

    worker = threading.Thread(target=work, daemon=True)
    with busy_garbage_collector():
        worker.start()
        worker.join(timeout=15)
    assert not worker.is_alive(), "the search ran on past its 0.3 s limit"
    assert outcomes[0] == "stopped" and outcomes[1] < 5


def test_a_bot_move_on_the_stdin_server_stops_at_its_limit_while_the_collector_swallows_exceptions():
    """The stdin server's limit (an interval timer in the main thread) holds the same way: the
    move is answered over_limit."""
    server = BotServer(move_time_limit=0.3, max_simulations=10**7)
    answer = server.answer_line(json.dumps({"type": "new_game", "game": "linecatch", "agent": "mcts:10000000"}).encode())
    assert answer["ok"], answer
    started = time.monotonic()
    with busy_garbage_collector():
        answer = server.answer_line(json.dumps({"type": "move", "actions": []}).encode())
    assert answer["ok"] is False and answer["error"]["code"] == "over_limit", answer
    assert time.monotonic() - started < 5


def spread_map(far: int = 11) -> list[dict]:
    """A valid user Map whose 120 two-cell orientations are all different cells: the costliest
    kind to lay on a table (about 90 MB on 31×31)."""
    offsets = [(r, c) for r in range(far + 1) for c in range(-far, far + 1) if (r, c) > (0, 0)]
    return [{"name": f"pair-{k}", "criterion": "any", "points": 1,
             "shapes": [[[0, 0], list(offsets[8 * k + o])] for o in range(8)]} for k in range(15)]


def test_a_game_whose_options_cost_more_memory_than_the_server_allows_is_refused_before_it_is_made():
    from training.serving.web_games import MB, GameCounter

    counter = GameCounter(100, 12 * MB)
    server = BotServer(game_counter=counter, max_games=10)

    def ask(**request):
        return server.answer_line(json.dumps(request).encode())

    big = {"board_size": 31, "patterns": spread_map()}
    started = time.monotonic()
    answer = ask(type="web_new_game", game="uzor", opponent="random", options=big)
    assert answer["ok"] is False and answer["error"]["code"] == "over_limit", answer
    message = answer["error"]["message"]
    assert "'patterns'" in message and "'board_size'" in message and "--max-games-memory" in message
    assert time.monotonic() - started < 0.5  # refused from the options alone: the Map was never laid
    answer = ask(type="new_game", game="uzor", agent="random", options=big)  # the bot protocol's game too
    assert answer["ok"] is False and answer["error"]["code"] == "over_limit", answer
    assert counter.memory == 0 and counter.count == 0
    # the same Map on a small table fits, and is charged until the game ends
    small = {"board_size": 9, "patterns": spread_map(8)}
    view = ask(type="web_new_game", game="uzor", opponent="random", options=small)
    assert view["ok"], view
    charged = counter.memory
    assert 0 < charged <= 12 * MB
    games = 1
    while (answer := ask(type="web_new_game", game="uzor", opponent="random", options=small))["ok"]:
        games += 1
    assert games == 12 * MB // charged < 10 and counter.memory == games * charged
    assert answer["error"]["code"] == "over_limit" and "try again later" in answer["error"]["message"], answer
    assert ask(type="web_close", game_id=view["game_id"])["ok"]
    assert counter.memory == charged * (games - 1)
    assert ask(type="new_game", game="uzor", agent="random", options=small)["ok"]
    server.close()  # the connection ends: its games are kept for their links until they expire
    assert counter.count == games - 1 and counter.memory == charged * (games - 1)
    counter.expiry = 0.0
    counter.expire()
    assert counter.memory == 0 and counter.count == 0
    # the standard Map is laid once per table size and shared: it costs a game nothing
    assert ask(type="web_new_game", game="uzor", opponent="random", options={"board_size": 31})["ok"]
    assert counter.memory == 0


def test_a_solver_table_is_built_in_the_background_and_the_game_start_says_it_is_preparing(monkeypatch):
    """The web server never builds Linecatch's solver table inside a game start (outside the
    move time limit, holding a worker thread): the start answers ``preparing`` at once while
    the table is built in the background, once however many ask, and starts once it is there."""
    from envs.linecatch import solver
    from training.serving.preparation import PREPARATIONS

    builds = []
    real_build = solver.build_table

    def counted(geo, progress=False):
        builds.append((geo.rows, geo.cols, geo.pro))
        time.sleep(0.5)  # a build takes a while
        return real_build(geo, progress)

    monkeypatch.setattr(solver, "build_table", counted)
    monkeypatch.setattr(solver, "_TABLES", {k: v for k, v in solver._TABLES.items() if k != (3, 7, True)})
    monkeypatch.setenv(solver.CACHE_ENV, "off")  # built, not read from a cache
    servers = [BotServer(prepare_in_background=True) for _ in range(3)]
    request = {"type": "web_new_game", "game": "linecatch", "opponent": "solver", "seed": 1,
               "options": {"rows": 3, "cols": 7, "pro": True}}
    started = time.monotonic()
    for server in servers:
        answer = server.answer_line(json.dumps(request).encode())
        assert answer["ok"] is False and answer["error"]["code"] == "preparing", answer
        assert "solver's table of the 3×7 pro board" in answer["error"]["message"]
        plain = {"type": "new_game", "game": "linecatch", "agent": "solver", "options": request["options"]}
        answer = server.answer_line(json.dumps(plain).encode())
        assert answer["ok"] is False and answer["error"]["code"] == "preparing", answer
    assert time.monotonic() - started < 0.4  # answered at once, the build goes on
    assert not any(server.web.games for server in servers)
    PREPARATIONS.wait(60)
    for server in servers:
        view = server.answer_line(json.dumps(request).encode())
        assert view["ok"], view
        assert server.game_counter.count == 1
    assert builds == [(3, 7, True)]  # built once
    # the stdin server (one client) builds it in the request, as before
    monkeypatch.setattr(solver, "_TABLES", {k: v for k, v in solver._TABLES.items() if k != (3, 7, True)})
    assert BotServer().answer_line(json.dumps(request).encode())["ok"]
    assert builds == [(3, 7, True)] * 2
    # small boards build in a moment, as the bot is made: nothing to prepare
    small = dict(request, options={"rows": 4, "cols": 4})
    assert servers[0].answer_line(json.dumps(small).encode())["ok"]


def test_threads_asking_for_one_solver_table_at_once_wait_for_one_build(monkeypatch):
    from envs.linecatch import solver

    builds = []
    real_build = solver.build_table

    def counted(geo, progress=False):
        builds.append(1)
        time.sleep(0.3)
        return real_build(geo, progress)

    monkeypatch.setattr(solver, "build_table", counted)
    monkeypatch.setattr(solver, "_TABLES", {})
    tables = []
    threads = [threading.Thread(target=lambda: tables.append(solver.table(3, 5, False))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1 and len(tables) == 4 and all(t is tables[0] for t in tables)
