"""How long a player waits for each level's move on the web page, measured on this machine.

For every game with a board view and every level of its default options, games are played
through the web server's own requests (``web_new_game``, ``web_bot``, ``web_play``: the server a
page talks to, in this process, without the socket) against a person who plays uniformly at
random (seeded), until ``--turns`` bot turns have been timed; each turn's time is divided by the
moves the bot made in it. Prints a Markdown table (docs/web.md keeps one):

    python scripts/web_bot_times.py [--turns 30] [--seed 0] [--game knot]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402
from training import agent_levels  # noqa: E402
from training.serving.bot_server import BotServer  # noqa: E402


def ask(server: BotServer, **request) -> dict:
    answer = server.answer_line(json.dumps(request).encode())
    if not answer["ok"]:
        raise RuntimeError(f"{request['type']}: {answer['error']['message']}")
    return answer


def time_level(game: str, level: int, turns: int, seed: int) -> list[float]:
    """Seconds a bot move, one value per timed turn."""
    server = BotServer(listed_files_only=True)
    rng = random.Random(seed)
    per_move: list[float] = []
    game_seed = seed
    while len(per_move) < turns:
        view = ask(server, type="web_new_game", game=game, opponent=f"level:{level}", seed=game_seed)
        while not view["over"] and len(per_move) < turns:
            if view["your_turn"]:
                move = rng.choice(view["actions"])["action"]
                view = ask(server, type="web_play", game_id=view["game_id"], move=move)
                continue
            held = server.web.games[view["game_id"]]
            before = sum(1 for step in held.steps if step.player == view["to_move"])
            started = time.perf_counter()
            view = ask(server, type="web_bot", game_id=view["game_id"])
            took = time.perf_counter() - started
            moves = sum(1 for step in held.steps if step.player is not None) - before
            per_move.append(took / max(1, moves))
        ask(server, type="web_close", game_id=view["game_id"])
        game_seed += 1
    return per_move


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=30, help="bot turns timed per level (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed (default 0)")
    parser.add_argument("--game", action="append", help="only this game (repeatable; default: every game)")
    args = parser.parse_args(argv)
    games = [envs.describe(name) for name in envs.GAMES if envs.describe(name).board is not None]
    if args.game:
        games = [envs.describe(name) for name in args.game]
    print("| game | level | plays | median ms a move | slowest ms | calibration's ms |")
    print("|---|---|---|--:|--:|--:|")
    for description in games:
        try:
            levels = agent_levels(description.name)
        except ValueError:
            continue
        for level in levels:
            times = time_level(description.name, level["level"], args.turns, args.seed)
            print(f"| {description.short_name} | {level['level']} {level['name']} | `{Path(level['spec']).name}` | "
                  f"{1000 * statistics.median(times):.1f} | {1000 * max(times):.1f} | {level['ms_per_move']:.1f} |",
                  flush=True)


if __name__ == "__main__":
    main()
