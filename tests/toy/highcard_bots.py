"""High card's bots: the heuristic bets its best card, calls with the upper half, else checks or folds."""

from __future__ import annotations

from training.bots import BotKit, LadderSpec, SearchHooks
from tests.toy.highcard.observer import HighCardObserver
from tests.toy.highcard.rules import HighCardGame


class HighCardHeuristic:
    def __init__(self, game: str | None = None, seed: int | None = None, **options):
        self.options = HighCardGame.resolve_options(options)
        self.observer = HighCardObserver(self.options)

    def act(self, observation) -> int:
        fields = self.observer.decode(observation)
        card, cards = fields["card"], self.options["cards"]
        if fields["history"] in ((), (0,)):
            return 1 if card == cards - 1 else 0  # bet the best card, else check
        return 2 if 2 * card >= cards else 3  # call with the upper half, else fold


KIT = BotKit(heuristic=HighCardHeuristic, search=SearchHooks(), ladders=(LadderSpec({}, note="3 cards, 4 rounds"),))
