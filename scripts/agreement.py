"""How often an agent plays the move a teacher bot would, by kind of move.

    python scripts/agreement.py --game uzor --agent checkpoints/uzor/uzor__dagger__24.zip \
        --teacher heuristic --games 12

The agent plays ``--games`` games against the teacher, seats alternating. At every decision of
the agent with more than one legal move the teacher is asked what it would play from the same
observation; the table gives, per kind of the teacher's move (the first word of its notation,
``move`` where the notation has none: ``place``, ``take``, ``close``, ``cut`` …), how many
decisions there were, how often the agent chose the same move, how often a move of the same
kind, and the agent's mean negative log-likelihood of the teacher's move (nats; from
``action_probabilities``, so only for agents that have them). It tells where an imitating
network falls short of its teacher.
"""

from __future__ import annotations

import argparse
import json
import re

import numpy as np

import envs
from training.players.load import load_agent


def kind_of(notation: str) -> str:
    match = re.match(r"([a-z]+)(?:[ /]|$)", notation)
    return match.group(1) if match else "move"


def agreement(game: str, agent_spec: str, teacher_spec: str, games: int, seed: int = 0,
              options: dict | None = None) -> dict[str, dict[str, float]]:
    options = options or {}
    table: dict[str, list[float]] = {}
    for index in range(games):
        game_seed = seed + index
        env = envs.load(game).raw_env(**options)
        env.reset(seed=game_seed)
        agent = load_agent(agent_spec, game, seed=game_seed, **options)
        teacher = load_agent(teacher_spec, game, seed=game_seed, **options)
        mine = index % len(env.possible_agents)
        while not env.game.is_terminal():
            player = env.game.current_player()
            observation = env.observe(env.possible_agents[player])
            legal = np.flatnonzero(observation["action_mask"])
            if len(legal) == 1:
                env.step(int(legal[0]))
                continue
            taught = int(teacher.act(observation))
            if player != mine:
                env.step(taught)
                continue
            chosen = int(agent.act(observation))
            kind = kind_of(env.game.action_to_string(taught))
            row = table.setdefault(kind, [0, 0, 0, 0.0, 0])
            row[0] += 1
            row[1] += chosen == taught
            row[2] += kind_of(env.game.action_to_string(chosen)) == kind
            if hasattr(agent, "action_probabilities"):
                row[3] += -float(np.log(max(agent.action_probabilities(observation)[taught], 1e-12)))
                row[4] += 1
            env.step(chosen)
    return {kind: {"decisions": n, "same_move": same / n, "same_kind": same_kind / n,
                   "nll": (nll / counted if counted else float("nan"))}
            for kind, (n, same, same_kind, nll, counted) in sorted(table.items())}


def parse_sample(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The flags of a measurement over sample games (this script's and ``uzor_regret.py``'s):
    ``--agent``, ``--games``, ``--seed``, ``--options``, besides the parser's own."""
    parser.add_argument("--agent", required=True, help="the agent (a load_agent spec or agent file)")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", type=json.loads, default={}, help="env options as JSON")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be a positive integer, not {args.games}")
    return args


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--teacher", default="heuristic", help="the bot whose moves are compared (load_agent spec)")
    args = parse_sample(parser, argv)
    result = agreement(args.game, args.agent, args.teacher, args.games, args.seed, args.options)
    print(f"{args.agent} against {args.teacher}, {args.game}, {args.games} games: its decisions, by the teacher's move")
    print("| teacher's move | decisions | same move | same kind | NLL of the teacher's move |")
    print("|---|---:|---:|---:|---:|")
    for kind, row in result.items():
        print(f"| {kind} | {row['decisions']} | {row['same_move']:.1%} | {row['same_kind']:.1%} | {row['nll']:.2f} |")
    return result


if __name__ == "__main__":
    main()
