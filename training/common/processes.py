"""Worker processes with one BLAS thread each.

numpy's OpenBLAS starts one thread per core in every process. Two workers on two cores then run
four BLAS threads that spin-wait on each other: a 21×21 network call measured 7 ms a call that
way against 1.4 ms with one thread each (Uzor mid-game, 2 cores, other jobs running). Every pool
of game-playing workers in the suite comes from :func:`single_thread_pool`.
"""

from __future__ import annotations

import os
import sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_thread_per_worker() -> None:
    """One core per worker: torch (imported by some agents) gets one thread too."""
    from threadpoolctl import threadpool_limits

    # libraries loaded later read the variables; those the fork server had already loaded
    # (numpy's OpenBLAS) are limited at run time
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    threadpool_limits(limits=1)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def single_thread_pool(count: int):
    """A ``multiprocessing`` pool of ``count`` fork-server workers, each with one BLAS thread
    (set by each worker at start, so the parent's environment is left alone)."""
    import multiprocessing

    return multiprocessing.get_context("forkserver").Pool(count, initializer=one_thread_per_worker)
