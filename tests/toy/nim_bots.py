"""Nim's bots: the heuristic plays the nim-sum rule (perfect play), else takes one stone."""

from __future__ import annotations

import random
from functools import reduce

from training.agents.base import legal_from_mask
from training.bots import BotKit, LadderSpec, SearchHooks
from tests.toy.nim.observer import NimObserver
from tests.toy.nim.rules import NimGame


class NimHeuristic:
    def __init__(self, game: str | None = None, seed: int | None = None, **options):
        self.options = NimGame.resolve_options(options)
        self.observer = NimObserver(self.options)
        self.rng = random.Random(seed)

    def act(self, observation) -> int:
        piles = self.observer.decode(observation)["piles"]
        width = self.observer.width
        total = reduce(lambda a, b: a ^ b, piles)
        for pile, stones in enumerate(piles):
            if stones ^ total < stones:  # leave a nim-sum of 0
                return pile * width + stones - (stones ^ total) - 1
        return self.rng.choice([a for a in legal_from_mask(observation) if a % width == 0])


KIT = BotKit(heuristic=NimHeuristic, search=SearchHooks(), ladders=(LadderSpec({}, note="three piles"),))
