"""Hypothesis settings for every property test in the suite, and the toy games every generic
test plays besides the suite's own.

The default profile ("suite") is derandomized — the same examples on every run, so CI never
fails on a lucky draw and a subset of the tests sees the same examples as the whole suite — with
no deadline (the machine may be shared). For a longer hunt with fresh random examples, run
``FUZZ_PROFILE=explore pytest tests/fuzz`` (ten times the examples, a new seed each run,
failures saved in .hypothesis/ and replayed first).

The toy games (every ``tests/toy*/<name>_v0.py``) join the registry before collection, through
``envs.registry.register``; ``SUITE_GAMES`` names them to the processes the tests start (the
bot server, terminal play, worker pools), which register them the same way.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from hypothesis import HealthCheck, settings

COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                     HealthCheck.function_scoped_fixture])
settings.register_profile("suite", derandomize=True, database=None, print_blob=True, **COMMON)
settings.register_profile("explore", derandomize=False, print_blob=True, **COMMON)
settings.load_profile(os.environ.get("FUZZ_PROFILE", "suite"))

TESTS = Path(__file__).resolve().parent
TOY_MODULES = sorted(f"tests.{path.parent.name}.{path.stem}" for path in TESTS.glob("toy*/*_v0.py"))


def register_toy_games() -> None:
    named = os.environ.get("SUITE_GAMES", "").replace(",", " ").split()
    os.environ["SUITE_GAMES"] = " ".join(dict.fromkeys(named + TOY_MODULES))
    import envs.registry

    for path in TOY_MODULES:
        envs.registry.register(importlib.import_module(path).GAME)


def pytest_configure(config) -> None:
    register_toy_games()
