"""High card (a toy game of the tests): rounds of Kuhn poker — chance deals each player a secret
card from a fresh deck, then check, bet, call or fold; more chips after the last round wins.
Options: ``cards`` (3…6, default 3), ``rounds`` (1…20, default 4)."""

from envs.core import GameDescription, GameFacts, PlayRules, Renderers, Sampling, SuiteEnv, TestOptions, wrapped_factory
from tests.toy.highcard import render, sampling
from tests.toy.highcard.observer import HighCardObserver
from tests.toy.highcard.rules import HighCardGame

GAME = GameDescription(
    name="highcard_v0",
    short_name="highcard",
    facts=GameFacts("HighCard", min_players=2, max_players=2, chance="explicit", information="imperfect"),
    engine=HighCardGame,
    observer=HighCardObserver,
    render=Renderers.from_module(render),
    sampling=Sampling.from_module(sampling),
    play=PlayRules(undo_rule="in High card every move is final", rules_summary=render.RULES_SUMMARY),
    bots="tests.toy.highcard_bots",
    docs=None,
    module=__name__,
    # long games for the searches' hidden-card tests (they stop games after up to 30 moves)
    test_options=TestOptions(search={"rounds": 16}, more=({"cards": 5, "rounds": 2},)),
)


class raw_env(SuiteEnv, game=GAME):
    """The unwrapped highcard_v0 AEC environment."""


env = wrapped_factory(raw_env)
