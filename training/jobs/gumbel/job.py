"""Gumbel AlphaZero on the JAX engines: self-play, search and network in one compiled program.

    python -m training.gumbel --game linecatch                        # 5×5, default settings
    python -m training.gumbel --game loom --iterations 200 --simulations 16
    python -m training.gumbel --game fill --options '{"traps": true}' --games 512
    python -m training.gumbel --resume runs/linecatch__gumbel__0__20261207-101500
    python -m training.gumbel --game fill --init-from checkpoints/fill/fill__endgame__1.zip   # go on from a shipped network

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
   head); the margin head learns the final margin, squashed as tanh(margin / ``--margin-scale``),
   and ``--value-mix`` mixes the two in what the search backs up (agent files record both, so
   ``mcts:N:net=FILE`` searches with the same values).
4. **evaluation** — every iteration the network's policy plays ``--eval-games`` compiled games
   against uniform random play (printed on the progress bar); every ``--eval-every``
   iterations ``latest.zip`` is written and the policy plays the Python bots of
   ``--eval-opponents`` (seats alternated); the best against the last of them is ``best.zip``.

Outputs go to ``runs/<game>__gumbel__<seed>__<time>/``: ``config.json``, ``progress.csv`` (one row
per iteration: positions, positions/s, losses, the compiled score against random, the Python
evaluations as ``versus_<opponent>``),
``latest.zip`` and ``best.zip`` (``network`` agent files: ``load_agent(path, game)`` plays them
with numpy alone, ``mcts:N:net=PATH`` searches with them), ``snapshots/iteration_<n>.zip`` (every
evaluated network, its training seconds in its metadata: ``scripts/learning_curves.py`` rates them), and ``state.eqx`` + ``state.json``
(network, optimiser, replay buffer and counters: ``--resume RUN_DIR`` continues a run). It
runs on whatever ``jax.devices()`` offers: CPU here, a GPU unchanged.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from training.common.flags import FlagError, flags_given, parse_flags
from training.jobs.config import SearchJobConfig, check_start_layout, read_start_agent, require_counts


@dataclass
class GumbelConfig(SearchJobConfig):
    # SearchJobConfig's settings, with defaults for batches of compiled games: a long run of
    # cheap iterations, fewer simulations, a smaller tower, larger batches and buffer.
    iterations: int = 100
    simulations: int = 16
    blocks: int = 2
    batch_size: int = 512
    replay_size: int = 200_000
    eval_every: int = 10
    value_mix: float = 0.0
    games: int = 256
    """games played at once (the batch every compiled step runs)"""
    moves: int = 64
    """decisions per game per iteration (games carry on to the next iteration: Pgx's auto_reset)"""
    updates: int = 64
    """Adam steps per iteration"""
    eval_games: int = 256
    """compiled games against uniform random play after every iteration (seats alternated)"""
    python_eval_games: int = 40
    """games per opponent in the scheduled evaluations of --eval-every (0: none)"""
    margin_scale: float = 0.0
    """the margin head learns tanh(final margin / this); 0: the standard deviation of final margins
    over a batch of uniformly random games, measured at the start (and written to config.json)"""
    snapshots: bool = True
    """keep every evaluated network as snapshots/iteration_<n>.zip (learning curves rate them)"""
    resume: str | None = None
    """continue the run in this folder (its own settings; --iterations and --max-minutes may be given)"""
    max_minutes: float | None = None
    """stop after this much wall-clock time in this sitting, saved as at an evaluation (--resume goes on)"""


def check_config(config: GumbelConfig) -> None:
    require_counts(config, ("iterations", "games", "moves", "simulations", "considered", "filters", "batch_size",
                            "updates", "replay_size", "eval_every"))
    require_counts(config, ("blocks", "eval_games", "python_eval_games"), least=0)
    if not 0.0 <= config.value_mix <= 1.0:
        raise FlagError(f"--value-mix must be between 0 and 1, not {config.value_mix!r}")
    if config.max_minutes is not None and not config.max_minutes > 0:
        raise FlagError(f"--max-minutes must be a positive number of minutes, not {config.max_minutes!r}")
    if not config.margin_scale >= 0.0:
        raise FlagError(f"--margin-scale must be ≥ 0 (0: measured), not {config.margin_scale!r}")
    if not config.learning_rate > 0:
        raise FlagError(f"--learning-rate must be > 0, not {config.learning_rate!r}")


# ----- what one compiled iteration returns ----------------------------------------------------------
class Trajectory(NamedTuple):
    observation: Any  # (T, B, size) float32: the deciding seat's flat observation
    mask: Any         # (T, B, actions) bool
    policy: Any       # (T, B, actions) float32: the search's improved policy
    value: Any        # (T, B) float32: the outcome from the deciding seat's side
    margin: Any       # (T, B) float32: the final margin from that side, squashed (tanh(margin / scale))
    valid: Any        # (T, B) bool: its game ended within the iteration


class Compiled(NamedTuple):
    optimiser: Any
    self_play: Any      # (net, state, key) -> (state, key, Trajectory)
    update: Any         # (net, opt_state, observation, mask, policy, value, margin) -> (net, opt_state, losses)
    versus_random: Any  # (net, key) -> the greedy policy's score against uniform random play


def seat_margin(env, state, seat):
    """(B,) float32: ``seat``'s score minus the best other seat's, in each game of a batch."""
    import jax
    import jax.numpy as jnp

    scores = jax.vmap(env.rules.scores)(state._game)
    mine = jnp.take_along_axis(scores, seat[:, None], axis=1)[:, 0]
    others = jnp.where(jnp.arange(scores.shape[1])[None, :] == seat[:, None], -jnp.inf, scores)
    return mine - others.max(axis=1)


def seat_reward(state, seat):
    import jax.numpy as jnp

    return jnp.take_along_axis(state.rewards, seat[:, None], axis=1)[:, 0]


def restart_finished(env, state, key):
    """Pgx's auto_reset after the fact: finished games start afresh (their last step already read)."""
    import jax
    import jax.numpy as jnp

    fresh = jax.vmap(env.init)(jax.random.split(key, state.terminated.shape[0]))
    done = state.terminated

    def pick(new, old):
        return jnp.where(done.reshape(done.shape + (1,) * (old.ndim - 1)), new, old)

    return jax.tree_util.tree_map(pick, fresh, state)


def search_pieces(config: GumbelConfig, env, scale: float):
    """``evaluate(net, observation, mask)`` → masked logits and the value a search backs up (the
    value head mixed with the margin head by ``value_mix``), and mctx's ``recurrent`` function."""
    import jax
    import jax.numpy as jnp
    import mctx

    index = jnp.asarray(env.observer.policy_layout().index)
    mix = config.value_mix

    def evaluate(net, observation, mask):
        head, values, margins = net(env.planes(observation))
        logits = jnp.where(mask, head[:, index], jnp.finfo(jnp.float32).min)
        return logits, (1.0 - mix) * values[:, 0] + mix * margins[:, 0]

    def recurrent(net, key, action, state):
        actor = state.current_player
        after = jax.vmap(env.step)(state, action, jax.random.split(key, action.shape[0]))
        logits, value = evaluate(net, after.observation, after.legal_action_mask)
        final = (1.0 - mix) * seat_reward(after, actor) + mix * jnp.tanh(seat_margin(env, after, actor) / scale)
        same = after.current_player == actor
        discount = jnp.where(after.terminated, 0.0, jnp.where(same, 1.0, -1.0))
        output = mctx.RecurrentFnOutput(reward=jnp.where(after.terminated, final, 0.0), discount=discount,
                                        prior_logits=logits, value=jnp.where(after.terminated, 0.0, value))
        return output, after

    return evaluate, recurrent


def compile_self_play(config: GumbelConfig, env, scale: float):
    """``self_play(net, state, key)``: ``--moves`` searched decisions in every game of the batch,
    and the targets of every decision whose game ended within them."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import mctx

    evaluate, recurrent = search_pieces(config, env, scale)
    batch = config.games

    def one_move(net, carry, _):
        state, key = carry
        key, search_key, step_key, reset_key = jax.random.split(key, 4)
        logits, value = evaluate(net, state.observation, state.legal_action_mask)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        out = mctx.gumbel_muzero_policy(params=net, rng_key=search_key, root=root, recurrent_fn=recurrent,
                                        num_simulations=config.simulations, invalid_actions=~state.legal_action_mask,
                                        max_num_considered_actions=config.considered)
        actor = state.current_player
        stepped = jax.vmap(env.step)(state, out.action, jax.random.split(step_key, batch))
        record = (state.observation, state.legal_action_mask, out.action_weights, seat_reward(stepped, actor),
                  jnp.tanh(seat_margin(env, stepped, actor) / scale), stepped.terminated,
                  stepped.current_player == actor)
        return (restart_finished(env, stepped, reset_key), key), record

    @eqx.filter_jit
    def self_play(net, state, key):
        (state, key), (observation, mask, policy, reward, margin, ended, same) = jax.lax.scan(
            lambda carry, x: one_move(net, carry, x), (state, key), None, length=config.moves)

        def back(later, t):  # outcome and margin from the deciding seat's side, backwards through each game
            flip = jnp.where(same[t], 1.0, -1.0)
            now = jnp.where(ended[t], jnp.stack([reward[t], margin[t]]), flip * later)
            return now, now

        _, targets = jax.lax.scan(back, jnp.zeros((2, batch)), jnp.arange(config.moves - 1, -1, -1))
        targets = targets[::-1]
        valid = jnp.cumsum(ended[::-1], axis=0)[::-1] > 0
        return state, key, Trajectory(observation, mask, policy, targets[:, 0], targets[:, 1], valid)

    return self_play


def compile_learning(config: GumbelConfig, env):
    """Adam on policy cross-entropy + the value head's and the margin head's squared errors."""
    import equinox as eqx
    import jax.numpy as jnp
    import optax

    index = jnp.asarray(env.observer.policy_layout().index)
    optimiser = optax.adam(config.learning_rate)

    def loss_fn(net, observation, mask, policy, value, margin):
        head, values, margins = net(env.planes(observation))
        logits = jnp.where(mask, head[:, index], -1e9)
        policy_loss = optax.softmax_cross_entropy(logits, policy).mean()
        seats = values.shape[1]
        value_loss = (jnp.mean((values - jnp.stack([value, -value], axis=1)[:, :seats]) ** 2)
                      + jnp.mean((margins - jnp.stack([margin, -margin], axis=1)[:, :seats]) ** 2))
        return policy_loss + value_loss, (policy_loss, value_loss)

    @eqx.filter_jit
    def update(net, opt_state, *batch):
        (_, parts), grads = eqx.filter_value_and_grad(loss_fn, has_aux=True)(net, *batch)
        updates, opt_state = optimiser.update(grads, opt_state, eqx.filter(net, eqx.is_array))
        return eqx.apply_updates(net, updates), opt_state, parts

    return optimiser, update


def play_to_the_end(env, games: int, key, choose):
    """Plays ``games`` games from the start to the end, ``choose(state, key)`` picking every move;
    returns the finished states (read their scores: the rewards are those of the last step). The
    loop stops once every game has ended (a step on a finished game changes nothing, so the
    positions are those of playing on to the game's longest length, which still bounds it): an
    Uzor game's limit is thousands of decisions, its games far fewer."""
    import jax
    import jax.numpy as jnp

    def move(carry):
        played, state, key = carry
        key, pick, step_key = jax.random.split(key, 3)
        after = jax.vmap(env.step)(state, choose(state, pick), jax.random.split(step_key, games))
        return played + 1, after, key

    def unfinished(carry):
        played, state, _ = carry
        return (played < longest) & ~jnp.all(state.terminated | state.truncated)

    key, start = jax.random.split(key)
    state = jax.vmap(env.init)(jax.random.split(start, games))
    longest = env.description.engine.max_game_length_for(env.options) + 1
    _, state, _ = jax.lax.while_loop(unfinished, move, (jnp.int32(0), state, key))
    return state


def random_moves(state, key):
    import jax
    import jax.numpy as jnp

    return jax.random.categorical(key, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))


def compile_versus_random(config: GumbelConfig, env):
    """The policy's greedy move against uniform random play; seat = game index % players; a finished
    game's score is (reward + 1) / 2 from the policy's seat."""
    import equinox as eqx
    import jax.numpy as jnp

    evaluate, _ = search_pieces(config, env, 1.0)
    games = config.eval_games
    mine = jnp.arange(games) % env.num_players

    @eqx.filter_jit
    def versus_random(net, key):
        def choose(state, pick):
            logits, _ = evaluate(net, state.observation, state.legal_action_mask)
            return jnp.where(state.current_player == mine, jnp.argmax(logits, axis=-1), random_moves(state, pick))

        final = play_to_the_end(env, games, key, choose)
        # the rewards of a finished game's later steps are zeros; its scores stay: the sign of the
        # margin is the contract's reward (+1 sole winner, 0 tied first, −1 otherwise)
        score = jnp.where(final.terminated, (jnp.sign(seat_margin(env, final, mine)) + 1) / 2, 0.0)
        return jnp.sum(score) / jnp.maximum(jnp.sum(final.terminated), 1)

    return versus_random


def measured_margin_scale(env, games: int, key) -> float:
    """The standard deviation of seat 0's final margin over ``games`` uniformly random games (1.0
    where it is 0): the scale that squashes margins into tanh's useful range."""
    import jax
    import jax.numpy as jnp

    final = jax.jit(lambda k: play_to_the_end(env, games, k, random_moves))(key)
    margins = np.asarray(seat_margin(env, final, jnp.zeros(games, jnp.int32)))
    spread = float(margins.std())
    return round(spread, 3) if spread > 0 else 1.0


def build(config: GumbelConfig, env, scale: float) -> Compiled:
    """The compiled pieces of the job, each one ``jax.jit`` program."""
    optimiser, update = compile_learning(config, env)
    return Compiled(optimiser, compile_self_play(config, env, scale), update, compile_versus_random(config, env))


class Replay:
    """The latest ``size`` positions, on the host (a ring buffer)."""

    COLUMNS = ("observation", "mask", "policy", "value", "margin")

    def __init__(self, size: int, observation: int, actions: int):
        self.observation = np.zeros((size, observation), np.float32)
        self.mask = np.zeros((size, actions), bool)
        self.policy = np.zeros((size, actions), np.float32)
        self.value = np.zeros(size, np.float32)
        self.margin = np.zeros(size, np.float32)
        self.size, self.next, self.filled = size, 0, 0

    def add(self, trajectory: Trajectory) -> int:
        keep = np.asarray(trajectory.valid).reshape(-1)
        count = int(keep.sum())
        where = (self.next + np.arange(count)) % self.size
        for name in self.COLUMNS:
            part = np.asarray(getattr(trajectory, name))
            part = part.reshape((keep.size,) + part.shape[2:])[keep]
            getattr(self, name)[where] = part[-self.size:] if count > self.size else part
        self.next = int((self.next + count) % self.size)
        self.filled = min(self.size, self.filled + count)
        return count

    def sample(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, ...]:
        rows = rng.integers(0, self.filled, count)
        return tuple(getattr(self, name)[rows] for name in self.COLUMNS)

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.COLUMNS} | {"cursor": np.array([self.next, self.filled])}

    def load(self, arrays: dict[str, np.ndarray], source: Path) -> None:
        missing = [name for name in self.COLUMNS + ("cursor",) if name not in arrays]
        if missing:
            raise FlagError(f"--resume: {source} has no {', '.join(missing)} (saved by an earlier version of the job; "
                             "start a new run)")
        for name in self.COLUMNS:
            getattr(self, name)[:] = arrays[name]
        self.next, self.filled = (int(v) for v in arrays["cursor"])


def save_agent(path: Path, net, env, config: GumbelConfig, margin_scale: float, extra: dict) -> Path:
    """The network as the suite's ``network`` agent file (numpy at play time)."""
    from training.agents.checkpoint import code_version
    from training.agents.network import save_network
    from training.jobs.gumbel.network import export_weights

    meta = {"game": env.description.name, "options": env.description.portable_options(env.options),
            "num_actions": env.num_actions, "observation_format": "planes",
            "algo": "gumbel alphazero (JAX: mctx search, Equinox network)", "value_mix": config.value_mix,
            "margin_scale": margin_scale, "simulations": config.simulations, "seed": config.seed,
            "code_version": code_version(), "created": time.strftime("%Y-%m-%d %H:%M:%S"), **extra}
    return save_network(path, net.architecture, export_weights(net), env.observer.policy_layout().index, meta)


def python_evaluation(path: Path, env, config: GumbelConfig, iteration: int) -> dict[str, float]:
    from training.players.load import load_agent
    from training.evaluation.tournament import evaluate_against

    agent = load_agent(str(path), env.description.name, **env.options)
    return {opponent: evaluate_against(env.description.name, agent, opponent, config.python_eval_games,
                                       config.seed + 10_000 * iteration, env.options)
            for opponent in config.eval_opponents}


class GumbelRun:
    """One run's moving parts: the env, the network and optimiser, the replay buffer, the games in
    flight, the counters, the run folder and its files."""

    def __init__(self, config: GumbelConfig, command: str, start: tuple[dict, dict] | None = None):
        """``start``: the metadata and arrays of the ``--init-from`` file (:func:`read_start_agent`)."""
        import equinox as eqx
        import jax

        import envs
        from training.agents.network import Architecture
        from training.jobs.gumbel.network import PolicyValueNet, import_weights

        self.config, self.command = config, command
        self.env = env = envs.make_jax(config.game, **config.options)
        layout = env.observer.policy_layout()
        architecture = Architecture(tuple(env.planes_shape), config.filters, config.blocks, layout.cell_channels,
                                    layout.global_actions, env.num_players)
        key, net_key, start_key, scale_key = jax.random.split(jax.random.PRNGKey(config.seed), 4)
        self.key = key
        self.net = PolicyValueNet(architecture, net_key)
        if start is not None:  # --init-from: the file's tower (its shape and margin scale are the config's by now)
            meta, arrays = start
            check_start_layout(config, meta, arrays["policy.index"], architecture, layout.index)
            self.net = import_weights(self.net, arrays)
        self.margin_scale = config.margin_scale or measured_margin_scale(env, config.games, scale_key)
        self.compiled = build(config, env, self.margin_scale)
        self.opt_state = self.compiled.optimiser.init(eqx.filter(self.net, eqx.is_array))
        self.replay = Replay(config.replay_size, env.observation_shape[0], env.num_actions)
        self.rng = np.random.default_rng(config.seed)
        self.state = jax.vmap(env.init)(jax.random.split(start_key, config.games))
        self.iteration, self.positions, self.seconds, self.best = 0, 0, 0.0, -1.0
        self.fields = ["iteration", "positions", "seconds", "positions_per_second", "policy_loss", "value_loss",
                       "compiled_versus_random"] + [f"versus_{o}" for o in config.eval_opponents]
        self.folder = Path(config.resume) if config.resume else self.new_folder()

    def new_folder(self) -> Path:
        config = self.config
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = Path(config.out_dir) / f"{self.env.description.short_name}__gumbel__{config.seed}__{stamp}"
        folder.mkdir(parents=True, exist_ok=True)
        settings = dataclasses.asdict(config) | {"margin_scale": self.margin_scale}  # the measured scale, if any
        (folder / "config.json").write_text(json.dumps({"command": self.command, **settings}, indent=1))
        with open(folder / "progress.csv", "w", newline="") as handle:
            csv.writer(handle).writerow(self.fields)
        return folder

    def resume(self) -> None:
        import equinox as eqx
        import jax

        saved = json.loads((self.folder / "state.json").read_text())
        self.net, self.opt_state = eqx.tree_deserialise_leaves(self.folder / "state.eqx", (self.net, self.opt_state))
        with np.load(self.folder / "replay.npz") as arrays:
            self.replay.load(dict(arrays), self.folder / "replay.npz")
        self.iteration, self.positions, self.seconds, self.best = (saved[k] for k in ("iteration", "positions",
                                                                                      "seconds", "best"))
        self.rng.bit_generator.state = saved["rng"]
        self.key = jax.random.PRNGKey(saved["key_seed"])
        self.state = jax.vmap(self.env.init)(jax.random.split(self.key, self.config.games))  # games in flight start afresh

    def iterate(self) -> dict[str, Any]:
        """Self-play, learning and the compiled evaluation; the progress row."""
        import jax

        config, begun = self.config, time.perf_counter()
        self.state, self.key, trajectory = self.compiled.self_play(self.net, self.state, self.key)
        added = self.replay.add(jax.device_get(trajectory))
        losses = []
        for _ in range(config.updates if self.replay.filled >= config.batch_size else 0):
            self.net, self.opt_state, parts = self.compiled.update(self.net, self.opt_state,
                                                                   *self.replay.sample(self.rng, config.batch_size))
            losses.append([float(p) for p in parts])
        self.key, eval_key = jax.random.split(self.key)
        against_random = float(self.compiled.versus_random(self.net, eval_key)) if config.eval_games else float("nan")
        played = config.games * config.moves
        self.iteration += 1
        self.positions += played
        self.seconds += time.perf_counter() - begun
        return {"iteration": self.iteration, "positions": self.positions, "seconds": round(self.seconds, 1),
                "positions_per_second": round(played / (time.perf_counter() - begun), 1),
                "policy_loss": np.mean([l[0] for l in losses]) if losses else float("nan"),
                "value_loss": np.mean([l[1] for l in losses]) if losses else float("nan"),
                "compiled_versus_random": round(against_random, 3), "added": added}

    def evaluate_and_save(self, row: dict[str, Any]) -> None:
        """latest.zip (and a kept copy under snapshots/), the Python evaluations, best.zip, the state."""
        import equinox as eqx

        config = self.config
        latest = save_agent(self.folder / "latest.zip", self.net, self.env, config, self.margin_scale,
                            {"iteration": self.iteration, "positions": self.positions,
                             "wall_seconds": round(self.seconds, 1), "command": self.command})
        if config.snapshots:
            (self.folder / "snapshots").mkdir(exist_ok=True)
            (self.folder / "snapshots" / f"iteration_{self.iteration:05d}.zip").write_bytes(latest.read_bytes())
        if config.python_eval_games:
            scores = python_evaluation(latest, self.env, config, self.iteration)
            row |= {f"versus_{o}": round(s, 3) for o, s in scores.items()}
            if scores[config.eval_opponents[-1]] > self.best:
                self.best = scores[config.eval_opponents[-1]]
                (self.folder / "best.zip").write_bytes(latest.read_bytes())
        eqx.tree_serialise_leaves(self.folder / "state.eqx", (self.net, self.opt_state))
        np.savez(self.folder / "replay.npz", **self.replay.arrays())
        (self.folder / "state.json").write_text(json.dumps({
            "iteration": self.iteration, "positions": self.positions, "seconds": self.seconds, "best": self.best,
            "rng": self.rng.bit_generator.state, "key_seed": int(self.rng.integers(1 << 31))}))

    def log(self, row: dict[str, Any]) -> None:
        with open(self.folder / "progress.csv", "a", newline="") as handle:
            csv.writer(handle).writerow([row.get(f, "") for f in self.fields])


def train(config: GumbelConfig, command: str, start: tuple[dict, dict] | None = None) -> Path:
    import jax
    from tqdm import tqdm

    run = GumbelRun(config, command, start)
    if config.resume:
        run.resume()
    elif start is not None:
        print(f"network from {config.init_from} (iteration {start[0].get('iteration')}, "
              f"{start[0].get('positions')} positions)", flush=True)
    print(f"gumbel alphazero on {run.env!r}, {jax.devices()[0].platform}; margins squashed by "
          f"tanh(margin / {run.margin_scale}); run folder {run.folder}", flush=True)
    deadline = time.perf_counter() + 60 * config.max_minutes if config.max_minutes else math.inf
    bar = tqdm(total=config.iterations, initial=run.iteration, unit="it", dynamic_ncols=True)
    while run.iteration < config.iterations:
        row = run.iterate()
        out_of_time = time.perf_counter() >= deadline
        if run.iteration % config.eval_every == 0 or run.iteration == config.iterations or out_of_time:
            run.evaluate_and_save(row)
        run.log(row)
        bar.set_postfix(positions_s=f"{row['positions_per_second']:,.0f}", added=row["added"],
                        vs_random=f"{row['compiled_versus_random']:.2f}",
                        vs_last=row.get(f"versus_{config.eval_opponents[-1]}", "-"))
        bar.update(1)
        if out_of_time:
            break
    bar.close()
    ended = "done" if run.iteration >= config.iterations else f"stopped at --max-minutes {config.max_minutes:g} (--resume goes on)"
    print(f"{ended}: {run.iteration} iterations, {run.positions:,} positions in {run.seconds / 60:.1f} min; "
          f"agent files in {run.folder}")
    return run.folder


def parse_config(argv: list[str] | None = None) -> tuple[GumbelConfig, tuple[dict, dict] | None]:
    """The config, and the metadata and arrays of its ``--init-from`` file (None without one, or
    when resuming: the run's state holds the network then)."""
    config = parse_flags(GumbelConfig, argv, __doc__, prog="abstract-games gumbel")
    given = flags_given(sys.argv[1:] if argv is None else argv)
    start = None
    if config.resume:  # the run's own settings; the command line may raise the iterations
        saved = json.loads((Path(config.resume) / "config.json").read_text())
        saved.pop("command", None)
        saved["eval_opponents"] = tuple(saved["eval_opponents"])
        # the run's own iterations unless the command line raises them (a default is not a wish)
        asked = config.iterations if "iterations" in given else saved["iterations"]
        resumed = GumbelConfig(**{**saved, "iterations": max(saved["iterations"], asked),
                                  "max_minutes": config.max_minutes, "resume": config.resume})
        config = resumed
    elif config.init_from:
        config, meta, arrays = read_start_agent(config, given)
        if "margin_scale" in given and config.margin_scale != meta["margin_scale"]:
            raise FlagError(f"--margin-scale {config.margin_scale:g} differs from the --init-from network's "
                             f"{meta['margin_scale']:g} (its margin head learned that scale)")
        config, start = dataclasses.replace(config, margin_scale=float(meta["margin_scale"])), (meta, arrays)
    check_config(config)
    return config, start


def main(argv: list[str] | None = None) -> Path:
    argv = sys.argv[1:] if argv is None else argv
    config, start = parse_config(argv)
    return train(config, "python -m training.gumbel " + shlex.join(argv), start)
