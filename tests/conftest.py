"""Hypothesis settings for every property test in the suite.

The default profile ("suite") is derandomized — the same examples on every run, so CI never
fails on a lucky draw and a subset of the tests sees the same examples as the whole suite — with
no deadline (the machine may be shared). For a longer hunt with fresh random examples, run
``FUZZ_PROFILE=explore pytest tests/fuzz`` (ten times the examples, a new seed each run,
failures saved in .hypothesis/ and replayed first).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                     HealthCheck.function_scoped_fixture])
settings.register_profile("suite", derandomize=True, database=None, print_blob=True, **COMMON)
settings.register_profile("explore", derandomize=False, print_blob=True, **COMMON)
settings.load_profile(os.environ.get("FUZZ_PROFILE", "suite"))
