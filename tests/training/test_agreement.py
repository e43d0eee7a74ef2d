"""scripts/agreement.py: how often an agent plays its teacher's move, by kind of move."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.scripts import import_script

ROOT = Path(__file__).resolve().parents[2]
FILL = str(ROOT / "checkpoints" / "fill" / "fill__alphazero__3.zip")


@pytest.fixture
def script(monkeypatch):
    return import_script(monkeypatch, "agreement")


def test_kinds_come_from_the_notation(script):
    assert script.kind_of("place cedar/ivory @ k10") == "place"
    assert script.kind_of("cut/ne@a1") == "cut" and script.kind_of("continue") == "continue"
    assert script.kind_of("a1") == "move" and script.kind_of("1@a1") == "move"


def test_a_network_agrees_with_itself_and_not_with_random(script):
    """The same network as agent and teacher: every move the same, and the NLL of its own argmax
    is finite and below that of the uniform policy; against random the agreement is far lower."""
    same = script.agreement("fill", FILL, FILL, games=4)
    assert same["move"]["decisions"] > 10
    for row in same.values():
        assert row["same_move"] == 1.0 == row["same_kind"]
        assert 0 <= row["nll"] < math.log(20)
    other = script.agreement("fill", FILL, "random", games=4)
    assert other["move"]["same_move"] < 0.6 and other["move"]["nll"] > same["move"]["nll"]


def test_uzor_moves_are_split_by_kind_and_a_bot_without_probabilities_has_no_nll(script):
    rows = script.agreement("uzor", "greedy", "heuristic", games=1, options={"board_size": 9})
    assert "place" in rows and "take" in rows
    assert all(math.isnan(row["nll"]) for row in rows.values())
    assert all(0 <= row["same_move"] <= row["same_kind"] <= 1 for row in rows.values())


def test_bad_games_are_refused_by_name(script, capsys):
    with pytest.raises(SystemExit):
        script.main(["--game", "fill", "--agent", "random", "--games", "0"])
    assert "--games" in capsys.readouterr().err
