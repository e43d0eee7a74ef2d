"""Scheduled evaluation: the network's policy (or its guided search) against fixed opponents."""

from __future__ import annotations

from typing import Any

import envs
from training.jobs.alphazero.self_play import Workers

# ----- evaluation -----------------------------------------------------------------------------


def evaluate_task(task: dict) -> dict:
    """Games of one agent file (policy or search) against one opponent, seats alternated."""
    from training.players.load import load_agent
    from training.evaluation.tournament import play_game

    game, options = task["game"], task["options"]
    players = envs.describe(game).num_players(options)
    totals = {"wins": 0, "draws": 0, "losses": 0, "outcomes": []}
    for index in task["indices"]:
        mine = index % players
        agent = load_agent(task["agent"], game, seed=task["seed"] + index, **options)
        other = load_agent(task["opponent"], game, seed=task["seed"] + 100_000 + index, **options)
        seats = [other] * players
        seats[mine] = agent
        returns, _ = play_game(game, seats, task["seed"] + index, options)
        outcome = returns[mine]
        totals["wins" if outcome > 0 else "draws" if outcome == 0 else "losses"] += 1
        totals["outcomes"].append((index, 1.0 if outcome > 0 else 0.5 if outcome == 0 else 0.0))
    return totals


def evaluate_agent(workers: Workers, game: str, options: dict, agent: str, opponent: str, games: int,
                   seed: int) -> dict[str, Any]:
    from training.evaluation.tournament import wilson_interval

    shares = [list(range(i, games, workers.count)) for i in range(workers.count)]
    tasks = [{"game": game, "options": options, "agent": agent, "opponent": opponent, "indices": s, "seed": seed}
             for s in shares if s]
    parts = workers.map(evaluate_task, tasks)
    wins = sum(p["wins"] for p in parts)
    draws = sum(p["draws"] for p in parts)
    losses = sum(p["losses"] for p in parts)
    score = (wins + 0.5 * draws) / max(1, games)
    low, high = wilson_interval(score, games)
    return {"agent": agent, "opponent": opponent, "games": games, "wins": wins, "draws": draws, "losses": losses,
            "score": score, "interval95": [low, high]}
