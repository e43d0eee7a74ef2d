"""scripts/profile_self_play.py: where a self-play worker's time goes."""

from __future__ import annotations

import math

import pytest

from tests.scripts import import_script


@pytest.fixture
def script(monkeypatch):
    return import_script(monkeypatch, "profile_self_play")


PROFILE_IN_A_FRESH_PROCESS = r"""
import argparse, json, sys
sys.path.insert(0, "scripts")
import profile_self_play as script
from training.jobs.alphazero import self_play
evaluate = self_play.TorchEvaluator.evaluate
args = argparse.Namespace(simulations=4, self_play_games=2, filters=8, blocks=1)
result = script.profile("linecatch_v0", {"rows": 3, "cols": 3}, args)
result["restored"] = self_play.TorchEvaluator.evaluate is evaluate
print(json.dumps(result))
"""


def test_the_shares_split_the_whole_time_and_the_evaluator_is_restored(script):
    # In a fresh interpreter: run late in a long-lived test worker, cProfile's runcall now and
    # then spun for good with the GIL held (no timeout can fire then), after earlier tests there.
    import json
    import subprocess
    import sys

    from tests.scripts import SCRIPTS

    done = subprocess.run([sys.executable, "-c", PROFILE_IN_A_FRESH_PROCESS], cwd=SCRIPTS.parent,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    shares = result["shares"]
    assert set(shares) <= set(script.COLUMNS)
    assert all(0.0 <= share <= 1.0 for share in shares.values())
    assert math.isclose(sum(shares.values()), 1.0, abs_tol=1e-6)
    # Every part of a worker's loop runs in a real game: none of them may come out empty.
    for part in ("engine and sampling", "planes", "network forward", "tree"):
        assert shares.get(part, 0.0) > 0.0, part
    assert result["positions"] > 0 and result["positions_per_second"] > 0
    # The profiler's switch around the evaluator is undone, or later runs would lose their clocks.
    assert result["restored"]


def test_a_worker_times_its_planes_inside_its_network_calls(script):
    from training.jobs.alphazero import self_play

    task = script.task_for("fill_v0", {}, simulations=4, games=2, filters=8, blocks=1)
    out = self_play.play_games(task)
    assert 0.0 < out["planes_seconds"] < out["network_seconds"] < out["seconds"]
    assert out["calls"] > 0 and out["evaluations"] >= out["calls"]
