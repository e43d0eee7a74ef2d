"""Search-and-learn training (AlphaZero / Expert Iteration), in pieces one can hold in the head:

* ``config`` — the typed settings and their checks;
* ``network`` — the torch twin of the numpy policy-value network, and its export;
* ``self_play`` — recorded games, the torch evaluator, the worker processes (or Ray actors);
* ``learning`` — the replay buffer and the learner;
* ``evaluation`` — scheduled games against fixed opponents;
* ``run`` — the run folder (state for ``--resume``, agent files, history);
* ``job`` — the job itself, read top to bottom (``python -m training.alphazero``).
"""

from training.jobs.alphazero.config import AlphaZeroConfig, check_config
from training.jobs.alphazero.evaluation import evaluate_agent
from training.jobs.alphazero.job import main, parse_config, train
from training.jobs.alphazero.learning import Learner, ReplayBuffer
from training.jobs.alphazero.network import torch_network
from training.jobs.alphazero.run import Run
from training.jobs.alphazero.self_play import GameRecord, TorchEvaluator, Workers, play_games, teacher_games

__all__ = [
    "AlphaZeroConfig", "GameRecord", "Learner", "ReplayBuffer", "Run", "TorchEvaluator", "Workers", "check_config",
    "evaluate_agent", "main", "parse_config", "play_games", "teacher_games", "torch_network", "train",
]
