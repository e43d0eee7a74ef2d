"""A time budget that long-running work checks itself: cooperative cancellation.

A server bounds a bot's think time by raising an exception in the thread that runs it (an
interval timer's signal in the main thread, ``training.serving.deadline`` in a worker thread).
Such an exception is delivered at whatever Python code runs next in that thread, and code
run by the garbage collector — a finalizer (``__del__``), a weakref or gc callback — swallows
it ("Exception ignored in …"): the work would then run on unbounded.

So the work that can run long checks the budget itself: :func:`time_budget` sets a deadline
for the calling thread, and the searches (``training.search``) call :func:`check_time` once a
simulation (and each play-out step), which raises the budget's exception once the deadline has
passed. Nothing is checked in a thread with no budget; nested budgets keep the earlier deadline.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Iterator

_state = threading.local()  # .due: (monotonic deadline, exception class) or None


@contextlib.contextmanager
def time_budget(seconds: float, exception: type[BaseException]) -> Iterator[None]:
    """Within the block, :func:`check_time` in this thread raises ``exception`` (a class,
    raised without arguments) once ``seconds`` have passed."""
    previous = getattr(_state, "due", None)
    due = (time.monotonic() + seconds, exception)
    _state.due = due if previous is None or due[0] < previous[0] else previous
    try:
        yield
    finally:
        _state.due = previous


def check_time() -> None:
    """Raise the calling thread's budget exception if its deadline has passed (cheap: called
    once per simulation)."""
    due = getattr(_state, "due", None)
    if due is not None and time.monotonic() >= due[0]:
        raise due[1]()


def time_left() -> float | None:
    """Seconds left in the calling thread's budget (None: no budget)."""
    due = getattr(_state, "due", None)
    return None if due is None else due[0] - time.monotonic()


__all__ = ["check_time", "time_budget", "time_left"]
