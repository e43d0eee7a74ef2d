"""Uzor: how far an agent's moves fall below the best that the ``thorough`` bot prices, by kind.

    python scripts/uzor_regret.py --agent checkpoints/uzor/uzor__dagger__22.zip --games 12

The agent plays ``--games`` games against ``--opponent`` (the heuristic), seats alternating,
games seeded ``--seed`` on. At each of the agent's decisions with more than one legal move,
``thorough`` prices every legal move from the same observation, as it does when it chooses
(``ThoroughUzorBot.move_scores``: placements by what they close, prepare and leave the
opponent; market tiles, discards and the fork's CLOSE / CONTINUE by their own scores). Per kind
of move the table gives the decisions, the share whose move is among the best-priced (ties
within ``ThoroughUzorBot.TIE``), the same share where the best price is above 0 (where
something is at stake: most quiet placements tie at 0), and the regret (the best price less the
chosen move's) per decision and per game. It tells where a network taught by ``thorough``
still departs from it, in the teacher's own units.
"""

from __future__ import annotations

import argparse

import envs
from envs.uzor.common import DEAD_TAKE, DISCARD, FORK, PLACE, TAKE
from training.players.load import load_agent
from training.bots.uzor_heuristic import ThoroughUzorBot

from agreement import parse_sample  # scripts/agreement.py, beside this file

KINDS = {PLACE: "place", TAKE: "take", DEAD_TAKE: "take", DISCARD: "discard", FORK: "fork"}


def regret(agent_spec: str, games: int, seed: int = 0, opponent: str = "heuristic",
           options: dict | None = None) -> dict[str, dict[str, float]]:
    options = options or {}
    rows: dict[str, list[float]] = {}  # kind -> decisions, in best set, stakes, in best set at stake, regret
    for index in range(games):
        game_seed = seed + index
        env = envs.load("uzor").raw_env(**options)
        env.reset(seed=game_seed)
        agent = load_agent(agent_spec, "uzor", seed=game_seed, **options)
        other = load_agent(opponent, "uzor", seed=game_seed + 1, **options)
        judge = ThoroughUzorBot(seed=0, **options)
        mine = index % 2
        while not env.game.is_terminal():
            player = env.game.current_player()
            observation = env.observe(env.possible_agents[player])
            if player != mine:
                env.step(int(other.act(observation)))
                continue
            chosen = int(agent.act(observation))
            weighed = judge.move_scores(observation)
            if weighed is not None:
                phase, legal, scores = weighed
                best = max(scores)
                worth = scores[legal.index(chosen)]
                row = rows.setdefault(KINDS[phase], [0, 0, 0, 0, 0.0])
                in_best = worth >= best - ThoroughUzorBot.TIE
                at_stake = best > ThoroughUzorBot.TIE
                row[0] += 1
                row[1] += in_best
                row[2] += at_stake
                row[3] += in_best and at_stake
                row[4] += best - worth
            env.step(chosen)
    return {kind: {"decisions": n, "best_share": in_best / n,
                   "best_share_at_stake": (best_at_stake / stakes if stakes else float("nan")),
                   "regret_per_decision": total / n, "regret_per_game": total / games}
            for kind, (n, in_best, stakes, best_at_stake, total) in sorted(rows.items())}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", default="heuristic", help="whom it plays (load_agent spec)")
    args = parse_sample(parser, argv)
    result = regret(args.agent, args.games, args.seed, args.opponent, args.options)
    print(f"{args.agent} against {args.opponent}, {args.games} games: its decisions, priced by thorough")
    print("| move | decisions | in the best-priced set | …where the best price > 0 | regret a decision | regret a game |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind, row in result.items():
        print(f"| {kind} | {row['decisions']} | {row['best_share']:.1%} | {row['best_share_at_stake']:.1%} | "
              f"{row['regret_per_decision']:.3f} | {row['regret_per_game']:.2f} |")
    return result


if __name__ == "__main__":
    main()
