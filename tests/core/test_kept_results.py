"""What the env and the observers keep between calls — the action mask of the position (and
the legality of a step read from it), Uzor's table block, Knot's board blocks — against a
computation from the position alone, over many random games with every jump a kept result
can miss: resets, snapshot restores, games ended by an illegal move, and positions of other
games and of searched lines (clones moved on) shown to the same observer. Then the checks
themselves: with an invalidation taken out, they fail."""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest

import envs
import envs.uzor.observer as uzor_observer
from envs.core.aec import SuiteEnv
from envs.core.game import CHANCE, draw_outcome
from envs.knot.observer import _BoardBytes
from envs.uzor.observer import UzorObserver
from tests.knot.reference_observer import reference_observe as knot_reference
from tests.uzor.reference_observer import reference_observe as uzor_reference

REFERENCES = {"uzor_v0": uzor_reference, "knot_v0": knot_reference}
CASES = [(name, label) for name in envs.GAMES for label in envs.load(name).GAME.benchmark_options]


def fresh_mask(game, num_actions: int) -> np.ndarray:
    mask = np.zeros(num_actions, np.int8)
    mask[game.legal_actions()] = 1
    return mask


def expected_observation(raw, game, player: int) -> np.ndarray:
    """From the position alone: the straightforward reading where the tests have one, else a
    new observer (nothing kept)."""
    reference = REFERENCES.get(raw.metadata["name"])
    if reference is not None:
        return reference(raw.observer, game, player)
    return type(raw.observer)(raw.options).observe(game, player)


def moved_on(game, rng: random.Random, moves: int):
    """A searched line: a clone of ``game`` played on at random (chance drawn by ``rng``)."""
    line = game.clone()
    for _ in range(moves):
        if line.is_terminal():
            break
        if line.current_player() == CHANCE:
            line.apply(draw_outcome(line.chance_outcomes(), rng))
        else:
            line.apply(rng.choice(line.legal_actions()))
    while line.current_player() == CHANCE:
        line.apply(draw_outcome(line.chance_outcomes(), rng))
    return line


def check_kept_results(name: str, options: dict, steps: int, seed: int = 0) -> int:
    """Random play through ``env()`` checking, at every position, every agent's observation and
    mask, the engine's ``action_mask`` and the step legality against the position alone; the
    env's observer is also shown other games' positions and searched lines. Returns the
    positions checked."""
    module = envs.load(name)
    env, other = module.env(**options), module.env(**options)
    env.reset(seed=seed)
    other.reset(seed=seed + 1)
    raw = env.unwrapped
    observer, n = raw.observer, raw._num_actions
    rng = random.Random(seed)
    checked = 0
    for step in range(steps):
        game = raw.game
        for agent in env.possible_agents:
            player = raw.agent_name_mapping[agent]
            seen = env.observe(agent)
            actor = not game.is_terminal() and game.current_player() == player and not (
                raw.terminations[agent] or raw.truncations[agent])
            want_mask = fresh_mask(game, n) if game.current_player() == player else np.zeros(n, np.int8)
            assert seen["action_mask"].dtype == np.int8 and np.array_equal(seen["action_mask"], want_mask), (
                f"{name} step {step}: {agent}'s action mask is not the position's")
            want = expected_observation(raw, game, player)
            assert seen["observation"].dtype == np.float32 and seen["observation"].tobytes() == want.tobytes(), (
                f"{name} step {step}: {agent}'s observation differs from the position's")
            if actor:
                assert np.array_equal(game.action_mask(), want_mask)
                legal = set(game.legal_actions())
                for action in [*legal, *rng.sample(range(n), min(n, 8)), -1, n]:
                    assert raw.is_legal_now(action) == (action in legal), f"{name} step {step}: action {action}"
        checked += 1
        if step % 5 == 2:  # another game's position, then a searched line, shown to the same observer
            other_game = other.unwrapped.game
            for view in (other_game, moved_on(game, rng, rng.randrange(1, 6))):
                if not view.is_terminal():
                    player = view.current_player()
                    assert observer.observe(view, player).tobytes() == expected_observation(raw, view, player).tobytes(), (
                        f"{name} step {step}: the observation of another position differs from its own")
            if other_game.is_terminal():
                other.reset()
            else:
                other.step(rng.choice(other_game.legal_actions()))
        agent = env.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            env.reset(seed=seed + step) if step % 2 else env.reset()
            continue
        if step % 41 == 7:  # continue from the position's snapshot, read back from JSON
            raw.restore(json.loads(json.dumps(raw.snapshot())))
        legal = game.legal_actions() if raw.game is game else raw.game.legal_actions()
        illegal = [a for a in range(n) if a not in set(legal)] if step % 97 == 13 else []
        if illegal:  # an illegal move, where there is one (all may be legal): the wrapped env ends the game
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.step(illegal[0])
        else:
            env.step(rng.choice(legal))
    return checked


@pytest.mark.parametrize("name, label", CASES, ids=[f"{n}-{label}" for n, label in CASES])
def test_masks_observations_and_legality_equal_the_positions(name, label):
    options = envs.load(name).GAME.benchmark_options[label]
    steps = 600 if name in REFERENCES else 250
    assert check_kept_results(name, options, steps) == steps


def test_uzor_table_block_patches_and_rebuilds_are_both_exercised(monkeypatch):
    """The random games above go through the patch of a placed (and a closed) cell and the
    whole block made again."""
    counted = {"rows": 0, "whole": 0}

    class Rows(list):
        def __getitem__(self, code):
            counted["rows"] += 1
            return list.__getitem__(self, code)

    class Whole:
        def __getitem__(self, codes):
            counted["whole"] += 1
            return uzor_observer._cell_table()[codes]

    monkeypatch.setattr(uzor_observer, "_ROW_BYTES", Rows(uzor_observer._ROW_BYTES))
    monkeypatch.setattr(uzor_observer, "_LUT", Whole())
    check_kept_results("uzor_v0", {"board_size": 9}, 400, seed=3)
    assert counted["rows"] > 100 and counted["whole"] > 10


def test_knot_board_blocks_grow_and_are_made_again(monkeypatch):
    """Captures, joins and closes (a ribbon of the kept board changed) make the strand blocks
    again; plain growth writes the new strands only. Both happen in the random games."""
    counted = {"again": 0, "closed": 0}
    empty = _BoardBytes._empty_strands

    def again(self):
        counted["again"] += 1
        empty(self)

    update = _BoardBytes.update

    def spy(self, game):
        update(self, game)
        counted["closed"] = max(counted["closed"], sum(r >= 0 for r in game.rib_closed))

    monkeypatch.setattr(_BoardBytes, "_empty_strands", again)
    monkeypatch.setattr(_BoardBytes, "update", spy)
    check_kept_results("knot_v0", {"players": 3}, 500, seed=4)
    assert counted["again"] > 30 and counted["closed"] > 0


# ----- the checks fail when something kept goes stale ------------------------------------------------

def test_the_check_fails_when_the_env_keeps_a_mask_across_steps(monkeypatch):
    step = SuiteEnv.step

    def stale_step(self, action):
        kept = self._mask
        step(self, action)
        self._mask = kept  # the mask of the position before the step

    monkeypatch.setattr(SuiteEnv, "step", stale_step)
    with pytest.raises(AssertionError, match="action mask"):
        check_kept_results("linecatch_v0", {}, 50)


def test_the_check_fails_when_uzors_table_block_is_not_renewed(monkeypatch):
    table_bytes = UzorObserver._table_bytes

    def stale(self, game):
        return self._table if len(self._codes) else table_bytes(self, game)  # the first table, always

    monkeypatch.setattr(UzorObserver, "_table_bytes", stale)
    with pytest.raises(AssertionError, match="observation"):
        check_kept_results("uzor_v0", {"board_size": 9}, 100)


def test_the_check_fails_when_a_placed_cell_is_not_patched(monkeypatch):
    rows = list(uzor_observer._ROW_BYTES)
    monkeypatch.setattr(uzor_observer, "_ROW_BYTES", [rows[0]] * len(rows))  # every patched row reads empty
    with pytest.raises(AssertionError, match="observation"):
        check_kept_results("uzor_v0", {"board_size": 9}, 100)


def test_the_check_fails_when_knots_board_blocks_are_not_renewed(monkeypatch):
    update = _BoardBytes.update

    def stale(self, game):
        if self.token is None:  # the first board, always
            update(self, game)

    monkeypatch.setattr(_BoardBytes, "update", stale)
    with pytest.raises(AssertionError, match="observation"):
        check_kept_results("knot_v0", {}, 100)


def test_the_check_fails_when_knots_board_takes_any_change_for_growth(monkeypatch):
    """A kept board whose ribbons changed (a capture, a join, a close) must be made again:
    treated as grown, it shows old owners or open ribbons."""
    empty = _BoardBytes._empty_strands

    def never_cleared(self):
        if not hasattr(self, "strands"):  # (made once, in __init__)
            empty(self)

    monkeypatch.setattr(_BoardBytes, "_empty_strands", never_cleared)
    with pytest.raises(AssertionError, match="observation"):
        check_kept_results("knot_v0", {}, 400)
