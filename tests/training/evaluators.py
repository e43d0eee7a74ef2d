"""Stand-in networks for the guided search's tests (``training.search.guided.Evaluator``)."""

from __future__ import annotations

import numpy as np


class Uninformed:
    """A network that knows nothing: the same logit for every action, value 0 for every seat."""

    def __init__(self, actions: int, seats: int = 2):
        self.actions, self.seats = actions, seats

    def evaluate(self, vectors, players):
        return np.zeros((len(vectors), self.actions), np.float32), np.zeros((len(vectors), self.seats), np.float32)

