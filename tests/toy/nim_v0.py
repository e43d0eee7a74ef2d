"""Nim (a toy game of the tests): two players take stones from piles of 3, 4, 5…; whoever takes
the last stone wins. Perfect information, no chance. Options: ``piles`` (1…6, default 3)."""

from envs.core import GameDescription, GameFacts, PlayRules, Renderers, Sampling, SuiteEnv, TestOptions, wrapped_factory
from tests.toy.nim import render, sampling
from tests.toy.nim.observer import NimObserver
from tests.toy.nim.rules import NimGame

GAME = GameDescription(
    name="nim_v0",
    short_name="nim",
    facts=GameFacts("Nim", min_players=2, max_players=2, chance="deterministic", information="perfect"),
    engine=NimGame,
    observer=NimObserver,
    render=Renderers.from_module(render),
    sampling=Sampling.from_module(sampling),
    play=PlayRules(undo_rule="in Nim every move is final", rules_summary=render.RULES_SUMMARY),
    bots="tests.toy.nim_bots",
    docs=None,
    module=__name__,
    test_options=TestOptions(quick={"piles": 2}, search={"piles": 5}),
)


class raw_env(SuiteEnv, game=GAME):
    """The unwrapped nim_v0 AEC environment."""


env = wrapped_factory(raw_env)
