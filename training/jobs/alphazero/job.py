"""Search-and-learn training (AlphaZero / Expert Iteration) for any suite game: the job, read top to bottom.

    python -m training.alphazero --game linecatch                       # default options, a seed
    python -m training.alphazero --game loom --iterations 40 --simulations 32 --warm-start heuristic
    python -m training.alphazero --resume runs/loom__alphazero__0__20261201-101500
    python -m training.alphazero --game knot --ray-address auto         # self-play on a Ray cluster

Each iteration:

1. **self-play** — workers (one process per core, or Ray actors with ``--ray-address``) play
   games with the current network guiding the search (``training.search.guided``: Gumbel root
   selection with sequential halving, the network's value at the leaves, states sampled from
   the mover's own observation). Many games run at once in each worker and their leaves are
   scored in one network call. Every decision with more than one legal move is recorded: the
   mover's flat observation, its mask, the search's improved policy; at the end every record
   gets the game's outcome and the final score margin, from the mover's side;
2. **learning** — minibatches from a replay buffer of the latest positions, each batch mapped by
   one of the game's symmetries (``Observer.symmetries``: planes, policy and mask together);
   loss = policy cross-entropy + value MSE + ``margin_weight`` × margin MSE;
3. **evaluation** on a schedule — the network's policy alone against ``random`` and
   ``heuristic`` (and, with ``--eval-mcts-games``, the network-guided search against
   ``mcts:100`` of the game's ladder settings), seats alternated; printed and logged to
   TensorBoard. The best policy so far (its score against the heuristic) is kept; at the end
   it and the last network play fresh games and the winner is the one the final evaluation
   scores (``evaluation.json``: ``final_selection``, ``final_evaluation``).

An optional **warm start** first imitates a teacher (``--warm-start heuristic`` or
``--warm-start mcts:100``): the teacher plays both seats, its choices (its visit shares where it
has them) are the policy targets, the outcomes the value targets.

Outputs go to ``runs/<game>__alphazero__<seed>__<time>/``: ``config.json``, TensorBoard logs,
``state.pt`` (everything ``--resume`` needs: network, optimiser, replay buffer, counters, random
generators), ``latest.zip`` and ``best.zip`` (agent files that ``load_agent`` plays with numpy
alone), ``snapshots/iteration_NNNN.zip`` (every evaluated network, for learning curves) and
``evaluation.json``. Training a game may take longer than one sitting: the state is
saved after every iteration, and ``--resume RUN_DIR`` continues where it stopped.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
import sys
import time
from typing import Any, Callable, Collection

from training.common.flags import flags_given, parse_flags
from training.jobs.alphazero.config import AlphaZeroConfig, check_config
from training.jobs.alphazero.evaluation import evaluate_agent
from training.jobs.alphazero.run import RESUMABLE, Run
from training.jobs.config import check_start_layout, read_start_agent
from training.jobs.alphazero.self_play import Workers, play_games


def parse_config(argv: list[str] | None = None) -> AlphaZeroConfig:
    config = parse_flags(AlphaZeroConfig, argv, __doc__, prog="abstract-games alphazero")
    check_config(config)
    return config


def train(config: AlphaZeroConfig, command: str, given: Collection[str] = ()) -> dict[str, Any]:
    """Run (or with ``--resume`` continue) the job ``config`` describes; ``command`` is recorded
    as the command that made it, ``given`` names the fields its command line set
    (:func:`flags_given`)."""
    from torch.utils.tensorboard import SummaryWriter

    run = _open_run(config, command, set(given))
    config = run.config
    writer = SummaryWriter(str(run.dir / "tensorboard"))
    run.workers = Workers(config.workers, config.ray_address)
    deadline = time.perf_counter() + 60 * config.max_minutes if config.max_minutes else math.inf
    session_started = time.perf_counter()
    wall_before = run.wall_seconds

    def wall_seconds() -> float:  # every sitting's time: the earlier ones' and this one's so far
        return wall_before + (time.perf_counter() - session_started)

    print(f"{run.game} {run.options or '(default options)'}: planes {run.architecture.planes}, "
          f"{run.actions} actions, {len(run.learner.symmetries)} symmetries; network {config.filters}×{config.blocks}",
          flush=True)
    try:
        if config.warm_start and not run.warm_started:
            run.warm_start(_progress)
            run.wall_seconds = wall_seconds()
            results = run.evaluate(config.eval_games)
            if results:
                print("  after the warm start: " + "; ".join(f"vs {o} {r['score']:.1%}" for o, r in results.items()),
                      flush=True)
            for opponent, result in results.items():
                writer.add_scalar(f"eval/{opponent}", result["score"], 0)
            run.history.append({"iteration": 0, "games": 0, "positions": 0, "wall_seconds": round(run.wall_seconds, 1),
                                "warm_start": config.warm_start, "evaluation": results})
            run.save_state()
            run.save_agent("latest.zip")  # the imitation alone is an agent (all of it with --iterations 0)
        while run.iteration < config.iterations and time.perf_counter() < deadline:
            line = _iteration(run, writer, wall_seconds)
            _scheduled_evaluation(run, writer, line)
            run.history.append(line)
            run.save_state()
            run.save_agent("latest.zip")
    except BaseException:
        run.workers.close()
        writer.close()
        raise
    final, selection = {}, {}
    try:
        if run.iteration >= config.iterations and config.final_eval_games:
            final, selection = _final_evaluation(run)
    finally:
        run.workers.close()
        writer.close()
    summary = {"run": str(run.dir), "game": run.game, "options": run.options, "iterations": run.iteration,
               "self_play_games": run.games_played, "positions": run.positions, "wall_seconds": run.wall_seconds,
               "command": run.command, "history": run.history, "final_selection": selection, "final_evaluation": final}
    (run.dir / "evaluation.json").write_text(json.dumps(summary, indent=1, default=float))
    return summary


def _progress(**kwargs):
    """A progress bar on stdout, redrawn at most every two seconds."""
    from tqdm import tqdm

    return tqdm(file=sys.stdout, dynamic_ncols=True, mininterval=2.0, **kwargs)


def _open_run(config: AlphaZeroConfig, command: str, given: set[str]) -> Run:
    """The run ``--resume`` names (the flags ``given`` among :data:`RESUMABLE` override its
    settings), or a new one, its network from ``--init-from``'s agent file where one is named,
    its folder made and its ``config.json`` written."""
    if config.resume:
        overrides = {k: v for k, v in dataclasses.asdict(config).items() if k in RESUMABLE and k in given}
        run = Run.resume(config.resume, overrides)
        run.command = f"{run.command} && {command}"  # the agent's meta records every sitting
        print(f"resuming {run.dir} at iteration {run.iteration} ({run.games_played} games, {run.positions} positions)",
              flush=True)
        return run
    start = None
    if config.init_from:
        config, meta, start = read_start_agent(config, given)
    run = Run(config, command)
    if start is not None:
        check_start_layout(config, meta, start.pop("policy.index"), run.architecture, run.index)
        run.learner.load_folded(start)
        run.margin_scale = float(meta["margin_scale"])
        print(f"network from {config.init_from} (iteration {meta.get('iteration')}, "
              f"{meta.get('positions')} positions)", flush=True)
    run.dir.mkdir(parents=True, exist_ok=True)
    (run.dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
    print(f"run folder: {run.dir}", flush=True)
    return run


def _self_play(run: Run) -> tuple[list[dict], int, int, float]:
    """One iteration's self-play games, their records added to the replay buffer; the workers'
    parts, the games, the positions and the seconds it took."""
    config = run.config
    started = time.perf_counter()
    first_seed = config.seed * 1_000_003 + run.games_played
    tasks = run.tasks(config.games_per_iteration, first_seed, config.concurrent_games,
                      opponent_games=run.opponent_games(first_seed),
                      architecture=dataclasses.asdict(run.architecture), state_dict=run.learner.state_dict(),
                      index=run.index, value_mix=config.value_mix, hook_weight=config.hook_value_weight,
                      opponent_outcomes=config.opponent_outcomes,
                      margin_scale=run.margin_scale if run.margin_scale is not None else 1.0,
                      simulations=config.simulations, considered=config.considered,
                      concurrent=config.concurrent_games)
    with _progress(total=config.games_per_iteration, desc=f"iteration {run.iteration + 1} self-play",
                   leave=False) as bar:
        parts = run.workers.map(play_games, tasks, bar)
    games, positions = run.add_records(parts)
    return parts, games, positions, time.perf_counter() - started


def _iteration(run: Run, writer, wall_seconds: Callable[[], float]) -> dict[str, Any]:
    """Self-play, then learning; the iteration's line of the history (printed, and logged to
    TensorBoard)."""
    config = run.config
    parts, games, positions, play_seconds = _self_play(run)
    run.games_played += games
    run.positions += positions
    run.self_play_seconds += play_seconds
    worker_seconds = sum(p["seconds"] for p in parts)
    network_share, planes_share = (sum(p[key] for p in parts) / max(worker_seconds, 1e-9)
                                   for key in ("network_seconds", "planes_seconds"))
    moves = sum(r.moves for p in parts for r in p["records"])
    against: dict[str, list[float]] = {}
    for name, score in (x for p in parts for x in p.get("opponent_scores", ())):
        against.setdefault(name, []).append(score)
    run.iteration += 1
    with _progress(total=config.steps_per_iteration, desc=f"iteration {run.iteration}/{config.iterations} learning",
                   leave=False) as bar:
        losses = run.learn(config.steps_per_iteration, bar, f"{len(run.buffer.vectors[:run.buffer.size])} in buffer")
    run.wall_seconds = wall_seconds()
    line = {"iteration": run.iteration, "games": run.games_played, "positions": run.positions,
            "wall_seconds": round(run.wall_seconds, 1), "self_play_positions_per_second": positions / max(play_seconds, 1e-9),
            "network_share_of_self_play": network_share,
            "planes_share_of_self_play": planes_share, "moves_per_game": moves / max(1, games), **losses}
    if against:
        line["self_play_score_vs_opponent"] = {name: sum(v) / len(v) for name, v in against.items()}
    print(f"iteration {run.iteration}: {games} games ({moves / max(1, games):.0f} moves), {positions} positions "
          f"in {play_seconds:.0f} s ({line['self_play_positions_per_second']:.1f}/s, network {network_share:.0%} "
          f"incl. planes {planes_share:.0%}); "
          + " ".join(f"{k.split('/')[1]} {v:.3f}" for k, v in losses.items())
          + "".join(f"; {sum(v) / len(v):.0%} in {len(v)} games against {name}" for name, v in against.items()),
          flush=True)
    for key, value in line.items():
        if key == "self_play_score_vs_opponent":
            for name, score in value.items():
                writer.add_scalar(f"self_play/score_vs/{name}", score, run.iteration)
        elif key != "iteration":
            writer.add_scalar(key if "/" in key else f"self_play/{key}", value, run.iteration)
    return line


def _scheduled_evaluation(run: Run, writer, line: dict[str, Any]) -> None:
    """On the schedule (and after the last iteration), the network against the evaluation
    opponents: logged, added to the iteration's ``line``, and kept as ``best.zip`` when it
    scores at least the best so far against the deciding opponent."""
    config = run.config
    scheduled = run.iteration % config.eval_every == 0 or run.iteration == config.iterations
    results = run.evaluate(config.eval_games) if scheduled else {}
    if not results:
        return
    for opponent, result in results.items():
        writer.add_scalar(f"eval/{opponent}", result["score"], run.iteration)
        writer.add_scalar(f"eval_by_positions/{opponent}", result["score"], run.positions)
    print("  evaluation: " + "; ".join(f"vs {o} {r['score']:.1%} ({r['interval95'][0]:.0%}–{r['interval95'][1]:.0%})"
                                       for o, r in results.items()), flush=True)
    line["evaluation"] = results
    decider = run.deciding_opponent  # absent with --eval-games 0: no best.zip
    if decider in results and results[decider]["score"] >= run.best_score:
        run.best_score = results[decider]["score"]
        run.save_agent("best.zip", {"selected_by": f"score {run.best_score:.3f} against {decider}"})


def _final_evaluation(run: Run) -> tuple[dict[str, dict], dict]:
    """The better of ``best.zip`` and the last network (``Run.choose_final``) against each
    evaluation opponent in fresh games; the results and how the agent was chosen."""
    config = run.config
    final = {}
    chosen, selection = run.choose_final(config.final_eval_games)
    print(f"final evaluation of {chosen}: {config.final_eval_games} games per opponent", flush=True)
    for opponent in config.eval_opponents:
        final[opponent] = evaluate_agent(run.workers, run.game, run.options, chosen, opponent,
                                         config.final_eval_games, seed=5_000_000)
        print(f"  vs {opponent}: {final[opponent]['score']:.1%} "
              f"({final[opponent]['interval95'][0]:.1%}–{final[opponent]['interval95'][1]:.1%})", flush=True)
    return final, selection


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = sys.argv[1:] if argv is None else argv
    config = parse_config(args)
    command = "python -m training.alphazero " + " ".join(shlex.quote(a) for a in args)
    return train(config, command, flags_given(list(args)))


if __name__ == "__main__":
    main()
