"""Gumbel AlphaZero on the JAX engines: self-play, search and network in one compiled program.

    python -m training.gumbel --game linecatch                        # 5×5, default settings
    python -m training.gumbel --game loom --iterations 200 --simulations 16
    python -m training.gumbel --game fill --options '{"traps": true}' --games 512
    python -m training.gumbel --resume runs/linecatch__gumbel__0__20261207-101500

Each iteration:

1. **self-play** — ``--games`` games at once (``envs.make_jax``), ``--moves`` decisions each,
   every decision chosen by Gumbel search (``mctx.gumbel_muzero_policy``: Gumbel top-k root
   sampling, sequential halving over ``--considered`` actions, ``--simulations`` simulations,
   the completed-Q policy improvement). The tree steps the JAX env itself, so the masks of
   every node are the rules' own; a node's value is told from the side of the seat to act
   there, and the sign flips only where the seat to act changes (Linecatch's catcher moves
   again, Fill's turns have phases, Loom's rival answers the drafter). Chance (Loom's dice,
   Fill's rocks) is sampled inside the tree: each child holds one sampled throw, as a
   determinized search does; Loom's dice come once a round, so few nodes hide a throw, and
   mctx's stochastic search would need an afterstate network and per-outcome heads for a
   gain this small. Games start again as they end (Pgx's ``auto_reset``).
2. **targets** — each decision gets the search's improved policy and the outcome of its game
   from the deciding seat's side (+1 / 0 / −1); decisions whose game had not ended when the
   iteration stopped are not used.
3. **learning** — ``--updates`` Adam steps on minibatches from a replay buffer of the latest
   positions: policy cross-entropy + value mean squared error (both seats' entries of the value
   head; the margin head learns the same target, and agent files record ``value_mix`` 0).
4. **evaluation** — every iteration the network's policy plays ``--eval-games`` compiled games
   against uniform random play (printed on the progress bar); every ``--eval-every``
   iterations ``latest.zip`` is written and the policy plays the Python bots of
   ``--eval-opponents`` (seats alternated); the best against the last of them is ``best.zip``.

Outputs go to ``runs/<game>__gumbel__<seed>__<time>/``: ``config.json``, ``progress.csv`` (one row
per iteration: positions, positions/s, losses, the compiled score against random, the Python
evaluations as ``versus_<opponent>``),
``latest.zip`` and ``best.zip`` (``network`` agent files: ``load_agent(path, game)`` plays them
with numpy alone, ``mcts:N:net=PATH`` searches with them), and ``state.eqx`` + ``state.json``
(network, optimiser, replay buffer and counters: ``--resume RUN_DIR`` continues a run). It
runs on whatever ``jax.devices()`` offers: CPU here, a GPU unchanged.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from training.common.flags import parse_flags
from training.jobs.config import JobConfig, require_counts


@dataclass
class GumbelConfig(JobConfig):
    iterations: int = 100
    """self-play + learning rounds"""
    games: int = 256
    """games played at once (the batch every compiled step runs)"""
    moves: int = 64
    """decisions per game per iteration (games carry on to the next iteration: Pgx's auto_reset)"""
    simulations: int = 16
    """search simulations per decision"""
    considered: int = 16
    """root actions Gumbel top-k sampling considers (sequential halving between them)"""
    filters: int = 32
    """width of the residual tower"""
    blocks: int = 2
    """residual blocks in the tower"""
    learning_rate: float = 1e-3
    """Adam step size"""
    batch_size: int = 512
    """minibatch size"""
    updates: int = 64
    """Adam steps per iteration"""
    replay_size: int = 200_000
    """positions kept in the replay buffer (the latest)"""
    eval_games: int = 256
    """compiled games against uniform random play after every iteration (seats alternated)"""
    eval_every: int = 10
    """write latest.zip and play the Python bots every this many iterations (and after the last)"""
    python_eval_games: int = 40
    """games per opponent in those evaluations (0: none)"""
    eval_opponents: tuple = ("random", "heuristic")
    """the Python bots the policy plays; best.zip is the best policy against the last"""
    resume: str | None = None
    """continue the run in this folder (its own settings; --iterations may be raised)"""


def check_config(config: GumbelConfig) -> None:
    require_counts(config, ("iterations", "games", "moves", "simulations", "considered", "filters", "batch_size",
                            "updates", "replay_size", "eval_every"))
    require_counts(config, ("blocks", "eval_games", "python_eval_games"), least=0)
    if not config.learning_rate > 0:
        raise ValueError(f"--learning-rate must be > 0, not {config.learning_rate!r}")


# ----- what one compiled iteration returns ----------------------------------------------------------
class Trajectory(NamedTuple):
    observation: Any  # (T, B, size) float32: the deciding seat's flat observation
    mask: Any         # (T, B, actions) bool
    policy: Any       # (T, B, actions) float32: the search's improved policy
    value: Any        # (T, B) float32: the outcome from the deciding seat's side
    valid: Any        # (T, B) bool: its game ended within the iteration


def build(config: GumbelConfig, env, net_template):
    """The compiled pieces of the job: ``self_play(net, state, key)``, ``update(net, opt_state,
    batch)`` and ``versus_random(net, key)``. Everything runs under one ``jax.jit`` each."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import mctx
    import optax
    from pgx.experimental import auto_reset

    index = jnp.asarray(env.observer.policy_layout().index)
    batch = config.games
    optimiser = optax.adam(config.learning_rate)

    def evaluate(net, observation, mask):
        """Masked action logits and the value for the seat the observation belongs to."""
        head, values, _ = net(env.planes(observation))
        logits = head[:, index]
        return jnp.where(mask, logits, jnp.finfo(jnp.float32).min), values[:, 0]

    def recurrent(net, key, action, state):
        actor = state.current_player
        after = jax.vmap(env.step)(state, action, jax.random.split(key, batch))
        logits, value = evaluate(net, after.observation, after.legal_action_mask)
        reward = jnp.take_along_axis(after.rewards, actor[:, None], axis=1)[:, 0]
        same = after.current_player == actor
        discount = jnp.where(after.terminated, 0.0, jnp.where(same, 1.0, -1.0))
        output = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits,
                                        value=jnp.where(after.terminated, 0.0, value))
        return output, after

    step_on = jax.vmap(auto_reset(env.step, env.init))

    def one_move(net, carry, _):
        state, key = carry
        key, search_key, step_key = jax.random.split(key, 3)
        logits, value = evaluate(net, state.observation, state.legal_action_mask)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        out = mctx.gumbel_muzero_policy(params=net, rng_key=search_key, root=root, recurrent_fn=recurrent,
                                        num_simulations=config.simulations, invalid_actions=~state.legal_action_mask,
                                        max_num_considered_actions=config.considered)
        actor = state.current_player
        after = step_on(state, out.action, jax.random.split(step_key, batch))
        reward = jnp.take_along_axis(after.rewards, actor[:, None], axis=1)[:, 0]
        ended = after.terminated
        same = after.current_player == actor
        record = (state.observation, state.legal_action_mask, out.action_weights, reward, ended, same)
        return (after, key), record

    @eqx.filter_jit
    def self_play(net, state, key):
        (state, key), (observation, mask, policy, reward, ended, same) = jax.lax.scan(
            lambda carry, x: one_move(net, carry, x), (state, key), None, length=config.moves)

        def back(later, t):  # the outcome from the deciding seat's side, backwards through each game
            flip = jnp.where(same[t], 1.0, -1.0)
            now = jnp.where(ended[t], reward[t], flip * later)
            return now, now

        _, value = jax.lax.scan(back, jnp.zeros(batch), jnp.arange(config.moves - 1, -1, -1))
        value = value[::-1]
        valid = jnp.cumsum(ended[::-1], axis=0)[::-1] > 0
        return state, key, Trajectory(observation, mask, policy, value, valid)

    def loss_fn(net, observation, mask, policy, value):
        head, values, margins = net(env.planes(observation))
        logits = jnp.where(mask, head[:, index], -1e9)
        policy_loss = optax.softmax_cross_entropy(logits, policy).mean()
        target = jnp.stack([value, -value], axis=1)[:, :values.shape[1]]
        value_loss = jnp.mean((values - target) ** 2) + jnp.mean((margins - target) ** 2)
        return policy_loss + value_loss, (policy_loss, value_loss)

    @eqx.filter_jit
    def update(net, opt_state, observation, mask, policy, value):
        (_, parts), grads = eqx.filter_value_and_grad(loss_fn, has_aux=True)(net, observation, mask, policy, value)
        updates, opt_state = optimiser.update(grads, opt_state, eqx.filter(net, eqx.is_array))
        return eqx.apply_updates(net, updates), opt_state, parts

    games = config.eval_games

    @eqx.filter_jit
    def versus_random(net, key):
        """The policy's greedy move against uniform random play; seat = game index % players."""
        state = jax.vmap(env.init)(jax.random.split(key, games))
        mine = jnp.arange(games) % env.num_players

        def move(carry, _):
            state, key, score, done = carry
            key, pick, step_key = jax.random.split(key, 3)
            logits, _ = evaluate(net, state.observation, state.legal_action_mask)
            random_pick = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
            action = jnp.where(state.current_player == mine, jnp.argmax(logits, axis=-1), random_pick)
            after = jax.vmap(env.step)(state, action, jax.random.split(step_key, games))
            mine_reward = jnp.take_along_axis(after.rewards, mine[:, None], axis=1)[:, 0]
            score = jnp.where(~done & after.terminated, (mine_reward + 1) / 2, score)
            return (after, key, score, done | after.terminated), None

        longest = env.description.engine.max_game_length_for(env.options) + 1
        (_, _, score, done), _ = jax.lax.scan(move, (state, key, jnp.zeros(games), jnp.zeros(games, bool)), None,
                                              length=longest)
        return jnp.sum(score) / jnp.maximum(jnp.sum(done), 1)

    return optimiser, self_play, update, versus_random


class Replay:
    """The latest ``size`` positions, on the host (a ring buffer)."""

    def __init__(self, size: int, observation: int, actions: int):
        self.observation = np.zeros((size, observation), np.float32)
        self.mask = np.zeros((size, actions), bool)
        self.policy = np.zeros((size, actions), np.float32)
        self.value = np.zeros(size, np.float32)
        self.size, self.next, self.filled = size, 0, 0

    def add(self, trajectory: Trajectory) -> int:
        keep = np.asarray(trajectory.valid).reshape(-1)
        parts = [np.asarray(part).reshape((keep.size,) + np.shape(part)[2:])[keep]
                 for part in (trajectory.observation, trajectory.mask, trajectory.policy, trajectory.value)]
        count = int(keep.sum())
        where = (self.next + np.arange(count)) % self.size
        for store, part in zip((self.observation, self.mask, self.policy, self.value), parts):
            store[where] = part[-self.size:] if count > self.size else part
        self.next = int((self.next + count) % self.size)
        self.filled = min(self.size, self.filled + count)
        return count

    def sample(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, ...]:
        rows = rng.integers(0, self.filled, count)
        return self.observation[rows], self.mask[rows], self.policy[rows], self.value[rows]

    def arrays(self) -> dict[str, np.ndarray]:
        return {"observation": self.observation, "mask": self.mask, "policy": self.policy, "value": self.value,
                "cursor": np.array([self.next, self.filled])}

    def load(self, arrays: dict[str, np.ndarray]) -> None:
        for name in ("observation", "mask", "policy", "value"):
            getattr(self, name)[:] = arrays[name]
        self.next, self.filled = (int(v) for v in arrays["cursor"])


def save_agent(path: Path, net, env, config: GumbelConfig, extra: dict) -> Path:
    """The network as the suite's ``network`` agent file (numpy at play time)."""
    from training.agents.checkpoint import code_version
    from training.agents.network import save_network
    from training.jobs.gumbel.network import export_weights

    meta = {"game": env.description.name, "options": env.description.portable_options(env.options),
            "num_actions": env.num_actions, "observation_format": "planes",
            "algo": "gumbel alphazero (JAX: mctx search, Equinox network)", "value_mix": 0.0, "margin_scale": 1.0,
            "simulations": config.simulations, "seed": config.seed, "code_version": code_version(),
            "created": time.strftime("%Y-%m-%d %H:%M:%S"), **extra}
    return save_network(path, net.architecture, export_weights(net), env.observer.policy_layout().index, meta)


def python_evaluation(path: Path, env, config: GumbelConfig, iteration: int) -> dict[str, float]:
    from training import load_agent
    from training.evaluation.tournament import evaluate_against

    agent = load_agent(str(path), env.description.name, **env.options)
    return {opponent: evaluate_against(env.description.name, agent, opponent, config.python_eval_games,
                                       config.seed + 10_000 * iteration, env.options)
            for opponent in config.eval_opponents}


def train(config: GumbelConfig, command: str) -> Path:
    import equinox as eqx
    import jax
    from tqdm import tqdm

    import envs
    from training.agents.network import Architecture
    from training.jobs.gumbel.network import PolicyValueNet

    # ----- the game, the network, the compiled pieces ------------------------------------------------
    env = envs.make_jax(config.game, **config.options)
    layout = env.observer.policy_layout()
    architecture = Architecture(tuple(env.planes_shape), config.filters, config.blocks, layout.cell_channels,
                                layout.global_actions, env.num_players)
    key = jax.random.PRNGKey(config.seed)
    key, net_key, start_key = jax.random.split(key, 3)
    net = PolicyValueNet(architecture, net_key)
    optimiser, self_play, update, versus_random = build(config, env, net)
    opt_state = optimiser.init(eqx.filter(net, eqx.is_array))
    replay = Replay(config.replay_size, env.observation_shape[0], env.num_actions)
    rng = np.random.default_rng(config.seed)
    state = jax.vmap(env.init)(jax.random.split(start_key, config.games))
    iteration, positions, seconds, best = 0, 0, 0.0, -1.0

    # ----- the run folder (a new one, or the one --resume names) --------------------------------------
    if config.resume:
        folder = Path(config.resume)
        saved = json.loads((folder / "state.json").read_text())
        net, opt_state = eqx.tree_deserialise_leaves(folder / "state.eqx", (net, opt_state))
        with np.load(folder / "replay.npz") as arrays:
            replay.load(dict(arrays))
        iteration, positions, seconds, best = saved["iteration"], saved["positions"], saved["seconds"], saved["best"]
        rng.bit_generator.state = saved["rng"]
        key = jax.random.PRNGKey(saved["key_seed"])
        state = jax.vmap(env.init)(jax.random.split(key, config.games))  # games in flight start afresh
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = Path(config.out_dir) / f"{env.description.short_name}__gumbel__{config.seed}__{stamp}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json").write_text(json.dumps({"command": command, **dataclasses.asdict(config)}, indent=1))
    log_path = folder / "progress.csv"
    fields = ["iteration", "positions", "seconds", "positions_per_second", "policy_loss", "value_loss",
              "compiled_versus_random"] + [f"versus_{o}" for o in config.eval_opponents]
    if not log_path.exists():
        with open(log_path, "w", newline="") as handle:
            csv.writer(handle).writerow(fields)
    print(f"gumbel alphazero on {env!r}, {jax.devices()[0].platform}; run folder {folder}", flush=True)

    # ----- the iterations ---------------------------------------------------------------------------
    bar = tqdm(total=config.iterations, initial=iteration, unit="it", dynamic_ncols=True)
    while iteration < config.iterations:
        begun = time.perf_counter()
        state, key, trajectory = self_play(net, state, key)
        added = replay.add(jax.device_get(trajectory))
        played = config.games * config.moves
        losses = []
        for _ in range(config.updates if replay.filled >= config.batch_size else 0):
            net, opt_state, parts = update(net, opt_state, *replay.sample(rng, config.batch_size))
            losses.append([float(p) for p in parts])
        key, eval_key = jax.random.split(key)
        against_random = float(versus_random(net, eval_key)) if config.eval_games else float("nan")
        iteration += 1
        positions += played
        seconds += time.perf_counter() - begun
        row = {"iteration": iteration, "positions": positions, "seconds": round(seconds, 1),
               "positions_per_second": round(played / (time.perf_counter() - begun), 1),
               "policy_loss": np.mean([l[0] for l in losses]) if losses else float("nan"),
               "value_loss": np.mean([l[1] for l in losses]) if losses else float("nan"),
               "compiled_versus_random": round(against_random, 3)}
        if iteration % config.eval_every == 0 or iteration == config.iterations:
            latest = save_agent(folder / "latest.zip", net, env, config,
                                {"iteration": iteration, "positions": positions, "wall_seconds": round(seconds, 1),
                                 "command": command})
            if config.python_eval_games:
                scores = python_evaluation(latest, env, config, iteration)
                row |= {f"versus_{o}": round(s, 3) for o, s in scores.items()}
                if scores[config.eval_opponents[-1]] > best:
                    best = scores[config.eval_opponents[-1]]
                    (folder / "best.zip").write_bytes(latest.read_bytes())
            eqx.tree_serialise_leaves(folder / "state.eqx", (net, opt_state))
            np.savez(folder / "replay.npz", **replay.arrays())
            (folder / "state.json").write_text(json.dumps({
                "iteration": iteration, "positions": positions, "seconds": seconds, "best": best,
                "rng": rng.bit_generator.state, "key_seed": int(rng.integers(1 << 31))}))
        with open(log_path, "a", newline="") as handle:
            csv.writer(handle).writerow([row.get(f, "") for f in fields])
        bar.set_postfix(positions_s=f"{row['positions_per_second']:,.0f}", added=added,
                        vs_random=f"{against_random:.2f}", vs_last=row.get(f"versus_{config.eval_opponents[-1]}", "-"))
        bar.update(1)
    bar.close()
    print(f"done: {iteration} iterations, {positions:,} positions in {seconds / 60:.1f} min; agent files in {folder}")
    return folder


def parse_config(argv: list[str] | None = None) -> GumbelConfig:
    config = parse_flags(GumbelConfig, argv, __doc__, prog="python -m training.gumbel")
    if config.resume:  # the run's own settings; the command line may raise the iterations
        saved = json.loads((Path(config.resume) / "config.json").read_text())
        saved.pop("command", None)
        saved["eval_opponents"] = tuple(saved["eval_opponents"])
        resumed = GumbelConfig(**{**saved, "iterations": max(saved["iterations"], config.iterations),
                                  "resume": config.resume})
        config = resumed
    check_config(config)
    return config


def main(argv: list[str] | None = None) -> Path:
    argv = sys.argv[1:] if argv is None else argv
    config = parse_config(argv)
    return train(config, "python -m training.gumbel " + shlex.join(argv))
