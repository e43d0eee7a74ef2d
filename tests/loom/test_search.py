"""Loom search hooks (training/bots/loom.py, loom_values.py): the fitted line values are exact
on full lines and reproducible from their script, weave prices equal a brute force through the
engine, the cut-off evaluation agrees with the expected margin, and MCTS finds the best
last-round draft."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import training.bots.loom_values as loom_values
from envs.loom.observer import LoomObserver
from envs.loom.cloth import CELLS, LINE_CODES, SIDE, line_dyes, line_score
from envs.loom.rules import ROUNDS, LoomGame
from training.bots.loom import (
    evaluate_state, expected_points, line_weave_values, preferred_actions, root_preferred_actions,
)
from training.bots.loom_values import line_values
from training.search.mcts import MCTSAgent
from tests.loom.util import random_play, throw_dice
from tests.training.evaluators import Uninformed

ROOT = Path(__file__).resolve().parents[2]


def random_positions(games: int, seed: int, bounty: int = 8):
    """Every unfinished state met along seeded random games."""
    rng = random.Random(seed)
    options = LoomGame.resolve_options({"bounty": bounty})
    for _ in range(games):
        state = throw_dice(LoomGame(options), rng)
        while not state.is_terminal():
            yield state.clone()
            state.apply(rng.choice(state.legal_actions()))
            throw_dice(state, rng)


def woven_lines_change(before: LoomGame, after: LoomGame, player: int, cell: int) -> float:
    """The documented price of a weave, recomputed from the engine's line codes before and
    after it: the woven row and column, valued in a cloth one cell fuller, minus as they were."""
    values, _ = line_values(before.bounty)
    filled = sum(1 for d in before.cloths[player] if d)
    lines = (cell // SIDE, SIDE + cell % SIDE)
    return sum(values.value[filled + 1][after.codes[player][line]] - values.value[filled][before.codes[player][line]]
               for line in lines)


@pytest.mark.parametrize("bounty", [8, 0, 30])
def test_full_lines_are_valued_at_their_exact_score_and_open_lines_at_least_their_dyes(bounty):
    values, spread = line_values(bounty)
    assert len(spread) == ROUNDS + 1 and spread[-1] == 0 and all(s > 0 for s in spread[:-1])
    for code in range(LINE_CODES):
        dyes = line_dyes(code)
        for filled in (4, 9, 15):
            value = values.value[filled][code]
            if 0 not in dyes:
                assert value == line_score(dyes, bounty)
            elif len([d for d in dyes if d]) <= filled:
                # An open line ends with at least the dyes it holds; the fitted value says more.
                assert value >= sum(set(dyes)) - 1e-9
    # More room is worth more: an empty line early beats one holding a repeated low dye.
    empty, repeated = 0, 1 + 1 * 7
    assert values.value[2][empty] > values.value[2][repeated]


def test_expected_points_are_the_scores_once_the_cloths_are_full():
    rng = random.Random(3)
    for _ in range(200):
        state = random_play(LoomGame(LoomGame.resolve_options({})), rng)
        assert expected_points(state) == pytest.approx(state.scores())


def test_weave_prices_match_a_brute_force_through_the_engine():
    checked = 0
    for state in random_positions(40, seed=5):
        legal, prices = line_weave_values(state)
        assert legal == state.legal_actions() and len(prices) == len(legal)
        player = state.current_player()
        for action, price in zip(legal, prices):
            after = state.clone()
            after.apply(action)
            gain = woven_lines_change(state, after, player, action % CELLS)
            if state.taken < 0:  # the drafter: minus the rival's best weave of the leftover
                best = -float("inf")
                for reply in after.legal_actions():
                    replied = after.clone()
                    replied.apply(reply)
                    best = max(best, woven_lines_change(after, replied, 1 - player, reply % CELLS))
                gain -= best
            assert price == pytest.approx(gain)
            checked += 1
        preferred, root = preferred_actions(state), root_preferred_actions(state)
        best_price = max(prices)
        assert set(preferred) <= set(legal) and set(root) <= set(legal) and len(root) <= 8
        assert legal[prices.index(best_price)] in preferred and legal[prices.index(best_price)] in root
        assert all(prices[legal.index(a)] >= best_price - 1 for a in preferred)
    assert checked > 10_000


def test_the_evaluation_is_a_win_chance_that_follows_the_expected_margin():
    for state in random_positions(30, seed=8):
        mine, theirs = expected_points(state)
        first, second = evaluate_state(state)
        assert -1 < first < 1 and first == -second
        assert (first > 0) == (mine > theirs) or abs(mine - theirs) < 1e-9
    # With one round to go (spread 11 points) a 30-point expected lead is all but a sure win.
    late = [s for s in random_positions(300, seed=9) if s.round == ROUNDS - 1 and s.taken < 0]
    lopsided = [s for s in late if abs(expected_points(s)[0] - expected_points(s)[1]) > 30]
    assert len(lopsided) >= 10
    for state in lopsided:
        assert abs(evaluate_state(state)[0]) > 0.95


def test_mcts_finds_the_best_last_round_draft():
    """Round 15: one empty cell per cloth, so the drafter's thread decides the game; the best
    outcome is known by trying both threads through the engine."""
    rng = random.Random(21)
    observer = LoomObserver(LoomGame.resolve_options({}))
    tested = decided = 0
    while tested < 30:
        state = random_play(LoomGame(LoomGame.resolve_options({})), rng, moves=2 * (ROUNDS - 1))
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        player = state.current_player()
        outcomes = {}
        for action in legal:
            end = state.clone()
            end.apply(action)
            end.apply(end.legal_actions()[0])
            outcomes[action] = end.returns()[player]
        best = max(outcomes.values())
        decided += len(set(outcomes.values())) > 1
        observation = {"observation": observer.observe(state, player),
                       "action_mask": [1 if a in legal else 0 for a in range(2 * CELLS)]}
        agent = MCTSAgent("loom", seed=tested, simulations=40, depth=2, margin=True)
        assert outcomes[agent.act(observation)] == best
        tested += 1
    assert decided >= 5  # positions where the wrong thread changes the result


def test_the_line_table_is_reproducible_and_a_corrupt_one_says_so(tmp_path, monkeypatch):
    outputs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        subprocess.run([sys.executable, "scripts/fit_loom_lines.py", "--games", "200", "--seed", "4", "--out", str(out)],
                       cwd=ROOT, check=True, capture_output=True)
        outputs.append(json.loads(out.read_text()))
    assert outputs[0]["table"] == outputs[1]["table"] and outputs[0]["games"] == 200
    shipped = json.loads((ROOT / "training/bots/loom_lines.json").read_text())
    assert shipped["games"] == 40000 and shipped["command"].startswith("python scripts/fit_loom_lines.py")

    broken = tmp_path / "broken.json"
    broken.write_text('{"table": {}}')
    monkeypatch.setattr(loom_values, "LINE_VALUES_PATH", broken)
    line_values.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="missing or corrupt.*fit_loom_lines"):
            line_values(8)
    finally:
        line_values.cache_clear()


def test_the_guided_search_mixes_the_fitted_line_values_into_its_leaves():
    """``GuidedSearch(hook_weight=w)`` (``--hook-value-weight``): a leaf is worth (1 − w) × the
    network's value + w × ``evaluate_state``. With a network that knows nothing, w = 1 and one
    simulation per weave (each a leaf where the rival weaves the leftover), the search takes the
    weave after which ``evaluate_state`` is best for the drafter; with w = 0 every weave looks
    alike and it does not."""
    from training.search.guided import GuidedSearch, run_batched

    observer = LoomObserver(LoomGame.resolve_options({}))
    mixed = GuidedSearch("loom", {}, simulations=1, gumbel_scale=0.0, hook_weight=0.25)
    for state in random_positions(3, seed=30):
        network = np.array([0.4, -0.4])
        assert np.allclose(mixed.leaf_values(state, network), 0.75 * network + 0.25 * np.asarray(evaluate_state(state)))
    tested = blind_best = 0
    for state in random_positions(40, seed=31):
        legal = state.legal_actions()
        if not 2 <= len(legal) <= 16 or state.taken >= 0:
            continue
        player = state.current_player()
        values = []
        for action in legal:
            after = state.clone()
            after.apply(action)
            values.append(evaluate_state(after)[player])
        best = max(values)
        if sorted(values)[-2] > best - 0.01:
            continue  # a near tie
        observation = {"observation": observer.observe(state, player),
                       "action_mask": [1 if a in legal else 0 for a in range(2 * CELLS)]}
        chosen = {}
        for weight in (1.0, 0.0):
            search = GuidedSearch("loom", {}, simulations=len(legal), considered=16, gumbel_scale=0.0, hook_weight=weight)
            chosen[weight] = run_batched([search.run(observation, random.Random(tested))], Uninformed(2 * CELLS))[0].action
        assert values[legal.index(chosen[1.0])] == best
        blind_best += values[legal.index(chosen[0.0])] == best
        tested += 1
    assert tested >= 20 and blind_best < tested / 2
