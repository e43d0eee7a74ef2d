"""Tic-tac-toe (a toy game of the tests, with a board view): players mark empty squares in turn;
three in a row wins. Perfect information, no chance. Options: ``size`` (3 or 4, default 3).

It is laid out as a game of the suite is (``GameDescription.built_in``): its folder,
``tests/toy/tictactoe/``, holds ``rules``, ``observer``, ``render`` (with the last-move hooks),
``sampling``, ``svg`` and ``terminal`` (``PLAY``); its bots are ``tests/toy/tictactoe_bots.py``.
Nothing outside those names it: ``tests/conftest.py`` registers every ``tests/toy*/<name>_v0.py``."""

from envs.core import GameDescription, GameFacts, SuiteEnv, TestOptions, wrapped_factory
from tests.toy.tictactoe.observer import TicTacToeObserver
from tests.toy.tictactoe.rules import TicTacToeGame

GAME = GameDescription.built_in(
    "tictactoe", version=0, package="tests.toy", engine=TicTacToeGame, observer=TicTacToeObserver,
    facts=GameFacts("TicTacToe", min_players=2, max_players=2, chance="deterministic", information="perfect"),
    bots="tests.toy.tictactoe_bots", docs=None, module=__name__,
    test_options=TestOptions(more=({"size": 4},)),
)


class raw_env(SuiteEnv, game=GAME):
    """The unwrapped tictactoe_v0 AEC environment."""


env = wrapped_factory(raw_env)
