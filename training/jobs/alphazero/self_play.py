"""Self-play: games recorded decision by decision, the torch evaluator, and the workers that play them."""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass

import envs
import numpy as np
from envs.core.game import margins as score_margins
from training.agents.network import search_values
from training.common.processes import one_thread_per_worker, single_thread_pool
from training.jobs.alphazero.network import torch_network

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
    from training.players.load import load_agent
    from training.agents.network import Architecture
    from training.search.guided import GuidedSearch, run_batched

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
    from training.players.load import load_agent

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
