"""What every training job's config shares: the game, its options, the seed, where runs go (and
the run folder it makes); what the two PPO trainers share (:class:`PolicyJobConfig`) and the two
search-and-learn jobs (:class:`SearchJobConfig`); and the checks every job makes of its numbers,
with messages that name the flag.

A job declares ``@dataclass class MyConfig(JobConfig)`` and adds its own fields, each with a
default and a docstring underneath (``training.common.flags`` turns them into ``--flags``). A
field a subclass declares again without a docstring changes only its default: it keeps its place
among the base's flags and the base's help.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from training.common.flags import FlagError


@dataclass
class JobConfig:
    game: str = "linecatch"
    """the game (an env name such as ``loom`` or ``knot_v0``)"""
    options: dict = field(default_factory=dict)
    """env options as JSON (default: the game's defaults; e.g. ``{"rows": 4, "cols": 4}``)"""
    seed: int = 0
    """seeds the games, the network's initial weights, the minibatch order and the evaluations"""
    out_dir: str = "runs"
    """where run folders go (``<out_dir>/<game>__<algorithm>__<seed>__<time>/``)"""

    def new_run_folder(self, short_name: str, algorithm: str) -> tuple[Path, str]:
        """A fresh run folder, ``<out_dir>/<short_name>__<algorithm>__<seed>__<time>/``, holding
        this config as ``config.json``; and its time stamp (agent files record it)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(self.out_dir) / f"{short_name}__{algorithm}__{self.seed}__{stamp}"
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(self), indent=2))
        return run_dir, stamp


@dataclass
class PolicyJobConfig(JobConfig):
    """What the two PPO trainers (MaskablePPO, RLlib) share: the policy network, Adam's step, the
    discount, score shaping, and how the shipped policy is chosen and measured."""

    net_arch: list = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the policy (and, separately, of the value network)"""
    activation: str = "tanh"
    """hidden activation: tanh or relu"""
    learning_rate: float = 3e-4
    """Adam step size"""
    gamma: float = 0.99
    """discount (rewards come only at the end of a game)"""
    score_shaping: float = 0.0
    """reward += this × change of (my points − best other points) at each of the learner's
    turns (0: win/loss only)"""
    eval_games: int = 60
    """games per opponent at each evaluation"""
    keep_best: bool = True
    """ship the policy that scored best against the fixed opponents at an evaluation (the
    MaskablePPO trainer counts its warm-started start too), not necessarily the last one"""
    final_eval_games: int = 400
    """games against random and against heuristic at the end (seats alternated)"""

    def policy_meta(self, description: Any, options: dict[str, Any], spaces: tuple[list[int], int], algo: str,
                    command: str, created: str, **details: Any) -> dict[str, Any]:
        """The metadata of a policy file either trainer writes: the game and its options (as
        files record them), the network's shapes (``spaces``: the observation's shape and the
        number of actions, ``training.agents.checkpoint.env_spaces``), ``algo`` and the
        trainer's own ``details``, the seed, the code's version, the command and the run's time."""
        from training.agents.checkpoint import code_version

        observation_shape, action_n = spaces
        return {
            "game": description.name,
            "options": description.portable_options(options),
            "observation_shape": observation_shape,
            "action_n": action_n,
            "net_arch": list(self.net_arch),
            "activation": self.activation,
            "algo": algo,
            **details,
            "seed": self.seed,
            "code_version": code_version(),
            "command": command,
            "created": created,
        }


@dataclass
class SearchJobConfig(JobConfig):
    """What the two search-and-learn jobs (``training.alphazero``: self-play in Python processes;
    ``training.gumbel``: self-play compiled with JAX) share: the rounds, the Gumbel search, the
    residual network, the learner's batches and replay buffer, and the scheduled evaluations.
    The defaults are the Python job's; the compiled job overrides those its batches want."""

    iterations: int = 20
    """self-play + learning rounds"""
    simulations: int = 32
    """search simulations per decision in self-play"""
    considered: int = 16
    """root actions Gumbel top-k sampling considers (sequential halving between them)"""
    filters: int = 32
    """width of the residual tower"""
    blocks: int = 3
    """residual blocks in the tower"""
    learning_rate: float = 1e-3
    """the learner's step size (AdamW in ``training.alphazero``, Adam in ``training.gumbel``)"""
    batch_size: int = 256
    """minibatch size"""
    replay_size: int = 100_000
    """positions kept in the replay buffer (the latest)"""
    value_mix: float = 0.5
    """weight of the margin head in the values the search backs up: (1 − mix) × the value head
    (the win/loss outcome) + mix × the margin head (the final margin, squashed); 0: the outcome
    alone. The margin tells a big lead from a narrow one, which few simulations need: points
    games (Linecatch) gain from about 0.5"""
    eval_every: int = 5
    """play the Python bots of --eval-opponents every this many iterations (and after the last);
    ``training.gumbel`` writes latest.zip then too"""
    eval_opponents: tuple = ("random", "heuristic")
    """the Python bots the network's policy plays in those evaluations; best.zip is
    the best policy against one of them (``training.alphazero``: heuristic when listed, else the
    first; ``training.gumbel``: the last)"""
    init_from: str | None = None
    """start the network from this ``network`` agent file (written by either job for the same
    game and options): its tower's shape, weights and margin scale; the replay buffer starts
    empty. It continues a trained agent when its run folder, which ``--resume`` needs, is gone"""


def read_start_agent(config: Any, given: set[str]) -> tuple[Any, dict, dict]:
    """The agent file ``--init-from`` names, checked against the run it is to start: the same
    game and options, a network with a margin scale (written by ``training.alphazero`` or
    ``training.gumbel``); the config takes its tower's shape (a different ``--filters`` or
    ``--blocks`` on the command line, among the flags ``given``, is refused). Returns the
    config, the file's metadata and its arrays (the weights and ``policy.index``)."""
    import envs
    from training.agents.archive import CheckpointError
    from training.agents.files import read_network_file

    try:
        meta, arrays = read_network_file(config.init_from)
    except (OSError, CheckpointError) as error:
        raise FlagError(f"--init-from {config.init_from!r}: {error}") from None
    description = envs.describe(config.game)
    options = description.portable_options(description.resolve_options(config.options))
    if meta.get("game") != description.name or meta.get("options") != options:
        raise FlagError(f"--init-from {config.init_from!r} was trained for {meta.get('game')} with options "
                         f"{meta.get('options')}, not {description.name} with {options}")
    if not isinstance(meta.get("margin_scale"), (int, float)):
        raise FlagError(f"--init-from {config.init_from!r}: its meta.json has no margin_scale "
                         "(it was not written by training.alphazero or training.gumbel)")
    shape = meta["architecture"]
    for name in ("filters", "blocks"):
        if name in given and getattr(config, name) != shape[name]:
            raise FlagError(f"--{name} {getattr(config, name)} differs from the --init-from network's {shape[name]}")
    return dataclasses.replace(config, filters=shape["filters"], blocks=shape["blocks"]), meta, arrays


def check_start_layout(config: Any, meta: dict, index: Any, architecture: Any, own_index: Any) -> None:
    """The ``--init-from`` file's planes and policy layout (its architecture, with the tower's
    shape the config took from it, and ``policy.index``) are this version's: refused otherwise."""
    import numpy as np

    from training.agents.network import architecture_from_meta

    theirs = architecture_from_meta(meta)
    if theirs != architecture or not np.array_equal(index, own_index):
        raise FlagError(f"--init-from {config.init_from!r}: its planes or policy layout "
                         f"({theirs}) differ from this version's ({architecture})")


def final_lines(final: dict[str, dict]) -> list[str]:
    """A trainer's closing lines: the shipped policy's detailed results (``evaluate_against``
    with ``detail=True``) against each opponent."""
    return [f"final vs {spec}: score {result['score']:.1%} over {result['games']} games "
            f"(W {result['wins']} D {result['draws']} L {result['losses']})" for spec, result in final.items()]


def flag(name: str) -> str:
    """The command-line flag of a config field: ``eval_games`` → ``--eval-games``."""
    return "--" + name.replace("_", "-")


def require_counts(config: Any, names: tuple[str, ...], least: int = 1) -> None:
    """Each named field is an int of at least ``least`` (bools are not counts)."""
    for name in names:
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            rule = "a positive integer" if least == 1 else f"a whole number >= {least}"
            raise FlagError(f"{flag(name)} must be {rule}, not {value!r}")


def require_shares(config: Any, names: tuple[str, ...]) -> None:
    """Each named field is a number in [0, 1]."""
    for name in names:
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise FlagError(f"{flag(name)} must lie in [0, 1], not {value!r}")


def require_optimiser(config: Any) -> None:
    """``learning_rate`` > 0, ``weight_decay`` and ``margin_weight`` >= 0 (the search-and-learn
    learners' AdamW settings)."""
    if not config.learning_rate > 0 or not config.weight_decay >= 0 or not config.margin_weight >= 0:
        raise FlagError("--learning-rate must be > 0, --weight-decay and --margin-weight >= 0")
