"""The main job: train an agent on a sensible default, then evaluate it in a round robin.

    abstract-games train-and-evaluate                 # Linecatch 4×4, a few minutes on 2 cores
    abstract-games train-and-evaluate --game loom --options '{}' --warm-start heuristic
    abstract-games train-and-evaluate --tournament    # only the bot tournament, every game

The default trains on a 4×4 Linecatch board with ``abstract-games train``: the network first
imitates the exact solver (every optimal move), then improves by MaskablePPO self-play against
random, heuristic and frozen snapshots of itself. Any ``abstract-games train`` flag overrides the
default (later flags win). The trained agent then plays a round robin against the solver
(where the game has one), the heuristic and the random bot, ``--games`` games per pair with
seats alternated; the table (95% intervals, Elo) is printed and written into the run folder
with its chart: ``round_robin.md``, ``round_robin.png``.

``--tournament`` skips training and runs the bot tournament over every game instead
(heuristic vs random; on a 4×4 Linecatch board the exact solver against both).
"""

from __future__ import annotations

import argparse
import json
import shlex
import time
from pathlib import Path

import envs
from training.players.load import bot_table, load_agent
from training.bots import bot_kit
from training.evaluation.tournament import draw_chart, markdown_table, round_robin

from training.jobs import ppo as trainer  # parse_config(argv) reads the flags, train(config, command) runs

TRAINER = "train"
"""The command that trains (``abstract-games train``, whose module is ``trainer``): its
``train(config, command)`` returns a summary with the run folder (``"run"``) and the agent file
(``"checkpoint"``)."""

DEFAULT_RUN = [
    "--game", "linecatch", "--options", '{"rows": 4, "cols": 4}',
    "--warm-start", "solver", "--warm-start-games", "8000", "--warm-start-epochs", "15",
    "--warm-start-batch-size", "128",
    "--total-timesteps", "49152", "--learning-rate", "0.00002", "--net-arch", "256", "256",
    "--n-steps", "2048", "--batch-size", "512", "--n-epochs", "4",
    "--eval-every", "24576", "--eval-games", "100", "--final-eval-games", "400",
]
"""The default run's flags for ``TRAINER`` (49,152 steps: 12 rollouts of 2,048 steps × 2 envs)."""

BOTS = ("solver", "heuristic", "random")
"""The bots the trained agent meets in the round robin, where the game has them."""


def tournament(games: int, seed: int) -> None:
    plan = []
    for game in envs.GAMES:
        bots = [name for name in ("heuristic", "random") if name in bot_table(game)]
        plan.append((game, {}, bots))
    for game in envs.GAMES:  # where a game's ladder adds rungs (Linecatch 4×4: the exact solver)
        for ladder in bot_kit(game).ladders:
            if ladder.extra:
                plan.append((game, ladder.options, [*ladder.extra, "heuristic", "random"]))
    for game, options, agents in plan:
        started = time.perf_counter()
        results = round_robin(game, agents, games, seed, options)
        print(markdown_table(game, options, results))
        print(f"({time.perf_counter() - started:.1f} s)\n", flush=True)


def opponents(game: str, options: dict) -> list[str]:
    """The bots of ``BOTS`` this game has and can load with these options."""
    found = []
    for bot in BOTS:
        if bot not in bot_table(game):
            continue
        try:
            load_agent(bot, game, **options)
        except ValueError as error:  # e.g. the solver on a board it cannot solve
            print(f"({bot} left out: {error})")
            continue
        found.append(bot)
    return found


def evaluate(agent: str, game: str, options: dict, games: int, seed: int, run: Path) -> None:
    """The round robin of ``agent`` and the bots, printed and written into ``run``."""
    agents = [agent, *opponents(game, options)]
    pairs = len(agents) * (len(agents) - 1) // 2
    print(f"\nround robin: {', '.join(Path(a).stem for a in agents)}; {games} games per pair, seats alternated",
          flush=True)
    started = time.perf_counter()

    def report(result) -> None:
        print(f"    {Path(result.first).stem} vs {Path(result.second).stem}: {result.score:.1%} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)

    results = round_robin(game, agents, games, seed, options, on_pair=report)
    table = markdown_table(game, options, results)
    print(f"\n{table}\n")
    (run / "round_robin.md").write_text(table + "\n")
    chart = draw_chart(game, results, run / "round_robin.png")
    print(f"round robin ({pairs} pairs): {run / 'round_robin.md'}, chart: {chart}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter, add_help=False,
                                     allow_abbrev=False)  # --game is the trainer's flag, not short for --games
    parser.add_argument("--tournament", action="store_true", help="only the bot tournament over every game")
    parser.add_argument("--games", type=int, default=200, help="games per pair in the round robin")
    parser.add_argument("-h", "--help", action="store_true", help="show this help and the trainer's flags")
    args, rest = parser.parse_known_args(argv)
    if args.help:
        parser.print_help()
        print(f"\nAny flag of abstract-games {TRAINER} too (the default run's are {shlex.join(DEFAULT_RUN)}):\n")
        try:
            trainer.parse_config(["--help"])
        except SystemExit:
            pass
        return
    if args.tournament:
        tournament(args.games, 0)
        return
    started = time.perf_counter()
    flags = DEFAULT_RUN + rest
    command = f"abstract-games {TRAINER} " + shlex.join(flags)
    print(f"training: {command}", flush=True)
    config = trainer.parse_config(flags)
    summary = trainer.train(config, command)
    game, options, run = envs.canonical_name(config.game), dict(config.options), Path(summary["run"])
    evaluate(summary["checkpoint"], game, options, args.games, config.seed + 1, run)
    minutes, seconds = divmod(round(time.perf_counter() - started), 60)
    print(f"run folder: {run} (options {json.dumps(options)})")
    print(f"the main job took {minutes} min {seconds} s{cpu_time()}")


def cpu_time() -> str:
    """`` (N s of CPU time, …)``: this process's and its finished children's (the env
    processes), where the system tells (POSIX); empty elsewhere."""
    try:
        import resource
    except ImportError:
        return ""
    used = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))
    return f" ({used:.0f} s of CPU time, its env processes included)"


if __name__ == "__main__":
    main()
