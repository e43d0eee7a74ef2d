"""The main job: train an agent by self-play on a sensible default, then evaluate it.

    .venv/bin/python -m training.main                       # Linecatch 4×4, a few minutes
    .venv/bin/python -m training.main --game loom --options '{}' --warm-start heuristic
    .venv/bin/python -m training.main --tournament          # only the bot tournament, every game

The default trains on a 4×4 Linecatch board: the network first imitates the exact solver
(every optimal move), then improves by MaskablePPO self-play against random, heuristic and
frozen snapshots of itself. Any ``training.train`` flag overrides the default (later flags
win). The trained agent then plays a round robin against the solver (where the game has one),
the heuristic and the random bot; the table is printed with 95% intervals and Elo ratings.

``--tournament`` skips training and runs the bot tournament over every game instead
(heuristic vs random; on a 4×4 Linecatch board the exact solver against both).
"""

from __future__ import annotations

import argparse
import json
import time

import envs
from training import bot_table, load_agent
from training.evaluate import markdown_table, round_robin
from training.train import parse_config, train

DEFAULT_RUN = [
    "--game", "linecatch", "--options", '{"rows": 4, "cols": 4}',
    "--warm-start", "solver", "--warm-start-games", "8000", "--warm-start-epochs", "50",
    "--total-timesteps", "50000", "--learning-rate", "0.00002", "--net-arch", "256", "256",
    "--n-steps", "2048", "--batch-size", "512", "--n-epochs", "4",
    "--eval-every", "25000", "--eval-games", "100", "--final-eval-games", "400",
]


def tournament(games: int, seed: int) -> None:
    plan = []
    for game in envs.GAMES:
        bots = [name for name in ("heuristic", "random") if name in bot_table(game)]
        plan.append((game, {}, bots))
    plan.append(("linecatch_v0", {"rows": 4, "cols": 4}, ["solver", "heuristic", "random"]))
    for game, options, agents in plan:
        started = time.perf_counter()
        results = round_robin(game, agents, games, seed, options)
        print(markdown_table(game, options, results))
        print(f"({time.perf_counter() - started:.1f} s)\n", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, add_help=False)
    parser.add_argument("--tournament", action="store_true", help="only the bot tournament over every game")
    parser.add_argument("--games", type=int, default=200, help="games per pair in the evaluation")
    parser.add_argument("-h", "--help", action="store_true")
    args, rest = parser.parse_known_args(argv)
    if args.help:
        print(__doc__)
        return
    if args.tournament:
        tournament(args.games, 0)
        return
    config = parse_config(DEFAULT_RUN + rest)
    summary = train(config)
    game = envs.canonical_name(config.game)
    options = dict(config.options)
    agents = [summary["checkpoint"]]
    for bot in ("solver", "heuristic", "random"):
        if bot not in bot_table(game):
            continue
        try:
            load_agent(bot, game, **options)
        except ValueError as error:  # e.g. the solver on a board it cannot solve
            print(f"({bot} left out: {error})")
            continue
        agents.append(bot)
    print(f"\nround robin, {args.games} games per pair, seats alternated:\n")
    results = round_robin(game, agents, args.games, config.seed + 1, options)
    print(markdown_table(game, options, results))
    print(f"\n(run folder: {summary['checkpoint'].rsplit('/', 1)[0]}; options {json.dumps(options)})")


if __name__ == "__main__":
    main()
