"""Tic-tac-toe hides nothing: the observation is the position (whose turn follows from the
marks: player_0 moves first)."""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

from envs.core.sampling import check_reproduces, read_observation
from tests.toy.tictactoe.observer import TicTacToeObserver
from tests.toy.tictactoe.rules import TicTacToeGame


def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], TicTacToeGame]:
    view = read_observation(TicTacToeGame, TicTacToeObserver, observation, options)
    board = view.fields["board"]
    game = TicTacToeGame.from_state_dict(view.options, {"board": board, "to_move": board.count(0) - board.count(1)})
    if game.is_terminal():
        raise ValueError("the observation is of a finished game: there is no seat to act")
    check_reproduces(view, game, view.fields["seat"])
    return lambda rng: game.clone()


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    return TicTacToeGame.from_snapshot(partial).snapshot()


def strip_hidden(snapshot: dict, seat: int) -> dict:
    return copy.deepcopy(snapshot)
