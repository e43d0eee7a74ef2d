"""The toy games are registered for the whole test run — in this process and, through
``SUITE_GAMES``, in every process the tests start — and their bots play as their docstrings say."""

from __future__ import annotations

import importlib
import subprocess
import sys

import envs
from tests.conftest import TESTS, TOY_MODULES
from training.players.load import load_agent
from training.evaluation.tournament import play_match


def test_every_toy_game_is_registered_here_and_in_new_processes():
    assert TOY_MODULES, "no tests/toy*/<name>_v0.py found"
    names = [importlib.import_module(path).GAME.name for path in TOY_MODULES]
    assert set(names) <= set(envs.GAMES)
    done = subprocess.run([sys.executable, "-c", "import envs; print(' '.join(envs.GAMES))"], cwd=TESTS.parent,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == envs.GAMES


def test_the_nim_heuristic_plays_perfectly_and_beats_random():
    result = play_match("nim_v0", load_agent("heuristic", "nim", seed=0), load_agent("random", "nim", seed=1), 20, 0, {})
    assert result.score >= 0.9  # it wins every game where it moves first or is handed a nim-sum other than 0


def test_the_tictactoe_heuristic_wins_blocks_and_beats_random():
    result = play_match("tictactoe_v0", load_agent("heuristic", "tictactoe", seed=0), load_agent("random", "tictactoe", seed=1),
                        20, 0, {})
    assert result.score >= 0.85
    from tests.toy.tictactoe.observer import TicTacToeObserver
    from tests.toy.tictactoe.rules import TicTacToeGame

    game, observer = TicTacToeGame({"size": 3}), TicTacToeObserver({"size": 3})
    bot = load_agent("heuristic", "tictactoe", seed=0)
    for action in (0, 3, 1):  # x a1, o a2, x b1: o must block c1
        game.apply(action)
    assert bot.act(observer.observe(game, 1)) == 2
    game.apply(4)  # o b2 instead: x takes c1 and wins
    assert bot.act(observer.observe(game, 0)) == 2
