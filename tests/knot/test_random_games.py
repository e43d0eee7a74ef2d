"""Invariants over many random Knot games, and every legal move checked against the page.

``tests/knot/reference.py`` re-reads the rules from scratch (no engine tables) and is the
yardstick: the engine's legal placements must equal the reference's at every step of a few
complete games, and the engine's ribbon records must equal a recount from the board at the end
of every game.
"""

from __future__ import annotations

import random

import pytest

from envs.core.game import CHANCE
from envs.knot.options import max_turns_for
from envs.knot.options import BONUS, HAND_SIZE
from envs.knot.rules import KnotGame
from tests.knot.helpers import new_game as dealt
from tests.knot.helpers import random_step
from tests.knot.reference import Board


def new_game(players, seed, size=None):
    options = {"players": players}
    if size:
        options["size"] = size
    return dealt(options, seed)


def check_records(game: KnotGame) -> None:
    """Ribbon records, ends, ownership and banked points equal a recount from the board."""
    strands = [(sq, k, t, owner) for sq, k, t, owner, _ in game.strands()]
    board = Board(game.size, strands)  # asserts no port is used twice
    used = [g for g, s in enumerate(game.port_strand) if s >= 0]
    assert len(used) == 2 * len(strands)
    comps: dict[int, list[int]] = {}
    for i, c in enumerate(board.comp):
        comps.setdefault(c, []).append(i)
    ribbons = game.ribbons()
    assert sorted(r["strands"] for r in ribbons) == sorted(comps.values())
    banked = [0] * game.n_players
    for r in ribbons:
        c = board.comp[r["strands"][0]]
        assert all(strands[i][3] == r["owner"] for i in r["strands"])
        ends = sorted(sq * 8 + p for sq, p in board.ribbon_ends(c))
        assert r["closed"] == (not ends)
        assert (r["ends"] or []) == ends
        assert r["points"] == board.inside_links(c)
        if r["closed"]:
            assert r["points"] > 0 and r["points"] % 2 == 0
            banked[r["owner"]] += r["points"]
    assert banked == game.banked
    for p in range(game.n_players):
        assert game.ends[p] == {sq * 8 + port for sq, port in board.open_ends(p)}
        assert sum(game.hands[p]) <= HAND_SIZE
        assert all(0 <= game.known[p][k] <= game.hands[p][k] for k in range(4))
        squares = {sq for sq, _, _, o in strands if o == p}
        assert game.own_bb[p] == sum(1 << q for q in squares)
    assert game.growable <= game.ends[game.player]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_their_records_and_end(players):
    rng = random.Random(100 + players)
    games = 1000
    for seed in range(games):
        game = new_game(players, seed, size=rng.choice([None, None, 4, 5, 7]))
        check_at = rng.randrange(1, 150)
        steps = moves = 0
        while not game.is_terminal():
            legal = game.legal_actions()
            assert legal, "a live game always has a legal action (or chance outcome)"
            moves += game.current_player() != CHANCE
            random_step(game, rng)
            steps += 1
            assert steps < 4000, "the game must end"
            if steps == check_at:
                check_records(game)
        check_records(game)
        assert moves <= KnotGame.max_game_length_for(game.options)
        assert game.turn <= max_turns_for(game.options)
        # nobody can place at the end, even treating every open end as growable
        assert all(not game.placements(p, game.ends[p]) for p in range(players))
        scores = game.scores()
        who = game.bonus_owner()
        assert scores == [b + (BONUS if p == who else 0) for p, b in enumerate(game.banked)]
        if who >= 0:
            closed = [r for r in game.ribbons() if r["closed"]]
            best = max(r["points"] for r in closed)
            first = min((r for r in closed if r["points"] == best), key=lambda r: r["order"])
            assert first["owner"] == who


@pytest.mark.parametrize("players, size, seed", [(2, None, 1), (2, 4, 2), (3, 5, 3), (4, None, 4), (4, 5, 5), (3, None, 6)])
def test_every_legal_move_matches_the_reference_reading(players, size, seed):
    game = new_game(players, seed, size=size)
    rng = random.Random(seed)
    S, n = game.n, game.size
    turn_start_ends = None
    turn = -1
    mine = []  # the reference's own record of strands and owners
    while not game.is_terminal():
        if game.current_player() == CHANCE:
            random_step(game, rng)
            continue
        board = Board(n, mine)
        if game.turn != turn:
            turn = game.turn
            turn_start_ends = board.open_ends(game.player)
        if game.phase == 0:
            p = game.player
            growable = turn_start_ends & board.open_ends(p)
            ref = {
                (4 * k + t) * S + sq
                for sq in range(S) for k in range(4) for t in range(4)
                if board.why(p, k, t, sq, game.hands[p], game.placed_any[p], growable) is None
            }
            legal = set(game.legal_actions()) - {16 * S}
            assert legal == ref, [game.action_to_string(a) for a in legal ^ ref]
            end_legal = 16 * S in game.legal_actions()
            assert end_legal == (game.placed > 0 or not ref)
            for a in range(16 * S):
                assert (game.why_illegal(a) is None) == (a in ref)
        action = rng.choice(game.legal_actions())
        if action < 16 * S:
            slot, sq = divmod(action, S)
            mine.append((sq, slot >> 2, slot & 3, game.player))
            after = Board(n, mine)
            c = after.comp[-1]  # the placed strand's ribbon becomes the placer's (capture)
            mine = [(q, k, t, game.player if after.comp[i] == c else o) for i, (q, k, t, o) in enumerate(mine)]
        game.apply(action)
        assert [s[:4] for s in game.strands()] == mine
