"""Knot's chance nodes: the deal and every draw from the pile, as OpenSpiel models chance.

Each strand that leaves the pile (dealt, refilling a market slot, drawn blind) is a chance node
whose outcomes are the kinds still in the pile, each with probability count / strands left; the
``pile`` option scripts them in order (one outcome, probability 1). The pile's order is never
part of the state: snapshots hold its counts.
"""

from __future__ import annotations

import json
import random

import pytest

from envs import knot_v0
from envs.core.game import CHANCE, TERMINAL, SnapshotError, draw_outcome
from envs.knot.observer import KnotObserver
from envs.knot.options import max_turns_for
from envs.knot.rules import KnotGame
from tests.knot.helpers import act, position, random_step, resolve_chance

END = 16 * 36


def test_a_new_game_opens_with_the_deal_over_the_whole_deck():
    g = KnotGame(KnotGame.resolve_options({}))
    assert g.current_player() == CHANCE and g.is_chance_node() and not g.is_terminal()
    assert g.chance_outcomes() == [(0, 24 / 72), (1, 18 / 72), (2, 18 / 72), (3, 12 / 72)]
    assert g.legal_actions() == [0, 1, 2, 3]
    assert g.pile == [24, 18, 18, 12] and g.hands == [[0] * 4, [0] * 4]
    assert KnotGame.max_chance_outcomes_for(g.options) == 4
    g.apply(2)  # player_0's first strand: a Hook
    assert g.hands[0] == [0, 0, 1, 0] and g.pile == [24, 18, 17, 12]
    assert g.chance_outcomes() == [(0, 24 / 71), (1, 18 / 71), (2, 17 / 71), (3, 12 / 71)]


def test_the_deal_gives_five_to_each_player_in_turn_then_the_market():
    g = KnotGame(KnotGame.resolve_options({"players": 3, "deck": [20, 0, 0, 0]}))
    dealt = 0
    while g.current_player() == CHANCE:
        assert g.chance_outcomes() == [(0, 1.0)]  # only Cuts left
        assert [sum(h) for h in g.hands] == [min(5, max(0, dealt - 5 * p)) for p in range(3)]
        g.apply(0)
        dealt += 1
    assert dealt == 17 and g.market == [0, 0] and g.pile == [3, 0, 0, 0]
    assert g.current_player() == 0 and g.turn == 0


def test_the_chance_of_each_kind_is_its_share_of_the_pile():
    # A position whose pile holds 3 Cuts, 1 Hook and 2 Flips (too few strands to script them).
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [0, 0, 0, 0]], market=(-1, -1), pile=[0, 0, 0, 2, 3, 3])
    assert g.options["pile"] is None
    act(g, "cut/sw@c3", "end")
    g.apply(g.string_to_action("draw pile"))
    assert g.current_player() == CHANCE and g.phase == 1
    assert g.chance_outcomes() == [(0, 3 / 6), (2, 1 / 6), (3, 2 / 6)]
    assert sum(p for _, p in g.chance_outcomes()) == pytest.approx(1.0)
    assert g.why_illegal(1) == "drawing from the pile (a chance node): no Run is left in the pile; the outcomes are 0 Cut, 2 Hook, 3 Flip"
    assert g.why_illegal(END + 3).startswith("drawing from the pile (a chance node): the outcomes are")
    assert [g.action_to_string(k) for k in g.legal_actions()] == ["cut", "hook", "flip"]
    assert g.string_to_action(" Hook ") == 2
    with pytest.raises(ValueError, match="not a chance outcome"):
        g.string_to_action("draw pile")
    g.apply(3)
    assert g.hands[0] == [0, 0, 0, 1] and g.pile == [3, 0, 1, 1]
    assert g.current_player() == 0 and g.phase == 1  # the hand holds one strand: draw on
    g.apply(g.string_to_action("draw pile"))
    assert g.chance_outcomes() == [(0, 3 / 5), (2, 1 / 5), (3, 1 / 5)]


def test_taking_a_market_strand_makes_the_pile_refill_that_slot():
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [0, 0, 0, 0]], market=(2, 1), pile=[3, 3])
    act(g, "cut/sw@c3", "end")
    g.apply(g.string_to_action("draw 1"))  # the Run, face up
    assert g.hands[0] == [0, 1, 0, 0] and g.known[0] == [0, 1, 0, 0]
    assert g.market == [2, -1] and g.current_player() == CHANCE
    assert g.snapshot()["state"]["pending"] == "market 1"
    assert g.chance_outcomes() == [(3, 1.0)]
    g.apply(3)
    assert g.market == [2, 3] and g.current_player() == 0 and g.phase == 1
    assert g.legal_actions() == [END + 1, END + 2, END + 3]


def test_an_empty_pile_refills_nothing_and_no_chance_node_comes():
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [0, 0, 0, 0]], market=(2, 1), pile=[])
    act(g, "cut/sw@c3", "end")
    g.apply(g.string_to_action("draw 0"))
    assert g.market == [-1, 1] and g.current_player() == 0
    g.apply(g.string_to_action("draw 1"))
    assert g.current_player() == 1  # nothing left to draw: the turn passes


def scripted_pile(players, seed):
    deck = KnotGame.resolve_options({"players": players})["deck"]
    pile = [k for k in range(4) for _ in range(deck[k])]
    random.Random(seed).shuffle(pile)
    return pile


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_scripted_pile_resolves_every_node_in_order_with_probability_one(players):
    pile = scripted_pile(players, players)
    g = KnotGame(KnotGame.resolve_options({"players": players, "pile": pile}))
    rng = random.Random(players)
    drawn = []
    while not g.is_terminal():
        if g.current_player() == CHANCE:
            outcomes = g.chance_outcomes()
            assert outcomes == [(pile[len(drawn)], 1.0)] and g.legal_actions() == [pile[len(drawn)]]
            other = (pile[len(drawn)] + 1) % 4
            assert g.why_illegal(other).endswith(f"the scripted pile gives a {('Cut', 'Run', 'Hook', 'Flip')[pile[len(drawn)]]} now (outcome {pile[len(drawn)]})")
            drawn.append(outcomes[0][0])
            g.apply(outcomes[0][0])
        else:
            g.apply(rng.choice(g.legal_actions()))
        assert sum(g.pile) == len(pile) - len(drawn)
    assert drawn == pile[:len(drawn)] and len(drawn) >= 5 * players


@pytest.mark.parametrize("options", [{}, {"players": 3}, {"players": 4, "size": 5}, {"size": 4, "deck": [5, 2, 6, 1]}], ids=str)
def test_random_games_reach_only_legal_states_and_chance_snapshots_round_trip(options):
    resolved = KnotGame.resolve_options(dict(options))
    observer = KnotObserver(resolved)
    rng = random.Random(7)
    nodes = 0
    for seed in range(4):
        g = KnotGame(resolved)
        moves = 0
        while True:
            snap = json.loads(json.dumps(g.snapshot()))
            again = KnotGame.from_snapshot(snap)
            assert again.snapshot() == snap and again.current_player() == g.current_player()
            assert (observer.observe(again, 0) == observer.observe(g, 0)).all()
            if g.is_terminal():
                break
            if g.current_player() == CHANCE:
                outcomes = g.chance_outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                left = sum(g.pile)
                assert outcomes == [(k, c / left) for k, c in enumerate(g.pile) if c]
                assert again.chance_outcomes() == outcomes
                assert g.legal_actions() == [k for k, _ in outcomes]
                for k in range(4):
                    assert (g.why_illegal(k) is None) == (k in g.legal_actions())
                    if k in g.legal_actions():
                        assert g.string_to_action(g.action_to_string(k)) == k
                outcome = draw_outcome(outcomes, rng)
                g.apply(outcome)
                again.apply(outcome)  # the restored chance node goes on identically
                assert again.snapshot() == g.snapshot()
                nodes += 1
            else:
                moves += 1
                with pytest.raises(ValueError, match="not at a chance node"):
                    g.chance_outcomes()
                random_step(g, rng)
        assert moves <= KnotGame.max_game_length_for(resolved)
    assert nodes >= 4 * 5 * resolved["players"]


def test_max_game_length_is_a_bound_of_the_documented_form():
    # T strands, P players: T placements + (T - 5P) draws + one END in each of P*T + P - 1 turns
    assert KnotGame.max_game_length_for(KnotGame.resolve_options({})) == 72 + 62 + (144 + 1)
    assert KnotGame.max_game_length_for(KnotGame.resolve_options({"players": 4})) == 144 + 124 + (576 + 3)
    assert KnotGame.max_game_length_for(KnotGame.resolve_options({"pile": [0] * 12})) == 12 + 2 + 25
    # the observation's turn scale, P*(T+2), lies above the most turns a game can last
    for options in ({}, {"players": 3}, {"players": 4, "deck": [5, 5, 5, 5]}):
        resolved = KnotGame.resolve_options(options)
        assert KnotObserver(resolved).turn_scale > max_turns_for(resolved)


def _deal_snapshot(steps):
    g = KnotGame(KnotGame.resolve_options({}))
    rng = random.Random(steps)
    for _ in range(steps):
        g.apply(draw_outcome(g.chance_outcomes(), rng))
    assert g.current_player() == CHANCE
    return g.snapshot()


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda s: s["hands"][1].__setitem__(0, s["hands"][1][0] + 1), "player_0 holds 3 strands, but the deal gives 4 of 4 dealt"),
        (lambda s: s.__setitem__("turn", 2), "'deal', which must be the game's start"),
        (lambda s: s["market"].__setitem__(0, 2), "the market is dealt after the hands"),
        (lambda s: s.__setitem__("pending", "blind"), "outside the draw phase"),
    ],
)
def test_deal_snapshots_must_show_a_deal_in_progress(mutate, words):
    snap = _deal_snapshot(3)
    KnotGame.from_snapshot(snap)
    state = snap["state"]
    before = json.dumps(snap)
    mutate(state)
    # keep the strands' totals right where the mutation added one
    totals = [sum(h[k] for h in state["hands"]) + state["pile"][k] + (state["market"].count(k)) for k in range(4)]
    for k in range(4):
        state["pile"][k] -= totals[k] - [24, 18, 18, 12][k]
    assert json.dumps(snap) != before
    with pytest.raises(SnapshotError, match=words):
        KnotGame.from_snapshot(snap)


def test_a_pending_draw_is_checked_against_the_position():
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [1, 1, 1, 1]], market=(2, 1), pile=[3, 3])
    act(g, "cut/sw@c3", "end")
    g.apply(g.string_to_action("draw 0"))
    snap = g.snapshot()
    assert snap["state"]["pending"] == "market 0"
    KnotGame.from_snapshot(snap)
    for value, words in (("market 1", "refills market slot 1, which holds a strand"),
                         ("heap", "'pending' is 'heap'; it must be null or one of"),
                         (None, None)):
        broken = json.loads(json.dumps(snap))
        broken["state"]["pending"] = value
        if words is None:
            # no refill pending: the slot stays empty, and the draw phase goes on
            assert KnotGame.from_snapshot(broken).current_player() == 0
            continue
        with pytest.raises(SnapshotError, match=words):
            KnotGame.from_snapshot(broken)
    broken = json.loads(json.dumps(snap))
    del broken["state"]["pending"]
    with pytest.raises(SnapshotError, match="pending"):
        KnotGame.from_snapshot(broken)


def test_version_1_snapshots_with_a_pile_order_are_refused():
    snap = KnotGame(KnotGame.resolve_options({})).snapshot()
    snap["version"] = 1
    with pytest.raises(SnapshotError, match="version 1 is not supported"):
        KnotGame.from_snapshot(snap)


def test_the_env_resolves_chance_itself_and_a_seed_reproduces_the_game():
    def trail(seed):
        env = knot_v0.raw_env(players=3)
        env.reset(seed=seed)
        assert env.game.current_player() == 0
        rng = random.Random(seed)
        moves = []
        while not any(env.terminations.values()):
            assert env.game.current_player() != CHANCE
            mask = env.observe(env.agent_selection)["action_mask"]
            action = rng.choice([a for a in range(len(mask)) if mask[a]])
            moves.append(action)
            env.step(action)
        return moves, env.game.scores(), env.game.current_player()

    a = trail(3)
    assert a == trail(3) and a != trail(4) and a[2] == TERMINAL


def test_resolve_chance_helper_leaves_a_player_to_act():
    g = resolve_chance(KnotGame(KnotGame.resolve_options({"players": 4})), random.Random(1))
    assert g.current_player() == 0 and [sum(h) for h in g.hands] == [5, 5, 5, 5] and g.market[1] >= 0
