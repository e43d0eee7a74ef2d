"""Learning curves: the agents a training run saved along the way, scored against fixed opponents.

    python scripts/learning_curves.py runs/loom__alphazero__0__<time> runs/loom__maskppo__0__<time> \\
        --opponents heuristic mcts:100:depth=2:margin=1 --games 100 --out docs/curves/loom

    python scripts/learning_curves.py runs/linecatch__gumbel__1__<time> runs/linecatch__alphazero__1__<time> \\
        --rate 60 --out docs/curves/linecatch_elo

A run folder of ``training.alphazero`` or ``training.gumbel`` keeps every evaluated network in
``snapshots/``; one of ``training.train`` (MaskablePPO) keeps its evaluated policies in
``snapshots/`` too. Each
snapshot records the wall-clock seconds and the self-play positions (environment steps for
MaskablePPO) it had trained for. Every snapshot plays ``--games`` games against each opponent
(seats alternated, draws half, seeded), in parallel over ``--workers`` processes; the result
is a table (markdown and JSON, with 95% Wilson intervals) and a PNG with the score over
wall-clock time and over positions, one line per run and opponent. With ``--rate N`` every
snapshot is instead placed on the game's calibrated Elo scale by ``training.rate`` (N games
against the levels, duplicate deals, adaptive; the Elo's 95% interval), one line per run.
Timings belong here, in reports, not in tests.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.evaluation.tournament import wilson_interval  # noqa: E402


def snapshot_facts(path: Path) -> dict:
    """Algorithm, wall-clock seconds and positions recorded in an agent file's metadata."""
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("meta.json"))
    positions = meta.get("positions", meta.get("steps_trained", 0))
    return {"path": str(path), "game": meta["game"], "options": meta.get("options", {}),
            "algo": algo_of(str(meta.get("algo", ""))),
            "wall_seconds": float(meta.get("wall_seconds", 0.0)), "positions": int(positions)}


def algo_of(described: str) -> str:
    """The job that wrote an agent file, from its metadata's ``algo`` words."""
    return "gumbel" if "gumbel" in described else "alphazero" if "alphazero" in described else "maskppo"


def rated(path: Path, facts: dict, run: str, games: int, seed: int, workers: int) -> dict:
    """One snapshot on the calibrated Elo scale (``training.rate``), as a row of the table."""
    from training.evaluation.rating import rate

    result = rate(facts["game"], str(path), facts["options"], games, seed, workers=workers, progress=False)
    return {**facts, "run": run, "opponent": "levels (Elo)", "games": result["games"], "elo": result["elo"],
            "interval95": result["elo_interval95"]}


def per_opponent(parser, flag: str, values: list[int], opponents: list[str]) -> dict[str, int]:
    """``--games``/``--every`` as one value for every opponent or one value per opponent."""
    if len(values) not in (1, len(opponents)) or min(values) < 1:
        parser.error(f"{flag} takes one positive number or one per opponent ({len(opponents)}), not {values}")
    return dict(zip(opponents, values * len(opponents) if len(values) == 1 else values))


def play(job: tuple) -> tuple[int, float]:
    from training.players.load import load_agent
    from training.evaluation.tournament import play_game
    import envs

    index, path, opponent, game, options, seed = job
    players = envs.describe(game).num_players(options)
    mine = index % players
    agent = load_agent(path, game, seed=seed + index, **options)
    other = load_agent(opponent, game, seed=seed + 50_000 + index, **options)
    seats = [other] * players
    seats[mine] = agent
    returns, _ = play_game(game, seats, seed + index, options)
    outcome = returns[mine]
    return index, 1.0 if outcome > 0 else 0.5 if outcome == 0 else 0.0


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="run folders with a snapshots/ folder")
    parser.add_argument("--opponents", nargs="+", default=["heuristic"], help="load_agent specs")
    parser.add_argument("--games", type=int, nargs="+", default=[100],
                        help="games per snapshot: one number, or one per opponent (search opponents cost more)")
    parser.add_argument("--every", type=int, nargs="+", default=[1],
                        help="score every k-th snapshot (the first and last always): one number, or one per opponent "
                             "(with --rate: one number, or one per run)")
    parser.add_argument("--rate", type=int, default=0, metavar="N",
                        help="rate every snapshot on the calibrated Elo scale with N games (training.rate) "
                             "instead of scoring it against --opponents")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7_000_000)
    parser.add_argument("--out", required=True, help="path prefix of the .md, .json and .png written")
    args = parser.parse_args(argv)
    games = per_opponent(parser, "--games", args.games, args.opponents)
    every = per_opponent(parser, "--every", args.every if not args.rate else [1], args.opponents)
    if args.rate and (len(args.every) not in (1, len(args.runs)) or min(args.every) < 1):
        parser.error(f"--every takes one positive number or one per run ({len(args.runs)}) with --rate, "
                     f"not {args.every}")
    every_run = dict(zip(args.runs, args.every * len(args.runs) if len(args.every) == 1 else args.every))
    rows = []
    with multiprocessing.Pool(args.workers) as pool:
        for name in args.runs:
            run = Path(name)
            snapshots = sorted((run / "snapshots").glob("*.zip"))
            if not snapshots:
                raise SystemExit(f"{run} has no snapshots/ folder with agent files")
            for number, path in enumerate(snapshots):
                facts = snapshot_facts(path)
                if args.rate:
                    if number % every_run[name] and path != snapshots[-1]:
                        continue
                    rows.append(rated(path, facts, run.name, args.rate, args.seed, args.workers))
                    print(f"{run.name} {path.name} ({facts['wall_seconds'] / 60:.0f} min): Elo {rows[-1]['elo']:,.0f} "
                          f"({rows[-1]['interval95'][0]:,.0f} to {rows[-1]['interval95'][1]:,.0f})", flush=True)
                    continue
                for opponent in args.opponents:
                    if number % every[opponent] and path != snapshots[-1]:
                        continue
                    jobs = [(i, str(path), opponent, facts["game"], facts["options"], args.seed)
                            for i in range(games[opponent])]
                    outcomes = [score for _, score in pool.imap_unordered(play, jobs)]
                    score = sum(outcomes) / len(outcomes)
                    low, high = wilson_interval(score, len(outcomes))
                    row = {**facts, "run": run.name, "opponent": opponent, "games": len(outcomes), "score": score,
                           "interval95": [low, high]}
                    rows.append(row)
                    print(f"{run.name} {path.name} ({facts['wall_seconds'] / 60:.0f} min, {facts['positions']:,} positions) "
                          f"vs {opponent}: {score:.1%} ({low:.1%}–{high:.1%})", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = ["| run | snapshot | minutes | positions | vs | games | score | 95% Wilson |", "|---|---|---:|---:|---|---:|---:|---|"]
    if args.rate:
        lines = ["| run | snapshot | minutes | positions | games | Elo | 95% interval |", "|---|---|---:|---:|---:|---:|---|"]
        lines += [f"| {r['run']} | {Path(r['path']).name} | {r['wall_seconds'] / 60:.0f} | {r['positions']:,} | "
                  f"{r['games']} | {r['elo']:,.0f} | {r['interval95'][0]:,.0f} to {r['interval95'][1]:,.0f} |" for r in rows]
    for r in rows if not args.rate else []:
        lines.append(f"| {r['run']} | {Path(r['path']).name} | {r['wall_seconds'] / 60:.0f} | {r['positions']:,} | {r['opponent']} | "
                     f"{r['games']} | {r['score']:.1%} | {r['interval95'][0]:.1%}–{r['interval95'][1]:.1%} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    draw(rows, out.with_suffix(".png"))
    print(f"wrote {out.with_suffix('.md')}, {out.with_suffix('.json')}, {out.with_suffix('.png')}")
    return {"rows": rows}


def figure_of(rows: list[dict]):
    """The learning curves as a matplotlib figure: score over wall-clock minutes (left) and over
    positions (right), one line per run and opponent, the legend under both axes (outside them,
    so it never covers a curve)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    measure = "elo" if rows and "elo" in rows[0] else "score"
    series: dict[tuple, list[dict]] = {}
    for r in rows:
        series.setdefault((r["run"], r["algo"], r["opponent"]), []).append(r)
    for (run, algo, opponent), points in series.items():
        label = f"{algo} vs {opponent}"
        for axis, key, scale in ((axes[0], "wall_seconds", 60.0), (axes[1], "positions", 1.0)):
            x = [p[key] / scale for p in points]
            y = [p[measure] for p in points]
            errors = [[p[measure] - p["interval95"][0] for p in points], [p["interval95"][1] - p[measure] for p in points]]
            axis.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=label)
    axes[0].set_xlabel("wall-clock minutes of training (2 cores)")
    axes[1].set_xlabel("self-play positions (MaskablePPO: environment steps)")
    # thousands, or millions, so long runs' tick labels do not run into each other
    largest = max((r["positions"] for r in rows), default=0)
    unit, suffix = (1e6, "M") if largest >= 2e6 else (1e3, "k")
    axes[1].xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / unit:,.4g}{suffix}"))
    axes[0].set_ylabel("Elo on the calibrated levels (level 1 = 0), 95% interval" if measure == "elo"
                       else "score (win 1, draw ½), 95% interval")
    for axis in axes:
        if measure == "score":
            axis.axhline(0.5, color="grey", lw=0.8, ls=":")
            axis.set_ylim(0, 1)
        axis.grid(alpha=0.3)
    game = rows[0]["game"] if rows else ""
    figure.suptitle(f"{game}: learning curves")
    handles, labels = axes[0].get_legend_handles_labels()
    columns = min(4, max(1, len(labels)))
    legend_rows = -(-len(labels) // columns)
    figure.set_size_inches(11, 4.2 + 0.25 * legend_rows)
    # the legend below the axes, in a band of the figure kept free for it
    band = (0.2 + 0.25 * legend_rows) / (4.2 + 0.25 * legend_rows)
    if labels:
        figure.legend(handles, labels, loc="lower center", ncol=columns, fontsize=8, frameon=False,
                      bbox_to_anchor=(0.5, 0.0))
    figure.tight_layout(rect=(0, band, 1, 1))
    return figure


def draw(rows: list[dict], path: Path) -> None:
    import matplotlib.pyplot as plt

    figure = figure_of(rows)
    figure.savefig(path, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    main()
