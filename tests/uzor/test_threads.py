"""Uzor searches in several threads at once (the web server runs two search threads): the
tables the engine builds lazily and shares must never be seen half built."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from envs.core import bits

REPO = Path(__file__).resolve().parents[2]


def test_set_bits_tables_grown_by_threads_at_once_stay_right(monkeypatch):
    """Threads that meet a longer mask than any before grow the byte table together; every
    answer, then and later, is the mask's bits."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows
    try:
        for size in (121, 200, 300):  # bytes: a 31×31 table is 121
            monkeypatch.setattr(bits, "_BYTE_BITS", [])
            mask = (1 << (8 * size)) - 1
            expected = list(range(8 * size))
            barrier = threading.Barrier(8)
            wrong = []

            def work():
                barrier.wait()
                if bits.set_bits(mask) != expected:
                    wrong.append(1)

            threads = [threading.Thread(target=work) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert not wrong
            assert bits.set_bits(mask) == expected
            assert bits.set_bits(1 << (8 * size - 1)) == [8 * size - 1]
    finally:
        sys.setswitchinterval(previous)


SEARCHES = textwrap.dedent("""
    import threading, envs
    from training import load_agent

    def run(seed, out):
        try:
            env = envs.load("uzor").raw_env(board_size=31)
            env.reset(seed=seed)
            agent = load_agent("mcts:50", "uzor", seed=seed, board_size=31)
            out[seed] = agent.act(env.observe(env.agent_selection))
        except Exception as error:
            out[seed] = repr(error)

    out = {}
    threads = [threading.Thread(target=run, args=(seed, out)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run(100, out)
    print(sorted(out.items()))
""")


def test_two_uzor_searches_started_together_then_a_third_all_answer():
    """Two searches of a fresh process started at the same moment, then one more, each answer
    a move (a table raced by two threads once broke every Uzor search of the process)."""
    done = subprocess.run([sys.executable, "-c", SEARCHES], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 - our own script's printout
    assert [seed for seed, _ in answers] == [1, 2, 100]
    assert all(isinstance(action, int) for _, action in answers), answers
