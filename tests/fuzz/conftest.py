"""Hypothesis settings for the fuzz suite.

The default profile ("suite") is derandomized — the same examples on every run, so CI never
fails on a lucky draw — with bounded examples and no deadline (the machine is shared). For a
longer hunt with fresh random examples, run ``FUZZ_PROFILE=explore pytest tests/fuzz`` (ten
times the examples, a new seed each run, failures saved in .hypothesis/ and replayed first).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                     HealthCheck.function_scoped_fixture])
settings.register_profile("suite", derandomize=True, database=None, print_blob=True, **COMMON)
settings.register_profile("explore", derandomize=False, print_blob=True, **COMMON)
settings.load_profile(os.environ.get("FUZZ_PROFILE", "suite"))


def examples(count: int) -> int:
    """``count`` examples in the suite profile, ten times as many when exploring."""
    return count * 10 if os.environ.get("FUZZ_PROFILE") == "explore" else count
