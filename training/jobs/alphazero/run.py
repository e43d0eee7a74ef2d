"""The run folder: everything one training run holds and saves (state for --resume, agent files, history)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import envs
import numpy as np
from training.bots import bot_kit
from training.common.flags import FlagError
from training.jobs.alphazero.config import AlphaZeroConfig, check_config
from training.jobs.alphazero.evaluation import evaluate_agent
from training.jobs.alphazero.learning import Learner, ReplayBuffer
from training.jobs.alphazero.self_play import teacher_games

# ----- the run --------------------------------------------------------------------------------


class Run:
    """One training run: its folder, network, buffer, counters; saved and resumed whole."""

    def __init__(self, config: AlphaZeroConfig, command: str):
        from training.agents.network import Architecture

        self.config = config
        self.command = command
        self.description = envs.describe(config.game)
        self.game = self.description.name
        self.options = self.description.portable_options(self.description.resolve_options(config.options))
        resolved = self.description.resolve_options(self.options)
        self.observer = self.description.observer(resolved)
        self.seats = self.description.engine.num_players_for(resolved)
        self.actions = self.description.engine.num_actions_for(resolved)
        layout = self.observer.policy_layout()
        self.index = np.asarray(layout.index, np.int64)
        self.architecture = Architecture(tuple(self.observer.planes_shape()), config.filters, config.blocks,
                                         layout.cell_channels, layout.global_actions, self.seats)
        self.learner = Learner(config, self.architecture, self.observer)
        self.buffer = ReplayBuffer(config.replay_size, self.observer.size, self.actions, self.seats)
        self.rng = np.random.default_rng(config.seed)
        self.iteration = 0
        self.games_played = 0
        self.positions = 0
        self.wall_seconds = 0.0
        self.self_play_seconds = 0.0
        self.history: list[dict] = []
        self.best_score = -1.0
        self.warm_started = False
        self.teacher_games_done = False
        self.margin_scale: float | None = None  # set from the first positions: the margins' spread
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.dir = Path(config.out_dir) / f"{self.description.short_name}__alphazero__{config.seed}__{stamp}"

    # ----- saving -----------------------------------------------------------------------------
    def save_agent(self, name: str, extra: dict | None = None) -> Path:
        from training.agents.checkpoint import code_version
        from training.agents.network import save_network

        meta = {
            "game": self.game, "options": self.options, "num_actions": self.actions,
            "observation_format": "planes", "algo": "alphazero (Gumbel search + policy/value network)",
            "iteration": self.iteration, "self_play_games": self.games_played, "positions": self.positions,
            "value_mix": self.config.value_mix, "margin_scale": self.margin_scale,
            "hook_value_weight": self.config.hook_value_weight,
            "wall_seconds": round(self.wall_seconds, 1), "seed": self.config.seed, "command": self.command,
            "code_version": code_version(), "created": time.strftime("%Y-%m-%d %H:%M:%S"),
            **(extra or {}),
        }
        return save_network(self.dir / name, self.architecture, self.learner.weights(), self.index, meta)

    def save_state(self) -> None:
        torch = self.learner.torch
        state = {
            "config": dataclasses.asdict(self.config), "command": self.command, "dir": str(self.dir),
            "model": self.learner.model.state_dict(), "optimizer": self.learner.optimizer.state_dict(),
            "learner_steps": self.learner.steps, "iteration": self.iteration, "games_played": self.games_played,
            "positions": self.positions, "wall_seconds": self.wall_seconds,
            "self_play_seconds": self.self_play_seconds, "history": self.history, "best_score": self.best_score,
            "warm_started": self.warm_started, "teacher_games_done": self.teacher_games_done,
            "margin_scale": self.margin_scale,
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(), "buffer": self.buffer.state(),
        }
        temporary = self.dir / "state.pt.part"
        torch.save(state, temporary)
        temporary.replace(self.dir / "state.pt")

    @classmethod
    def resume(cls, folder: str, overrides: dict[str, Any]) -> "Run":
        import torch

        path = Path(folder) / "state.pt"
        if not path.is_file():
            raise FlagError(f"--resume {folder!r}: no state.pt there (is it a training.alphazero run folder?)")
        state = torch.load(path, weights_only=False)  # our own file, written by save_state
        if "margin_scale" not in state:
            raise FlagError(f"--resume {folder!r}: this run was saved by an earlier version of the trainer; start a new run")
        saved = dict(state["config"])
        saved.update(overrides)
        saved["eval_opponents"] = tuple(saved["eval_opponents"])
        opponent = saved.get("opponent")  # one spec or None in runs saved before it took several
        saved["opponent"] = (opponent,) if isinstance(opponent, str) else tuple(opponent or ())
        config = AlphaZeroConfig(**saved)
        check_config(config)
        run = cls(config, state["command"])
        run.dir = Path(state["dir"])
        run.learner.model.load_state_dict(state["model"])
        run.learner.optimizer.load_state_dict(state["optimizer"])
        for group in run.learner.optimizer.param_groups:
            group["lr"] = config.learning_rate  # the saved rate, or the one --resume was given
        run.learner.steps = state["learner_steps"]
        for name in ("iteration", "games_played", "positions", "wall_seconds", "self_play_seconds", "history",
                     "best_score", "warm_started", "teacher_games_done", "margin_scale"):
            setattr(run, name, state[name])
        run.rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        run.buffer.load(state["buffer"])
        return run

    # ----- phases -----------------------------------------------------------------------------
    def tasks(self, games: int, seed_base: int, per_task: int, **extra) -> list[dict]:
        """Seeded games split into tasks of ``per_task`` (small tasks: progress is shown as they
        finish and the workers stay busy to the end)."""
        seeds = [seed_base + i for i in range(games)]
        return [{"game": self.game, "options": self.options, "seeds": seeds[i:i + per_task], **extra}
                for i in range(0, games, per_task)]

    def opponent_games(self, first_seed: int) -> dict[int, str]:
        """The games of an iteration that ``--opponent`` plays in (an even spread over its
        seeds), each with the fixed agent that plays it (the agents in turn)."""
        games, share, agents = self.config.games_per_iteration, self.config.opponent_share, self.config.opponent
        count = round(share * games)
        return {first_seed + (i * games) // count: agents[i % len(agents)] for i in range(count)} if count else {}

    def add_records(self, parts: list[dict]) -> tuple[int, int]:
        games = positions = 0
        for part in parts:
            for record in part["records"]:
                self.buffer.add(record)
                games += 1
                positions += len(record.vectors)
        if self.margin_scale is None and self.buffer.size:
            # The spread of the movers' final margins: tanh(margin / scale) then uses the head's
            # range for the margins this game really has (fixed for the run, saved with agents).
            spread = float(np.std(self.buffer.margins[:self.buffer.size, 0]))
            self.margin_scale = max(1.0, round(spread, 3))
            print(f"  margin scale {self.margin_scale:g} (the spread of final score margins)", flush=True)
        return games, positions

    def learn(self, steps: int, progress, label: str) -> dict[str, float]:
        if self.learner.needs_calibration and steps:
            sample = self.buffer.sample(self.rng, min(self.buffer.size, 4096))
            self.learner.calibrate(self.observer.planes(sample["vectors"]))
        sums: dict[str, float] = {}
        for _ in range(steps):
            losses = self.learner.step(self.buffer.sample(self.rng, self.config.batch_size), self.rng, self.margin_scale)
            for k, v in losses.items():
                sums[k] = sums.get(k, 0.0) + v
            progress.update(1)
        progress.set_postfix_str(label)
        return {k: v / max(1, steps) for k, v in sums.items()}

    def warm_start(self, progress_factory) -> None:
        config = self.config
        if not self.teacher_games_done:
            started = time.perf_counter()
            print(f"warm start: {config.warm_start_games} games of {config.warm_start} playing every seat", flush=True)
            tasks = self.tasks(config.warm_start_games, 10_000_000 + config.seed * 100_000, 4, teacher=config.warm_start)
            with progress_factory(total=config.warm_start_games, desc="teacher games") as bar:
                parts = self.workers.map(teacher_games, tasks, bar)
            games, positions = self.add_records(parts)
            self.teacher_games_done = True
            self.save_state()  # the teacher's games are the costly part: a resumed run keeps them
            print(f"  {games} games, {positions} positions in {time.perf_counter() - started:.0f} s; imitating", flush=True)
        with progress_factory(total=config.warm_start_steps, desc="imitation") as bar:
            losses = self.learn(config.warm_start_steps, bar, "warm start")
        self.warm_started = True
        print("  " + "  ".join(f"{k} {v:.3f}" for k, v in losses.items()), flush=True)

    def evaluate(self, games: int, final: bool = False) -> dict[str, Any]:
        config = self.config
        # every evaluated network is kept (small files): learning curves can be measured later
        path = str(self.save_agent(f"snapshots/iteration_{self.iteration:04d}.zip"))
        results = {}
        for opponent in config.eval_opponents if games else ():  # no games is no score, not 0%
            results[opponent] = evaluate_agent(self.workers, self.game, self.options, path, opponent, games,
                                               seed=900_000 + 1000 * self.iteration)
        if config.eval_mcts_games or final:
            count = config.eval_mcts_games if not final else max(config.eval_mcts_games, 0)
            if count:
                ladder = bot_kit(self.description).ladders[0]
                opponent = f"mcts:100{ladder.mcts}"
                search = f"mcts:{config.simulations}:net={path}"
                results[f"search vs {opponent}"] = evaluate_agent(self.workers, self.game, self.options, search,
                                                                  opponent, count, seed=950_000 + self.iteration)
        return results

    @property
    def deciding_opponent(self) -> str:
        """The opponent whose score against the policy picks ``best.zip`` and the final agent."""
        return "heuristic" if "heuristic" in self.config.eval_opponents else self.config.eval_opponents[0]

    def choose_final(self, games: int) -> tuple[str, dict[str, Any]]:
        """The agent the final evaluation scores: ``best.zip`` (best scheduled evaluation) or
        the last network, whichever wins more of ``games`` fresh games against the deciding
        opponent. Scheduled evaluations are short and a network still improving is often picked
        for a lucky run of games (a Knot run kept iteration 9, 36% over 400 games, over
        iteration 18, 53.5%); the report is then measured on other seeds than the choice."""
        from training.agents.files import read_network_file

        latest = self.save_agent("latest.zip")
        best = self.dir / "best.zip"
        if not best.exists():
            return str(latest), {}
        best_iteration = read_network_file(best)[0]["iteration"]
        if best_iteration == self.iteration:
            return str(best), {}
        opponent = self.deciding_opponent
        candidates = {"best.zip": (best, best_iteration), "latest.zip": (latest, self.iteration)}
        scores = {name: evaluate_agent(self.workers, self.game, self.options, str(path), opponent, games,
                                       seed=4_000_000) for name, (path, _) in candidates.items()}
        choice = max(scores, key=lambda name: scores[name]["score"])  # a tie keeps best.zip
        print("  choosing the final agent: " + "; ".join(f"{name} (iteration {candidates[name][1]}) "
              f"{r['score']:.1%} vs {opponent}" for name, r in scores.items()) + f" -> {choice}", flush=True)
        return str(self.dir / choice), {"opponent": opponent, "chosen": choice, "candidates": scores}


# What --resume may change (given on its command line); everything else is the run's own.
RESUMABLE = ("iterations", "max_minutes", "workers", "ray_address", "device", "torch_threads", "eval_games",
             "final_eval_games", "eval_every", "eval_mcts_games", "simulations", "games_per_iteration",
             "steps_per_iteration", "learning_rate", "concurrent_games", "opponent", "opponent_share", "opponent_outcomes")
