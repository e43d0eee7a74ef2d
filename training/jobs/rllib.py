"""Self-play PPO on Ray RLlib, for any game and options: one machine or a Ray cluster.

    python -m training.train_rllib --game linecatch --options '{"rows": 4, "cols": 4}' --iterations 20
    python -m training.train_rllib --game knot --options '{"players": 3}' --num-env-runners 8 --address auto

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``). Without ``--address`` a local Ray
instance is started on this machine and stopped at the end; ``--address auto`` (or
``HOST:6379``, ``ray://HOST:10001``) joins an existing cluster instead (``ray start --head``
on one node, ``ray start --address HEAD:6379`` on the others) and ships this repository's code
to it (``--ship-code``). ``--num-env-runners`` processes play games in parallel (one CPU each);
the learner runs in this process. See docs/scaling.md.

Self-play by policy mapping: every seat is played by one shared learning policy ``learner``
(``--no-shared-policy``: one learning policy per seat, ``learner_seat<i>``). With
``--opponents random snapshot`` a share ``--opponent-share`` of the games puts the learner in
one seat (drawn per game) against frozen opponents in the others: ``random`` (uniform over the
legal moves) and the ``snapshot_<k>`` copies of the learner taken every ``--snapshot-every``
iterations (the last ``--max-snapshots`` kept). Output goes to
``runs/<game>__rllib-ppo__<seed>__<time>/``: the suite checkpoint(s)
``<game>__rllib-ppo__<seed>.zip`` (loadable with ``load_agent``, played by ``evaluate.py``),
the RLlib checkpoint (to resume or inspect with RLlib), ``config.json`` and
``evaluation.json``.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training.players.load import bot_table
from training.agents.checkpoint import PolicyAgent, env_spaces, save_checkpoint
from training.evaluation.tournament import evaluate_against
from training.common.flags import FlagError, parse_flags
from training.jobs.config import PolicyJobConfig, final_lines
from training.jobs.rllib_policy import SeatMapping, learner_ids, learner_layers, make_callbacks, module_spec

ALGO = "rllib-ppo"
FROZEN_KINDS = ("random", "snapshot")
ACTIVATIONS = ("tanh", "relu")
REPO_ROOT = Path(__file__).resolve().parents[2]
# Left out when the code is shipped to a cluster (Ray's upload limit is 100 MiB).
SHIP_EXCLUDES = [".venv/", ".git/", "runs/", "checkpoints/", "results/", "**/__pycache__/", "*.egg-info/"]


@dataclass
class RLlibTrainConfig(PolicyJobConfig):
    iterations: int = 20
    """training iterations (one batch of games + one PPO update each)"""
    timesteps: int = 0
    """stop as soon as this many env steps (moves) were sampled; 0: no limit but --iterations"""
    address: str = ""
    """an existing Ray cluster (``auto``, ``HOST:6379``, ``ray://HOST:10001``); empty: start a
    local Ray on this machine (stopped at the end)"""
    ship_code: bool = True
    """with --address: upload this repository's code to the cluster (Ray runtime_env)"""
    num_env_runners: int = 2
    """parallel processes that play games (one CPU each); 0: play in this process"""
    num_envs_per_env_runner: int = 8
    """games each env runner steps at once (their moves go through the network as one batch:
    about 2x the throughput of 1 here)"""
    shared_policy: bool = True
    """one learning policy for every seat; --no-shared-policy: one per seat"""
    opponents: list = field(default_factory=list)
    """frozen opponents for part of the games: ``random`` and/or ``snapshot``; empty: pure self-play"""
    opponent_share: float = 0.5
    """share of the games against frozen opponents (when --opponents names any)"""
    snapshot_every: int = 5
    """iterations between frozen snapshots of the learner (with ``--opponents snapshot``)"""
    max_snapshots: int = 3
    """snapshots kept as opponents (oldest dropped first)"""
    train_batch_size: int = 2048
    """env steps per iteration (PPO batch)"""
    minibatch_size: int = 256
    """SGD minibatch size"""
    num_epochs: int = 10
    """passes over each batch"""
    gae_lambda: float = 0.95
    """GAE λ (RLlib's default is 1.0; 0.95 as in train.py's MaskablePPO)"""
    clip_param: float = 0.2
    """PPO clip range (RLlib's default is 0.3; 0.2 as in train.py)"""
    kl_loss: bool = False
    """RLlib's extra KL penalty (on by default in RLlib; off, as in train.py)"""
    entropy_coeff: float = 0.01
    """entropy bonus"""
    vf_loss_coeff: float = 0.5
    """weight of the value loss (RLlib's default is 1.0; 0.5 as in train.py's MaskablePPO)"""
    grad_clip: float = 0.5
    """global gradient-norm clip (RLlib's default is none; 0.5 as in train.py); 0: no clip"""
    normalize_observations: bool = True
    """the network sees each observation feature centred and scaled by its mean and spread
    over --normalization-games random games (folded into the checkpoint's first layer)"""
    normalization_games: int = 100
    """random games measured for --normalize-observations"""
    eval_every: int = 5
    """iterations between evaluations of the learner against the game's bots; 0: only at the end"""
    torch_threads: int = 1
    """torch threads of the learner (this process); 1 leaves the other cores to the env runners"""
    save_rllib_checkpoint: bool = True
    """also write RLlib's own checkpoint of the algorithm (to resume with RLlib)"""


def check_config(config: RLlibTrainConfig, players: int) -> None:
    """Clear errors for bad settings before Ray starts."""
    def bad(name: str, rule: str, value: Any) -> FlagError:
        return FlagError(f"option '{name}' must be {rule}, not {value!r}")

    if config.iterations < 1:
        raise bad("iterations", "at least 1", config.iterations)
    if config.timesteps < 0:
        raise bad("timesteps", "0 (no limit) or positive", config.timesteps)
    if config.num_env_runners < 0:
        raise bad("num_env_runners", "0 or more", config.num_env_runners)
    if config.torch_threads < 1:
        raise bad("torch_threads", "at least 1", config.torch_threads)
    if config.num_envs_per_env_runner < 1:
        raise bad("num_envs_per_env_runner", "at least 1", config.num_envs_per_env_runner)
    unknown = [o for o in config.opponents if o not in FROZEN_KINDS]
    if unknown:
        raise bad("opponents", f"a list of {' / '.join(FROZEN_KINDS)}", config.opponents)
    if not 0.0 <= config.opponent_share <= 1.0:
        raise bad("opponent_share", "between 0 and 1", config.opponent_share)
    if "snapshot" in config.opponents and not config.shared_policy:
        raise FlagError("snapshots copy the shared learning policy: use --opponents snapshot with --shared-policy")
    if config.snapshot_every < 1 or config.max_snapshots < 1:
        raise bad("snapshot_every / max_snapshots", "at least 1", (config.snapshot_every, config.max_snapshots))
    if config.activation not in ACTIVATIONS:
        raise bad("activation", "tanh or relu", config.activation)
    if not config.net_arch or min(config.net_arch) < 1:
        raise bad("net_arch", "one or more positive layer sizes", config.net_arch)
    if config.normalize_observations and config.normalization_games < 1:
        raise bad("normalization_games", "at least 1 with --normalize-observations", config.normalization_games)
    if config.grad_clip < 0:
        raise bad("grad_clip", "0 (no clip) or positive", config.grad_clip)
    if config.minibatch_size > config.train_batch_size:
        raise bad("minibatch_size", f"at most train_batch_size ({config.train_batch_size})", config.minibatch_size)
    if players < 2:
        raise FlagError(f"self-play needs at least 2 seats; these options give {players}")


def make_env_config(config: RLlibTrainConfig, game: str, options: dict) -> dict[str, Any]:
    """The env_config of a run: the game, its options, the shaping and (with
    --normalize-observations) the shift and scale measured from random play."""
    import envs

    env_config = {"game": game, "options": envs.describe(game).portable_options(options),
                  "score_shaping": config.score_shaping}
    if config.normalize_observations:
        from wrappers.rllib import observation_statistics

        shift, scale = observation_statistics(game, options, config.normalization_games, config.seed)
        env_config.update(observation_shift=shift.tolist(), observation_scale=scale.tolist())
    return env_config


def start_ray(config: RLlibTrainConfig) -> bool:
    """Connect to (``--address``) or start Ray; True when this call started it."""
    import ray

    if ray.is_initialized():
        return False  # a caller (a test, a notebook) owns the session
    if config.address:
        runtime_env = {"working_dir": str(REPO_ROOT), "excludes": SHIP_EXCLUDES} if config.ship_code else None
        ray.init(address=config.address, runtime_env=runtime_env, log_to_driver=True)
    else:
        # Logical CPUs: never fewer than the env runners, so they all start (they then share cores).
        ray.init(num_cpus=max(os.cpu_count() or 1, config.num_env_runners), include_dashboard=False)
    return True


def build_algorithm(config: RLlibTrainConfig, env_config: dict[str, Any], players: int):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from wrappers.rllib import MaskedRandomRLModule, register

    learners = learner_ids(config, players)
    spec = module_spec(config, env_config)
    specs = {module_id: spec for module_id in learners}
    frozen = []
    if "random" in config.opponents:
        specs["random"] = RLModuleSpec(module_class=MaskedRandomRLModule, model_config={"seed": config.seed})
        frozen.append("random")
    mapping = SeatMapping(learners, frozen, config.opponent_share, players, config.seed)
    ppo = (
        PPOConfig()
        # RLlib's env check steps an unmasked random action, which the raw env rejects as illegal
        # (docs/scaling.md: every config of the suite's env needs the check off).
        .environment(register(), env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs_per_env_runner,
            rollout_fragment_length="auto",
            # Ray 2.60's multi-agent sampler re-converts every finished game of a sample call
            # to numpy at each step (quadratic: 2.7x slower at 4000 steps); lists serve PPO too.
            episodes_to_numpy=False,
        )
        .training(
            lr=config.learning_rate,
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=config.minibatch_size,
            num_epochs=config.num_epochs,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip_param,
            use_kl_loss=config.kl_loss,
            entropy_coeff=config.entropy_coeff,
            vf_loss_coeff=config.vf_loss_coeff,
            grad_clip=config.grad_clip or None,
            grad_clip_by="global_norm",
        )
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=learners)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(make_callbacks())
        .debugging(seed=config.seed)
    )
    return ppo.build_algo(), spec, learners, frozen


def add_snapshot(algo, spec, number: int, learners: list[str], frozen: list[str], config: RLlibTrainConfig, players: int) -> list[str]:
    """Freeze a copy of the learner as ``snapshot_<number>`` (dropping the oldest beyond
    ``max_snapshots``); returns the new list of frozen modules."""
    module_id = f"snapshot_{number}"
    frozen = frozen + [module_id]
    dropped = [m for m in frozen if m.startswith("snapshot_")][: -config.max_snapshots]
    frozen = [m for m in frozen if m not in dropped]
    mapping = SeatMapping(learners, frozen, config.opponent_share, players, config.seed)
    algo.add_module(module_id=module_id, module_spec=spec, new_agent_to_module_mapping_fn=mapping)
    state = algo.learner_group.get_state(components=f"learner/rl_module/{learners[0]}")["learner"]["rl_module"][learners[0]]
    algo.learner_group.set_state({"learner": {"rl_module": {module_id: state}}})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
    for old in dropped:
        algo.remove_module(module_id=old, new_agent_to_module_mapping_fn=mapping)
    return frozen


def progress_line(iteration: int, result: dict, started: float) -> str:
    runners = result.get("env_runners", {})
    steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
    elapsed = time.perf_counter() - started
    parts = [
        f"[iter {iteration:>4} | {steps:>8} steps {elapsed:6.0f}s | {steps / max(elapsed, 1e-9):6.0f} steps/s]",
        f"games {int(runners.get('num_episodes_lifetime', 0))}",
        f"length {float(runners.get('episode_len_mean', float('nan'))):.1f}",
    ]
    if "score_vs_frozen" in runners:
        parts.append(f"vs frozen {float(runners['score_vs_frozen']):.0%}")
    for module_id, stats in sorted(result.get("learners", {}).items()):
        if module_id.startswith("learner") and "entropy" in stats:
            parts.append(f"{module_id} entropy {float(stats['entropy']):.2f}")
    return " | ".join(parts)


@dataclass
class RLlibRun:
    """One run's fixed facts: what is trained, where its files go, and the built algorithm."""

    config: RLlibTrainConfig
    description: Any  # the game's envs.core.description.GameDescription
    options: dict[str, Any]
    players: int
    bots: list[str]  # the fixed opponents it is evaluated against
    run_dir: Path
    command: str
    stamp: str
    algo: Any = None
    spec: Any = None
    env_config: dict[str, Any] | None = None
    learners: list[str] = field(default_factory=list)
    frozen: list[str] = field(default_factory=list)

    @property
    def game(self) -> str:
        return self.description.name

    def evaluate(self, layers, seed: int, games: int, detail: bool = False) -> dict[str, Any]:
        agent = PolicyAgent(layers, self.config.activation)
        return {bot: evaluate_against(self.game, agent, bot, games, seed, self.options, detail=detail) for bot in self.bots}

    def layers_of(self, module_id: str):
        return learner_layers(self.algo, self.spec, module_id, self.config.activation, self.env_config)


def train(config: RLlibTrainConfig, argv: list[str] | None = None) -> dict[str, Any]:
    import envs

    description = envs.describe(config.game)
    options = description.resolve_options(config.options)
    players = description.num_players(options)
    check_config(config, players)
    bots = [spec for spec in ("random", "heuristic") if spec in bot_table(description.name)]
    args = sys.argv[1:] if argv is None else argv
    command = "python -m training.train_rllib " + " ".join(shlex.quote(a) for a in args)
    run_dir, stamp = config.new_run_folder(description.short_name, ALGO)
    print(f"run folder: {run_dir}", flush=True)
    run = RLlibRun(config, description, options, players, bots, run_dir, command, stamp)

    import ray
    import torch

    torch.set_num_threads(config.torch_threads)
    started_ray = start_ray(config)
    try:
        where = f"the Ray cluster at {config.address}" if config.address else "a local Ray on this machine"
        print(f"Ray: {where}, {config.num_env_runners} env runner(s), resources {ray.cluster_resources()}", flush=True)
        setup_started = time.perf_counter()
        run.env_config = make_env_config(config, description.name, options)
        run.algo, run.spec, run.learners, run.frozen = build_algorithm(config, run.env_config, players)
        setup_seconds = time.perf_counter() - setup_started
        summary = run_training(run)
        summary["setup_seconds"] = setup_seconds
        run.algo.stop()
    finally:
        if started_ray:
            ray.shutdown()
    (run_dir / "evaluation.json").write_text(json.dumps(summary, indent=2))
    print(f"\ncheckpoint: {summary['checkpoint']}")
    print(f"throughput: {summary['env_steps_per_second']:.0f} env steps/s over {summary['iterations']} iterations "
          f"(sampling and learning; Ray start and set-up {setup_seconds:.0f}s not counted); per iteration "
          f"{summary['sampling_seconds_per_iteration']:.1f}s sampling, {summary['learning_seconds_per_iteration']:.1f}s learning")
    for line in final_lines(summary["final_evaluation"]):
        print(line)
    return summary


def run_training(run: RLlibRun) -> dict[str, Any]:
    """Train for the configured iterations (evaluating and freezing snapshots on schedule),
    then save each learner as a suite checkpoint; returns the run's summary."""
    config = run.config
    best = {"score": -1.0, "layers": None, "iteration": 0}
    history: list[dict] = []
    snapshots_taken = 0
    steps, iteration, result = 0, 0, {}
    started = time.perf_counter()
    train_seconds = 0.0
    while iteration < config.iterations and not (config.timesteps and steps >= config.timesteps):
        iteration_started = time.perf_counter()
        result = run.algo.train()
        train_seconds += time.perf_counter() - iteration_started
        iteration += 1
        steps = int(result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0))
        print(progress_line(iteration, result, started), flush=True)
        if config.eval_every and iteration % config.eval_every == 0 and iteration < config.iterations:
            layers = run.layers_of(run.learners[0])
            scores = run.evaluate(layers, config.seed + iteration, config.eval_games)
            print("    " + run.learners[0] + " vs " + " ".join(f"{k} {v:.0%}" for k, v in scores.items()), flush=True)
            history.append({"iteration": iteration, "steps": steps, **scores})
            if config.keep_best and np.mean(list(scores.values())) > best["score"]:
                best.update(score=float(np.mean(list(scores.values()))), layers=layers, iteration=iteration)
        if "snapshot" in config.opponents and iteration % config.snapshot_every == 0 and iteration < config.iterations:
            snapshots_taken += 1
            run.frozen = add_snapshot(run.algo, run.spec, snapshots_taken, run.learners, run.frozen, config, run.players)
            print(f"    snapshot_{snapshots_taken} frozen; opponents now: {', '.join(run.frozen)}", flush=True)
    rllib_checkpoint = None
    if config.save_rllib_checkpoint:
        rllib_checkpoint = str(run.algo.save_to_path(str((run.run_dir / "rllib_checkpoint").resolve())))
    checkpoints, final = save_learners(run, best, iteration, steps)
    main_module = run.learners[0]
    return {
        "checkpoint": checkpoints[main_module],
        "checkpoints": checkpoints,
        "rllib_checkpoint": rllib_checkpoint,
        "iterations": iteration,
        "steps": steps,
        "train_seconds": train_seconds,
        "env_steps_per_second": steps / max(train_seconds, 1e-9),
        "num_env_runners": config.num_env_runners,
        "num_envs_per_env_runner": config.num_envs_per_env_runner,
        # RLlib's smoothed timers of the last iteration: where an iteration's time goes.
        "sampling_seconds_per_iteration": float(result.get("timers", {}).get("env_runner_sampling_timer", float("nan"))),
        "learning_seconds_per_iteration": float(result.get("timers", {}).get("learner_update_timer", float("nan"))),
        # Seat-specific policies are still scored with seats alternated (evaluate.py's rule).
        "final_evaluation": final[main_module],
        "final_evaluation_per_module": final,
        "history": history,
        "command": run.command,
    }


def save_learners(run: RLlibRun, best: dict, iteration: int, steps: int) -> tuple[dict, dict]:
    """Write each learning policy (the best one seen, with keep-best) as a suite checkpoint and
    evaluate it; returns the paths and the final evaluations, by RLlib module id."""
    config = run.config
    observation_shape, action_n = env_spaces(run.game, run.options)
    checkpoints, final = {}, {}
    for seat_index, module_id in enumerate(run.learners):
        layers, taken_at = run.layers_of(module_id), iteration
        if config.keep_best and config.shared_policy:
            last = run.evaluate(layers, config.seed, config.eval_games)
            if float(np.mean(list(last.values()))) >= best["score"]:
                best.update(score=float(np.mean(list(last.values()))), layers=layers, iteration=iteration)
            layers, taken_at = best["layers"], best["iteration"]
            print(f"kept the policy of iteration {taken_at} (score {best['score']:.0%} against {', '.join(run.bots)})")
        suffix = "" if config.shared_policy else f"__seat{seat_index}"
        path = run.run_dir / f"{run.description.short_name}__{ALGO}__{config.seed}{suffix}.zip"
        # Trained on normalised observations; the normalisation is folded into layer 0.
        normalization = (f"mean/std over {config.normalization_games} random games, folded into the first layer"
                         if config.normalize_observations else "none")
        meta = config.policy_meta(
            run.description, run.options, (observation_shape, action_n), "RLlib PPO", run.command, run.stamp,
            rllib_module=module_id, observation_normalization=normalization, ray_version=__import__("ray").__version__,
            steps_trained=steps, iterations=iteration, policy_from_iteration=taken_at)
        save_checkpoint(path, layers, meta)
        checkpoints[module_id] = str(path)
        final[module_id] = run.evaluate(layers, config.seed + 10_000, config.final_eval_games, detail=True)
    return checkpoints, final


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return train(parse_flags(RLlibTrainConfig, argv, __doc__), argv)


if __name__ == "__main__":
    main()
