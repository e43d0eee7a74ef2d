"""The main job (until self-play training lands): a bot tournament over every built game.

    .venv/bin/python -m training.main [--games 200] [--seed 0]

Per game: the heuristic bot against the random bot; on a 4×4 Linecatch board also the exact
solver against both. Prints one win-rate table per game (95% Wilson intervals, seats
alternated, draws counted half).
"""

from __future__ import annotations

import argparse
import time

import envs
from training import bot_table
from training.evaluate import markdown_table, round_robin


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per pair")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    plan = []
    for game in envs.GAMES:
        bots = [name for name in ("heuristic", "random") if name in bot_table(game)]
        plan.append((game, {}, bots))
    plan.append(("linecatch_v0", {"rows": 4, "cols": 4}, ["solver", "heuristic", "random"]))
    for game, options, agents in plan:
        started = time.perf_counter()
        results = round_robin(game, agents, args.games, args.seed, options)
        print(markdown_table(game, options, results))
        print(f"({time.perf_counter() - started:.1f} s)\n", flush=True)


if __name__ == "__main__":
    main()
