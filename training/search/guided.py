"""Network-guided search from one seat's observation: Gumbel root selection with sequential
halving, a prior-guided choice below the root, the network's value at the leaves.

What it keeps from the suite's search (:mod:`training.search.mcts`): every simulation starts from a
full state drawn by the game's sampler from the seat's own observation (opponents' hidden
items drawn anew; a seat never sees more than its observation), chance nodes are drawn by
their probabilities with one subtree per outcome, and 2–4 players work because every node
keeps the value of the player who chose there (a value per seat).

What the network adds (AlphaZero; Danihelka et al. 2022, "Policy improvement by planning with
Gumbel"): at the root, ``m`` actions are sampled without replacement by Gumbel noise on the
policy's logits and the simulations are shared among them by sequential halving, so 16–64
simulations still improve the policy; the search's *improved policy*
``softmax(logits + σ(completed Q))`` is the training target. Below the root a child is chosen
by the same improved policy minus the visit shares (the deterministic rule of Gumbel MuZero);
a new leaf is scored by the network instead of a play-out.

A search is a generator: it yields each leaf's observation and receives the network's answer,
so that :func:`run_batched` can step many searches at once (one per game being played) and
evaluate all their leaves in one network call.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Generator, Protocol

import numpy as np

import envs
from envs.core.game import CHANCE, TERMINAL, draw_outcome, margins, ranked_returns
from envs.core.observer import as_vector
from training.agents.base import legal_from_mask
from training.bots import bot_kit
from training.common.time_budget import check_time

C_VISIT = 50.0  # σ(q) = (C_VISIT + max visits) · C_SCALE · q, the paper's constants
C_SCALE = 0.1
MAX_CONSIDERED = 16  # root actions sampled by Gumbel noise and halved between


@dataclass
class Leaf:
    """A position the network must score: the flat observation of the seat to act there."""

    vector: np.ndarray
    player: int


class Evaluator(Protocol):
    """Scores leaves: ``evaluate(vectors (N, size), players (N,))`` returns action logits
    ``(N, actions)`` and values ``(N, seats)`` in absolute seat order, in [−1, 1]."""

    def evaluate(self, vectors: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


class NetworkEvaluator:
    """A :class:`training.agents.network.PolicyValueNet` over a game's planes (the observer builds
    them from the flat vectors); the network's values are relative to the observing seat and
    are turned to absolute seats here. ``value_mix`` blends in the margin head."""

    def __init__(self, net, observer, seats: int, value_mix: float = 0.0):
        self.net, self.observer, self.seats, self.value_mix = net, observer, seats, value_mix
        self.calls = 0
        self.positions = 0

    def evaluate(self, vectors: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        self.positions += len(vectors)
        logits, relative = self.net.evaluate(self.observer.planes(vectors), self.value_mix)
        return logits, to_absolute(relative, players, self.seats)


def to_absolute(relative: np.ndarray, players: np.ndarray, seats: int) -> np.ndarray:
    """Values told from each observing seat (entry j = relative seat j) → absolute seat order."""
    order = (np.asarray(players)[:, None] + np.arange(seats)[None, :]) % seats
    out = np.empty_like(relative)
    np.put_along_axis(out, order, relative, axis=1)
    return out


def to_relative(absolute: np.ndarray, player: int) -> np.ndarray:
    """The inverse of :func:`to_absolute` for one seat: entry j = seat ``(player + j) % n``."""
    return np.roll(np.asarray(absolute), -player)


def softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max())
    return z / z.sum()


class Node:
    """A decision node: the network's logits and value where it was first reached, and the
    visits and summed values (of the player to act here) of every action tried from it
    (arrays over all actions, so that a node reached with other legal moves in another
    sampled state needs no bookkeeping of its own)."""

    __slots__ = ("logits", "value", "player", "visits", "totals", "children")

    def __init__(self, logits: np.ndarray, values: np.ndarray, player: int):
        self.logits = logits
        self.value = float(values[player])
        self.player = player
        self.visits = np.zeros(len(logits))
        self.totals = np.zeros(len(logits))
        self.children: dict[int, Any] = {}  # action -> Node, or a dict outcome -> Node after chance

    def improved_logits(self, legal: np.ndarray, c_scale: float = C_SCALE) -> tuple[np.ndarray, np.ndarray]:
        """``logits + σ(completed Q)`` over ``legal`` (and the visit counts): unvisited actions
        take the mixed value (the network's value blended with the visited children's Q,
        weighted by the prior), Q is rescaled to [0, 1] over the actions, and σ grows with
        the visits; ``c_scale`` sets how far searched values may overrule the prior."""
        logits = self.logits[legal].astype(np.float64)
        n = self.visits[legal]
        total = n.sum()
        if total == 0:
            return logits, n  # every completed Q is the node's own value: σ adds a constant
        visited = n > 0
        q = self.totals[legal] / np.maximum(n, 1)
        prior = np.exp(logits - logits.max())
        prior /= prior.sum()
        weights = prior * visited
        mixed = (self.value + total * float((weights * q).sum() / weights.sum())) / (total + 1)
        completed = np.where(visited, q, mixed)
        low, high = completed.min(), completed.max()
        if high - low > 1e-8:
            logits = logits + (C_VISIT + n.max()) * c_scale * (completed - low) / (high - low)
        return logits, n

    def select(self, legal: np.ndarray, c_scale: float = C_SCALE) -> int:
        """Below the root: the action whose improved-policy share most exceeds its visit share."""
        improved, n = self.improved_logits(legal, c_scale)
        share = np.exp(improved - improved.max())
        score = share / share.sum() - n / (1.0 + n.sum())
        return int(legal[int(np.argmax(score))])

    def record(self, action: int, value: float) -> None:
        self.visits[action] += 1
        self.totals[action] += value


def considered_visits(considered: int, simulations: int) -> list[int]:
    """Sequential halving's schedule: for simulation k, the visit count a considered root action
    must have to be chosen (Danihelka et al. 2022, as in DeepMind's mctx)."""
    if considered <= 1:
        return list(range(simulations))
    log2 = int(math.ceil(math.log2(considered)))
    sequence: list[int] = []
    visits = [0] * considered
    count = considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2 * count)))
        for _ in range(extra):
            sequence.extend(visits[:count])
            for i in range(count):
                visits[i] += 1
        count = max(2, count // 2)
    return sequence[:simulations]


@dataclass
class SearchResult:
    action: int
    policy: np.ndarray  # the improved policy over all actions (zeros off the legal ones)
    value: float  # the root's value for the seat, after search
    visits: dict[int, int]


Search = Generator[Leaf, tuple[np.ndarray, np.ndarray], SearchResult]


class GuidedSearch:
    """The search's settings and the game's parts; :meth:`run` is one search (a generator)."""

    def __init__(self, game: str, options: dict[str, Any], simulations: int, considered: int = MAX_CONSIDERED,
                 gumbel_scale: float = 1.0, value_mix: float = 0.0, margin_scale: float = 1.0,
                 hook_weight: float = 0.0, c_scale: float = C_SCALE, playout: int = 0):
        if not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"the search's simulations must be a positive integer, not {simulations!r}")
        self.description = envs.describe(game)
        self.options = dict(options)
        resolved = self.description.resolve_options(options)
        self.observer = self.description.observer(resolved)
        self.seats = self.description.engine.num_players_for(resolved)
        self.simulations = simulations
        self.considered = considered
        self.gumbel_scale = gumbel_scale
        if not 0.0 <= value_mix <= 1.0 or not margin_scale > 0:
            raise ValueError(f"value_mix must lie in [0, 1] and margin_scale be > 0, not {value_mix!r}, {margin_scale!r}")
        self.value_mix, self.margin_scale = value_mix, margin_scale
        if not 0.0 <= hook_weight <= 1.0:
            raise ValueError(f"the hook value weight must lie in [0, 1], not {hook_weight!r}")
        hooks = bot_kit(self.description).search
        # A solved endgame is scored exactly rather than by the network (Fill's exact search).
        self.solved = hooks.solved
        # AlphaGo's λ: a leaf's value mixes the network's with the game's own evaluation hook.
        self.hook_weight, self.hook_evaluate = hook_weight, hooks.evaluate
        # AlphaGo's play-outs: the hook scores the leaf after `playout` moves among the game's
        # preferred ones (chance drawn), as the plain search's cut-off play-outs do.
        if not isinstance(playout, int) or isinstance(playout, bool) or playout < 0:
            raise ValueError(f"the search's play-out depth must be a whole number >= 0, not {playout!r}")
        self.playout, self.preferred = playout, hooks.preferred
        if not (isinstance(c_scale, (int, float)) and 0.0 < c_scale < 1e6):
            raise ValueError(f"the search's c_scale (how far searched values overrule the prior) must be > 0, not {c_scale!r}")
        self.c_scale = float(c_scale)

    def leaf_values(self, state, network_values, rng: random.Random | None = None) -> np.ndarray:
        """A new node's values: the network's, mixed with the evaluation hook's by ``hook_weight``
        (the hook's after a play-out of ``playout`` moves, drawn with ``rng``)."""
        values = np.asarray(network_values, np.float64)
        if not self.hook_weight:
            return values
        return (1.0 - self.hook_weight) * values + self.hook_weight * self.hook_values(state, rng)

    def hook_values(self, state, rng: random.Random | None) -> np.ndarray:
        if not self.playout:
            return np.asarray(self.hook_evaluate(state), np.float64)
        state, steps = state.clone(), self.playout
        rng = rng or random.Random(0)
        while True:
            player = state.current_player()
            if player == TERMINAL:
                return self.terminal_values(state)
            if player == CHANCE:
                state.apply(draw_outcome(state.chance_outcomes(), rng))
                continue
            if not steps:
                return np.asarray(self.hook_evaluate(state), np.float64)
            check_time()
            state.apply(rng.choice(self.preferred(state) if self.preferred is not None else state.legal_actions()))
            steps -= 1

    def terminal_values(self, state) -> np.ndarray:
        """A finished game's returns, mixed (as the network's values are) with the squashed margins."""
        return self.final_values(state.returns(), state.scores())

    def final_values(self, returns, scores) -> np.ndarray:
        returns = np.asarray(returns, np.float64)
        if not self.value_mix:
            return returns
        squashed = np.tanh(np.asarray(margins(scores), np.float64) / self.margin_scale)
        return (1.0 - self.value_mix) * returns + self.value_mix * squashed

    def run(self, observation, rng: random.Random) -> Search:
        legal = np.asarray(legal_from_mask(observation), np.int64)
        vector = np.asarray(as_vector(observation), np.float32)
        sample = self.description.sampling.sampler(observation, self.options)
        base = rng.getrandbits(48)
        root_state = sample(random.Random(base))
        seat = root_state.current_player()
        logits, values = yield Leaf(vector, seat)
        root = Node(np.asarray(logits, np.float32), self.leaf_values(root_state, values, random.Random(base)), seat)
        root_logits = root.logits[legal].astype(np.float64)
        noise = np.random.default_rng(rng.getrandbits(63)).gumbel(size=len(legal)) * self.gumbel_scale
        m = min(self.considered, len(legal))
        considered = np.argsort(-(noise + root_logits), kind="stable")[:m]
        schedule = considered_visits(m, self.simulations)
        observer = self.observer
        for k in range(self.simulations if len(legal) > 1 else 0):
            check_time()  # a server's think-time limit (training.common.time_budget)
            improved, n = root.improved_logits(legal, self.c_scale)
            wanted = schedule[k]
            candidates = considered[n[considered] == wanted]
            if len(candidates) == 0:
                candidates = considered[n[considered] == n[considered].min()]
            scores = noise[candidates] + improved[candidates]
            index = int(candidates[int(np.argmax(scores))])
            action = int(legal[index])
            # common random numbers: the j-th visit of every root action meets the same world
            world = random.Random(base + 1 + int(root.visits[action]))
            state = sample(world)
            state.apply(action)
            path = [(root, action, seat)]
            slots, key = root.children, action
            while True:
                player = state.current_player()
                if player == TERMINAL:
                    leaf_values = self.terminal_values(state)
                    break
                if player == CHANCE:
                    outcomes = slots.get(key)
                    if outcomes is None:
                        outcomes = slots[key] = {}
                    outcome = draw_outcome(state.chance_outcomes(), world)
                    state.apply(outcome)
                    slots, key = outcomes, outcome
                    continue
                if self.solved is not None:
                    scores = self.solved(state)
                    if scores is not None:  # perfect play's outcome is known: no node below
                        leaf_values = self.final_values(ranked_returns(scores), scores)
                        break
                node = slots.get(key)
                if node is None:
                    logits, leaf_values = yield Leaf(observer.observe(state, player), player)
                    leaf_values = self.leaf_values(state, leaf_values, world)
                    slots[key] = Node(np.asarray(logits, np.float32), leaf_values, player)
                    break
                choice = node.select(np.asarray(state.legal_actions(), np.int64), self.c_scale)
                path.append((node, choice, player))
                state.apply(choice)
                slots, key = node.children, choice
            for node, chosen, mover in path:
                node.record(chosen, float(leaf_values[mover]))
        improved, n = root.improved_logits(legal, self.c_scale)
        best = n[considered].max()
        finalists = considered[n[considered] == best]
        chosen = int(legal[int(finalists[int(np.argmax(noise[finalists] + improved[finalists]))])])
        policy = np.zeros(len(observation["action_mask"]), np.float64)
        policy[legal] = softmax(improved)
        total = n.sum()
        value = root.value if total == 0 else float(root.totals.sum() / total)
        return SearchResult(chosen, policy, value, {int(a): int(root.visits[a]) for a in np.flatnonzero(root.visits)})


def run_batched(searches: list[Search], evaluator: Evaluator) -> list[SearchResult]:
    """Step every search to its next leaf, score all leaves in one network call, repeat."""
    results: list[SearchResult | None] = [None] * len(searches)
    pending: dict[int, Leaf] = {}
    for i, search in enumerate(searches):
        try:
            pending[i] = next(search)
        except StopIteration as stop:
            results[i] = stop.value
    while pending:
        keys = list(pending)
        vectors = np.stack([pending[k].vector for k in keys])
        players = np.asarray([pending[k].player for k in keys])
        logits, values = evaluator.evaluate(vectors, players)
        for row, k in enumerate(keys):
            try:
                pending[k] = searches[k].send((logits[row], values[row]))
            except StopIteration as stop:
                results[k] = stop.value
                del pending[k]
    return results  # type: ignore[return-value]


class GuidedMCTSAgent:
    """``load_agent("mcts:N:net=PATH", game)``: the network-guided search on the one agent
    interface (``:m=K`` root actions considered; ``:hook=W`` the game's evaluation's weight in
    leaf values, ``:mix=W`` the margin head's weight in values, ``:cscale=X`` how far searched
    values overrule the prior, ``:playout=D`` moves played out before the hook scores a leaf;
    each by default the agent file's, else the training job's). It acts without Gumbel
    noise (the most improved action among the halving's finalists), seeded;
    ``action_probabilities`` is the search's improved policy."""

    name = "mcts-net"

    def __init__(self, game: str, network_path: str, simulations: int, seed: int | None = None,
                 considered: int = MAX_CONSIDERED, hook_weight: float | None = None,
                 value_mix: float | None = None, c_scale: float | None = None, playout: int | None = None,
                 **options: Any):
        from training.agents.files import load_network_for

        self.net, self.meta = load_network_for(network_path, game, options)
        # Settings the spec leaves out come from the agent file: its training job's, or the
        # search settings recorded with it ("search" in meta.json) where they measured better.
        recorded = dict(self.meta, **self.meta.get("search", {}))
        mix = float(recorded.get("value_mix", 0.0) if value_mix is None else value_mix)
        scale = float(self.meta.get("margin_scale", 1.0))
        self.search = GuidedSearch(game, options, simulations, considered=considered, gumbel_scale=0.0,
                                   value_mix=mix, margin_scale=scale,
                                   hook_weight=float(recorded.get("hook_value_weight", 0.0) if hook_weight is None
                                                     else hook_weight),
                                   c_scale=float(recorded.get("c_scale", C_SCALE) if c_scale is None else c_scale),
                                   playout=int(recorded.get("playout", 0) if playout is None else playout))
        self.evaluator = NetworkEvaluator(self.net, self.search.observer, self.search.seats, mix)
        self.rng = random.Random(seed)

    def _search(self, observation) -> SearchResult:
        from training.agents.network_agent import check_observation

        check_observation(observation, self.search.observer, self.meta)
        return run_batched([self.search.run(observation, self.rng)], self.evaluator)[0]

    def act(self, observation) -> int:
        return self._search(observation).action

    def action_probabilities(self, observation) -> np.ndarray:
        return self._search(observation).policy
