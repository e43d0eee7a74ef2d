"""Fill search hooks (``preferred_actions``, ``evaluate_state`` in training/bots/fill.py): legal
on thousands of random positions in every setting, exact where they claim to be (checked against
the heuristic's solver and a brute force through the engine), and MCTS with few simulations finds
a known only winning fill."""

from __future__ import annotations

import random

import numpy as np
import pytest

import training.bots.fill as fill_bots
from envs.core.observer import D4
from envs.fill.observer import FillObserver, cell_permutation
from envs.fill.positions import position
from envs.fill.rules import FILL, FILL2, SEED, TRAP_PHASE, FillGame, bits
from envs.fill.board import Board
from envs.fill.solver import FillSolver
from training.search.guided import GuidedSearch, run_batched
from training.bots.fill import evaluate_state, preferred_actions, solved_scores
from training.search.mcts import MCTSAgent
from tests.fill.helpers import settle
from tests.training.evaluators import Uninformed

SETTINGS = [
    {},
    {"lines": "strict", "rocks": True},
    {"size": 7, "lines": "off"},
    {"traps": True, "gems": True, "rocks": True},
    {"size": 8, "traps": True, "gems": True, "lines": "strict"},
]

# Player 1 to fill; eight legal fills, only c5 wins (12 cells left, inside the exact search).
ONLY_C5_WINS = """
. . . # # .
. # # . # .
. # . . . #
. . # . . #
. . . . # .
. . . . # #
"""


def random_positions(options: dict, games: int, seed: int):
    """Every state met along random games (seeded), the finished ones left out."""
    rng = random.Random(seed)
    resolved = FillGame.resolve_options(dict(options))
    for index in range(games):
        game = FillGame(resolved, random.Random(seed * 1000 + index))
        while not game.is_terminal():
            yield game
            game = game.clone()
            game.apply(rng.choice(game.legal_actions()))


def brute_force_wins(game: FillGame, memo: dict) -> bool:
    """Whether the player to act wins (no tokens held), trying every action through the engine."""
    key = (game.filled, game.phase, game.to_move, game.double)
    if key not in memo:
        player = game.current_player()
        memo[key] = False
        for action in game.legal_actions():
            after = game.clone()
            after.apply(action)
            if after.is_terminal():
                won = after.returns()[player] > 0
            elif after.current_player() == player:
                won = brute_force_wins(after, memo)
            else:
                won = not brute_force_wins(after, memo)
            if won:
                memo[key] = True
                break
    return memo[key]


def brute_force_winning_fills(game: FillGame, memo: dict) -> list[int]:
    """The legal fills after which the player to act wins, by brute force through the engine."""
    mover = game.current_player()
    winners = []
    for cell in game.legal_actions():
        after = game.clone()
        after.apply(cell)
        if after.is_terminal():
            won = after.returns()[mover] > 0
        else:
            won = brute_force_wins(after, memo) == (after.current_player() == mover)
        if won:
            winners.append(cell)
    return winners


def observation(game: FillGame, player: int) -> dict:
    mask = np.zeros(game.n + 7, np.int8)
    mask[game.legal_actions()] = 1
    return {"observation": FillObserver(game.options).observe(game, player), "action_mask": mask}


@pytest.mark.parametrize("options", SETTINGS)
def test_preferred_actions_are_a_nonempty_subset_of_the_legal_ones(options):
    seen = 0
    for game in random_positions(options, games=40, seed=1):
        legal = game.legal_actions()
        preferred = preferred_actions(game)
        assert preferred, f"no preferred action in phase {game.phase}"
        assert set(preferred) <= set(legal)
        assert len(set(preferred)) == len(preferred)
        values = evaluate_state(game)
        assert len(values) == 2 and all(-1.0 <= v <= 1.0 for v in values) and sum(values) == 0
        seen += 1
    assert seen > 600


def test_small_endgames_prefer_exactly_a_winning_fill():
    """Checked against the heuristic's own solver on every small fill position of random games:
    the preferred fill wins when any fill does, and all fills are kept when none does."""
    checked = 0
    for game in random_positions({}, games=60, seed=2):
        if game.phase != FILL or fill_bots._room(game).bit_count() > fill_bots.SEARCH_SOLVE_ROOM:
            continue
        legal = game.legal_actions()
        solver = FillSolver(game.geo, game.rock)  # a fresh table, apart from the search hooks' one
        winning = solver.board_winning_fills(Board(game.geo, game.rock, game.filled, game.touch, game.poison))
        preferred = preferred_actions(game)
        if len(legal) == 1:
            assert preferred == legal
        elif winning:
            assert len(preferred) == 1 and preferred[0] in winning
        else:
            assert preferred == legal
        mover = 1.0 if winning else -1.0
        assert evaluate_state(game)[game.current_player()] == mover
        checked += 1
    assert checked > 300


def test_the_known_only_winning_fill_is_preferred_and_found_by_a_small_search():
    game = position(ONLY_C5_WINS)
    c5 = game.string_to_action("c5")
    assert len(game.legal_cells()) == 8 and game.current_player() == 1
    winners = brute_force_winning_fills(game, {})
    assert winners == [c5]  # the engine's own rules agree: c5 is the only winning fill
    assert preferred_actions(game) == [c5]
    assert evaluate_state(game) == [-1.0, 1.0]
    agent = MCTSAgent("fill_v0", seed=0, simulations=30)
    assert agent.act(observation(game, 1)) == c5


def test_solved_scores_are_perfect_plays_outcome_and_only_where_exact():
    """``solved_scores`` (the guided search's exact leaves) agrees with a brute force through the
    engine on every small fill position of random default games, and answers nothing where the
    fill-only search would leave something out (traps, gems, tokens) or the board is large."""
    checked = 0
    memo: dict = {}
    for game in random_positions({}, games=40, seed=5):
        scores = solved_scores(game)
        small = game.phase in (FILL, FILL2) and fill_bots._room(game).bit_count() <= fill_bots.SEARCH_SOLVE_ROOM
        assert (scores is not None) == small
        if scores is not None:
            mover = game.current_player()
            assert scores[mover] == float(brute_force_wins(game, memo)) and sum(scores) == 1.0
            checked += 1
    assert checked > 150
    for game in random_positions({"traps": True, "gems": True}, games=20, seed=6):
        assert solved_scores(game) is None or not (game.options["traps"] or game.gems or any(game.tokens))
    for game in random_positions({"traps": True}, games=10, seed=7):
        assert solved_scores(game) is None


def test_the_guided_search_scores_solved_endgames_exactly():
    """With the exact leaves an uninformed network's 16 simulations find the only winning fill
    and the improved policy (the training target) puts most of its weight on it; the same
    search scoring those leaves by the network alone cannot tell the eight fills apart."""
    game = position(ONLY_C5_WINS)
    c5 = game.string_to_action("c5")
    assert solved_scores(game) == [0.0, 1.0]
    search = GuidedSearch("fill_v0", {}, simulations=16, gumbel_scale=0.0)
    result = run_batched([search.run(observation(game, 1), random.Random(0))], Uninformed(36 + 7))[0]
    assert result.action == c5 and result.policy[c5] > 0.5
    search.solved = None
    blind = run_batched([search.run(observation(game, 1), random.Random(0))], Uninformed(36 + 7))[0]
    assert blind.policy[c5] < 0.2


def test_a_double_wins_when_its_second_fill_wins():
    """After USE_DOUBLE the mover fills twice: a first fill is preferred when the same player
    then wins (a fill that leaves no legal cell ends the turn and the opponent loses)."""
    rng = random.Random(3)
    checked = 0
    while checked < 15:
        game = position(". . . . . .\n" * 2 + ". . # . . .\n" + ". . . . . .\n" * 3, tokens={1: [("double", 8)]})
        # Random fills straight onto the board (no turns) down to a small endgame, then Double.
        while fill_bots._room(game).bit_count() > 8 and game.legal_cells():
            game._place(rng.choice(game.legal_cells()))
        if len(game.legal_cells()) < 2:
            continue
        game.apply(game.n + 3)  # USE_DOUBLE
        assert game.phase == FILL and game.double
        winners = []
        memo: dict = {}
        for cell in game.legal_cells():
            after = game.clone()
            after.apply(cell)
            assert after.is_terminal() or (after.phase == FILL2 and after.current_player() == 1)
            if after.returns()[1] > 0 if after.is_terminal() else brute_force_wins(after, memo):
                winners.append(cell)
        assert preferred_actions(game) == (winners[:1] or game.legal_cells())
        checked += 1
    # b1 leaves no legal cell: the turn ends there and the opponent loses; the rest lose.
    game = position("""
    . . # . R R
    # . . # R R
    . # # . R R
    R R R R R R
    R R R R R R
    R R R R R R
    """, tokens={1: [("double", 8)]})
    game.apply(game.n + 3)  # USE_DOUBLE
    assert [game.action_to_string(c) for c in game.legal_cells()] == ["a1", "b1", "d1", "b2"]
    assert preferred_actions(game) == [game.string_to_action("b1")]


def test_one_seed_per_symmetry_class():
    game = FillGame(FillGame.resolve_options({}), random.Random(0))
    seeds = preferred_actions(game)
    assert game.phase == SEED and len(seeds) == 6
    symmetries = [cell_permutation(6, transform).tolist() for transform in D4]
    assert {perm[s] for s in seeds for perm in symmetries} == set(range(36))  # every cell covered
    for size, classes in ((7, 10), (8, 10)):
        assert len(preferred_actions(FillGame(FillGame.resolve_options({"size": size}), random.Random(0)))) == classes
    # Rocks on b1 and e6 are kept in place by the half turn only: the other 34 cells pair up.
    rocky = settle(FillGame(FillGame.resolve_options({"rocks": True, "rock_cells": [1, 34]})))
    assert len(preferred_actions(rocky)) == 17
    # On a1 and f6 both diagonal mirrors keep them too: 11 classes (Burnside: (34+0+4+6)/4).
    rocky = settle(FillGame(FillGame.resolve_options({"rocks": True, "rock_cells": [0, 35]})))
    assert len(preferred_actions(rocky)) == 11
    # Scripted gems break the symmetry: every seed stays.
    scripted = FillGame(FillGame.resolve_options({"gems": True, "gem_cells": [(20, "pass")]}), None)
    assert preferred_actions(scripted) == scripted.legal_actions()


def turn_ends(game: FillGame) -> list[FillGame]:
    """Every state reached when the player to act has made all the fills of this turn."""
    player, ends, todo = game.current_player(), [], [game]
    while todo:
        state = todo.pop()
        if state.is_terminal() or state.current_player() != player:
            ends.append(state)
            continue
        for cell in state.legal_cells():
            after = state.clone()
            after.apply(cell)
            todo.append(after)
    return ends


def test_trap_candidates_cover_every_cell_the_opponent_could_fill_next():
    checked = 0
    for game in random_positions({"traps": True, "gems": True}, games=40, seed=4):
        if game.phase != TRAP_PHASE:
            continue
        preferred = preferred_actions(game)
        assert game.n + 6 in preferred  # no-trap
        untrapped = game.clone()
        untrapped.apply(game.n + 6)
        for end in turn_ends(untrapped):
            assert set(end.legal_cells()) <= set(preferred)
        checked += 1
    assert checked > 50


def test_search_answers_do_not_depend_on_the_shared_table():
    """The memo is shared across searches and games; empty or warm, the search is the same."""
    game = next(g for g in random_positions({}, games=5, seed=6)
                if g.phase == FILL and 16 <= fill_bots._room(g).bit_count() <= 20)
    obs = observation(game, game.current_player())
    fill_bots._search_solvers.clear()
    cold = MCTSAgent("fill_v0", seed=5, simulations=60).search(obs)
    assert sum(len(solver.memo) for solver in fill_bots._search_solvers.values()) > 0
    warm = MCTSAgent("fill_v0", seed=5, simulations=60).search(obs)
    assert cold == warm
