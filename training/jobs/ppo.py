"""Self-play training with MaskablePPO, for any game and options.

    python -m training.train --game loom --total-timesteps 200000 --seed 0
    python -m training.train --game linecatch --options '{"rows": 4, "cols": 4}' --n-envs 2

The learner plays one seat (drawn at random each episode) against an opponent pool: the bots
named in ``--opponents`` plus frozen snapshots of itself, one added whenever the learner scores
at least ``--snapshot-threshold`` against the current pool at an evaluation. Output goes to
``runs/<game>__maskppo__<seed>__<time>/``: TensorBoard logs, the SB3 model (to resume), the
suite checkpoint ``<game>__maskppo__<seed>.zip`` (loadable with ``load_agent``), and
``evaluation.json`` with the final results against random and heuristic.
"""

from __future__ import annotations

import json
import math
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from envs.registry import canonical_name as game_name
from training.players.load import bot_table
from training.agents.checkpoint import PolicyAgent, env_spaces, save_checkpoint
from training.evaluation.tournament import evaluate_against
from training.common.flags import FlagError, parse_flags
from training.jobs.config import PolicyJobConfig, final_lines
from training.common.progress import Progress
from training.players.self_play import SelfPlayEnv


@dataclass
class TrainConfig(PolicyJobConfig):
    game: str = "loom"
    """env name (``loom``, ``linecatch_v0``, …)"""
    total_timesteps: int = 100_000
    """learner steps to train for"""
    n_envs: int = 2
    """parallel self-play envs (SubprocVecEnv when > 1: one per core)"""
    opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """the fixed part of the opponent pool: bot names or checkpoint paths"""
    n_steps: int = 1024
    """rollout length per env before each update"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 10
    """passes over each rollout"""
    ent_coef: float = 0.01
    """entropy bonus"""
    warm_start: str = ""
    """a bot whose play the network imitates before self-play (e.g. ``heuristic``); empty: none"""
    warm_start_games: int = 2000
    """games of the warm-start bot (against itself and the pool's bots) to imitate"""
    warm_start_epochs: int = 10
    """passes over the imitation data"""
    warm_start_lr: float = 1e-3
    """Adam step size while imitating"""
    warm_start_batch_size: int = 0
    """minibatch size while imitating (0: ``batch_size``)"""
    eval_every: int = 20_000
    """learner steps between evaluations against the pool"""
    snapshot_threshold: float = 0.6
    """score against the pool (win = 1, draw = ½) that adds a frozen snapshot of the learner"""
    max_snapshots: int = 4
    """snapshots kept in the pool (oldest dropped first)"""
    progress_bar: bool = True
    """show SB3's progress bar"""


def parse_config(argv: list[str] | None = None) -> TrainConfig:
    return parse_flags(TrainConfig, argv, __doc__)


def actor_layers(model) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy network of an SB3 ``MlpPolicy`` as (weight, bias) numpy pairs."""
    import torch.nn as nn

    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    linears.append(policy.action_net)
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]


def policy_kwargs(config: TrainConfig) -> dict[str, Any]:
    """The network of ``config`` as MaskablePPO's ``policy_kwargs`` (MlpPolicy)."""
    import torch.nn as nn

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[config.activation]
    return {"net_arch": {"pi": list(config.net_arch), "vf": list(config.net_arch)}, "activation_fn": activation}


def rollout_steps(config: TrainConfig) -> int:
    """The learner steps ``learn()`` really takes: PPO collects whole rollouts of
    ``n_steps × n_envs`` steps, so ``total_timesteps`` is rounded up to a whole number of them."""
    rollout = config.n_steps * config.n_envs
    return math.ceil(config.total_timesteps / rollout) * rollout


class TimedEnv(gymnasium.Wrapper):
    """Counts the seconds spent inside the env (for the env-time share of training)."""

    def __init__(self, env):
        super().__init__(env)
        self.seconds_in_env = 0.0

    def reset(self, **kwargs):
        started = time.perf_counter()
        out = self.env.reset(**kwargs)
        self.seconds_in_env += time.perf_counter() - started
        return out

    def step(self, action):
        started = time.perf_counter()
        out = self.env.step(action)
        self.seconds_in_env += time.perf_counter() - started
        return out

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()

    def set_opponent_pool(self, opponents) -> None:
        self.env.unwrapped.set_opponent_pool(opponents)

    def env_seconds(self) -> float:
        return self.seconds_in_env


def make_env_fn(config: TrainConfig, rank: int, pool: list):
    def build():
        env = SelfPlayEnv(
            game_name(config.game), config.options, pool, seed=config.seed * 1000 + rank,
            score_shaping=config.score_shaping, illegal_action="raise",  # masked: an illegal action is a bug
        )
        return TimedEnv(env)

    return build


def imitation_data(config: TrainConfig, game: str, options: dict[str, Any]):
    """Observations, masks, the teacher's choices and the final reward of the teacher's seat.

    The teacher's choice at a position is the set of moves it rates best: a bot with a
    ``best_actions(observation)`` method (the exact solver: every optimal move) gives the
    whole set, any other bot the one move it plays.
    """
    import envs
    from training.players.load import load_agent

    rivals = ", ".join(dict.fromkeys(["itself", *config.opponents]))
    print(f"warm start: {config.warm_start_games:,} games of {config.warm_start} (against {rivals}) to imitate", flush=True)
    teacher = load_agent(config.warm_start, game, seed=config.seed, **options)
    sparring = [teacher] + [load_agent(spec, game, seed=config.seed + i + 1, **options) for i, spec in enumerate(config.opponents)]
    module = envs.load(game)
    observations, masks, choices, seats, outcomes = [], [], [], [], []
    progress = Progress(config.warm_start_games, f"games of {config.warm_start}", config.progress_bar, unit="games")
    for index in range(config.warm_start_games):
        env = module.raw_env(**options)
        env.reset(seed=config.seed * 7919 + index)
        n = len(env.possible_agents)
        teacher_seat = index % n
        rival = sparring[index % len(sparring)]
        players = [teacher if seat == teacher_seat or rival is teacher else rival for seat in range(n)]
        first = len(choices)
        while not env.game.is_terminal():
            seat = env.game.current_player()
            observation = env.observe(env.possible_agents[seat])
            action = players[seat].act(observation)
            if players[seat] is teacher:
                observations.append(observation["observation"])
                masks.append(observation["action_mask"].astype(bool))
                best = getattr(teacher, "best_actions", None)
                choices.append(np.asarray(best(observation) if best else [action]))
                seats.append(seat)
            env.step(action)
        returns = env.game.returns()
        outcomes.extend(float(returns[seat]) for seat in seats[first:])
        progress.update()
    progress.close()
    return np.array(observations), np.array(masks), choices, np.array(outcomes, np.float32)


def warm_start(model, config: TrainConfig, game: str, options: dict[str, Any]) -> None:
    """Behaviour cloning: put the policy's probability on the teacher's best moves (spread
    evenly over them) and fit the value to the outcomes."""
    import torch

    observations, masks, choices, outcomes = imitation_data(config, game, options)
    policy = model.policy
    generator = torch.Generator().manual_seed(config.seed)
    count, n_actions = len(choices), masks.shape[1]
    batch_size = config.warm_start_batch_size or config.batch_size
    print(f"imitating {config.warm_start} on {count:,} positions: {config.warm_start_epochs} epochs", flush=True)
    started = time.perf_counter()
    for group in policy.optimizer.param_groups:
        group["lr"] = config.warm_start_lr  # PPO resets it from its schedule at the first update
    for epoch in range(config.warm_start_epochs):
        order = torch.randperm(count, generator=generator).numpy()
        total, agree = 0.0, 0
        for start in range(0, count, batch_size):
            batch = order[start:start + batch_size]
            target = np.zeros((len(batch), n_actions), np.float32)
            for row, index in enumerate(batch):
                target[row, choices[index]] = 1.0 / len(choices[index])
            obs = torch.as_tensor(observations[batch])
            logits = policy.get_distribution(obs, action_masks=masks[batch]).distribution.logits
            values = policy.predict_values(obs).flatten()
            policy_loss = -(torch.as_tensor(target) * torch.log_softmax(logits, dim=1)).sum(1).mean()
            loss = policy_loss + 0.5 * ((values - torch.as_tensor(outcomes[batch])) ** 2).mean()
            policy.optimizer.zero_grad()
            loss.backward()
            policy.optimizer.step()
            total += loss.item() * len(batch)
            chosen = logits.argmax(1).numpy()
            agree += sum(int(chosen[row] in choices[index]) for row, index in enumerate(batch))
        print(f"    epoch {epoch + 1}/{config.warm_start_epochs}: loss {total / count:.3f}, plays one of the teacher's "
              f"best moves {agree / count:.0%} ({time.perf_counter() - started:.0f} s)", flush=True)


@dataclass
class PpoRun:
    """What the steps of one :func:`train` run share: the game, the run folder, the command
    that made it, and what the evaluations have found so far (the pool's snapshots, the
    history, the best policy against the fixed opponents)."""

    config: TrainConfig
    description: Any  # the game's envs.core.description.GameDescription
    options: dict[str, Any]
    bots: dict[str, Any]
    run_dir: Path
    command: str
    stamp: str
    started: float
    observation_shape: list[int] = field(default_factory=list)
    action_n: int = 0
    snapshots: list[dict] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    best: dict[str, Any] = field(default_factory=lambda: {"score": -1.0, "layers": None, "steps": 0})

    @property
    def game(self) -> str:
        return self.description.name

    def agent_meta(self, steps_trained: int, policy_from: int) -> dict[str, Any]:
        return self.config.policy_meta(
            self.description, self.options, (self.observation_shape, self.action_n), "MaskablePPO", self.command,
            self.stamp, steps_trained=steps_trained, policy_from_step=policy_from,
            wall_seconds=round(time.perf_counter() - self.started, 1))

    def consider(self, layers, fixed_score: float, steps: int) -> None:
        if fixed_score > self.best["score"]:
            self.best.update(score=fixed_score, layers=layers, steps=steps)

    def against_fixed(self, agent: PolicyAgent, seed: int) -> dict[str, float]:
        """The agent's score against each bot of ``--opponents`` (not the snapshots)."""
        config = self.config
        return {spec: evaluate_against(self.game, agent, spec, config.eval_games, seed, self.options)
                for spec in config.opponents}


def train(config: TrainConfig, command: str | None = None) -> dict[str, Any]:
    """Train as ``config`` says; ``command`` is recorded in the agent file and
    ``evaluation.json`` as the command that made the run (default: this process's
    ``python -m training.train`` command line)."""
    run = _start_run(config, command)
    vec_env, model = _make_model(run)
    if config.warm_start:
        if config.warm_start not in run.bots:
            raise FlagError(f"option 'warm_start' must be one of {', '.join(run.bots)} or empty, not {config.warm_start!r}")
        warm_start(model, config, run.game, run.options)
    run.observation_shape, run.action_n = env_spaces(run.game, run.options)
    if config.keep_best:
        start = PolicyAgent(actor_layers(model), config.activation)
        print(f"evaluating the starting policy: {config.eval_games} games against each of {', '.join(config.opponents)}",
              flush=True)
        fixed = run.against_fixed(start, config.seed)
        print("[       0 steps] vs " + " ".join(f"{k} {v:.0%}" for k, v in fixed.items()), flush=True)
        run.consider(start.layers, float(np.mean(list(fixed.values()))), 0)
    learn_seconds, env_seconds = _learn(run, model, vec_env)
    layers, taken_at = _kept_policy(run, model)
    checkpoint = run.run_dir / f"{run.description.short_name}__maskppo__{config.seed}.zip"
    meta = run.agent_meta(int(model.num_timesteps), taken_at)
    del meta["wall_seconds"]  # the shipped file records no timing
    save_checkpoint(checkpoint, layers, meta)
    final = _final_evaluation(run, layers)
    summary = {
        "run": str(run.run_dir),
        "checkpoint": str(checkpoint),
        "steps": int(model.num_timesteps),
        "learn_seconds": learn_seconds,
        "env_steps_per_second": model.num_timesteps / learn_seconds,
        "env_time_share": float(np.mean(env_seconds) / learn_seconds),
        "final_evaluation": final,
        "history": run.history,
        "command": run.command,
    }
    (run.run_dir / "evaluation.json").write_text(json.dumps(summary, indent=2))
    print(f"\ncheckpoint: {checkpoint}")
    print(f"throughput: {summary['env_steps_per_second']:.0f} env steps/s during learn(), "
          f"{summary['env_time_share']:.0%} of wall time inside the env")
    for line in final_lines(final):
        print(line)
    return summary


def _start_run(config: TrainConfig, command: str | None) -> PpoRun:
    """The run's game and options (the opponents and activation checked), its folder with
    ``config.json``, and the command recorded for it."""
    import torch

    import envs

    description = envs.describe(config.game)
    options = description.resolve_options(config.options)
    bots = bot_table(description.name)
    for spec in config.opponents:
        if spec not in bots and not str(spec).endswith(".zip"):
            raise FlagError(f"unknown opponent {spec!r}; choose from {', '.join(bots)} or a checkpoint path")
    if config.activation not in ("tanh", "relu"):
        raise FlagError(f"option 'activation' must be 'tanh' or 'relu', not {config.activation!r}")
    torch.set_num_threads(1)
    run_started = time.perf_counter()
    run_dir, stamp = config.new_run_folder(description.short_name, "maskppo")
    if command is None:
        command = "python -m training.train " + shlex.join(sys.argv[1:])
    print(f"run folder: {run_dir}", flush=True)
    return PpoRun(config, description, options, bots, run_dir, command, stamp, run_started)


def _make_model(run: PpoRun):
    """The self-play envs (one process each when more than one) and the MaskablePPO learner."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    config = run.config
    pool: list = list(config.opponents)
    print(f"starting {config.n_envs} self-play env(s){' in their own processes' if config.n_envs > 1 else ''} "
          f"and the network", flush=True)
    env_fns = [make_env_fn(config, rank, pool) for rank in range(config.n_envs)]
    vec_env = SubprocVecEnv(env_fns) if config.n_envs > 1 else DummyVecEnv(env_fns)
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        ent_coef=config.ent_coef,
        policy_kwargs=policy_kwargs(config),
        tensorboard_log=str(run.run_dir / "tensorboard"),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )
    return vec_env, model


def _pool_callback(run: PpoRun):
    """The callback that evaluates the learner every ``eval_every`` steps against the pool,
    keeps each evaluated policy, and adds a frozen snapshot to the pool when it scores well."""
    from stable_baselines3.common.callbacks import BaseCallback

    config, game, options, snapshots = run.config, run.game, run.options, run.snapshots

    class PoolCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_eval = config.eval_every
            self.started = time.perf_counter()

        def _on_step(self) -> bool:
            if self.num_timesteps < self.next_eval:
                return True
            self.next_eval += config.eval_every
            learner = PolicyAgent(actor_layers(self.model), config.activation)
            results = run.against_fixed(learner, config.seed + self.num_timesteps)
            for i, snap in enumerate(snapshots):
                results[f"snapshot{i}"] = evaluate_against(
                    game, learner, PolicyAgent(snap["layers"], snap["activation"]), config.eval_games,
                    config.seed + self.num_timesteps + i, options,
                )
            pool_score = float(np.mean(list(results.values())))
            elapsed = time.perf_counter() - self.started
            line = " ".join(f"{k} {v:.0%}" for k, v in results.items())
            print(f"[{self.num_timesteps:>8} steps {elapsed:6.0f}s] vs {line} | pool {pool_score:.0%}", flush=True)
            for k, v in results.items():
                self.logger.record(f"eval/score_vs_{k}", v)
            self.logger.record("eval/pool_score", pool_score)
            run.history.append({"steps": int(self.num_timesteps), "seconds": elapsed, **results})
            # every evaluated policy is kept (small files): learning curves can be measured later
            save_checkpoint(run.run_dir / "snapshots" / f"step_{self.num_timesteps:09d}.zip", learner.layers,
                            run.agent_meta(int(self.num_timesteps), int(self.num_timesteps)))
            run.consider(learner.layers, float(np.mean([results[k] for k in config.opponents])), int(self.num_timesteps))
            if pool_score >= config.snapshot_threshold:
                snapshots.append(learner.policy_payload())
                del snapshots[: max(0, len(snapshots) - config.max_snapshots)]
                self.training_env.env_method("set_opponent_pool", list(config.opponents) + snapshots)
                print(f"    snapshot added: the pool now holds {len(snapshots)} snapshot(s)", flush=True)
            return True

    return PoolCallback()


def _learn(run: PpoRun, model, vec_env) -> tuple[float, list[float]]:
    """Self-play for the whole budget (rounded up to whole rollouts); the seconds it took and
    each env's seconds inside the env. The SB3 model is saved in the run folder."""
    config = run.config
    steps = rollout_steps(config)
    rounded = "" if steps == config.total_timesteps else f" ({config.total_timesteps:,} rounded up to whole rollouts)"
    print(f"self-play: {steps:,} learner steps{rounded}, {steps // (config.n_steps * config.n_envs)} rollouts of "
          f"{config.n_steps:,} steps in each of {config.n_envs} env(s); an evaluation every {config.eval_every:,} steps",
          flush=True)
    started = time.perf_counter()
    model.learn(total_timesteps=steps, callback=_pool_callback(run), progress_bar=config.progress_bar)
    learn_seconds = time.perf_counter() - started
    env_seconds = vec_env.env_method("env_seconds")
    vec_env.close()
    model.save(run.run_dir / "sb3_model.zip")
    return learn_seconds, env_seconds


def _kept_policy(run: PpoRun, model) -> tuple[list, int]:
    """The policy to ship and the step it was taken at: the final one, or with ``keep_best``
    the best against the fixed opponents (the final one evaluated too)."""
    config = run.config
    layers, taken_at = actor_layers(model), int(model.num_timesteps)
    if config.keep_best:
        print(f"evaluating the final policy: {config.eval_games} games against each of {', '.join(config.opponents)}",
              flush=True)
        final_layers = PolicyAgent(layers, config.activation)
        run.consider(final_layers.layers, float(np.mean(list(run.against_fixed(final_layers, config.seed).values()))),
                     taken_at)
        layers, taken_at = run.best["layers"], run.best["steps"]
        print(f"kept the policy of step {taken_at} (score {run.best['score']:.0%} against {', '.join(config.opponents)})")
    return layers, taken_at


def _final_evaluation(run: PpoRun, layers) -> dict[str, dict]:
    """The shipped policy's detailed results against the random and heuristic bots."""
    config = run.config
    learner = PolicyAgent(layers, config.activation)
    final = {}
    final_opponents = [spec for spec in ("random", "heuristic") if spec in run.bots]
    print(f"final evaluation: {config.final_eval_games} games against each of {', '.join(final_opponents)}", flush=True)
    for spec in final_opponents:
        final[spec] = evaluate_against(run.game, learner, spec, config.final_eval_games, config.seed + 10_000, run.options,
                                       detail=True)
    return final


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = sys.argv[1:] if argv is None else list(argv)
    return train(parse_config(args), "python -m training.train " + shlex.join(args))


if __name__ == "__main__":
    main()
