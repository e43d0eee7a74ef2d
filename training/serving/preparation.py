"""Work a bot needs done once before it can be made at once, done in the background for a
server that answers many clients (the web server): Linecatch's exact solver needs its board's
table, which takes up to a few seconds to build (10–15 the first time on 5×5), and a game
start must not hold a worker thread, outside the move time limit, while it is built.

``preparing(target, game, options)`` asks the agent's bot class (``preparation``, a
:class:`training.bots.Preparation`); where work is left it starts that work in a background
thread (once per key, whoever asks) and returns what is being done, and the server answers
the request with the error ``preparing`` — ask again in a moment (the page does so by itself).
Work that failed is not started again: the request then makes the agent, which says why.

``prepare_at_start`` starts the work of every named bot for each game's default options and its
option sets with levels, when the server starts.
"""

from __future__ import annotations

import sys
import threading
import traceback
from typing import Any

from training.players.load import bot_table
from training.bots import Preparation


class Preparations:
    """The background work of a process, by key: running, done, or failed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[tuple, threading.Thread] = {}
        self.failed: set[tuple] = set()

    def start(self, preparation: Preparation) -> bool:
        """Start the work unless it is running; False when it failed before (not started again)."""
        with self.lock:
            key = preparation.key
            if key in self.failed:
                return False
            if key not in self.running:
                thread = threading.Thread(target=self.run, args=(preparation,), daemon=True,
                                          name=f"prepare-{'-'.join(map(str, key))}")
                self.running[key] = thread
                thread.start()
            return True

    def run(self, preparation: Preparation) -> None:
        try:
            preparation.build()
        except Exception:
            traceback.print_exc(file=sys.stderr)
            with self.lock:
                self.failed.add(preparation.key)
        finally:
            with self.lock:
                self.running.pop(preparation.key, None)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the work running now (tests)."""
        with self.lock:
            threads = list(self.running.values())
        for thread in threads:
            thread.join(timeout)


PREPARATIONS = Preparations()  # one per process: every client's server shares it


def preparation_for(target: str, name: str, options: dict[str, Any]) -> Preparation | None:
    """The work left before the agent ``target`` (a named bot) can be made, or None."""
    bot = bot_table(name).get(target) if isinstance(target, str) else None
    hook = getattr(bot, "preparation", None)
    if hook is None:
        return None
    try:
        return hook(game=name, **options)
    except (ValueError, TypeError):
        return None  # options the bot refuses: making it says why


def preparing(target: str, name: str, options: dict[str, Any]) -> str | None:
    """What is being prepared for the agent ``target`` (the work started in the background if it
    was not), or None when it can be made now."""
    preparation = preparation_for(target, name, options)
    if preparation is None or not PREPARATIONS.start(preparation):
        return None
    return preparation.what


def prepare_at_start() -> None:
    """Start the work of every named bot for each game's default options and its option sets
    with levels (``python -m training.web`` does so as it starts)."""
    import envs
    from training.agents.levels import LevelsError, levelled_option_sets

    for name in envs.GAMES:
        try:
            option_sets = [{}] + [entry["options"] for entry in levelled_option_sets(name)]
        except LevelsError:
            option_sets = [{}]
        for bot in bot_table(name):
            for options in option_sets:
                preparation = preparation_for(bot, name, options)
                if preparation is not None:
                    PREPARATIONS.start(preparation)


__all__ = ["PREPARATIONS", "Preparations", "prepare_at_start", "preparation_for", "preparing"]
