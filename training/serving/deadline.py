"""A time limit on work running in a worker thread (the web server's bot searches).

The stdin server limits an agent's move with an interval timer (``SIGALRM``), which only the
main thread receives. A server that answers many clients runs each request in a worker thread
instead; there :func:`thread_deadline` arms a timer thread that, when the time is up, raises an
exception in the worker (CPython's ``PyThreadState_SetAsyncExc``) at its next Python
instruction. The agents are Python (a search loops in Python; a network's forward pass
returns to Python within milliseconds), so the exception lands within moments of the limit.

An exception raised this way after the work has ended (the timer fired just as it finished)
is withdrawn before the context is left, so it can never escape into unrelated code.

An asynchronous exception can be lost: when it lands in code the garbage collector runs in the
thread (a finalizer, a gc callback), that code swallows it. So the deadline is also a
:func:`training.common.time_budget.time_budget` for the thread, which the searches check once a
simulation: a search stops at the limit whatever else runs in its thread.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from typing import Iterator

from training.common.time_budget import time_budget

BACKSTOP_S = 0.25  # the interrupt comes this long after the budget, for code that does not check it

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.c_void_p)  # a pointer, so that None passes NULL
_set_async_exc.restype = ctypes.c_int


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> int:
    """Schedule ``exception`` in the thread (``None`` withdraws a scheduled one); returns how
    many threads were touched. (The class lives on: the caller holds it.)"""
    return _set_async_exc(thread_id, None if exception is None else id(exception))


@contextlib.contextmanager
def thread_deadline(seconds: float, exception: type[BaseException]) -> Iterator[None]:
    """Raise ``exception`` (a class, raised without arguments) inside the calling thread if the
    body runs longer than ``seconds``; the caller catches it around the ``with`` block."""
    thread_id = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                _raise_in(thread_id, exception)

    # The budget is the outer block and the timer a backstop a little later, disarmed inside it:
    # a timer firing while the budget's own exception unwinds would otherwise land in the
    # budget's cleanup and leave its expired deadline on the thread for every later search.
    with time_budget(seconds, exception):
        timer = threading.Timer(seconds + BACKSTOP_S, fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            with lock:
                state["done"] = True
            timer.cancel()
            if state["fired"]:
                # The exception may still be pending (the body ended between the timer's check
                # and its delivery): withdraw it, so that it cannot surface after this block. If
                # it was delivered already, this does nothing.
                _raise_in(thread_id, None)


__all__ = ["thread_deadline"]
