"""Linecatch: the points an agent gives away to perfect play, priced move by move by the exact
solver (``envs.linecatch.solver.move_losses``); ``scripts/linecatch_regret.py`` runs it."""

from __future__ import annotations

import envs
from envs.linecatch.rules import LinecatchGame
from envs.linecatch.solver import LinecatchSolver, move_losses
from training.players.load import load_agent


def agent_points_lost(agent_spec: str, games: int, seed: int = 0, options: dict | None = None,
                      opponent: str = "solver") -> dict:
    """The points an agent gives away to perfect play: it plays ``games`` games against
    ``opponent`` (a load_agent spec; the exact solver by default), seats alternating (game ``i``
    has it as ``player_{i % 2}``); at each of its moves the solver's value of the best move minus
    the value of the move it chose is added up (``envs.linecatch.solver.move_losses``).

    Seeding as ``training.evaluation.tournament.solver_point_loss``: the agent ``seed``, the opponent
    ``seed + 1``, each made once; game ``i`` reset with ``seed + i``. Returns the mean points lost
    per game (with its standard error) and per move, the games without a loss, the mean final
    margin, and per game the points lost."""
    options = LinecatchGame.resolve_options(dict(options or {}))
    solver = LinecatchSolver(options["rows"], options["cols"], options["pro"])
    agent = load_agent(agent_spec, LinecatchGame.NAME, seed=seed, **options)
    other = load_agent(opponent, LinecatchGame.NAME, seed=seed + 1, **options)
    lost, moves, margins = [], 0, []
    for index in range(games):
        mine = index % 2
        seats = [agent, other] if mine == 0 else [other, agent]
        env = envs.load(LinecatchGame.NAME).raw_env(**options)
        env.reset(seed=seed + index)
        record = []
        while not env.game.is_terminal():
            seat = env.game.current_player()
            record.append(int(seats[seat].act(env.observe(env.possible_agents[seat]))))
            env.step(record[-1])
        scores = env.game.scores()
        own = [move for move in move_losses(record, solver=solver) if move.seat == mine]
        lost.append(sum(move.lost for move in own))
        moves += len(own)
        margins.append(scores[mine] - scores[1 - mine])
    mean = sum(lost) / games
    spread = (sum((x - mean) ** 2 for x in lost) / (games - 1)) ** 0.5 if games > 1 else 0.0
    return {"agent": agent_spec, "opponent": opponent, "options": options, "games": games, "seed": seed,
            "empty_board_value": solver.value(0), "mean_points_lost_per_game": mean,
            "standard_error": spread / games ** 0.5, "mean_points_lost_per_move": sum(lost) / max(1, moves),
            "perfect_games": sum(1 for x in lost if x == 0), "mean_margin": sum(margins) / games,
            "points_lost": lost}
