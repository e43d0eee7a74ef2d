"""Tournament between agents: round robin, seats alternated, win/draw/loss with 95% intervals.

    python -m training.evaluate --game linecatch --agents heuristic random --games 200
    python -m training.evaluate --game linecatch --options '{"rows": 4, "cols": 4}' --agents solver heuristic

Agents are ``load_agent`` specs. Each pair plays ``--games`` games; in a two-player game the
first agent takes ``player_0`` in even-numbered games and ``player_1`` in odd ones. A game's
seed is ``seed + index``, so a table is reproducible. A win counts 1, a draw ½.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from dataclasses import dataclass, field

import envs
from training import game_name, load_agent


@dataclass
class PairResult:
    first: str
    second: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points_for: list = field(default_factory=list)
    points_against: list = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / max(1, self.games)


def wilson_interval(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a win rate (draws counted as half a win)."""
    if n == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(game: str, seats: list, seed: int, options: dict) -> tuple[list[int], list]:
    """One full game; ``seats[i]`` acts for ``player_i``. Returns (returns, scores)."""
    env = envs.load(game).raw_env(**options)
    env.reset(seed=seed)
    engine = env.game
    while not engine.is_terminal():
        agent = env.agent_selection
        action = seats[env.agent_name_mapping[agent]].act(env.observe(agent))
        env.step(action)
        engine = env.game
    return engine.returns(), engine.scores()


def play_pair(game: str, first: str, second: str, games: int, seed: int, options: dict) -> PairResult:
    a = load_agent(first, game, seed=seed, **options)
    b = load_agent(second, game, seed=seed + 1, **options)
    result = PairResult(first, second)
    for index in range(games):
        swap = index % 2 == 1
        seats = [b, a] if swap else [a, b]
        returns, scores = play_game(game, seats, seed + index, options)
        mine, theirs = (1, 0) if swap else (0, 1)
        outcome = returns[mine]
        result.wins += outcome > 0
        result.draws += outcome == 0
        result.losses += outcome < 0
        result.points_for.append(scores[mine])
        result.points_against.append(scores[theirs])
    return result


def round_robin(game: str, agents: list[str], games: int, seed: int, options: dict) -> list[PairResult]:
    return [
        play_pair(game, first, second, games, seed + 1000 * i, options)
        for i, (first, second) in enumerate(itertools.combinations(agents, 2))
    ]


def markdown_table(game: str, options: dict, results: list[PairResult]) -> str:
    head = f"**{game}** {json.dumps(options) if options else '(default options)'}\n\n"
    rows = [
        "| agent | vs | games | W | D | L | score | 95% interval | mean points |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        low, high = wilson_interval(r.score, r.games)
        pf = sum(r.points_for) / max(1, r.games)
        pa = sum(r.points_against) / max(1, r.games)
        rows.append(
            f"| {r.first} | {r.second} | {r.games} | {r.wins} | {r.draws} | {r.losses} | "
            f"{r.score:.1%} | {low:.1%}–{high:.1%} | {pf:.1f} : {pa:.1f} |"
        )
    return head + "\n".join(rows)


def main(argv: list[str] | None = None) -> list[PairResult]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, help="env name, e.g. linecatch or loom_v0")
    parser.add_argument("--agents", nargs="+", required=True, help="load_agent specs (two or more)")
    parser.add_argument("--games", type=int, default=200, help="games per pair (seats alternate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", default="{}", help="env options as JSON")
    args = parser.parse_args(argv)
    if len(args.agents) < 2:
        parser.error("--agents needs at least two agents")
    game = game_name(args.game)
    options = json.loads(args.options)
    started = time.perf_counter()
    results = round_robin(game, args.agents, args.games, args.seed, options)
    print(markdown_table(game, options, results))
    print(f"\n({sum(r.games for r in results)} games in {time.perf_counter() - started:.1f} s)")
    return results


if __name__ == "__main__":
    main()
