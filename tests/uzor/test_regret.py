"""scripts/uzor_regret.py: an agent's moves priced by the thorough bot, by kind of move."""

from __future__ import annotations

import pytest

from tests.scripts import import_script

SMALL = {"board_size": 9}


@pytest.fixture
def script(monkeypatch):
    return import_script(monkeypatch, "uzor_regret")


def test_thorough_has_no_regret_and_random_has_some(script):
    """The teacher judged by itself: every move in its best-priced set, no regret (its draws
    are among its ties, its fork is its argmax). Random play: placements and takes off the
    best set, a positive regret."""
    own = script.regret("thorough", games=2, options=SMALL)
    assert {"place", "take", "fork"} <= set(own)
    for row in own.values():
        assert row["best_share"] == 1.0 and abs(row["regret_per_game"]) < 1e-9
    assert own["place"]["decisions"] > 10
    chance = script.regret("random", games=2, options=SMALL)
    assert chance["place"]["best_share"] < 0.8 and chance["place"]["regret_per_game"] > 1.0
    assert chance["place"]["best_share_at_stake"] < own["place"]["best_share_at_stake"]
