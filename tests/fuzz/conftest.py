"""Example counts for the fuzz suite (the Hypothesis profiles are in tests/conftest.py)."""

from __future__ import annotations

import os


def examples(count: int) -> int:
    """``count`` examples in the suite profile, ten times as many when exploring."""
    return count * 10 if os.environ.get("FUZZ_PROFILE") == "explore" else count
