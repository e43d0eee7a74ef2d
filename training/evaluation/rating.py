"""Place any agent on a game's calibrated Elo scale: ``python -m training.rate``.

    python -m training.rate --game linecatch --agent runs/linecatch__gumbel__0__…/best.zip
    python -m training.rate --game loom --agent mcts:200 --games 200 --json loom_mcts200.json
    python -m training.rate --game linecatch --options '{"rows": 4, "cols": 4}' --agent heuristic

The agent (any ``load_agent`` spec or agent file) plays the levels of the game and options
(``checkpoints/<game>/levels.json``, ``docs/agents.md``). Games come in **duplicate deals**: a
deal seeds the game and both players, and the agent plays it once from every seat, so the dice,
draws and hidden items even out. First every level gets one deal; then each further deal goes
to the level where a game says most about the agent's current estimate (an expected score
near ½), shared out so that the levels on both sides of it get games: most games are played
against the levels nearest the agent's strength. The agent's Elo is then fitted by maximum likelihood with the levels' own
ratings held fixed (level 1 at 0; one virtual draw against every level keeps a perfect record
finite), and its 95% interval comes from the likelihood's curvature (± 1.96 standard errors;
the levels' own uncertainty is not added). In a game of 3–4 players the agent takes one seat and
the level fills the others; its score counts every other seat as one game against the level
(above it 1, level ½, below 0: ``training.evaluation.ratings.field_score``), as the levels
themselves were rated, and its wins, draws and losses are sole, shared and lost first places.

It prints the rating, its interval and the record against each level, and ``--json FILE``
writes them: ``elo``, ``elo_interval95``, ``standard_error``, ``games``, ``levels`` (per level:
its number, name, spec, Elo and the agent's games, wins, draws, losses and score), the game,
options, agent, seed and command. A rating to quote reads: "my agent: 1,050 ± 60 on Linecatch
5×5 (suite v0 levels)".
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from pathlib import Path
from typing import Any

from training.evaluation.ratings import ELO_SCALE, expected_score, field_score

VIRTUAL_DRAWS = 1.0


def fit_elo(records: list[tuple[float, float, float]]) -> tuple[float, float]:
    """The maximum-likelihood rating of one player against opponents of fixed ratings, and its
    standard error. ``records``: ``(opponent Elo, points, games)``; one virtual draw is added
    against each opponent."""
    k = math.log(10.0) / ELO_SCALE
    table = [(elo, points + VIRTUAL_DRAWS / 2, games + VIRTUAL_DRAWS) for elo, points, games in records]
    rating = sum(elo for elo, _, _ in table) / len(table)
    information = 1.0
    for _ in range(200):
        gradient = information = 0.0
        for elo, points, games in table:
            p = expected_score(rating - elo)
            gradient += k * (points - games * p)
            information += k * k * games * p * (1 - p)
        step = max(-ELO_SCALE, min(ELO_SCALE, gradient / information))
        rating += step
        if abs(step) < 1e-9:
            break
    return rating, 1.0 / math.sqrt(information)


def next_level(levels: list[dict], rating: float, played: list[int]) -> int:
    """The level the next deal goes to: the most information a game gives about the rating,
    ``p (1 − p)`` at the expected score ``p``, shared out as ``1 / sqrt(1 + games played)`` so
    that the levels on both sides of the estimate get games, not the nearest alone."""
    def worth(i: int) -> float:
        p = expected_score(rating - levels[i]["elo"])
        return p * (1 - p) / math.sqrt(1 + played[i])
    return max(range(len(levels)), key=worth)


def rate(game: str, agent: str, options: dict[str, Any], games: int, seed: int, workers: int = 1,
         progress: bool = True) -> dict[str, Any]:
    """Rate ``agent`` (a ``load_agent`` spec or file) on the game's levels for ``options``."""
    from tqdm import tqdm

    import envs
    from training.agents.levels import agent_levels, in_repository, option_set
    from training.players.load import load_agent
    from training.evaluation.tournament import play_one_deal_game

    name = envs.describe(game).name
    levels = agent_levels(name, **options)  # options without levels: a ValueError naming those with levels
    # a rating holds on the levels it was measured against: a recalibration moves the scale
    calibrated = (option_set(name, options).get("calibration") or {}).get("date")
    load_agent(agent, name, seed=seed, **options)  # an unknown agent fails here, before any game
    seats = envs.describe(name).num_players(options)
    if games < len(levels) * seats:
        raise ValueError(f"--games must be at least {len(levels) * seats} (one deal, every seat, against each of "
                         f"the {len(levels)} levels), not {games}")
    record = [{"games": 0, "wins": 0, "draws": 0, "losses": 0, "points": 0.0} for _ in levels]
    deals_played = 0
    pool = None
    if workers > 1:
        from training.common.processes import single_thread_pool

        pool = single_thread_pool(workers)
    bar = tqdm(total=games, unit="game", disable=not progress, dynamic_ncols=True)

    def play_deal(level: int) -> None:
        nonlocal deals_played
        upper = agent
        lower = in_repository(levels[level]["spec"])
        jobs = [(name, options, upper, lower, index, seed + 1_000_003 * deals_played) for index in range(seats)]
        outcomes = pool.map(play_one_deal_game, jobs) if pool is not None else map(play_one_deal_game, jobs)
        for returns, scores, mine, _ in outcomes:
            mark = "wins" if returns[mine] > 0 else "draws" if returns[mine] == 0 else "losses"
            record[level][mark] += 1
            record[level]["points"] += field_score(returns, scores, mine)
            record[level]["games"] += 1
            bar.update(1)
        deals_played += 1

    def current() -> tuple[float, float]:
        return fit_elo([(level["elo"], r["points"], r["games"]) for level, r in zip(levels, record)])

    try:
        for level in range(len(levels)):
            play_deal(level)
        while sum(r["games"] for r in record) + seats <= games:
            rating, _ = current()
            play_deal(next_level(levels, rating, [r["games"] for r in record]))
            bar.set_postfix(elo=f"{rating:,.0f}")
    finally:
        bar.close()
        if pool is not None:
            pool.close()
    rating, error = current()
    return {
        "game": name, "options": envs.describe(name).portable_options(envs.describe(name).resolve_options(options)),
        "agent": agent, "seed": seed, "games": sum(r["games"] for r in record),
        "elo": round(rating, 1), "elo_interval95": [round(rating - 1.96 * error, 1), round(rating + 1.96 * error, 1)],
        "standard_error": round(error, 1),
        "scale": "the game's calibrated levels, level 1 at 0 (docs/agents.md)",
        "levels_calibrated": calibrated,
        "levels": [{"level": level["level"], "name": level["name"], "spec": level["spec"], "elo": level["elo"],
                    **{key: r[key] for key in ("games", "wins", "draws", "losses")},
                    "score": round(r["points"] / r["games"], 3) if r["games"] else None}
                   for level, r in zip(levels, record)],
    }


def report(result: dict[str, Any]) -> str:
    low, high = result["elo_interval95"]
    lines = [f"{result['agent']} on {result['game']} {json.dumps(result['options'])}: "
             f"Elo {result['elo']:,.0f} (95% interval {low:,.0f} … {high:,.0f}; ± {1.96 * result['standard_error']:,.0f}) "
             f"over {result['games']} games"
             + (f", on the levels calibrated {result['levels_calibrated']}" if result.get("levels_calibrated") else ""), "",
             "| level | name | Elo | games | wins | draws | losses | score |", "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for level in result["levels"]:
        score = "–" if level["score"] is None else f"{level['score']:.3f}"
        lines.append(f"| {level['level']} | {level['name']} | {level['elo']:,.0f} | {level['games']} | {level['wins']} | "
                     f"{level['draws']} | {level['losses']} | {score} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, help="the game (linecatch, loom_v0, …)")
    parser.add_argument("--agent", required=True, help="a load_agent spec (heuristic, mcts:200, level:3, …) or an agent file")
    parser.add_argument("--options", type=json.loads, default={}, help="the game's options as JSON (default: the defaults)")
    parser.add_argument("--games", type=int, default=100, help="games in all (default: 100)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents (default: 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes playing games (default: 1)")
    parser.add_argument("--json", default=None, help="also write the result to this file")
    args = parser.parse_args(argv)
    if not isinstance(args.options, dict):
        parser.error(f"--options must be a JSON object, not {args.options!r}")
    if args.workers < 1:
        parser.error(f"--workers must be a positive integer, not {args.workers}")
    try:
        result = rate(args.game, args.agent, args.options, args.games, args.seed, args.workers)
    except ValueError as error:
        parser.error(str(error))
    result["command"] = "python -m training.rate " + shlex.join(argv)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result
