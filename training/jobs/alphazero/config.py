"""The search-and-learn job's settings: one typed config, its flags and its checks."""

from __future__ import annotations

from dataclasses import dataclass

from training.common.flags import FlagError
from training.jobs.config import SearchJobConfig, require_counts, require_optimiser, require_shares


@dataclass
class AlphaZeroConfig(SearchJobConfig):
    games_per_iteration: int = 64
    """self-play games per iteration (split among the workers)"""
    concurrent_games: int = 16
    """games one worker plays at once (their leaves share one network call)"""
    workers: int = 2
    """self-play processes (one per core); with --ray-address, Ray actors"""
    ray_address: str | None = None
    """run self-play as Ray actors on an existing cluster (``auto``, ``ray://host:port``)"""
    weight_decay: float = 1e-4
    """AdamW weight decay"""
    steps_per_iteration: int = 200
    """minibatch updates per iteration"""
    margin_weight: float = 0.5
    """weight of the score-margin target in the loss (0 for games without points)"""
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
    warm_start_games: int = 200
    """games the teacher plays for the warm start"""
    warm_start_steps: int = 1000
    """minibatch updates on the teacher's games"""
    eval_games: int = 40
    """games per opponent in the scheduled evaluations (0: none; the scheduled networks are still
    kept in snapshots/, and no best.zip is chosen)"""
    final_eval_games: int = 400
    """games per opponent in the final evaluation"""
    eval_mcts_games: int = 0
    """games of mcts:S:net (S = --simulations) against mcts:100 in each evaluation (0: none)"""
    device: str = "cpu"
    """torch device of the learner (``cuda`` when a GPU is there)"""
    torch_threads: int = 1
    """CPU threads of the learner (more help only on an otherwise idle machine: on a busy one
    torch's threads wait for each other and a step can take ten times as long)"""
    resume: str | None = None
    """continue the run in this folder from its state.pt"""
    max_minutes: float | None = None
    """stop (saving) after this much wall-clock time"""


def check_config(config: AlphaZeroConfig) -> None:
    require_counts(config, ("games_per_iteration", "simulations", "considered", "concurrent_games",
                            "workers", "filters", "batch_size", "replay_size", "eval_every"))
    # --iterations 0: the warm start's imitation alone, saved as the run's agent
    require_counts(config, ("iterations",), least=0)
    if config.iterations == 0 and not config.warm_start:
        raise FlagError("--iterations 0 runs the warm start alone: it needs --warm-start")
    require_counts(config, ("blocks", "steps_per_iteration", "warm_start_games", "warm_start_steps", "eval_games",
                            "final_eval_games", "eval_mcts_games"), least=0)
    require_optimiser(config)
    require_shares(config, ("hook_value_weight", "value_mix", "opponent_share"))
    if bool(config.opponent) != (config.opponent_share > 0):
        raise FlagError("--opponent and --opponent-share > 0 go together: the opponent plays that share of self-play games")
    if config.init_from and config.warm_start:
        raise FlagError("--init-from and --warm-start both give the network its start: choose one")
    if config.device not in ("cpu", "cuda") and not config.device.startswith("cuda:"):
        raise FlagError(f"--device must be cpu, cuda or cuda:N, not {config.device!r}")
