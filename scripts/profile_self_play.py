"""Where self-play time goes, per game: the engine and sampling, the network, the tree.

    python scripts/profile_self_play.py                        # every game, default options
    python scripts/profile_self_play.py --games loom knot --simulations 32 --self-play-games 8

One worker (one core) plays ``--self-play-games`` games at once with a network of the given
size (random weights: the cost does not depend on what the network knows), exactly as
``training.alphazero``'s workers do. A first, unprofiled run gives the positions per second and,
from the evaluator's own clocks, the shares of

* **planes** — building the network's input from the observations (the observer's ``planes``
  and everything it calls: Uzor's follow-up channels price each placement),
* **network forward** — the torch forward pass and reading its heads.

A second run under ``cProfile``, with the profiler switched off inside the evaluator, splits the
rest of the time by each function's own time into

* **engine and sampling** — the game's rules, observer and sampler (``envs/``),
* **tree** — the search itself (``training/search/guided.py``: selection, backing up, the driver),
* **numpy** — numpy's own functions (mostly the tree's arithmetic over each node's actions),
* **other** — the rest (built-ins called from anywhere, the worker's bookkeeping).

Report figures, not tests.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402


def task_for(game: str, options: dict, simulations: int, games: int, filters: int, blocks: int) -> dict:
    from training.jobs.alphazero.network import torch_network
    from training.agents.network import Architecture

    description = envs.describe(game)
    observer = description.make_observer(options)
    layout = observer.policy_layout()
    arch = Architecture(tuple(observer.planes_shape()), filters, blocks, layout.cell_channels, layout.global_actions,
                        description.num_players(options))
    return {"game": description.name, "options": options, "seeds": list(range(games)),
            "architecture": dataclasses.asdict(arch), "state_dict": torch_network(arch).eval().state_dict(),
            "index": layout.index, "simulations": simulations, "considered": 16, "concurrent": games,
            "value_mix": 0.5, "margin_scale": 1.0}


def bucket(filename: str, function: str) -> str:
    if "/envs/" in filename or "random.py" in filename:
        return "engine and sampling"
    if filename.endswith(os.path.join("search", "guided.py")):
        return "tree"
    if "numpy" in filename or "numpy" in function:
        return "numpy (tree arithmetic)"
    return "other"


COLUMNS = ("engine and sampling", "planes", "network forward", "tree", "numpy (tree arithmetic)", "other")


def profile(game: str, options: dict, args) -> dict:
    from training.jobs.alphazero import self_play

    task = task_for(game, options, args.simulations, args.self_play_games, args.filters, args.blocks)
    out = self_play.play_games(task)
    seconds = out["seconds"]
    positions = sum(len(r.vectors) for r in out["records"])
    shares = {"planes": out["planes_seconds"] / seconds,
              "network forward": (out["network_seconds"] - out["planes_seconds"]) / seconds}
    rest = max(0.0, 1.0 - shares["planes"] - shares["network forward"])

    # The evaluator is timed above; profiling it again would only inflate it, so the profiler
    # is off inside it and the profiled own times split what the evaluator does not take.
    profiler = cProfile.Profile()
    evaluate = self_play.TorchEvaluator.evaluate

    def unprofiled(self, *a, **k):
        profiler.disable()
        try:
            return evaluate(self, *a, **k)
        finally:
            profiler.enable()

    self_play.TorchEvaluator.evaluate = unprofiled
    try:
        profiler.runcall(self_play.play_games, task)
    finally:
        self_play.TorchEvaluator.evaluate = evaluate
    own: dict[str, float] = {}
    for (filename, _, function), (_, _, own_time, _, _) in pstats.Stats(profiler).stats.items():
        if function == "unprofiled":
            continue
        own[bucket(filename, function)] = own.get(bucket(filename, function), 0.0) + own_time
    total = sum(own.values()) or 1.0
    shares.update({k: rest * v / total for k, v in own.items()})
    return {"game": game, "positions_per_second": positions / seconds, "positions": positions,
            "moves_per_game": sum(r.moves for r in out["records"]) / len(out["records"]), "shares": shares}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--self-play-games", type=int, default=8)
    parser.add_argument("--filters", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=3)
    args = parser.parse_args()
    names = envs.GAMES if not args.games else [envs.canonical_name(g) for g in args.games]
    print(f"one worker, {args.self_play_games} games at once, {args.simulations} simulations, network "
          f"{args.filters}×{args.blocks}\n")
    print("| game | moves/game | positions/s (one core) | " + " | ".join(COLUMNS) + " |")
    print("|---|---:|---:|" + "---:|" * len(COLUMNS))
    for name in names:
        result = profile(name, {}, args)
        s = result["shares"]
        print(f"| {name} | {result['moves_per_game']:.0f} | {result['positions_per_second']:.1f} | "
              + " | ".join(f"{s.get(k, 0.0):.0%}" for k in COLUMNS) + " |", flush=True)


if __name__ == "__main__":
    main()
