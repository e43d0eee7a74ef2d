"""Worker pools start numpy with one BLAS thread per process (two spinning BLAS threads per
worker on a 2-core machine made network calls five times slower)."""

from __future__ import annotations

import os

from training.common.processes import THREAD_VARIABLES, single_thread_pool


def _blas_threads(_: int) -> tuple[dict, int]:
    import numpy  # noqa: F401  (loaded, so its BLAS shows up below)
    from threadpoolctl import threadpool_info

    blas = [pool["num_threads"] for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return {name: os.environ.get(name) for name in THREAD_VARIABLES}, max(blas, default=1)


def test_pool_workers_run_one_blas_thread_and_the_parent_keeps_its_settings(monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    import multiprocessing

    # a fork server another pool started first has numpy loaded with its default threads
    plain = multiprocessing.get_context("forkserver").Pool(1)
    plain.map(_blas_threads, range(1))
    plain.close()
    plain.join()
    pool = single_thread_pool(2)
    try:
        results = pool.map(_blas_threads, range(4))
    finally:
        pool.close()
        pool.join()
    for variables, threads in results:
        assert variables == dict.fromkeys(THREAD_VARIABLES, "1")
        assert threads == 1
    assert "OPENBLAS_NUM_THREADS" not in os.environ and os.environ["OMP_NUM_THREADS"] == "7"
