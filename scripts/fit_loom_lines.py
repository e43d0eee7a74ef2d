"""Fit the line values behind Loom's search evaluation (``training/bots/loom_lines.json``).

A Loom cloth scores line by line, so a cloth mid-game is worth about the sum over its eight
lines of what each line tends to end at. This script plays seeded greedy games (each weave
the heuristic's best price, ties at random), records every line of both cloths at every
round boundary, and averages the line's final distinct-dye sum and how often it earned the
bounty — per line signature (its distinct dyes and how many of its cells are filled) and per
how full the whole cloth is (a line with two open cells fills more freely at round 2 than at
round 14). It also records how far the final margin strays from the margin these values
predict, per round: the search turns a predicted lead into a win chance with it.

    python scripts/fit_loom_lines.py                 # 40,000 games, seed 0, about a minute
    python scripts/fit_loom_lines.py --games 2000 --out /tmp/lines.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.loom.cloth import CELLS, LINES, line_dyes  # noqa: E402
from envs.loom.rules import ROUNDS, LoomGame  # noqa: E402
from envs.loom.throws import THROW_ID  # noqa: E402
from training.bots.loom import weave_values  # noqa: E402
from training.bots.loom_values import LINE_VALUES_PATH, LineValues, line_signature  # noqa: E402


def greedy_game(rng: random.Random, bounty: int) -> tuple[LoomGame, list]:
    """One game of greedy weaves (the heuristic's best price, ties at random); returns the final
    state and, per round boundary, the round and the line codes of both cloths.

    The game's 16 throws are drawn first, two dice a round from ``rng``, and played at the
    chance nodes in order; the same ``rng`` then breaks ties (the table of record was fitted
    with this order of draws)."""
    throws = [tuple(sorted((rng.randint(1, 6), rng.randint(1, 6)))) for _ in range(ROUNDS)]
    state = LoomGame(LoomGame.resolve_options({"bounty": bounty}))
    boundaries = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(THROW_ID[throws[state.round]])
            continue
        if state.taken < 0:
            boundaries.append((state.round, [list(state.codes[0]), list(state.codes[1])]))
        legal, values = weave_values(state)
        best = max(values)
        state.apply(rng.choice([a for a, v in zip(legal, values) if v == best]))
    boundaries.append((ROUNDS, [list(state.codes[0]), list(state.codes[1])]))
    return state, boundaries


def final_line(code: int) -> tuple[int, int]:
    """(distinct-dye sum, 1 if four different dyes) of a full line."""
    dyes = line_dyes(code)
    distinct = set(dyes)
    return sum(distinct), int(len(distinct) == len(dyes))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bounty", type=int, default=8)
    parser.add_argument("--out", default=str(LINE_VALUES_PATH))
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    # (filled, signature) -> [count, distinct sum, bounties]
    sums: dict[tuple[int, str], list[float]] = {}
    games = []
    started = time.perf_counter()
    for g in range(args.games):
        state, boundaries = greedy_game(rng, args.bounty)
        finals = [[final_line(code) for code in state.codes[p]] for p in (0, 1)]
        for round_, codes in boundaries:
            for p in (0, 1):
                for line, code in enumerate(codes[p]):
                    entry = sums.setdefault((round_, line_signature(code)), [0, 0.0, 0.0])
                    entry[0] += 1
                    entry[1] += finals[p][line][0]
                    entry[2] += finals[p][line][1]
        games.append((boundaries, state.points[0] - state.points[1]))
        if (g + 1) % 2000 == 0:
            print(f"{g + 1} games, {time.perf_counter() - started:.0f} s", flush=True)
    table = {
        f"{filled}|{signature}": [count, distinct / count, bounties / count]
        for (filled, signature), (count, distinct, bounties) in sorted(sums.items())
    }
    # Residual spread of the final margin around the predicted one, per round.
    values = LineValues(table, args.bounty)
    squares = [0.0] * (ROUNDS + 1)
    for boundaries, margin in games:
        for round_, codes in boundaries:
            predicted = values.cloth(round_, codes[0]) - values.cloth(round_, codes[1])
            squares[round_] += (margin - predicted) ** 2
    spread = [math.sqrt(s / len(games)) for s in squares]
    record = {
        "about": "Loom line values fitted by scripts/fit_loom_lines.py from greedy self-play",
        "command": "python scripts/fit_loom_lines.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "games": args.games, "seed": args.seed, "bounty": args.bounty, "cells": CELLS, "lines": len(LINES),
        "key": "cells filled in the cloth | sorted distinct dyes + '/' + cells filled in the line",
        "entry": "[samples, mean final distinct-dye sum, share of lines that earned the bounty]",
        "margin_spread": [round(s, 3) for s in spread],
        "table": table,
    }
    Path(args.out).write_text(json.dumps(record, indent=0) + "\n")
    print(f"wrote {args.out}: {len(table)} entries; margin spread by round {[round(s, 1) for s in spread]}")


if __name__ == "__main__":
    main()
