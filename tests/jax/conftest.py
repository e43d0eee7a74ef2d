"""The JAX tests: skipped where JAX is not installed, and compiled once across runs: JAX's
persistent compilation cache lives in the user's cache folder (``~/.cache/abstract-games-suite/
jax``, or ``$JAX_TEST_CACHE``), outside the checkout, so a fresh clone on the same machine reuses
what an earlier run compiled and spends its time comparing games, not compiling."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

CACHE = Path(os.environ.get("JAX_TEST_CACHE", Path.home() / ".cache" / "abstract-games-suite" / "jax"))
jax.config.update("jax_compilation_cache_dir", str(CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
