"""The strength ladder: ``random < heuristic < mcts:100 < mcts:1000`` for every game, and where
each shipped trained agent stands on it.

Each rung plays the rung below it (``--games`` games, ``--top-games`` for the costly MCTS pair),
seats rotating. Games are dealt in duplicate: the k seat rotations of one deal share its chance
(Loom's throws, Knot's pile, Uzor's tiles), so luck cancels between the two agents — and the
deal, not the game, is the independent unit: the ladder *separates* when every upper rung's
95% interval over deals (``deal_interval``) lies above one half. Wilson's interval, which
treats every game as an independent draw, is shown beside it. Every game is seeded by its own
index, so the table is the same for any number of ``--workers``.

    python -m training.ladder                      # all games, writes docs/ladder.md + json
    python -m training.ladder --game loom --games 100 --top-games 40

The per-game option sets and MCTS settings are each game's ``BotKit.ladders``
(``training/bots/<game>.py``; why each was chosen: docs/bots.md).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import time
from dataclasses import dataclass
from pathlib import Path

import envs
from envs.registry import canonical_name as game_name
from training.bots import LadderSpec, bot_kit
from training.common.flags import HelpFormatter
from training.evaluation.tournament import PairResult, play_pair_parallel, players_of, short, wilson_interval


def ladders(game: str) -> tuple[LadderSpec, ...]:
    """The game's ladders (its bot kit's ``ladders``): option sets, MCTS settings, agents."""
    return bot_kit(game).ladders


def rungs(spec: LadderSpec) -> list[str]:
    return ["random", "heuristic", f"mcts:100{spec.mcts}", f"mcts:1000{spec.mcts}", *spec.extra]


def deal_interval(per_game: list[float], seats: int, z: float = 1.96) -> tuple[float, float]:
    """95% interval of the score with the deal as the unit: the seat rotations of one deal
    share its luck, so their games are not independent draws (in a dice game the deal often
    decides which seat wins, and the pair splits). The mean of per-deal scores, ± z standard
    errors over deals; a trailing incomplete deal is left out."""
    deals = [sum(per_game[i:i + seats]) / seats for i in range(0, len(per_game) - seats + 1, seats)]
    if len(deals) < 2:
        return 0.0, 1.0
    mean = sum(deals) / len(deals)
    spread = math.sqrt(sum((d - mean) ** 2 for d in deals) / (len(deals) - 1))
    half = z * spread / math.sqrt(len(deals))
    return max(0.0, mean - half), min(1.0, mean + half)


@dataclass
class Rung:
    result: PairResult
    seconds_per_game: float
    seats: int  # games per deal

    @property
    def paired(self) -> tuple[float, float]:
        """The interval over deals (``deal_interval``)."""
        return deal_interval(self.result.outcomes, self.seats)

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson's interval, as if every game were an independent draw."""
        return wilson_interval(self.result.score, self.result.games)

    @property
    def separated(self) -> bool:
        """The upper agent is stronger at 95%: the interval over deals lies above one half."""
        return self.paired[0] > 0.5


def run_ladder(game: str, spec: LadderSpec, games: int, top_games: int, seed: int, pool=None,
               log=print) -> list[Rung]:
    ladder = rungs(spec)
    pairs = [(ladder[i + 1], ladder[i]) for i in range(len(ladder) - 1)] if spec.climb else []
    if spec.trained and Path(spec.trained).exists():
        reach = spec.place_against or (len(ladder) if not spec.climb else 3)
        pairs += [(spec.trained, rung) for rung in ladder[:reach]]
    out = []
    for upper, lower in pairs:
        costly = any(agent.startswith("mcts:1000") for agent in (upper, lower))
        n = (spec.top_games or top_games) if costly else games
        result, per_game = play_pair_parallel(game, upper, lower, n, seed, spec.options, pool)
        rung = Rung(result, per_game, players_of(game, spec.options))
        low, high = rung.paired
        log(f"{game}: {short(upper)} vs {short(lower)}: {result.score:.1%} ({low:.1%}–{high:.1%} over deals) "
            f"over {result.games} games, {per_game:.2f} s/game")
        out.append(rung)
    return out


def markdown(game: str, spec: LadderSpec, rungs_: list[Rung]) -> str:
    lines = [
        f"**{envs.describe(game).name}** {json.dumps(spec.options) if spec.options else '(default options)'} — {spec.note}",
        "",
        "| agent | vs | games | W | D | L | score | 95% over deals | 95% Wilson | separated | s/game |",
        "|---|---|---:|---:|---:|---:|---:|---|---|:-:|---:|",
    ]
    for rung in rungs_:
        r = rung.result
        low, high = rung.interval
        paired_low, paired_high = rung.paired
        mark = "yes" if rung.separated else "no"
        lines.append(
            f"| {short(r.first)} | {short(r.second)} | {r.games} | {r.wins} | {r.draws} | {r.losses} | "
            f"{r.score:.1%} | {paired_low:.1%}–{paired_high:.1%} | {low:.1%}–{high:.1%} | {mark} | "
            f"{rung.seconds_per_game:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--game", nargs="*", help="games (default: all five)")
    parser.add_argument("--games", type=int, default=200, help="games per pair below MCTS(1000)")
    parser.add_argument("--top-games", type=int, default=100, help="games of MCTS(1000) against MCTS(100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="processes playing games in parallel")
    parser.add_argument("--markdown", default="docs/ladder.md", help="where the tables go ('' for nowhere)")
    args = parser.parse_args(argv)
    names = [game_name(g) for g in args.game] if args.game else list(envs.GAMES)
    tables, record = [], {}
    started = time.perf_counter()
    pool = multiprocessing.Pool(args.workers) if args.workers > 1 else None
    try:
        for name, spec in [(name, spec) for name in names for spec in ladders(name)]:
            result = run_ladder(name, spec, args.games, args.top_games, args.seed, pool)
            tables.append(markdown(name, spec, result))
            record.setdefault(name, []).append({
                "options": spec.options,
                "pairs": [
                    {"agent": r.result.first, "vs": r.result.second, "games": r.result.games,
                     "wins": r.result.wins, "draws": r.result.draws, "losses": r.result.losses,
                     "score": r.result.score, "interval95_deals": list(r.paired),
                     "interval95_wilson": list(r.interval), "separated": r.separated,
                     "seconds_per_game": r.seconds_per_game}
                    for r in result
                ],
            })
    finally:
        if pool is not None:
            pool.close()
    text = "\n\n".join(tables)
    print(text)
    command = "python -m training.ladder " + " ".join(argv if argv is not None else __import__("sys").argv[1:])
    print(f"\n({time.perf_counter() - started:.0f} s; {command.strip()})")
    if args.markdown:
        path = Path(args.markdown)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<!-- {command.strip()} -->\n\n{text}\n")
        path.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    return record


if __name__ == "__main__":
    main()
