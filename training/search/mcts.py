"""Monte Carlo tree search for every game, from one seat's observation only.

``MCTSAgent`` is information-set MCTS with a single observer tree (SO-ISMCTS, Cowling, Powley
& Whitehouse 2012): each simulation asks the game's sampler (``GameDescription.sampling``) for
a fresh full state consistent with the observation — opponents' hidden items drawn anew — then
descends one shared tree keyed by actions (at a chance node — Loom's dice, Knot's draws — the
outcome is drawn by its probability and each outcome keeps its own subtree),
choosing by UCB among the actions legal in *that* state (a child's exploration term counts
the simulations in which it was available, not its parent's visits), expands one node, plays
out to the end (among the game's preferred moves, its ``SearchHooks``, or uniformly with
``rollout=random``), and backs the game's returns up the path. Each node keeps the
return of the player who chose the move into it, so 3–4 player Knot works the same way (max^n
style). With no hidden information and no chance (Linecatch) this is plain UCT.

The agent never sees more than ``env.observe(name)`` holds, so it cannot cheat; the tests
check that its choice is the same when an opponent's hidden items differ.

``load_agent("mcts:200", game)`` builds one with 200 simulations per move;
``"mcts:200:c=0.7"`` also sets the exploration constant.
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable

import numpy as np

import envs
from envs.core.game import CHANCE, TERMINAL, draw_outcome, relative_margins
from training.agents.base import check_seed, legal_from_mask
from training.bots import bot_kit
from training.common.time_budget import check_time

DEFAULT_SIMULATIONS = 200
DEFAULT_EXPLORATION = 0.5  # on returns in [-1, 1]
DEFAULT_BIAS = 1.0  # weight of the heuristic's preference, divided by (visits + 1)
DEFAULT_WIDENING = 2.0  # other moves join once a node's visits reach this × its legal moves
ROLLOUTS = ("heuristic", "random")


class Node:
    __slots__ = ("children", "outcomes", "visits", "total", "available")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.outcomes: dict[int, Node] | None = None  # after a chance node: one subtree per outcome
        self.visits = 0
        self.total = 0.0  # summed return of the player who moved into this node
        self.available = 0  # simulations in which the move into this node was legal


def game_sampler(game: str, observation, options: dict[str, Any]) -> Callable[[random.Random], Any]:
    """The game's ``sampler``: full states consistent with this observation, one per call."""
    return envs.describe(game).sampling.sampler(observation, options)


class MCTSAgent:
    """UCT over determinizations; ``act(observation)`` returns the most visited legal action."""

    name = "mcts"

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        exploration: float = DEFAULT_EXPLORATION,
        rollout: str = "heuristic",
        bias: float = DEFAULT_BIAS,
        margin: bool = False,
        depth: int | None = None,
        widening: float = DEFAULT_WIDENING,
        **options: Any,
    ):
        if not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"MCTS simulations must be a positive integer, not {simulations!r}")
        if not (isinstance(exploration, (int, float)) and not isinstance(exploration, bool) and exploration >= 0):
            raise ValueError(f"MCTS exploration must be a number >= 0, not {exploration!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"MCTS rollout must be one of {', '.join(ROLLOUTS)}, not {rollout!r}")
        description = envs.describe(game)
        self.game = description.name
        description.resolve_options(dict(options))  # options the game refuses: said now, not at the first move
        seed = check_seed(seed)
        hooks = bot_kit(description).search
        # rollout=random: uniform play-outs and tree order, no game knowledge at all.
        self.preferred = hooks.preferred if rollout == "heuristic" else None
        # The root's candidates may come from a costlier rule: it is asked once per move.
        self.root_preferred = (hooks.root_preferred or hooks.preferred) if rollout == "heuristic" else None
        self.bias = float(bias)
        self.widening = float(widening)
        self.margin = bool(margin)
        if depth is not None and (not isinstance(depth, int) or depth < 0):
            raise ValueError(f"MCTS depth must be a whole number >= 0 (0: score the new leaf at once) "
                             f"or None (play to the end), not {depth!r}")
        self.depth = depth
        self.evaluate = hooks.evaluate
        self.simulations = simulations
        self.exploration = float(exploration)
        self.options = options
        self.rng = random.Random(seed)

    # ----- the agent interface ----------------------------------------------------------------
    def act(self, observation) -> int:
        visits = self.search(observation)
        best = max(visits.values())
        # Ties (rare with many simulations) go to the seeded generator, not to action order.
        return self.rng.choice(sorted(a for a, v in visits.items() if v == best))

    def action_probabilities(self, observation) -> np.ndarray:
        """The share of root visits per action (zeros on illegal actions)."""
        visits = self.search(observation)
        mask = np.asarray(observation["action_mask"])
        probabilities = np.zeros(mask.shape[0], np.float64)
        for action, count in visits.items():
            probabilities[action] = count
        return probabilities / probabilities.sum()

    # ----- search -----------------------------------------------------------------------------
    def search(self, observation) -> dict[int, int]:
        """Run the simulations; return the root visit count of every legal action.

        Root moves are compared on common random numbers: the k-th simulation through a root
        move samples its state (hidden items, future dice) and plays out from a generator
        seeded by k alone, so every root move meets the same k-th world — luck cancels in the
        comparison, which is what lets few simulations rank moves in a dice game.
        """
        legal = legal_from_mask(observation)
        if len(legal) == 1:
            return {legal[0]: self.simulations}
        sample = game_sampler(self.game, observation, self.options)
        root = Node()
        base = self.rng.getrandbits(48)
        first = sample(random.Random(base))
        preferred = self.root_preferred(first) if self.root_preferred is not None else legal
        player = first.current_player()
        children = root.children
        for _ in range(self.simulations):
            check_time()  # a server's think-time limit (training.common.time_budget)
            action = self._choose(root, children, legal, preferred, self.rng)
            child = children.get(action)
            if child is None:
                child = children[action] = Node()
            world = random.Random(base + child.visits)
            state = sample(world)
            for other in legal:
                if other in children:
                    children[other].available += 1
            state.apply(action)
            self._simulate(child, [(child, player)], state, world)
            root.visits += 1
        return {a: (children[a].visits if a in children else 0) for a in legal}

    def _choose(self, node: Node, children: dict, legal: list[int], preferred: list[int], rng) -> int:
        """UCB with progressive bias towards the preferred moves and progressive widening:
        untried preferred moves first; the others once the node has ``widening × legal`` visits."""
        untried = [a for a in preferred if a not in children]
        if not untried and (node.visits >= self.widening * len(legal) or not any(a in children for a in legal)):
            untried = [a for a in legal if a not in children]
        if untried:
            return rng.choice(untried)
        favoured = set(preferred) if preferred is not legal else ()
        c, bias = self.exploration, self.bias
        best_action, best_value = legal[0], -math.inf
        for action in legal:
            child = children.get(action)
            if child is None:
                continue
            visits = child.visits
            value = child.total / visits + c * math.sqrt(math.log(max(child.available, 1)) / visits)
            if action in favoured:
                value += bias / (visits + 1)  # progressive bias: fades as visits grow
            if value > best_value:
                best_action, best_value = action, value
        return best_action

    def _simulate(self, node: Node, path: list, state, rng: random.Random) -> None:
        """Descend from ``node`` (already entered through ``path``), expand one node, play out,
        and back the outcome up ``path`` (pairs of node and the player who moved into it)."""
        preferred_of = self.preferred
        expanded = False
        while not expanded:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                # The dice fall as they fall: draw an outcome by its probability and go on in
                # that outcome's own subtree (the same action under other dice is another move).
                outcome = draw_outcome(state.chance_outcomes(), rng)
                state.apply(outcome)
                if node.outcomes is None:
                    node.outcomes = {}
                child = node.outcomes.get(outcome)
                if child is None:
                    child = node.outcomes[outcome] = Node()
                path.append((child, None))
                node = child
                continue
            legal = state.legal_actions()
            children = node.children
            for action in legal:
                child = children.get(action)
                if child is not None:
                    child.available += 1
            preferred = preferred_of(state) if preferred_of is not None else legal
            action = self._choose(node, children, legal, preferred, rng)
            child = children.get(action)
            if child is None:
                child = children[action] = Node()
                child.available = 1
                expanded = True
            state.apply(action)
            path.append((child, player))
            node = child
        # Play out among the game's preferred actions (or uniformly at random), to the end or
        # for at most `depth` steps; a cut-off playout is scored by the game's evaluation.
        steps = self.depth if self.depth is not None else -1
        while True:
            player = state.current_player()
            if player == CHANCE:
                state.apply(draw_outcome(state.chance_outcomes(), rng))
                continue
            if not steps or player == TERMINAL:
                break
            check_time()  # a long play-out stops at the limit too
            state.apply(rng.choice(preferred_of(state) if preferred_of is not None else state.legal_actions()))
            steps -= 1
        if player != TERMINAL:
            values = self.evaluate(state)
        else:
            values = outcome_values(state) if self.margin else state.returns()
        for child, player in path:
            child.visits += 1
            if player is not None:  # None: a chance outcome, whose value no choice reads
                child.total += values[player]


def outcome_values(state) -> list[float]:
    """Per player, half the game's return (+1 / 0 / −1) plus half its relative score margin
    over the best other player: the margin tells a big win from a narrow one, which few
    simulations need to rank moves, while the return keeps winning first."""
    return [0.5 * outcome + 0.5 * margin for outcome, margin in zip(state.returns(), relative_margins(state.scores()))]


def _spec_number(spec: str, label: str, text: str, kind: type, least: int) -> int | float:
    """A number in an MCTS agent name: ``text`` read as ``kind`` (int or float), at least ``least``."""
    try:
        number = kind(text)
    except ValueError:
        wanted = "a whole number" if kind is int else "a number"
        raise ValueError(f"MCTS {label} in {spec!r} must be {wanted}, not {text!r}") from None
    if not number >= least:  # NaN fails too
        bound = f"at least {least}" if kind is int else f">= {least}"
        raise ValueError(f"MCTS {label} in {spec!r} must be {bound}")
    return number


# settings of the network-guided search alone: keyword → how the spec writes it
GUIDED_ONLY = {"hook_weight": "hook=", "value_mix": "mix=", "c_scale": "cscale=", "playout": "playout="}


def parse_mcts_spec(spec: str) -> dict[str, Any]:
    """``"mcts"``, ``"mcts:400"``, ``"mcts:400:c=0.7"``, ``"mcts:400:rollout=random"`` (settings
    joined by ``:``) → keyword arguments of ``MCTSAgent``; with ``net=PATH`` (or
    ``net=trained``) and optionally ``m=K`` (root actions considered), ``hook=W`` (the
    game's evaluation's weight in leaf values), ``mix=W`` (the margin head's weight in values)
    and ``cscale=X`` (how far searched values overrule the prior), each by default the agent
    file's → keyword arguments of the network-guided :class:`training.search.guided.GuidedMCTSAgent`
    (``network_path``, ``simulations``, ``considered``, ``hook_weight``, ``value_mix``, ``c_scale``)."""
    name, *parts = spec.split(":")
    if name != "mcts":
        raise ValueError(f"an MCTS agent is written 'mcts', 'mcts:N' or 'mcts:N:c=X:rollout=random', not {spec!r}")
    settings: dict[str, Any] = {}
    if parts:
        settings["simulations"] = _spec_number(spec, "simulations", parts[0], int, 1)
    for part in parts[1:]:
        key, _, value = part.partition("=")
        if key == "c":
            settings["exploration"] = _spec_number(spec, "exploration", value, float, 0)
        elif key == "depth":
            settings["depth"] = _spec_number(spec, "depth", value, int, 0)
        elif key in ("margin", "w", "bias"):
            number = _spec_number(spec, key, value, float, 0)
            settings[{"margin": "margin", "w": "widening", "bias": "bias"}[key]] = bool(number) if key == "margin" else number
        elif key == "rollout":
            if value not in ROLLOUTS:
                raise ValueError(f"MCTS rollout in {spec!r} must be one of {', '.join(ROLLOUTS)}, not {value!r}")
            settings["rollout"] = value
        elif key == "net":
            if not value:
                raise ValueError(f"MCTS net in {spec!r} needs a network file or 'trained', e.g. net=trained")
            settings["network_path"] = value
        elif key == "m":
            settings["considered"] = _spec_number(spec, "m (root actions considered)", value, int, 1)
        elif key == "mix":
            weight = _spec_number(spec, "mix (the margin head's weight in values)", value, float, 0)
            if weight > 1:
                raise ValueError(f"MCTS mix (the margin head's weight in values) in {spec!r} must lie in [0, 1]")
            settings["value_mix"] = weight
        elif key == "cscale":
            scale = _spec_number(spec, "cscale (how far searched values overrule the prior)", value, float, 0)
            if not scale > 0:
                raise ValueError(f"MCTS cscale in {spec!r} must be greater than 0")
            settings["c_scale"] = scale
        elif key == "playout":
            settings["playout"] = _spec_number(spec, "playout (moves played out before the hook scores a leaf)",
                                               value, int, 0)
        elif key == "hook":
            weight = _spec_number(spec, "hook (the evaluation's weight in leaf values)", value, float, 0)
            if weight > 1:
                raise ValueError(f"MCTS hook (the evaluation's weight in leaf values) in {spec!r} must lie in [0, 1]")
            settings["hook_weight"] = weight
        else:
            raise ValueError(
                f"unknown MCTS setting {key!r} in {spec!r}; the settings are c=, depth=, margin=, w=, bias=, rollout=, "
                "and net= (with m= and hook=) for network-guided search"
            )
    if "network_path" in settings:
        plain = sorted(set(settings) - {"network_path", "simulations", "considered"} - set(GUIDED_ONLY))
        if plain:
            raise ValueError(f"MCTS setting {plain[0]!r} in {spec!r} is for play-out search; with net= only "
                             "m=, hook=, mix=, cscale= and playout= apply")
        settings.setdefault("simulations", DEFAULT_SIMULATIONS)
    elif set(settings) & ({"considered"} | set(GUIDED_ONLY)):
        which = "m=" if "considered" in settings else GUIDED_ONLY[min(set(settings) & set(GUIDED_ONLY))]
        raise ValueError(f"MCTS {which} in {spec!r} applies to network-guided search only (add net=PATH or net=trained)")
    return settings
