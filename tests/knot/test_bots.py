"""Knot bots: the heuristic's habits on scripted positions, and full games against random."""

from __future__ import annotations

import numpy as np

from envs.knot.observer import KnotObserver
from training.players.load import load_agent
from training.bots.knot import HeuristicKnotBot
from training.evaluation.tournament import play_match
from tests.knot.helpers import position


def seat_view(game, player=None):
    player = game.current_player() if player is None else player
    observer = KnotObserver(game.options)
    mask = np.zeros(game.num_actions, np.int8)
    if game.current_player() == player:
        mask[game.legal_actions()] = 1
    return {"observation": observer.observe(game, player), "action_mask": mask}


def bot(game, seed=0):
    return HeuristicKnotBot(game="knot_v0", seed=seed, players=game.n_players, size=game.size)


def test_heuristic_closes_a_ribbon_when_it_can():
    g = position([("run/n@a1", 0), ("run/s@a1", 0), ("cut/ne@d4", 0)], hands=[[2, 1, 1, 1], [1, 1, 1, 1]])
    assert g.action_to_string(bot(g).act(seat_view(g))) == "flip/w@b1"


def test_heuristic_captures():
    g = position([("run/n@c3", 0), ("run/n@e3", 1)], hands=[[0, 1, 0, 0], [1, 1, 1, 1]])
    assert g.action_to_string(bot(g).act(seat_view(g))) == "run/s@d3"


def can_capture_from(game, thief, victim):
    """Could ``thief`` (holding every kind) capture one of ``victim``'s strands with one strand now?"""
    h = game.clone()
    h.player, h.phase, h.placed = thief, 0, 0
    h.growable = set(h.ends[thief])
    h.hands[thief] = [2, 2, 2, 2]
    h._legal = h._places = None
    before = sum(1 for s in h.strands() if s[3] == victim)
    for action in h.placements(thief):
        trial = h.clone()
        trial.apply(action)
        if sum(1 for s in trial.strands() if s[3] == victim) < before:
            return True
    return False


def test_heuristic_leaves_the_gap_in_front_of_an_opponents_end():
    # My c3 Run's east end and player_1's e3 Run's west end both wait in d3: a Run/s there
    # joins them, so whoever holds one captures. I hold no Run: the bot grows that end out of
    # the gap (or fills the corner the Run/s needs) instead of elsewhere.
    g = position([("run/n@c3", 0), ("run/n@e3", 1)], hands=[[2, 0, 1, 0], [1, 1, 1, 1]])
    assert can_capture_from(g, 1, 0)
    for seed in range(5):
        h = g.clone()
        h.apply(bot(g, seed).act(seat_view(g)))
        assert not can_capture_from(h, 1, 0), h.action_to_string(h.st_slot[-1] * h.n + h.st_sq[-1])


def test_heuristic_does_not_step_into_a_gap():
    # player_1's end at e3 W-north is linked to d3's E-south; my b3 Cut/ne's east end links to
    # c3. Two of my legal moves (cut/ne@c3, run/n@c3) would bring my new end into d3, one strand
    # from theirs, inviting a capture. Whatever the bot plays, player_1 must not be able to
    # capture afterwards.
    g = position([("cut/ne@b3", 0), ("run/n@e3", 1)], hands=[[1, 1, 1, 1], [1, 1, 1, 1]])
    for seed in range(5):
        h = g.clone()
        h.apply(bot(g, seed).act(seat_view(g)))
        assert not can_capture_from(h, 1, 0)


def test_heuristic_draws_the_strand_that_closes():
    # my a1 ribbon waits for a Flip facing west in b1; the market shows a Cut and a Flip
    g = position([("run/n@a1", 0), ("run/s@a1", 0)], hands=[[1, 0, 0, 0], [1, 1, 1, 1]], market=(0, 3))
    g.apply(g.string_to_action("cut/se@a2"))
    g.apply(16 * g.n)  # END
    assert g.phase == 1 and g.current_player() == 0 and g.market == [0, 3]
    assert bot(g).act(seat_view(g)) == 16 * g.n + 2  # draw slot 1: the Flip


def test_heuristic_beats_random():
    for players in (2, 4):
        options = {"players": players}
        agent = load_agent("heuristic", "knot_v0", seed=1, **options)
        other = load_agent("random", "knot_v0", seed=2, **options)
        result = play_match("knot_v0", agent, other, 8, 0, options)
        assert result.wins >= 6, (players, vars(result))


def test_heuristic_plays_itself_to_the_end_with_legal_moves():
    options = {"players": 3}
    bots = [load_agent("heuristic", "knot_v0", seed=i, **options) for i in range(3)]
    from training.evaluation.tournament import play_game

    returns, scores = play_game("knot_v0", bots, 5, options)
    assert sorted(returns) in ([-1, -1, 1], [-1, 0, 0], [0, 0, 0])
    assert len(scores) == 3


def test_the_bots_public_board_matches_the_engine_seen_from_its_seat():
    import random

    from envs import knot_v0

    env = knot_v0.raw_env(players=3)
    env.reset(seed=11)
    rng = random.Random(11)
    for _ in range(120):
        if env.game.is_terminal():
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    game = env.game
    for seat in range(3):
        b = HeuristicKnotBot(game="knot_v0", seed=0, players=3)
        board = b.public_board(b.observer.decode(env.observe(f"player_{seat}")))
        rel = lambda p: (p - seat) % 3  # noqa: E731
        assert [board.ends[j] for j in range(3)] == [game.ends[(seat + j) % 3] for j in range(3)]
        mine = sorted((sorted(game.st_sq[s] * 16 + game.st_slot[s] for s in r["strands"]), rel(r["owner"]), r["points"], r["closed"])
                      for r in game.ribbons())
        seen = sorted((sorted(board.st_sq[s] * 16 + board.st_slot[s] for s in r["strands"]), r["owner"], r["points"], r["closed"])
                      for r in board.ribbons())
        assert seen == mine
        assert board.geo_w == game.geo_w and board.lu == game.lu
