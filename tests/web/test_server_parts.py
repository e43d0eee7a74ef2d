"""The parts under the web page, without a browser: every legal action of every game belongs to
an element its picture draws, the web requests play whole games of every game on the stdin
server too (Knot with 3 and 4 players included), and the thread time limit neither misses nor
leaks."""

from __future__ import annotations

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
