"""A published game's seeded play is pinned to its version: every benchmark option set, a
handful of seeds, a random player, every action and chance outcome, every seat's observation and
mask, the rewards and scores go into one hash per option set (``scripts/pin_trajectories.py``),
and ``tests/core/trajectories.json`` holds the hashes with the game's version. A change of seeded
play fails here until the version is bumped, docs/changelog.md says what changed and the pins
are written again: a number published for ``fill_v0`` is never silently one of other rules."""

from __future__ import annotations

import pytest

import envs
from tests.scripts import import_script


@pytest.fixture
def pins(monkeypatch):
    return import_script(monkeypatch, "pin_trajectories")


PINNED = [name for name in envs.GAMES if envs.describe(name).docs is not None]


@pytest.mark.parametrize("game", PINNED)
def test_seeded_play_is_what_the_games_version_pinned(pins, game):
    assert pins.pinned_games() == PINNED
    found = pins.differences(game, pins.read_pins().get(game), pins.game_pins(game))
    assert not found, "\n".join(found)


def test_the_pins_file_holds_the_published_games_only(pins):
    assert list(pins.read_pins()) == PINNED


def test_any_change_of_seeded_play_changes_the_hash_and_the_message_says_bump(pins, monkeypatch):
    """The check can fail: a random player that picks otherwise once, an observation off in one
    entry, another reward — each changes the hash, and the message asks for a version bump."""
    game, options = "linecatch_v0", {"rows": 3, "cols": 3}
    pinned = pins.trajectory_hash(game, options, 0)
    assert pins.trajectory_hash(game, options, 0) == pinned  # the same seed, the same game
    assert pins.trajectory_hash(game, options, 1) != pinned
    observer = envs.describe(game).observer
    observe = observer.observe

    def nudged(self, state, player):
        out = observe(self, state, player)
        out[-1] = 1 - out[-1]
        return out

    with monkeypatch.context() as patch:
        patch.setattr(observer, "observe", nudged)
        assert pins.trajectory_hash(game, options, 0) != pinned
    engine = envs.describe(game).engine
    legal = engine.legal_actions
    with monkeypatch.context() as patch:
        patch.setattr(engine, "legal_actions", lambda self: legal(self)[::-1])  # the same set, another order
        assert pins.trajectory_hash(game, options, 0) != pinned
    now = pins.game_pins(game)
    stale = {"version": now["version"], "options": {**now["options"], "5x5": "0" * 64}}
    (message,) = pins.differences(game, stale, now)
    assert "bump `version`" in message and "docs/changelog.md" in message and "'5x5'" in message
    assert "version 3" in " ".join(pins.differences(game, {**now, "version": 3}, now))
    assert "no pinned trajectories" in pins.differences(game, None, now)[0]


def test_a_stopped_clock_keeps_fills_clocked_games_reproducible(pins):
    """Fill's clocks read real time; the pins stop them, so two runs hash alike."""
    first = pins.trajectory_hash("fill_v0", {"time_limit": True}, 3)
    assert pins.trajectory_hash("fill_v0", {"time_limit": True}, 3) == first
