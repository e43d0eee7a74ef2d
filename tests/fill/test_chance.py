"""Rocks and gems as chance nodes (OpenSpiel's model): outcomes and exact probabilities in
positions of known contents, scripted nodes in order, snapshots at chance nodes, the env."""

from __future__ import annotations

import json
import random

import pytest

from envs import fill_v0
from envs.core.game import CHANCE, IllegalActionError, SnapshotError, draw_outcome
from envs.fill.rules import CHOOSE, GEMS, ROCKS, SEED, FillGame, bits
from tests.fill.helpers import settle
from training.bots.fill import evaluate_state, preferred_actions


def new(**options) -> FillGame:
    return FillGame(FillGame.resolve_options(options))


def open_cells(game: FillGame) -> list[int]:
    """The cells a gem may appear on, from the rules page's words: empty, not a rock, not the
    seed's neighbour, and can still be filled."""
    seed = game.seed_cell
    return [c for c in range(game.n) if not (game.rock | game.filled) >> c & 1
            and not game.geo.nbr[seed] >> c & 1 and game.can_still_be_filled(c)]


def test_random_rocks_are_drawn_one_node_at_a_time_uniformly_over_the_free_cells():
    game = new(rocks=True, size=7)
    assert FillGame.max_chance_outcomes_for(game.options) == 49
    for placed in range(4):
        assert game.phase == ROCKS and game.current_player() == CHANCE and game.is_chance_node()
        outcomes = game.chance_outcomes()
        assert [o for o, _ in outcomes] == [c for c in range(49) if not game.rock >> c & 1]
        assert all(p == 1.0 / (49 - placed) for _, p in outcomes)
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert game.legal_actions() == [o for o, _ in outcomes]
        cell = outcomes[placed * 7][0]
        assert game.action_to_string(cell) == f"rock {game._name(cell)}"
        assert game.string_to_action(game.action_to_string(cell)) == cell
        game.apply(cell)
        if game.phase == ROCKS:
            assert game.why_illegal(cell) == f"{game._name(cell)} is already a rock"
        else:
            assert game.why_illegal(cell) == f"{game._name(cell)} is a rock: rocks cannot be seeded"
    assert game.phase == SEED and game.current_player() == 0 and game.rock.bit_count() == 4


def test_scripted_rocks_are_probability_one_nodes_in_the_scripts_order():
    game = new(rocks=True, rock_cells=["f6", 3, "a1"])
    for cell in (35, 3, 0):
        assert game.chance_outcomes() == [(cell, 1.0)]
        other = (cell + 1) % 36
        assert "scripted" in game.why_illegal(other)
        with pytest.raises(IllegalActionError, match="scripted"):
            game.apply(other)
        game.apply(cell)
    assert game.phase == SEED and bits(game.rock) == [0, 3, 35]
    assert new(rocks=True, rock_cells=[]).phase == SEED  # an empty script: no rock node at all


def test_random_gems_probabilities_match_the_open_cells_and_the_kinds():
    # Rocks wall off the top-left corner: a1, b1, a2 and b2 can never be filled.
    game = settle(new(rocks=True, rock_cells=["c1", "c2", "c3", "a3", "b3"], gems=True, traps=True))
    game.apply(game.string_to_action("e5"))
    assert game.phase == GEMS and game.current_player() == CHANCE and game.to_move == 1
    cells = open_cells(game)
    assert game.string_to_action("a1") not in cells and len(cells) == 36 - 5 - 9 - 4
    assert FillGame.max_chance_outcomes_for(game.options) == 3 * 36
    for placed in range(3):
        outcomes = game.chance_outcomes()
        left = [c for c in cells if c not in game.gems]
        assert sorted(o for o, _ in outcomes) == sorted(k * 36 + c for k in range(3) for c in left)
        assert all(p == 1.0 / (3 * len(left)) for _, p in outcomes)
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        outcome = outcomes[placed * 5][0]
        kind, cell = divmod(outcome, 36)
        assert game.action_to_string(outcome) == f"{('double', 'pass', 'trap')[kind]} gem {game._name(cell)}"
        assert game.string_to_action(game.action_to_string(outcome)) == outcome
        game.apply(outcome)
        assert game.gems[cell] == kind
    assert game.phase == CHOOSE and game.current_player() == 1 and len(game.gems) == 3
    assert "no gem appears" not in (game.why_illegal(game.n) or "")  # stay is legal again


def test_without_traps_gems_are_double_or_pass_and_reasons_name_the_problem():
    game = settle(new(gems=True))
    game.apply(14)  # c3
    outcomes = dict(game.chance_outcomes())
    assert {o // 36 for o in outcomes} == {0, 1} and all(p == 1.0 / len(outcomes) for p in outcomes.values())
    assert game.why_illegal(14) == "c3 is the seed: no gem appears there"
    assert game.why_illegal(15) == "d3 touches the seed: no gem appears there"
    assert "kinds: double, pass" in game.why_illegal(2 * 36 + 0)
    game.apply(0)  # a Double gem on a1
    assert game.why_illegal(36 + 0) == "a1 already holds a Double gem"


def test_fewer_open_cells_than_three_give_fewer_gem_nodes():
    # Rocks close the seed a1's region (a1…c2): only c1 and c2 do not touch the seed.
    rocks = ["a3", "b3", "c3", "d1", "d2", "d3"]
    game = settle(new(rocks=True, rock_cells=rocks, gems=True))
    game.apply(game.string_to_action("a1"))
    # a1's neighbours a2, b1, b2 touch the seed; c1 and c2 are open (two cells).
    assert sorted(open_cells(game)) == [game.string_to_action("c1"), game.string_to_action("c2")]
    assert game.phase == GEMS
    settle(game, random.Random(3))
    assert game.phase == CHOOSE and len(game.gems) == 2
    none = settle(new(rocks=True, rock_cells=["c1", "c2", "c3", "a3", "b3"], gems=True))
    none.apply(0)
    assert none.phase == CHOOSE and none.gems == {}  # no open cell: no gem node


def test_scripted_gems_are_probability_one_nodes_in_order_skipping_impossible_ones():
    script = [(0, "double"), (0, "pass"), (7, "pass"), (5, "double"), (34, "pass"), (35, "pass"), (15, "double")]
    game = settle(new(rocks=True, rock_cells=[4, 10, 11, 34], gems=True, gem_cells=script))
    game.apply(14)  # c3: b2 (7) and d3 (15) touch it, f1 (5) is walled off, 34 is a rock
    assert game.chance_outcomes() == [(0, 1.0)]
    assert "scripted" in game.why_illegal(1)
    game.apply(0)
    assert game.chance_outcomes() == [(36 + 35, 1.0)]
    game.apply(36 + 35)
    assert game.phase == CHOOSE and game.gems == {0: 0, 35: 1}


def test_snapshots_at_chance_nodes_round_trip_and_continue_identically():
    rng = random.Random(1)
    for options in ({"rocks": True, "gems": True, "traps": True}, {"rocks": True, "rock_cells": [3, 9, 20], "gems": True},
                    {"size": 8, "lines": "strict", "rocks": True, "gems": True}):
        game = new(**options)
        seen = set()
        while not game.is_terminal():
            if game.is_chance_node():
                seen.add(game.phase)
                snap = json.loads(json.dumps(game.snapshot()))
                assert "rng" not in snap["state"]
                restored = FillGame.from_snapshot(snap)
                assert restored.snapshot() == game.snapshot()
                assert restored.chance_outcomes() == game.chance_outcomes()
                outcome = draw_outcome(game.chance_outcomes(), rng)
                restored.apply(outcome)
                game.apply(outcome)
                assert restored.snapshot() == game.snapshot()
            else:
                game.apply(rng.choice(game.legal_actions()))
        assert seen == {ROCKS, GEMS}


def test_snapshots_of_chance_phases_that_no_chance_gives_are_refused():
    game = new(rocks=True, rock_cells=[3, 9, 20])
    game.apply(3)
    snap = game.snapshot()
    wrong = json.loads(json.dumps(snap))
    wrong["state"]["rocks"] = [9]  # the script places c1 (3) first
    with pytest.raises(SnapshotError, match="'rocks'"):
        FillGame.from_snapshot(wrong)
    late = json.loads(json.dumps(snap))
    late["state"]["phase"] = "seed"  # two rocks still to come
    with pytest.raises(SnapshotError, match="'rocks' must hold 3"):
        FillGame.from_snapshot(late)
    gems = settle(new(gems=True))
    gems.apply(14)
    gems.apply(0)
    snap = json.loads(json.dumps(gems.snapshot()))
    snap["state"]["gems"] = [[15, "double"]]  # d3 touches the seed c3
    with pytest.raises(SnapshotError, match="'gems'"):
        FillGame.from_snapshot(snap)
    done = json.loads(json.dumps(gems.snapshot()))
    done["state"]["phase"] = "choose"  # two gems still to come
    with pytest.raises(SnapshotError, match="'gems' must hold the 3 gems"):
        FillGame.from_snapshot(done)
    stale = json.loads(json.dumps(gems.snapshot()))
    stale["state"]["rng"] = None  # future chance is never stored
    with pytest.raises(SnapshotError, match="'rng' is not part"):
        FillGame.from_snapshot(stale)


def test_the_env_resolves_chance_reproducibly_and_never_shows_a_chance_node():
    options = {"rocks": True, "gems": True, "traps": True}
    runs = []
    for _ in range(2):
        env = fill_v0.raw_env(**options)
        env.reset(seed=11)
        trail = [env.game.snapshot()["state"]["rocks"]]
        rng = random.Random(0)
        while not env.game.is_terminal():
            assert env.game.current_player() in (0, 1) and env.agent_selection == f"player_{env.game.current_player()}"
            env.step(rng.choice(env.game.legal_actions()))
            trail.append(sorted(env.game.gems.items()))
        runs.append(trail)
    assert runs[0] == runs[1]
    assert len(runs[0][0]) == 3 and runs[0][2]  # rocks at reset, gems right after the seed


def test_search_hooks_accept_chance_nodes():
    game = new(rocks=True, gems=True)
    assert game.is_chance_node()
    assert evaluate_state(game) == [0.0, 0.0]
    assert preferred_actions(game) == game.legal_actions()


def test_the_longest_game_bounds_the_player_actions():
    assert FillGame.max_game_length_for(FillGame.resolve_options({})) == 2 + 35
    assert FillGame.max_game_length_for(FillGame.resolve_options({"traps": True})) == 2 + 2 * (3 * 35 + 8)
    gems = FillGame.resolve_options({"traps": True, "gems": True})
    assert FillGame.max_game_length_for(gems) == 2 + 4 * (3 * (35 + 3) + 8)
    assert FillGame.max_chance_outcomes_for(FillGame.resolve_options({})) == 0
    assert FillGame.max_chance_outcomes_for(FillGame.resolve_options({"gems": True})) == 72
