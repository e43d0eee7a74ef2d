"""Tic-tac-toe's bots: the heuristic wins where it can, else blocks the opponent's win, else
takes the centre, else a corner, else any square (seeded)."""

from __future__ import annotations

import random

from training.bots import BotKit, LadderSpec, SearchHooks
from tests.toy.tictactoe.observer import TicTacToeObserver
from tests.toy.tictactoe.rules import EMPTY, TicTacToeGame


class TicTacToeHeuristic:
    def __init__(self, game: str | None = None, seed: int | None = None, **options):
        self.options = TicTacToeGame.resolve_options(options)
        self.observer = TicTacToeObserver(self.options)
        self.rng = random.Random(seed)

    def act(self, observation) -> int:
        fields = self.observer.decode(observation)
        game = TicTacToeGame.from_state_dict(self.options, {"board": fields["board"], "to_move": fields["seat"]})
        legal = game.legal_actions()
        for who in (game.to_move, 1 - game.to_move):  # my win, then their win to block
            for line in game.lines:
                marks = [game.board[x] for x in line]
                if marks.count(who) == len(line) - 1 and EMPTY in marks:
                    return line[marks.index(EMPTY)]
        size = game.size
        centre = [x for x in legal if x in ((size // 2) * size + size // 2, ((size - 1) // 2) * size + (size - 1) // 2)]
        corners = [x for x in legal if x in (0, size - 1, size * (size - 1), size * size - 1)]
        return self.rng.choice(centre or corners or legal)


KIT = BotKit(heuristic=TicTacToeHeuristic, search=SearchHooks(), ladders=(LadderSpec({}, note="the 3×3 board"),))
