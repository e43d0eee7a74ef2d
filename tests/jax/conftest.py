"""The JAX tests: skipped where JAX is not installed, and compiled once across runs (JAX's
persistent compilation cache in ``.jax_cache/`` at the repository root, ignored by git), so a
second run of the suite spends its time comparing games, not compiling."""

from __future__ import annotations

from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

CACHE = Path(__file__).resolve().parents[2] / ".jax_cache"
jax.config.update("jax_compilation_cache_dir", str(CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
