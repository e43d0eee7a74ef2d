"""A bounded load test on 127.0.0.1: 50 WebSocket clients at once, each playing a whole game of
Linecatch (5×5) against the heuristic on ``python -m training.web`` (a separate process, with
its default limits), every move a request. Every game ends with its result, nothing is lost
(each client gets exactly one answer per request, in order, and no error), every answer comes
within ANSWER_BOUND_S, and the server's peak resident memory stays under PEAK_RSS_BOUND_MB.

    pytest tests/web/test_load.py -s     # prints the figures: games, answers, slowest, peak memory
"""

from __future__ import annotations

import asyncio
import json
import random
import time

from tests.web.servers import ProcessServer

CLIENTS = 50
ANSWER_BOUND_S = 5.0  # the slowest answer any client may wait for (2 shared cores, 50 clients)
GIVE_UP_S = 60.0  # an answer that has not come by then is lost: the test fails instead of waiting on
PEAK_RSS_BOUND_MB = 400.0


async def one_game(url: str, index: int, latencies: list[float]) -> dict:
    from websockets.asyncio.client import connect

    rng = random.Random(index)
    async with connect(url, max_size=None) as socket:
        next_id = 0

        async def ask(kind: str, **fields) -> dict:
            nonlocal next_id
            next_id += 1
            started = time.monotonic()
            await socket.send(json.dumps({"id": next_id, "type": kind, **fields}))
            try:
                answer = json.loads(await asyncio.wait_for(socket.recv(), GIVE_UP_S))
            except TimeoutError:
                raise AssertionError(f"client {index}: no answer to {kind} (request {next_id}) within {GIVE_UP_S:.0f} s") from None
            latencies.append(time.monotonic() - started)
            assert answer["id"] == next_id, answer
            assert answer["ok"], answer
            return answer

        view = await ask("web_new_game", game="linecatch", opponent="heuristic", seat=index % 2, seed=index)
        requests = 1
        while not view["over"]:
            if view["your_turn"]:
                view = await ask("web_play", game_id=view["game_id"], move=rng.choice(view["actions"])["action"])
            else:
                view = await ask("web_bot", game_id=view["game_id"])
            requests += 1
        await ask("web_close", game_id=view["game_id"])
        return {"result": view["result"], "requests": requests + 1}


async def all_games(url: str, latencies: list[float]) -> list[dict]:
    return await asyncio.gather(*(one_game(url, index, latencies) for index in range(CLIENTS)))


def test_fifty_clients_each_play_a_whole_game_at_once():
    server = ProcessServer()
    try:
        latencies: list[float] = []
        started = time.monotonic()
        games = asyncio.run(all_games(server.ws_url, latencies))
        took = time.monotonic() - started
        peak = server.peak_rss_mb()
    finally:
        assert server.close() in (0, -15)
    assert len(games) == CLIENTS and all(game["result"]["outcome"] in ("win", "draw", "loss") for game in games)
    assert len(latencies) == sum(game["requests"] for game in games)
    slowest = max(latencies)
    print(f"\n{CLIENTS} clients, {len(games)} whole games of Linecatch 5x5 against the heuristic in {took:.1f} s: "
          f"{len(latencies)} answers, median {sorted(latencies)[len(latencies) // 2] * 1000:.0f} ms, "
          f"slowest {slowest * 1000:.0f} ms; server peak RSS {peak:.0f} MB")
    assert slowest < ANSWER_BOUND_S
    assert peak < PEAK_RSS_BOUND_MB
