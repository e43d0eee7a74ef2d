"""Linecatch tests keep the exact solver's tables out of the user's cache folder.

The 5×5 tables (about 10 seconds each to build) go to pytest's cache folder
(``.pytest_cache/d/linecatch-solver``), so a later run reads them back instead of rebuilding;
with pytest's cache turned off, to a temporary folder for this run.
"""

from __future__ import annotations

import os

import pytest

from envs.linecatch.solver import CACHE_ENV


@pytest.fixture(scope="package", autouse=True)
def solver_cache(request, tmp_path_factory):
    cache = getattr(request.config, "cache", None)
    folder = cache.mkdir("linecatch-solver") if cache is not None else tmp_path_factory.mktemp("linecatch-solver")
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = before
