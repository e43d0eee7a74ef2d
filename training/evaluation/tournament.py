"""Tournament between agents: round robin, seats alternated, W/D/L with 95% intervals, Elo.

    python -m training.evaluate --game linecatch --agents heuristic random --games 200
    python -m training.evaluate --game loom --agents checkpoints/loom/loom__maskppo__0.zip heuristic random \\
        --markdown results/loom.md --png results/loom.png

Agents are ``load_agent`` specs: bot names or checkpoint paths. Each pair plays ``--games``
games. The first agent of a pair takes seat ``index % players`` in game ``index`` and the other
agent fills every other seat, so seats alternate (and rotate in 3–4 player games). Games are
dealt in duplicate: the seat rotations of one deal share its seed (the same dice, piles and
tiles), and both agents are seeded by the deal, so a table is reproducible and the same for any
``--workers`` (processes playing games at once). A win counts 1, a draw
½, a loss 0 (in 3–4 player games: sole first place wins, a shared first place draws).
Elo ratings are fitted to all games at once (maximum likelihood, mean rating 1500). A progress
bar on stderr shows each game as it comes back, with the running score of the pair being played.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import envs
from envs.registry import canonical_name as game_name
from training.players.load import load_agent
from training.common.flags import HelpFormatter
from training.common.processes import single_thread_pool
from training.common.progress import Progress


@dataclass
class PairResult:
    first: str
    second: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points_for: list = field(default_factory=list)
    points_against: list = field(default_factory=list)
    outcomes: list = field(default_factory=list)  # each game's score in order: 1, ½ or 0
    seats: list = field(default_factory=list)  # each game's seat of the first agent, in order

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / max(1, self.games)

    def record(self, returns: list[int], scores: list, mine: int) -> None:
        outcome = returns[mine]
        self.wins += outcome > 0
        self.draws += outcome == 0
        self.losses += outcome < 0
        self.outcomes.append(1.0 if outcome > 0 else 0.5 if outcome == 0 else 0.0)
        self.points_for.append(scores[mine])
        self.points_against.append(max(s for i, s in enumerate(scores) if i != mine))
        self.seats.append(mine)

    def by_seat(self) -> list[dict]:
        """The first agent's record in each seat it took (``player_<seat>``): in a game one seat
        wins more often (Fill's second player), a score is mostly the seat's, and this says so."""
        rows = []
        for seat in sorted(set(self.seats)):
            mine = [o for o, s in zip(self.outcomes, self.seats) if s == seat]
            wins, draws = mine.count(1.0), mine.count(0.5)
            rows.append({"seat": seat, "games": len(mine), "wins": wins, "draws": draws,
                         "losses": len(mine) - wins - draws, "score": sum(mine) / len(mine)})
        return rows


def wilson_interval(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a win rate (draws counted as half a win)."""
    if n == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # the bounds at a score of 0 or 1 are exactly 0 and 1 (rounding would leave them a hair inside)
    low = 0.0 if score <= 0 else max(0.0, centre - half)
    high = 1.0 if score >= 1 else min(1.0, centre + half)
    return low, high


def players_of(game: str, options: dict) -> int:
    return envs.describe(game).num_players(options)


def play_game(game: str, seats: list, seed: int, options: dict) -> tuple[list[int], list]:
    """One full game; ``seats[i]`` acts for ``player_i``. Returns (returns, scores)."""
    env = envs.load(game).raw_env(**options)
    env.reset(seed=seed)
    names = env.possible_agents
    engine = env.game
    while not engine.is_terminal():
        seat = engine.current_player()
        env.step(seats[seat].act(env.observe(names[seat])))
        engine = env.game
    return engine.returns(), engine.scores()


def play_match(game: str, agent, other, games: int, seed: int, options: dict, label=("agent", "other"),
               on_game=None) -> PairResult:
    """``agent`` against ``other`` (which fills every other seat), seats rotating per game;
    ``on_game(result)``, when given, sees the running result after each game."""
    n = players_of(game, options)
    result = PairResult(*label)
    for index in range(games):
        mine = index % n
        seats = [other] * n
        seats[mine] = agent
        returns, scores = play_game(game, seats, seed + index, options)
        result.record(returns, scores, mine)
        if on_game is not None:
            on_game(result)
    return result


def play_pair(game: str, first: str, second: str, games: int, seed: int, options: dict, on_game=None) -> PairResult:
    a = load_agent(first, game, seed=seed, **options)
    b = load_agent(second, game, seed=seed + 1, **options)
    return play_match(game, a, b, games, seed, options, label=(first, second), on_game=on_game)


def play_one_deal_game(job: tuple) -> tuple[list[int], list, int, float]:
    """One game of ``upper`` against ``lower`` (which fills the other seats); the game and both
    agents are seeded by its deal, so the outcome does not depend on which worker plays it."""
    game, options, upper, lower, index, seed = job
    n = players_of(game, options)
    mine = index % n
    deal = seed + index // n  # duplicate deals: every seat rotation of a deal shares its chance
    a = load_agent(upper, game, seed=deal * 7919 + 1, **options)
    b = load_agent(lower, game, seed=deal * 7919 + 2, **options)
    seats = [b] * n
    seats[mine] = a
    started = time.perf_counter()
    returns, scores = play_game(game, seats, deal, options)
    return returns, scores, mine, time.perf_counter() - started


def play_pair_parallel(game: str, upper: str, lower: str, games: int, seed: int, options: dict,
                       pool=None, on_game=None) -> tuple[PairResult, float]:
    """Play the pair in duplicate deals (``play_one_deal_game``), on ``pool`` (a process pool)
    or in this process; returns the result (every game's score in order) and seconds per game.
    ``on_game(result)``, when given, sees the running result as each game comes back, in order."""
    jobs = [(game, options, upper, lower, i, seed) for i in range(games)]
    outcomes = pool.imap(play_one_deal_game, jobs, chunksize=1) if pool is not None else map(play_one_deal_game, jobs)
    result = PairResult(upper, lower)
    seconds = 0.0
    for returns, scores, mine, spent in outcomes:
        result.record(returns, scores, mine)
        seconds += spent
        if on_game is not None:
            on_game(result)
    return result, seconds / max(1, games)


def evaluate_against(game: str, agent, opponent, games: int, seed: int, options: dict, detail: bool = False):
    """Score of ``agent`` (an agent object) against ``opponent`` (a spec or an agent).

    Returns the score (win 1, draw ½) or, with ``detail``, a dict with counts and interval.
    """
    other = load_agent(opponent, game, seed=seed + 1, **options) if isinstance(opponent, str) else opponent
    result = play_match(game, agent, other, games, seed, options)
    if not detail:
        return result.score
    low, high = wilson_interval(result.score, result.games)
    return {
        "games": result.games, "wins": result.wins, "draws": result.draws, "losses": result.losses,
        "score": result.score, "interval95": [low, high],
        "mean_points": sum(result.points_for) / max(1, result.games),
        "mean_opponent_points": sum(result.points_against) / max(1, result.games),
    }


def solver_point_loss(agent_spec: str, game: str, games: int, seed: int, options: dict) -> dict:
    """Points the agent gives away against the game's exact solver (a kit solver with
    ``action_values(observation)``: Linecatch up to 25 squares).

    At every move of the agent the solver's value of the best move minus the value of the
    move the agent chose is added up (0 for perfect play); the agent plays the solver with
    seats alternated.
    """
    game = envs.describe(game).name
    agent = load_agent(agent_spec, game, seed=seed, **options)
    opponent = load_agent("solver", game, seed=seed + 1, **options)
    if not hasattr(opponent, "action_values"):
        raise ValueError(f"--solver-loss: {game}'s solver does not report move values")
    losses, moves, margins = [], 0, []
    for index in range(games):
        env = envs.load(game).raw_env(**options)
        env.reset(seed=seed + index)
        mine, lost = index % 2, 0
        while not env.game.is_terminal():
            seat = env.game.current_player()
            observation = env.observe(env.possible_agents[seat])
            if seat == mine:
                values = opponent.action_values(observation)
                action = agent.act(observation)
                lost += max(values.values()) - values[action]
                moves += 1
            else:
                action = opponent.act(observation)
            env.step(action)
        losses.append(lost)
        scores = env.game.scores()
        margins.append(scores[mine] - scores[1 - mine])
    return {
        "games": games, "mean_point_loss_per_game": sum(losses) / games,
        "mean_point_loss_per_move": sum(losses) / max(1, moves),
        "perfect_games": sum(1 for x in losses if x == 0), "mean_margin_vs_solver": sum(margins) / games,
    }


def round_robin(game: str, agents: list[str], games: int, seed: int, options: dict, on_pair=None,
                workers: int | None = None, on_game=None) -> list[PairResult]:
    """Every pair of ``agents`` plays ``games`` games (pair ``i`` seeded ``seed + 1000 * i``);
    ``on_pair(result)``, when given, is called as each pair finishes, ``on_game(result)`` with
    the pair's running result after each of its games (progress).

    ``workers=None``: one agent object per side plays all of a pair's games in turn. An integer:
    duplicate deals with agents seeded per deal (``play_pair_parallel``) on that many
    processes, so the table is the same for any number of workers."""
    pairs = list(itertools.combinations(agents, 2))
    pool = single_thread_pool(workers) if workers and workers > 1 else None
    results = []
    try:
        for i, (first, second) in enumerate(pairs):
            if workers is None:
                results.append(play_pair(game, first, second, games, seed + 1000 * i, options, on_game))
            else:
                results.append(play_pair_parallel(game, first, second, games, seed + 1000 * i, options, pool,
                                                  on_game)[0])
            if on_pair is not None:
                on_pair(results[-1])
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return results


def elo_ratings(results: list[PairResult], iterations: int = 2000) -> dict[str, float]:
    """Maximum-likelihood Elo (Bradley–Terry on a 400-point log10 scale), mean 1500.

    A perfect record has no finite maximum; one virtual draw per pair keeps ratings finite.
    """
    names = sorted({r.first for r in results} | {r.second for r in results})
    rating = dict.fromkeys(names, 0.0)
    for _ in range(iterations):
        step = {}
        for name in names:
            actual = expected = 0.0
            for r in results:
                if name not in (r.first, r.second):
                    continue
                other = r.second if name == r.first else r.first
                mine = r.score if name == r.first else 1 - r.score
                games = r.games + 1
                actual += mine * r.games + 0.5
                expected += games / (1 + 10 ** ((rating[other] - rating[name]) / 400))
            step[name] = 40 * (actual - expected) / max(1.0, expected)
        for name in names:
            rating[name] += step[name]
        mean = sum(rating.values()) / len(rating)
        for name in names:
            rating[name] -= mean
        if max(abs(v) for v in step.values()) < 1e-4:
            break
    return {name: 1500 + value for name, value in rating.items()}


def markdown_table(game: str, options: dict, results: list[PairResult]) -> str:
    head = f"**{envs.describe(game).name}** {json.dumps(options) if options else '(default options)'}\n\n"
    rows = [
        "| agent | vs | games | W | D | L | score | 95% interval | mean points |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        low, high = wilson_interval(r.score, r.games)
        pf = sum(r.points_for) / max(1, r.games)
        pa = sum(r.points_against) / max(1, r.games)
        rows.append(
            f"| {short(r.first)} | {short(r.second)} | {r.games} | {r.wins} | {r.draws} | {r.losses} | "
            f"{r.score:.1%} | {low:.1%}–{high:.1%} | {pf:.1f} : {pa:.1f} |"
        )
    ratings = elo_ratings(results)
    rows += ["", "| agent | Elo |", "|---|---:|"]
    rows += [f"| {short(name)} | {value:.0f} |" for name, value in sorted(ratings.items(), key=lambda kv: -kv[1])]
    return head + "\n".join(rows)


def chart_data(results: list[PairResult]) -> dict:
    """What the round-robin chart shows: per pair a bar (the first agent's score, its 95%
    interval, and the numbers written over the bar: the score and W-D-L, placed just above the
    interval's top), and per agent its Elo (highest first), the number written at the bar's end."""
    bars = []
    for r in results:
        low, high = wilson_interval(r.score, r.games)
        bars.append({"label": f"{short(r.first).replace('__', chr(10))}\nvs {short(r.second)}", "score": r.score,
                     "low": low, "high": high, "text": f"{r.score:.1%}\n{r.wins}-{r.draws}-{r.losses}",
                     "text_y": high + 0.02})
    ratings = sorted(elo_ratings(results).items(), key=lambda kv: -kv[1]) if results else []
    elo = [{"agent": short(name), "elo": value, "text": f"{value:.0f}"} for name, value in ratings]
    return {"bars": bars, "elo": elo}


def chart_figure(game: str, results: list[PairResult]):
    """The round-robin chart as a matplotlib figure (:func:`chart_data`'s numbers): left, one
    bar per pair with its interval, score and W-D-L over it; right, every agent's Elo."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = chart_data(results)
    bars, elo = data["bars"], data["elo"]
    fig, (ax, ax_elo) = plt.subplots(1, 2, figsize=(max(4, 2.2 * len(bars)) + 3.2, 4.2),
                                     gridspec_kw={"width_ratios": [max(4, 2.2 * len(bars)), 3.2]})
    positions = range(len(bars))
    ax.bar(positions, [b["score"] for b in bars], color="#4C72B0",
           yerr=[[b["score"] - b["low"] for b in bars], [b["high"] - b["score"] for b in bars]], capsize=4)
    for i, b in enumerate(bars):
        ax.text(i, b["text_y"], b["text"], ha="center", va="bottom", fontsize=8)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xticks(list(positions), [b["label"] for b in bars], fontsize=8)
    ax.set_ylim(0, 1.2)  # room for the numbers over a bar whose interval reaches 1
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_ylabel("score of the first agent")
    ax.set_title(f"{game}: round robin (score, W-D-L, 95% interval)")
    rows = range(len(elo))
    base = min([e["elo"] for e in elo] + [1500]) - 100
    ax_elo.barh(list(rows), [e["elo"] - base for e in elo], left=base, color="#DD8452")
    for i, e in enumerate(elo):
        ax_elo.text(e["elo"] + 5, i, e["text"], va="center", fontsize=8)
    ax_elo.set_yticks(list(rows), [e["agent"] for e in elo], fontsize=8)
    ax_elo.invert_yaxis()  # the highest rating on top
    if elo:
        ax_elo.set_xlim(base, max(e["elo"] for e in elo) + 120)
    ax_elo.set_xlabel("Elo (mean 1500)")
    ax_elo.set_title("Elo")
    fig.tight_layout()
    return fig


def draw_chart(game: str, results: list[PairResult], path: str | Path) -> Path:
    """A PNG of :func:`chart_figure`: the pairs' scores with their numbers, and the Elo ratings."""
    import matplotlib.pyplot as plt

    fig = chart_figure(game, results)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def pair_summary(result: PairResult) -> dict:
    """A pair's counts, score, 95% Wilson interval and mean points (the first agent's and its
    opponent's per game, as the printed table's "mean points"), as the trainers' evaluation
    JSON has them."""
    low, high = wilson_interval(result.score, result.games)
    games = max(1, result.games)
    return {"agent": result.first, "opponent": result.second, "games": result.games, "wins": result.wins,
            "draws": result.draws, "losses": result.losses, "score": result.score, "interval95": [low, high],
            "mean_points": sum(result.points_for) / games, "mean_opponent_points": sum(result.points_against) / games,
            "by_seat": result.by_seat()}


def json_table(game: str, options: dict, command: str, results: list[PairResult]) -> dict:
    """The ``--json`` file: what the printed table shows (every pair's counts, score, interval and
    mean points; every agent's Elo, highest first), with the game, options and command."""
    ratings = sorted(elo_ratings(results).items(), key=lambda kv: -kv[1]) if results else []
    return {"game": envs.describe(game).name, "options": options, "command": command,
            "pairs": [pair_summary(r) for r in results],
            "elo": {name: value for name, value in ratings}}


def short(spec: str) -> str:
    return Path(spec).stem if spec.endswith(".zip") else spec


def main(argv: list[str] | None = None) -> list[PairResult]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--game", required=True, help="env name, e.g. linecatch or loom_v0")
    parser.add_argument("--agents", nargs="+", required=True, help="load_agent specs (two or more)")
    parser.add_argument("--games", type=int, default=200, help="games per pair (seats alternate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", default="{}", help="env options as JSON")
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--png", help="also draw the chart to this PNG file")
    parser.add_argument("--json", help="also write the table to this JSON file: every pair's counts, score, interval, "
                                       "mean points and record in each seat, every agent's Elo")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes playing games at once; games are dealt in duplicate and seeded per deal, "
                             "so the table is the same for any number")
    parser.add_argument("--solver-loss", action="store_true",
                        help="games with an exact solver (Linecatch ≤ 25 squares): also report each agent's point loss against it")
    args = parser.parse_args(argv)
    if len(args.agents) < 2:
        parser.error("--agents needs at least two agents")
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    game = game_name(args.game)
    options = json.loads(args.options)
    started = time.perf_counter()
    # on stderr: stdout keeps the table (a 400-game search pair can run for an hour)
    with Progress(args.games * len(args.agents) * (len(args.agents) - 1) // 2, "games", unit="game",
                  file=sys.stderr, mininterval=2.0) as progress:
        results = round_robin(game, args.agents, args.games, args.seed, options, workers=args.workers,
                              on_game=lambda r: progress.update(1, f"{short(r.first)} vs {short(r.second)}: "
                                                                   f"{r.score:.1%} after {r.games}"))
    table = markdown_table(game, options, results)
    print(table)
    print("\nBy seat, the first agent's W–D–L and score as each player:")
    for r in results:
        print(f"  {short(r.first)} vs {short(r.second)}: " + "; ".join(
            f"player_{row['seat']} {row['wins']}–{row['draws']}–{row['losses']} ({row['score']:.1%})" for row in r.by_seat()))
    print(f"\n({sum(r.games for r in results)} games in {time.perf_counter() - started:.1f} s)")
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(table + "\n")
    if args.png:
        print(f"chart: {draw_chart(game, results, args.png)}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        command = "python -m training.evaluate " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
        Path(args.json).write_text(json.dumps(json_table(game, options, command, results), indent=1) + "\n")
    if args.solver_loss:
        for spec in args.agents:
            if spec != "solver":
                loss = solver_point_loss(spec, args.game, args.games, args.seed, options)
                print(f"{short(spec)} against the exact solver: {json.dumps(loss)}")
    return results


if __name__ == "__main__":
    main()
