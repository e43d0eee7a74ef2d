"""Linecatch: the points an agent gives away to perfect play, per game, priced by the exact solver.

    python scripts/linecatch_regret.py --agent heuristic --games 20 --seed 0
    python scripts/linecatch_regret.py --agent checkpoints/linecatch/linecatch__dagger__46.zip --games 20
    python scripts/linecatch_regret.py --agent mcts:100 --games 10 --pro

The agent (any load_agent spec, such as ``random``, ``heuristic``, ``mcts:N``, ``trained``, an
agent file) plays ``--games`` games against ``--opponent`` (the exact solver unless told), seats
alternating. At each of its moves the solver prices every legal square (the mover's final
margin with perfect play afterwards); the best square's value minus the chosen square's is what
that move lost. The line printed gives the mean points lost per game (± its standard error)
and per move, the games without a single loss, and the agent's mean final margin
(``training.evaluation.points_lost.agent_points_lost``). Boards of up to 25 squares; 5×5 builds the
solver's table on first use (10–15 seconds, then cached).
"""

from __future__ import annotations

import argparse
import json
import time

from training.evaluation.points_lost import agent_points_lost


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="the agent (a load_agent spec or agent file)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--cols", type=int, default=5)
    parser.add_argument("--pro", action="store_true", help="pro mode: diagonals of 3 or more squares are lines")
    parser.add_argument("--opponent", default="solver", help="whom it plays (load_agent spec; default: the solver)")
    parser.add_argument("--json", help="also write the result to this file")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be a positive integer, not {args.games}")
    options = {"rows": args.rows, "cols": args.cols, "pro": args.pro}
    started = time.perf_counter()
    result = agent_points_lost(args.agent, args.games, args.seed, options, args.opponent)
    result["seconds"] = round(time.perf_counter() - started, 1)
    board = f"{args.rows}×{args.cols}{' pro' if args.pro else ''}"
    print(f"{args.agent} against {args.opponent}, {board}, {args.games} games (seed {args.seed}): "
          f"{result['mean_points_lost_per_game']:.2f} ± {result['standard_error']:.2f} points lost a game "
          f"({result['mean_points_lost_per_move']:.3f} a move), {result['perfect_games']} game{'' if result['perfect_games'] == 1 else 's'} without a loss, "
          f"mean margin {result['mean_margin']:+.2f} (empty board worth {result['empty_board_value']:+d} "
          f"to the first player); {result['seconds']} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)
            handle.write("\n")
    return result


if __name__ == "__main__":
    main()
