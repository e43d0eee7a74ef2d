"""Search-and-learn training (AlphaZero / Expert Iteration) for any suite game, in one file.

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
import random
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.core.game import margins as score_margins
from training.common.flags import parse_flags
from training.agents.network import search_values, squash_margins
from training.bots import bot_kit
from training.common.processes import one_thread_per_worker, single_thread_pool

# ----- configuration ---------------------------------------------------------------------------


@dataclass
class AlphaZeroConfig:
    game: str = "linecatch"
    """the game (an env name such as ``loom`` or ``knot_v0``)"""
    options: dict = field(default_factory=dict)
    """env options (default: the game's defaults), as JSON on the command line"""
    seed: int = 0
    """seeds self-play, the network's initial weights and minibatch order"""
    iterations: int = 20
    """self-play + learning rounds"""
    games_per_iteration: int = 64
    """self-play games per iteration (split among the workers)"""
    simulations: int = 32
    """search simulations per move in self-play"""
    considered: int = 16
    """root actions Gumbel sampling considers (halved between)"""
    concurrent_games: int = 16
    """games one worker plays at once (their leaves share one network call)"""
    workers: int = 2
    """self-play processes (one per core); with --ray-address, Ray actors"""
    ray_address: str | None = None
    """run self-play as Ray actors on an existing cluster (``auto``, ``ray://host:port``)"""
    filters: int = 32
    """width of the residual tower"""
    blocks: int = 3
    """residual blocks in the tower"""
    learning_rate: float = 1e-3
    """AdamW learning rate"""
    weight_decay: float = 1e-4
    """AdamW weight decay"""
    batch_size: int = 256
    """minibatch size"""
    steps_per_iteration: int = 200
    """minibatch updates per iteration"""
    replay_size: int = 100_000
    """positions kept in the replay buffer (the latest)"""
    margin_weight: float = 0.5
    """weight of the score-margin target in the loss (0 for games without points)"""
    value_mix: float = 0.5
    """weight of the margin head in the values the search backs up (0: the expected outcome
    alone); the margin tells a big lead from a narrow one, which few simulations need"""
    hook_value_weight: float = 0.0
    """weight of the game's own evaluation of a leaf (its ``evaluate`` search hook: Loom's fitted
    line values, Knot's and Uzor's priced prospects, the score margins elsewhere) against the
    network's value, as AlphaGo mixed its value network with play-outs; 0: the network alone.
    Recorded in the agent file, whose guided search uses it"""
    warm_start: str | None = None
    """imitate this agent first (``heuristic``, ``mcts:100``, any load_agent spec)"""
    opponent: tuple = ()
    """fixed agents (load_agent specs, such as ``heuristic random``) that take one seat in a
    share of the self-play games, in turn; only the searched seats' decisions are recorded.
    Fixed opponents mixed into self-play, as league training does, keep showing the network
    what beats them (and positions its own play would not reach)"""
    opponent_outcomes: bool = True
    """train the value and margin heads on the outcomes of the games against ``--opponent`` too;
    ``--no-opponent-outcomes`` trains them on self-play games alone and the policy on both (a
    fixed opponent's results say how the pair fares; a search that beats it every time would
    teach the value head that the player to move always wins)"""
    opponent_share: float = 0.0
    """the share of each iteration's self-play games that ``--opponent`` plays in (the seat
    rotates with the game's seed, the opponent with the game's turn among them)"""
    init_from: str | None = None
    """start the network from this agent file (written by this trainer for the same game and
    options): its tower's shape, weights and margin scale; the replay buffer starts empty. It
    continues a trained agent when its run folder, which ``--resume`` needs, is gone"""
    warm_start_games: int = 200
    """games the teacher plays for the warm start"""
    warm_start_steps: int = 1000
    """minibatch updates on the teacher's games"""
    eval_every: int = 5
    """evaluate every this many iterations (and after the last)"""
    eval_games: int = 40
    """games per opponent in the scheduled evaluations (0: none; the scheduled networks are still
    kept in snapshots/, and no best.zip is chosen)"""
    final_eval_games: int = 400
    """games per opponent in the final evaluation"""
    eval_opponents: tuple = ("random", "heuristic")
    """opponents of the policy alone"""
    eval_mcts_games: int = 0
    """games of mcts:S:net (S = --simulations) against mcts:100 in each evaluation (0: none)"""
    device: str = "cpu"
    """torch device of the learner (``cuda`` when a GPU is there)"""
    torch_threads: int = 1
    """CPU threads of the learner (more help only on an otherwise idle machine: on a busy one
    torch's threads wait for each other and a step can take ten times as long)"""
    out_dir: str = "runs"
    """where run folders go"""
    resume: str | None = None
    """continue the run in this folder from its state.pt"""
    max_minutes: float | None = None
    """stop (saving) after this much wall-clock time"""


def parse_config(argv: list[str] | None = None) -> AlphaZeroConfig:
    config = parse_flags(AlphaZeroConfig, argv, __doc__, prog="python -m training.alphazero")
    check_config(config)
    return config


def check_config(config: AlphaZeroConfig) -> None:
    positive = ("iterations", "games_per_iteration", "simulations", "considered", "concurrent_games", "workers",
                "filters", "batch_size", "replay_size", "eval_every")
    for name in positive:
        value = getattr(config, name)
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive integer, not {value!r}")
    for name in ("blocks", "steps_per_iteration", "warm_start_games", "warm_start_steps", "eval_games",
                 "final_eval_games", "eval_mcts_games"):
        value = getattr(config, name)
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be a whole number >= 0, not {value!r}")
    if not config.learning_rate > 0 or not config.weight_decay >= 0 or not config.margin_weight >= 0:
        raise ValueError("--learning-rate must be > 0, --weight-decay and --margin-weight >= 0")
    if not 0.0 <= config.hook_value_weight <= 1.0:
        raise ValueError(f"--hook-value-weight must lie in [0, 1], not {config.hook_value_weight!r}")
    if not 0.0 <= config.value_mix <= 1.0:
        raise ValueError(f"--value-mix must lie in [0, 1], not {config.value_mix!r}")
    if not 0.0 <= config.opponent_share <= 1.0:
        raise ValueError(f"--opponent-share must lie in [0, 1], not {config.opponent_share!r}")
    if bool(config.opponent) != (config.opponent_share > 0):
        raise ValueError("--opponent and --opponent-share > 0 go together: the opponent plays that share of self-play games")
    if config.init_from and config.warm_start:
        raise ValueError("--init-from and --warm-start both give the network its start: choose one")
    if config.device not in ("cpu", "cuda") and not config.device.startswith("cuda:"):
        raise ValueError(f"--device must be cpu, cuda or cuda:N, not {config.device!r}")


# ----- the network, as torch trains it --------------------------------------------------------


def torch_network(architecture):
    """The torch twin of :class:`training.agents.network.PolicyValueNet` (with batch normalisation,
    folded into the convolutions when exported)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, filters: int):
            super().__init__()
            self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(filters)
            self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(filters)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(x + self.bn2(self.conv2(y)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            a = architecture
            f = a.filters
            self.stem = nn.Conv2d(a.planes[2], f, 3, padding=1, bias=False)
            self.stem_bn = nn.BatchNorm2d(f)
            self.blocks = nn.ModuleList(Block(f) for _ in range(a.blocks))
            self.cell = nn.Conv2d(f, a.cell_channels, 1) if a.cell_channels else None
            self.globals = nn.Linear(2 * f, a.global_actions) if a.global_actions else None
            self.value = nn.Sequential(nn.Linear(2 * f, 64), nn.ReLU(), nn.Linear(64, a.players))
            self.margin = nn.Sequential(nn.Linear(2 * f, 64), nn.ReLU(), nn.Linear(64, a.players))

        def forward(self, planes):  # (N, H, W, C) -> head logits, values, margins
            x = planes.permute(0, 3, 1, 2)
            x = torch.relu(self.stem_bn(self.stem(x)))
            for block in self.blocks:
                x = block(x)
            pooled = torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)
            parts = []
            if self.cell is not None:
                parts.append(self.cell(x).permute(0, 2, 3, 1).reshape(x.shape[0], -1))
            if self.globals is not None:
                parts.append(self.globals(pooled))
            head = torch.cat(parts, dim=1) if len(parts) > 1 else parts[0]
            return head, torch.tanh(self.value(pooled)), torch.tanh(self.margin(pooled))

    return Net()


def named_layers(model) -> tuple[list, list]:
    """The network's layers under the names agent files give their weights: ``(name, conv,
    batch norm)`` for the tower, ``(name, linear or 1×1 conv)`` for the heads (absent ones left out)."""
    tower = [("stem", model.stem, model.stem_bn)]
    for i, block in enumerate(model.blocks):
        tower += [(f"block{i}.conv1", block.conv1, block.bn1), (f"block{i}.conv2", block.conv2, block.bn2)]
    heads = [("policy.cell", model.cell), ("policy.global", model.globals)]
    heads += [(f"{head}.fc{j}", getattr(model, head)[2 * j - 2]) for head in ("value", "margin") for j in (1, 2)]
    return tower, [(name, layer) for name, layer in heads if layer is not None]


def export_weights(model) -> dict[str, np.ndarray]:
    """The torch network's weights for numpy, batch normalisation folded into each convolution."""
    import torch

    def fold(conv, bn) -> tuple[np.ndarray, np.ndarray]:
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        weight = conv.weight * scale[:, None, None, None]
        bias = bn.bias - bn.running_mean * scale
        return weight.detach().cpu().numpy(), bias.detach().cpu().numpy()

    out: dict[str, np.ndarray] = {}
    tower, heads = named_layers(model)
    with torch.no_grad():
        for name, conv, bn in tower:
            out[f"{name}.w"], out[f"{name}.b"] = fold(conv, bn)
        for name, layer in heads:
            out[f"{name}.w"], out[f"{name}.b"] = layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy()
    return {k: np.asarray(v, np.float32) for k, v in out.items()}


# ----- self-play ------------------------------------------------------------------------------


@dataclass
class GameRecord:
    """One game's training positions: flat observations of the mover, masks, search policies,
    and per position the outcome and the raw final score margin of every seat (each seat's
    points minus the best other's), from the mover's side (relative seats)."""

    vectors: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    margins: np.ndarray
    moves: int  # every decision, forced ones included
    outcome_is_target: bool = True  # False: train the policy on these positions, not the value heads


def finish_record(rows: list, returns, scores, seats: int, moves: int, size: int, actions: int) -> GameRecord:
    outcome = np.asarray(returns, np.float32)
    margin = np.asarray(score_margins(list(scores)), np.float32)
    if not rows:
        empty = np.zeros((0, size), np.float16)
        return GameRecord(empty, np.zeros((0, actions), bool), np.zeros((0, actions), np.float16),
                          np.zeros((0, seats), np.float32), np.zeros((0, seats), np.float32), moves)
    vectors = np.stack([r[0] for r in rows]).astype(np.float16)
    masks = np.stack([r[1] for r in rows]).astype(bool)
    policies = np.stack([r[2] for r in rows]).astype(np.float16)
    movers = np.asarray([r[3] for r in rows])
    order = (movers[:, None] + np.arange(seats)[None, :]) % seats  # relative seat j = (mover + j) % n
    return GameRecord(vectors, masks, policies, outcome[order], margin[order], moves)


class RecordedGame:
    """A game on an env, recording the decisions that had a choice: :meth:`decisions` yields
    ``(player, observation, legal)`` at each of them and plays forced moves (one legal action)
    on the way; the caller answers each with :meth:`play`."""

    def __init__(self, env):
        self.env, self.rows, self.moves = env, [], 0

    def decisions(self):
        env = self.env
        while not env.game.is_terminal():
            player = env.game.current_player()
            observation = env.observe(env.possible_agents[player])
            legal = np.flatnonzero(observation["action_mask"])
            self.moves += 1
            if len(legal) == 1:
                env.step(int(legal[0]))
                continue
            yield player, observation, legal

    def play(self, player: int, observation: dict, policy: np.ndarray, action: int) -> None:
        self.rows.append((observation["observation"], observation["action_mask"], policy, player))
        self.env.step(action)

    def record(self) -> GameRecord:
        env = self.env
        return finish_record(self.rows, env.game.returns(), env.game.scores(), len(env.possible_agents), self.moves,
                             env.observer.size, env.action_space(env.possible_agents[0]).n)


def self_play_game(search, game: str, options: dict, seed: int, rng: random.Random, opponent=None):
    """One game with every decision searched (a generator of leaves, see az_search), or with
    ``opponent = (agent, seat)`` every decision but that seat's: the agent plays it unrecorded."""
    env = envs.load(game).raw_env(**options)
    env.reset(seed=seed)
    played = RecordedGame(env)
    for player, observation, _ in played.decisions():
        if opponent is not None and player == opponent[1]:
            env.step(int(opponent[0].act(observation)))
            continue
        result = yield from search.run(observation, rng)
        played.play(player, observation, result.policy, result.action)
    return played.record()


class TorchEvaluator:
    """Self-play's evaluator: the torch network in inference mode on one CPU thread (faster
    than the numpy twin that shipped agents use; the two agree, see tests)."""

    def __init__(self, architecture, state_dict, index, observer, seats: int, value_mix: float = 0.0):
        import torch

        torch.set_num_threads(1)
        self.torch = torch
        self.model = torch_network(architecture)
        self.model.load_state_dict(state_dict)
        self.model.eval()
        self.index = torch.as_tensor(np.asarray(index, np.int64))
        self.observer, self.seats, self.value_mix = observer, seats, value_mix
        self.seconds = 0.0  # planes and forward pass together
        self.planes_seconds = 0.0  # building the planes alone (Uzor's follow-up channels cost more than the net)
        self.positions = 0
        self.calls = 0

    def evaluate(self, vectors: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from training.search.guided import to_absolute

        started = time.perf_counter()
        planes = self.torch.from_numpy(np.ascontiguousarray(self.observer.planes(vectors), np.float32))
        self.planes_seconds += time.perf_counter() - started
        with self.torch.inference_mode():
            head, values, margins = self.model(planes)
            logits = head[:, self.index].numpy()
        out = logits, to_absolute(search_values(values.numpy(), margins.numpy(), self.value_mix), players, self.seats)
        self.seconds += time.perf_counter() - started
        self.positions += len(vectors)
        self.calls += 1
        return out


def play_games(task: dict) -> dict:
    """A worker's share of an iteration: ``task`` holds the network, the game and the seeds."""
    from training import load_agent
    from training.search.guided import GuidedSearch, run_batched
    from training.agents.network import Architecture

    started = time.perf_counter()
    arch = Architecture(**{**task["architecture"], "planes": tuple(task["architecture"]["planes"])})
    search = GuidedSearch(task["game"], task["options"], task["simulations"], considered=task["considered"],
                          value_mix=task["value_mix"], margin_scale=task["margin_scale"],
                          hook_weight=task.get("hook_weight", 0.0))
    evaluator = TorchEvaluator(arch, task["state_dict"], task["index"], search.observer, search.seats, task["value_mix"])
    records: list[GameRecord] = []
    opponent_scores: list[tuple[str, float]] = []  # (opponent, the searched seat's result) of each game against one
    seeds = list(task["seeds"])
    against: dict[int, str] = task.get("opponent_games", {})  # seed -> the fixed opponent's spec
    while seeds:
        batch, seeds = seeds[:task["concurrent"]], seeds[task["concurrent"]:]
        opponents = {s: (load_agent(against[s], task["game"], seed=s, **task["options"]), s % search.seats)
                     for s in batch if s in against}
        games = [self_play_game(search, task["game"], task["options"], s, random.Random(s * 7919 + 17), opponents.get(s))
                 for s in batch]
        for s, record in zip(batch, run_batched(games, evaluator)):
            if s in opponents and not task.get("opponent_outcomes", True):
                record = dataclasses.replace(record, outcome_is_target=False)
            records.append(record)
            if s in opponents and len(record.values):
                opponent_scores.append((against[s], (float(record.values[0, 0]) + 1.0) / 2.0))
    return {"records": records, "seconds": time.perf_counter() - started, "network_seconds": evaluator.seconds,
            "planes_seconds": evaluator.planes_seconds,
            "evaluations": evaluator.positions, "calls": evaluator.calls, "opponent_scores": opponent_scores}


def teacher_games(task: dict) -> dict:
    """A worker's share of the warm start: the teacher plays every seat."""
    from training import load_agent

    started = time.perf_counter()
    records = []
    for seed in task["seeds"]:
        env = envs.load(task["game"]).raw_env(**task["options"])
        env.reset(seed=seed)
        teacher = load_agent(task["teacher"], task["game"], seed=seed, **task["options"])
        played = RecordedGame(env)
        actions = env.action_space(env.possible_agents[0]).n
        for player, observation, legal in played.decisions():
            if callable(getattr(teacher, "action_probabilities", None)) and not task["teacher"] == "random":
                policy = np.asarray(teacher.action_probabilities(observation), np.float64)
                action = int(legal[int(np.argmax(policy[legal]))])
            else:
                action = int(teacher.act(observation))
                policy = np.zeros(actions)
                policy[action] = 1.0
            played.play(player, observation, policy, action)
        records.append(played.record())
    return {"records": records, "seconds": time.perf_counter() - started}


class Workers:
    """Runs worker functions over tasks: local processes, or Ray actors on a cluster."""

    def __init__(self, count: int, ray_address: str | None):
        self.count = count
        self.ray = None
        self.pool = None
        if ray_address:
            import ray

            ray.init(address=ray_address, ignore_reinit_error=True)
            self.ray = ray
            self.remote = ray.remote(num_cpus=1)(_call)
        elif count > 1:
            self.pool = single_thread_pool(count)

    def map(self, function, tasks: list[dict], progress=None) -> list[dict]:
        """The results of ``function`` over ``tasks``, in order; ``progress`` (a tqdm bar) is
        advanced by each task's ``"games"`` count as it finishes."""
        if self.ray is not None:
            pending = [self.remote.remote(function, task) for task in tasks]
            results = []
            for ref in pending:
                results.append(self.ray.get(ref))
                if progress is not None:
                    progress.update(len(tasks[len(results) - 1]["seeds"]))
            return results
        iterator = self.pool.imap(function, tasks, chunksize=1) if self.pool is not None else map(function, tasks)
        results = []
        for task, result in zip(tasks, iterator):
            results.append(result)
            if progress is not None:
                progress.update(len(task["seeds"]))
        return results

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


def _call(function, task):
    one_thread_per_worker()
    return function(task)


# ----- the replay buffer ----------------------------------------------------------------------


class ReplayBuffer:
    """The latest ``capacity`` positions, in preallocated arrays (a ring)."""

    def __init__(self, capacity: int, size: int, actions: int, seats: int):
        self.capacity = capacity
        self.vectors = np.zeros((capacity, size), np.float16)
        self.masks = np.zeros((capacity, actions), bool)
        self.policies = np.zeros((capacity, actions), np.float16)
        self.values = np.zeros((capacity, seats), np.float32)
        self.margins = np.zeros((capacity, seats), np.float32)
        self.value_weights = np.zeros(capacity, np.float32)  # 1: the outcome is a value target; 0: policy only
        self.count = 0  # positions ever added
        self.size = 0

    def add(self, record: GameRecord) -> None:
        n = len(record.vectors)
        for start in range(0, n, self.capacity):
            chunk = slice(start, min(n, start + self.capacity))
            k = chunk.stop - chunk.start
            where = (self.count + np.arange(k)) % self.capacity
            self.vectors[where] = record.vectors[chunk]
            self.masks[where] = record.masks[chunk]
            self.policies[where] = record.policies[chunk]
            self.values[where] = record.values[chunk]
            self.margins[where] = record.margins[chunk]
            self.value_weights[where] = float(record.outcome_is_target)
            self.count += k
        self.size = min(self.capacity, self.count)

    def sample(self, rng: np.random.Generator, batch: int) -> dict[str, np.ndarray]:
        rows = rng.integers(0, self.size, batch)
        return {"vectors": self.vectors[rows].astype(np.float32), "masks": self.masks[rows],
                "policies": self.policies[rows].astype(np.float32), "values": self.values[rows],
                "margins": self.margins[rows], "value_weights": self.value_weights[rows]}

    def state(self) -> dict[str, np.ndarray]:
        keep = np.arange(self.size) if self.count <= self.capacity else (self.count + np.arange(self.capacity)) % self.capacity
        return {"vectors": self.vectors[keep], "masks": self.masks[keep], "policies": self.policies[keep],
                "values": self.values[keep], "margins": self.margins[keep], "value_weights": self.value_weights[keep],
                "count": np.asarray(self.count)}

    def load(self, state: dict[str, np.ndarray]) -> None:
        n = len(state["vectors"])
        record = GameRecord(state["vectors"], state["masks"], state["policies"], state["values"], state["margins"], 0)
        self.count, self.size = 0, 0
        self.add(record)
        if "value_weights" in state:  # a state saved before policy-only positions existed has none
            self.value_weights[:n] = state["value_weights"]
        self.count = int(state["count"]) if n else 0
        self.size = min(self.capacity, n)


# ----- learning -------------------------------------------------------------------------------


class Learner:
    """The torch network, its optimiser and the loss (policy cross-entropy + value MSE +
    ``margin_weight`` × squashed-margin MSE)."""

    def __init__(self, config: AlphaZeroConfig, architecture, observer):
        import torch

        torch.manual_seed(config.seed)
        torch.set_num_threads(config.torch_threads)
        self.torch = torch
        self.device = torch.device(config.device)
        self.model = torch_network(architecture).to(self.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.learning_rate,
                                           weight_decay=config.weight_decay)
        self.index = torch.as_tensor(observer.policy_layout().index, device=self.device)
        self.observer = observer
        self.symmetries = observer.symmetries()
        self.margin_weight = config.margin_weight
        self.steps = 0
        self.needs_calibration = False  # set by load_folded until the first positions arrive

    def step(self, batch: dict[str, np.ndarray], rng: np.random.Generator, margin_scale: float = 1.0) -> dict[str, float]:
        """One minibatch update; the margin target is ``tanh(raw margin / margin_scale)``."""
        torch = self.torch
        planes = self.observer.planes(batch["vectors"])
        policies, masks = batch["policies"], batch["masks"]
        symmetry = self.symmetries[int(rng.integers(len(self.symmetries)))]
        planes = symmetry.apply_planes(planes)
        policies, masks = symmetry.apply_policy(policies), symmetry.apply_policy(masks)
        x = torch.as_tensor(planes, device=self.device)
        target = torch.as_tensor(policies, device=self.device)
        target = target / target.sum(dim=1, keepdim=True).clamp_min(1e-8)
        legal = torch.as_tensor(masks, device=self.device)
        self.model.train()
        head, values, margins = self.model(x)
        logits = head[:, self.index].masked_fill(~legal, -1e9)
        policy_loss = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        # Positions whose outcome is no value target (games against a fixed opponent, with
        # --no-opponent-outcomes) weigh 0 in the value and margin losses.
        given = batch.get("value_weights")
        weights = torch.as_tensor(np.ones(len(planes), np.float32) if given is None else given, device=self.device)[:, None]
        count = (weights.sum() * values.shape[1]).clamp_min(1.0)
        value_loss = (weights * (values - torch.as_tensor(batch["values"], device=self.device)) ** 2).sum() / count
        target_margins = torch.as_tensor(squash_margins(batch["margins"], margin_scale), device=self.device)
        margin_loss = (weights * (margins - target_margins) ** 2).sum() / count
        loss = policy_loss + value_loss + self.margin_weight * margin_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        return {"loss/policy": policy_loss.item(), "loss/value": value_loss.item(), "loss/margin": margin_loss.item()}

    def weights(self) -> dict[str, np.ndarray]:
        self.model.eval()
        return export_weights(self.model)

    def load_folded(self, weights: dict[str, np.ndarray]) -> None:
        """Start from an agent file's weights, whose batch normalisation was folded into the
        convolutions: each normalisation becomes the identity plus the folded bias, so the
        network in inference mode is exactly the file's. :meth:`calibrate` then gives the
        normalisations statistics, so that training mode computes nearly the same function."""
        torch = self.torch
        tower, heads = named_layers(self.model)
        with torch.no_grad():
            for name, conv, bn in tower:
                conv.weight.copy_(torch.as_tensor(weights[f"{name}.w"]))
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.as_tensor(weights[f"{name}.b"]))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            for name, layer in heads:
                layer.weight.copy_(torch.as_tensor(weights[f"{name}.w"]).reshape(layer.weight.shape))
                layer.bias.copy_(torch.as_tensor(weights[f"{name}.b"]))
        self.needs_calibration = True

    def calibrate(self, planes: np.ndarray) -> None:
        """Each normalisation's statistics from these positions, chosen so that inference mode
        is unchanged: with input mean m and variance v, (y - m) / sqrt(v + eps) * sqrt(v + eps)
        + (bias + m) = y + bias; in training mode the batch's own m and v are then close to these."""
        torch = self.torch
        norms = [m for m in self.model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
        seen: dict[int, tuple] = {}
        hooks = [bn.register_forward_hook(lambda module, inputs, _out: seen.__setitem__(
            id(module), (inputs[0].mean(dim=(0, 2, 3)), inputs[0].var(dim=(0, 2, 3), unbiased=False)))) for bn in norms]
        self.model.eval()
        with torch.no_grad():
            self.model(torch.as_tensor(planes, device=self.device))
            for hook in hooks:
                hook.remove()
            for bn in norms:
                mean, var = seen[id(bn)]
                bn.running_mean.copy_(mean)
                bn.running_var.copy_(var)
                bn.weight.copy_(torch.sqrt(var + bn.eps))
                bn.bias.add_(mean)
        self.needs_calibration = False

    def state_dict(self) -> dict:
        """The network's weights and normalisation statistics, on the CPU (for the workers)."""
        return {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()}


# ----- evaluation -----------------------------------------------------------------------------


def evaluate_task(task: dict) -> dict:
    """Games of one agent file (policy or search) against one opponent, seats alternated."""
    from training import load_agent
    from training.evaluation.tournament import play_game

    game, options = task["game"], task["options"]
    players = envs.describe(game).num_players(options)
    totals = {"wins": 0, "draws": 0, "losses": 0, "outcomes": []}
    for index in task["indices"]:
        mine = index % players
        agent = load_agent(task["agent"], game, seed=task["seed"] + index, **options)
        other = load_agent(task["opponent"], game, seed=task["seed"] + 100_000 + index, **options)
        seats = [other] * players
        seats[mine] = agent
        returns, _ = play_game(game, seats, task["seed"] + index, options)
        outcome = returns[mine]
        totals["wins" if outcome > 0 else "draws" if outcome == 0 else "losses"] += 1
        totals["outcomes"].append((index, 1.0 if outcome > 0 else 0.5 if outcome == 0 else 0.0))
    return totals


def evaluate_agent(workers: Workers, game: str, options: dict, agent: str, opponent: str, games: int,
                   seed: int) -> dict[str, Any]:
    from training.evaluation.tournament import wilson_interval

    shares = [list(range(i, games, workers.count)) for i in range(workers.count)]
    tasks = [{"game": game, "options": options, "agent": agent, "opponent": opponent, "indices": s, "seed": seed}
             for s in shares if s]
    parts = workers.map(evaluate_task, tasks)
    wins = sum(p["wins"] for p in parts)
    draws = sum(p["draws"] for p in parts)
    losses = sum(p["losses"] for p in parts)
    score = (wins + 0.5 * draws) / max(1, games)
    low, high = wilson_interval(score, games)
    return {"agent": agent, "opponent": opponent, "games": games, "wins": wins, "draws": draws, "losses": losses,
            "score": score, "interval95": [low, high]}


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
            raise ValueError(f"--resume {folder!r}: no state.pt there (is it a training.alphazero run folder?)")
        state = torch.load(path, weights_only=False)  # our own file, written by save_state
        if "margin_scale" not in state:
            raise ValueError(f"--resume {folder!r}: this run was saved by an earlier version of the trainer; start a new run")
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
        from training.agents.network import read_network_file

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


def read_start_agent(config: AlphaZeroConfig, given: set[str]) -> tuple[AlphaZeroConfig, dict, dict]:
    """The agent file ``--init-from`` names, checked against the run it is to start: the same
    game and options, a network this trainer wrote; the config takes its tower's shape (a
    different ``--filters`` or ``--blocks`` on the command line is refused)."""
    from training.agents.checkpoint import CheckpointError
    from training.agents.network import read_network_file

    try:
        meta, arrays = read_network_file(config.init_from)
    except (OSError, CheckpointError) as error:
        raise ValueError(f"--init-from {config.init_from!r}: {error}") from None
    description = envs.describe(config.game)
    options = description.portable_options(description.resolve_options(config.options))
    if meta.get("game") != description.name or meta.get("options") != options:
        raise ValueError(f"--init-from {config.init_from!r} was trained for {meta.get('game')} with options "
                         f"{meta.get('options')}, not {description.name} with {options}")
    if not isinstance(meta.get("margin_scale"), (int, float)):
        raise ValueError(f"--init-from {config.init_from!r}: its meta.json has no margin_scale "
                         "(it was not written by training.alphazero)")
    shape = meta["architecture"]
    for name in ("filters", "blocks"):
        if name in given and getattr(config, name) != shape[name]:
            raise ValueError(f"--{name} {getattr(config, name)} differs from the --init-from network's {shape[name]}")
    return dataclasses.replace(config, filters=shape["filters"], blocks=shape["blocks"]), meta, arrays


# What --resume may change (given on its command line); everything else is the run's own.
RESUMABLE = ("iterations", "max_minutes", "workers", "ray_address", "device", "torch_threads", "eval_games",
             "final_eval_games", "eval_every", "eval_mcts_games", "simulations", "games_per_iteration",
             "steps_per_iteration", "learning_rate", "concurrent_games", "opponent", "opponent_share", "opponent_outcomes")


def train(config: AlphaZeroConfig, command: str) -> dict[str, Any]:
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    given = {arg.split("=")[0][2:].replace("-", "_") for arg in shlex.split(command)[3:] if arg.startswith("--")}
    if config.resume:
        overrides = {k: v for k, v in dataclasses.asdict(config).items() if k in RESUMABLE and k in given}
        run = Run.resume(config.resume, overrides)
        run.command = f"{run.command} && {command}"  # the agent's meta records every sitting
        print(f"resuming {run.dir} at iteration {run.iteration} ({run.games_played} games, {run.positions} positions)",
              flush=True)
    else:
        start = None
        if config.init_from:
            config, meta, start = read_start_agent(config, given)
        run = Run(config, command)
        if start is not None:
            from training.agents.network import architecture_from_meta

            index, shape = start.pop("policy.index"), architecture_from_meta(meta)
            if shape != run.architecture or not np.array_equal(index, run.index):
                raise ValueError(f"--init-from {config.init_from!r}: its planes or policy layout "
                                 f"({shape}) differ from this version's ({run.architecture})")
            run.learner.load_folded(start)
            run.margin_scale = float(meta["margin_scale"])
            print(f"network from {config.init_from} (iteration {meta.get('iteration')}, "
                  f"{meta.get('positions')} positions)", flush=True)
        run.dir.mkdir(parents=True, exist_ok=True)
        (run.dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
        print(f"run folder: {run.dir}", flush=True)
    config = run.config
    writer = SummaryWriter(str(run.dir / "tensorboard"))
    run.workers = Workers(config.workers, config.ray_address)
    deadline = time.perf_counter() + 60 * config.max_minutes if config.max_minutes else math.inf
    session_started = time.perf_counter()
    wall_before = run.wall_seconds

    def progress(**kwargs):
        return tqdm(file=sys.stdout, dynamic_ncols=True, mininterval=2.0, **kwargs)

    print(f"{run.game} {run.options or '(default options)'}: planes {run.architecture.planes}, "
          f"{run.actions} actions, {len(run.learner.symmetries)} symmetries; network {config.filters}×{config.blocks}",
          flush=True)
    try:
        if config.warm_start and not run.warm_started:
            run.warm_start(progress)
            run.wall_seconds = wall_before + (time.perf_counter() - session_started)
            results = run.evaluate(config.eval_games)
            if results:
                print("  after the warm start: " + "; ".join(f"vs {o} {r['score']:.1%}" for o, r in results.items()),
                      flush=True)
            for opponent, result in results.items():
                writer.add_scalar(f"eval/{opponent}", result["score"], 0)
            run.history.append({"iteration": 0, "games": 0, "positions": 0, "wall_seconds": round(run.wall_seconds, 1),
                                "warm_start": config.warm_start, "evaluation": results})
            run.save_state()
        while run.iteration < config.iterations and time.perf_counter() < deadline:
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
            with progress(total=config.games_per_iteration, desc=f"iteration {run.iteration + 1} self-play",
                          leave=False) as bar:
                parts = run.workers.map(play_games, tasks, bar)
            games, positions = run.add_records(parts)
            play_seconds = time.perf_counter() - started
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
            with progress(total=config.steps_per_iteration, desc=f"iteration {run.iteration}/{config.iterations} learning",
                          leave=False) as bar:
                losses = run.learn(config.steps_per_iteration, bar, f"{len(run.buffer.vectors[:run.buffer.size])} in buffer")
            run.wall_seconds = wall_before + (time.perf_counter() - session_started)
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
            scheduled = run.iteration % config.eval_every == 0 or run.iteration == config.iterations
            results = run.evaluate(config.eval_games) if scheduled else {}
            if results:
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
            chosen, selection = run.choose_final(config.final_eval_games)
            print(f"final evaluation of {chosen}: {config.final_eval_games} games per opponent", flush=True)
            for opponent in config.eval_opponents:
                final[opponent] = evaluate_agent(run.workers, run.game, run.options, chosen, opponent,
                                                 config.final_eval_games, seed=5_000_000)
                print(f"  vs {opponent}: {final[opponent]['score']:.1%} "
                      f"({final[opponent]['interval95'][0]:.1%}–{final[opponent]['interval95'][1]:.1%})", flush=True)
    finally:
        run.workers.close()
        writer.close()
    summary = {"run": str(run.dir), "game": run.game, "options": run.options, "iterations": run.iteration,
               "self_play_games": run.games_played, "positions": run.positions, "wall_seconds": run.wall_seconds,
               "command": run.command, "history": run.history, "final_selection": selection, "final_evaluation": final}
    (run.dir / "evaluation.json").write_text(json.dumps(summary, indent=1, default=float))
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = sys.argv[1:] if argv is None else argv
    config = parse_config(args)
    command = "python -m training.alphazero " + " ".join(shlex.quote(a) for a in args)
    return train(config, command)


if __name__ == "__main__":
    main()
