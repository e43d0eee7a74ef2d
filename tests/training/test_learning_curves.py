"""scripts/learning_curves.py: every snapshot of a run folder scored against each opponent."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from tests.scripts import import_script

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "checkpoints" / "linecatch" / "linecatch__dagger__46.zip"


def load_script(monkeypatch):
    return import_script(monkeypatch, "learning_curves")


@pytest.fixture
def run_folder(tmp_path) -> Path:
    snapshots = tmp_path / "linecatch__alphazero__0__test" / "snapshots"
    snapshots.mkdir(parents=True)
    for name in ("iteration_0000.zip", "iteration_0001.zip", "iteration_0002.zip"):
        shutil.copy(AGENT, snapshots / name)
    return snapshots.parent


def test_each_opponent_gets_its_own_games_and_snapshots(run_folder, tmp_path, monkeypatch):
    script = load_script(monkeypatch)
    out = tmp_path / "curves" / "linecatch"
    result = script.main([str(run_folder), "--opponents", "random", "heuristic", "--games", "6", "4",
                          "--every", "1", "2", "--workers", "1", "--out", str(out)])
    picked = [(Path(r["path"]).name, r["opponent"], r["games"]) for r in result["rows"]]
    # random: every snapshot, 6 games; heuristic: every second snapshot (and the last), 4 games
    assert picked == [("iteration_0000.zip", "random", 6), ("iteration_0000.zip", "heuristic", 4),
                      ("iteration_0001.zip", "random", 6),
                      ("iteration_0002.zip", "random", 6), ("iteration_0002.zip", "heuristic", 4)]
    rows = json.loads(out.with_suffix(".json").read_text())
    assert rows == result["rows"]
    positions = json.loads(zipfile.ZipFile(AGENT).read("meta.json"))["positions"]  # what the snapshots' file says
    for row in rows:
        assert row["algo"] == "alphazero" and row["positions"] == positions > 0
        assert 0.0 <= row["interval95"][0] <= row["score"] <= row["interval95"][1] <= 1.0
    # the same agent file against the same seeded games scores the same at every snapshot
    assert len({r["score"] for r in rows if r["opponent"] == "random"}) == 1
    assert out.with_suffix(".png").stat().st_size > 1000
    assert out.with_suffix(".md").read_text().count("\n") == 2 + len(rows)


def test_rating_takes_every_kth_snapshot_and_the_last(run_folder, tmp_path, capsys, monkeypatch):
    script = load_script(monkeypatch)
    asked = []

    def rated(path, facts, run, games, seed, workers):  # training.rate itself has its own tests
        asked.append((path.name, games, seed))
        return {**facts, "run": run, "opponent": "levels (Elo)", "games": games, "elo": 100.0 * len(asked),
                "interval95": [50.0 * len(asked), 150.0 * len(asked)]}

    monkeypatch.setattr(script, "rated", rated)
    out = tmp_path / "elo"
    result = script.main([str(run_folder), "--rate", "12", "--every", "2", "--seed", "5", "--out", str(out)])
    assert asked == [("iteration_0000.zip", 12, 5), ("iteration_0002.zip", 12, 5)]
    assert [r["elo"] for r in result["rows"]] == [100.0, 200.0]
    assert "| 12 | 200 | 100 to 300 |" in out.with_suffix(".md").read_text()
    # one number per run: the second run (a copy) rated at every snapshot
    other = shutil.copytree(run_folder, tmp_path / "linecatch__gumbel__0__test")
    asked.clear()
    script.main([str(run_folder), str(other), "--rate", "12", "--every", "2", "1", "--out", str(out)])
    assert [name for name, _, _ in asked] == ["iteration_0000.zip", "iteration_0002.zip",
                                             "iteration_0000.zip", "iteration_0001.zip", "iteration_0002.zip"]
    with pytest.raises(SystemExit):
        script.main([str(run_folder), "--rate", "12", "--every", "1", "2", "--out", str(out)])
    assert "--every takes one positive number or one per run (1) with --rate" in capsys.readouterr().err


def test_a_count_per_opponent_must_match_the_opponents(run_folder, tmp_path, capsys, monkeypatch):
    script = load_script(monkeypatch)
    with pytest.raises(SystemExit):
        script.main([str(run_folder), "--opponents", "random", "heuristic", "--games", "6", "4", "2",
                     "--out", str(tmp_path / "x")])
    assert "--games takes one positive number or one per opponent (2)" in capsys.readouterr().err


def curve_rows(opponents: int) -> list[dict]:
    """Rows of two runs against ``opponents`` opponents whose curves fill the whole axes (scores
    from 0 to 1), so a legend inside the axes would cover data wherever it went."""
    rows = []
    for run, algo in (("a", "alphazero"), ("b", "maskppo")):
        for k in range(opponents):
            for i in range(5):
                score = (i / 4 + k / opponents) % 1.0
                rows.append({"run": run, "algo": algo, "opponent": f"opponent{k}", "game": "loom_v0",
                             "wall_seconds": 600.0 * i, "positions": 10_000 * i, "score": score,
                             "interval95": [max(0.0, score - 0.1), min(1.0, score + 0.1)]})
    return rows


@pytest.mark.parametrize("opponents", [1, 3, 6])
def test_the_legend_lies_outside_both_axes(monkeypatch, opponents):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    script = load_script(monkeypatch)
    figure = script.figure_of(curve_rows(opponents))
    try:
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        legends = figure.legends + [axis.get_legend() for axis in figure.axes if axis.get_legend()]
        assert len(legends) == 1
        box = legends[0].get_window_extent(renderer)
        assert len(legends[0].get_texts()) == 2 * opponents  # every curve named
        for axis in figure.axes:
            assert not box.overlaps(axis.get_window_extent(renderer)), "the legend covers an axis"
            assert not box.overlaps(axis.xaxis.label.get_window_extent(renderer)), "the legend covers a label"
        whole = figure.bbox
        assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0 and box.y1 <= whole.y1
    finally:
        plt.close(figure)
