"""Where self-play time goes, per game: the engine and sampling, the network, the tree.

    python scripts/profile_self_play.py                        # every game, default options
    python scripts/profile_self_play.py --games loom knot --simulations 32 --self-play-games 8

One worker (one core) plays ``--self-play-games`` games at once with a network of the given
size (random weights: the cost does not depend on what the network knows), exactly as
``training.alphazero``'s workers do, under ``cProfile``. Each function's own time is charged to

* **engine and sampling** — the game's rules, observer and sampler (``envs/``),
* **network** — planes and the torch forward pass (``torch``, the observer's ``planes`` and the
  evaluator),
* **tree** — the search itself (``training/az_search.py``: selection, backing up, the driver),
* **numpy** — numpy's own functions (mostly the tree's arithmetic over each node's actions),
* **other** — the rest (built-ins called from anywhere).

Positions per second are measured in a second, unprofiled run. Report figures, not tests.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402


def task_for(game: str, options: dict, simulations: int, games: int, filters: int, blocks: int) -> dict:
    from training.alphazero import torch_network
    from training.network import Architecture

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
    if ("torch" in filename or "torch" in function or function == "planes" or filename.endswith("alphazero.py")
            or filename.endswith("network.py")):
        return "network"
    if "/envs/" in filename or "random.py" in filename:
        return "engine and sampling"
    if filename.endswith("az_search.py"):
        return "tree"
    if "numpy" in filename or "numpy" in function:
        return "numpy (tree arithmetic)"
    return "other"


def profile(game: str, options: dict, args) -> dict:
    from training.alphazero import play_games

    task = task_for(game, options, args.simulations, args.self_play_games, args.filters, args.blocks)
    started = time.perf_counter()
    out = play_games(task)
    seconds = time.perf_counter() - started
    positions = sum(len(r.vectors) for r in out["records"])
    profiler = cProfile.Profile()
    profiler.runcall(play_games, task)
    stats = pstats.Stats(profiler)
    shares: dict[str, float] = {}
    for (filename, _, function), (_, _, own, _, _) in stats.stats.items():
        shares[bucket(filename, function)] = shares.get(bucket(filename, function), 0.0) + own
    total = sum(shares.values())
    return {"game": game, "positions_per_second": positions / seconds, "positions": positions,
            "moves_per_game": sum(r.moves for r in out["records"]) / len(out["records"]),
            "shares": {k: v / total for k, v in sorted(shares.items(), key=lambda kv: -kv[1])}}


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
    print("| game | moves/game | positions/s (one core) | engine and sampling | network | tree | numpy (tree arithmetic) | other |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        result = profile(name, {}, args)
        s = result["shares"]
        print(f"| {name} | {result['moves_per_game']:.0f} | {result['positions_per_second']:.1f} | "
              + " | ".join(f"{s.get(k, 0.0):.0%}" for k in ("engine and sampling", "network", "tree",
                                                             "numpy (tree arithmetic)", "other")) + " |", flush=True)


if __name__ == "__main__":
    main()
