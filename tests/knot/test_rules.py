"""Knot rules, one scenario per rule of ``docs/knot.md`` (6×6 board unless stated).

Squares are named as in the notation (``c3`` = column c, row 3 from the top). Useful links:
``c3`` E-north (port 2) meets ``d3`` W-south (port 6); ``c3`` W-north (7) meets ``b3``
E-south (3); ``a1``'s W and N sides are the board's edge.
"""

from __future__ import annotations

import json
import random

import pytest

from envs.core import OptionError, SnapshotError
from envs.core.game import TERMINAL, IllegalActionError
from envs.knot.rules import KnotGame
from tests.knot.helpers import act, port, position, resolve_chance, why

END = 16 * 36


def finish_turn(g):
    """END now (placing the lowest legal strand first if one must be placed), draw blind."""
    player = g.current_player()
    if g.phase == 0:
        if END not in g.legal_actions():
            g.apply(g.legal_actions()[0])
        if g.phase == 0:
            g.apply(END)
    while g.current_player() == player and g.phase == 1:
        g.apply(g.legal_actions()[-1])
        resolve_chance(g)


# ----- rule 2: corners --------------------------------------------------------------------------

def test_corners_two_strands_share_a_square_only_in_different_corners():
    g = position([("cut/ne@c3", 0)])
    assert why(g, "run/n@c3") == "that corner is taken"  # Run/n fills NW and NE
    assert why(g, "flip/s@c3") == "that corner is taken: a Flip needs its square to itself"
    assert why(g, "cut/sw@c3") is None
    assert why(g, "hook/ne@c3") is None  # the Hook leaves NE open: it wraps around the Cut


# ----- rule 3: blocked crossings, both ways -----------------------------------------------------

def test_a_blocked_crossing_takes_no_port_from_either_side():
    g = position([("run/n@c3", 0)])  # blocks the crossing between c3 and c2
    assert why(g, "cut/se@c2") == "that crossing is blocked by a Run"  # S-east of c2
    assert why(g, "cut/sw@c2") == "that crossing is blocked by a Run"
    assert why(g, "cut/ne@c2") is None
    g = position([("hook/ne@c3", 0)])  # blocks c3's S and W crossings
    assert why(g, "cut/ne@c4") == "that crossing is blocked by a Hook"
    assert why(g, "cut/se@b3") == "that crossing is blocked by a Hook"


def test_a_strand_may_not_block_a_crossing_in_use():
    g = position([("cut/se@c2", 0)])  # uses c2's S-east port: the c2|c3 crossing is in use
    assert why(g, "run/n@c3") == "a Run here would block a crossing that a ribbon already uses"
    assert why(g, "hook/se@c3") == "a Hook here would block a crossing that a ribbon already uses"
    assert why(g, "flip/e@c3") == "a Flip here would block a crossing that a ribbon already uses"
    assert why(g, "run/s@c3") is None  # blocks c3's S side instead: free
    assert why(g, "flip/n@c3") is None  # a Flip facing the crossing uses it instead (and grows)


# ----- rule 7: closing inside the board ------------------------------------------------------------

def test_a_flip_facing_the_edge_is_never_placeable():
    g = position(placed_any=[False, False])
    assert "edge" in why(g, "flip/n@a1")
    assert "edge" in why(g, "flip/w@a1")
    assert why(g, "flip/s@a1") is None
    assert why(g, "flip/e@a1") is None


def test_closing_through_edge_links_only_is_refused():
    # Cut and Hook sharing the board's corner square a1 would close through edge links only.
    g = position([("cut/nw@a1", 0)])
    assert why(g, "hook/nw@a1") == (
        "a ribbon must close through a crossing inside the board: this one would close through edge links only"
    )
    assert g.string_to_action("hook/nw@a1") not in g.legal_actions()


# ----- rule 4: the ends a strand meets, new ribbons --------------------------------------------------

def test_the_first_strand_of_the_game_goes_anywhere():
    g = position([("cut/ne@c3", 0)], player=1, placed_any=[True, False])
    assert why(g, "cut/sw@f6") is None
    assert why(g, "hook/ne@a1") is None


def test_the_base_rule_new_ribbons_start_on_or_next_to_your_strands():
    g = position([("cut/ne@c3", 0)])
    assert why(g, "cut/sw@c3") is None  # on
    for cell in ("c2", "d3", "c4", "b3"):
        assert why(g, f"cut/sw@{cell}") is None, cell  # next to (orthogonally)
    assert why(g, "cut/sw@d4") == "a new ribbon must start on or next to a square holding one of your strands"
    assert why(g, "cut/sw@c5") is not None
    # an opponent's strand is no base for my new ribbon
    g = position([("cut/ne@c3", 0), ("cut/ne@e5", 1)])
    assert why(g, "cut/sw@e5") is not None


def test_a_new_ribbon_may_not_touch_another_players_open_end():
    # player_1's Cut in c3 has an end at its E-north port, linked to d3's W-south port.
    g = position([("cut/ne@c3", 1), ("cut/ne@e3", 0)])
    assert why(g, "cut/sw@d3") == "a new ribbon may not touch another player's open end"
    assert why(g, "cut/ne@d3") is None  # same square, away from the end


def test_a_player_whose_strands_were_all_captured_can_only_end():
    g = position([("cut/ne@c3", 1)], placed_any=[True, True])
    assert g.legal_actions() == [END]
    assert why(g, "cut/sw@a6") == "you own no strand any more, so you can start no new ribbon"
    assert why(g, "end") is None


# ----- rule 5: growing only from ends owned when the turn began -------------------------------------------

def test_an_end_placed_this_turn_grows_from_next_turn():
    g = position([("run/n@c3", 0)], hands=[[1, 2, 1, 1], [1, 1, 1, 1]], turn=4)
    act(g, "run/s@d3")  # grows c3's east end; d3's E-south is a new end
    assert g.placed == 1
    assert why(g, "run/n@e3") == "this end was placed this turn: it grows from next turn"
    assert why(g, "cut/se@b3") is None  # c3's west end is still growable
    # and next turn it grows
    finish_turn(g)
    assert g.current_player() == 1
    finish_turn(g)
    assert g.current_player() == 0 and g.hands[0][1] >= 1
    assert why(g, "run/n@e3") is None


def test_each_end_grows_at_most_once_a_turn():
    g = position([("run/n@c3", 0)], turn=4)
    act(g, "run/s@d3")
    assert port(g, "c3", 2) not in g.ends[0]
    assert port(g, "d3", 3) in g.ends[0] and port(g, "d3", 3) not in g.growable


# ----- rule 6: capture and join -----------------------------------------------------------------------

def test_growing_into_another_players_end_captures_the_whole_ribbon():
    g = position([("run/n@c3", 0), ("run/n@e3", 1), ("cut/se@f3", 1)], hands=[[1, 1, 1, 1], [0, 0, 0, 0]])
    # player_1's ribbon: e3 Run/n + f3 Cut/se? (not linked to e3's Run: a separate ribbon)
    assert len([r for r in g.ribbons() if r["owner"] == 1]) == 2
    act(g, "run/s@d3")  # meets c3's east end (mine) and e3's west end (player_1's)
    ribbons = g.ribbons()
    mine = [r for r in ribbons if r["owner"] == 0]
    assert len(mine) == 1 and len(mine[0]["strands"]) == 3
    assert mine[0]["ends"] == sorted([port(g, "c3", 7), port(g, "e3", 2)])
    assert [s[3] for s in g.strands()] == [0, 0, 1, 0]  # f3's Cut stays player_1's
    # the captured far end cannot grow this turn
    assert why(g, "cut/sw@f3") == "this end was captured this turn: it grows from your next turn"
    assert why(g, "cut/se@b3") is None  # my own old end can


def test_capture_of_a_players_only_ribbon_leaves_them_only_end():
    g = position([("run/n@c3", 0), ("run/n@e3", 1)], hands=[[1, 1, 1, 1], [1, 1, 1, 1]])
    act(g, "run/s@d3")
    assert g.own_bb[1] == 0 and not g.ends[1]
    assert all(s[3] == 0 for s in g.strands())
    # player_1 holds strands but may start no ribbon now
    assert g.placements(1, g.ends[1]) == []


def test_a_strand_joining_two_of_my_ribbons_makes_one():
    g = position([("run/n@c3", 0), ("run/n@e3", 0)])
    assert len(g.ribbons()) == 2
    act(g, "run/s@d3")
    (ribbon,) = g.ribbons()
    assert ribbon["ends"] == sorted([port(g, "c3", 7), port(g, "e3", 2)])
    assert not ribbon["closed"]
    assert port(g, "c3", 7) in g.growable and port(g, "e3", 2) in g.growable


def test_joining_needs_both_ends_growable():
    g = position([("run/n@c3", 0), ("run/n@e2", 0)], hands=[[1, 2, 1, 1], [1, 1, 1, 1]], turn=4)
    act(g, "run/n@e3")  # a new ribbon next to e2, placed this turn
    assert why(g, "run/s@d3") == "this end was placed this turn: it grows from next turn"


# ----- closing and scoring -------------------------------------------------------------------------

def test_closing_scores_its_inside_links_with_edge_joins_counted_once():
    # a1 Run/n and a1 Run/s are joined through the W edge of a1; a Flip facing west in b1
    # closes them: 3 strands, one edge join -> 2 points.
    g = position([("run/n@a1", 0), ("run/s@a1", 0)])
    assert len(g.ribbons()) == 1
    act(g, "flip/w@b1")
    (ribbon,) = g.ribbons()
    assert ribbon["closed"] and ribbon["points"] == 2 and ribbon["ends"] is None
    assert g.scores() == [2, 0]
    assert not g.ends[0]


def test_a_closing_strand_can_always_be_placed_even_through_an_end_placed_this_turn():
    g = position([("run/n@a1", 0), ("run/s@a1", 0)], turn=4)
    act(g, "cut/nw@b1")  # grows a1's Run/s; its new end turns back at b1's N edge
    assert why(g, "hook/nw@b1") is None  # meets the new end and a1's Run/n end: closes
    act(g, "hook/nw@b1")
    (ribbon,) = g.ribbons()
    assert ribbon["closed"] and ribbon["points"] == 2  # 4 strands, 2 edge joins
    assert g.scores() == [2, 0]


def test_a_closed_ribbon_can_never_be_captured():
    g = position([("run/n@a1", 1), ("run/s@a1", 1), ("flip/w@b1", 1), ("cut/ne@c1", 0)], player=0)
    assert all(s[4] for s in g.strands()[:3])
    before = [s[3] for s in g.strands()]
    for a in g.legal_actions():
        h = g.clone()
        h.apply(a)
        assert [s[3] for s in h.strands()[:3]] == before[:3]


# ----- the turn -------------------------------------------------------------------------------------

def scripted(players=2, size=6, extra=40):
    pile = [0, 2] * (5 * players + extra)
    return resolve_chance(KnotGame(KnotGame.resolve_options({"players": players, "size": size, "pile": pile})))


def test_placing_limits_are_1_2_2_then_3_and_the_phase_ends_by_itself():
    g = scripted()
    limits = []
    for turn in range(6):
        assert g.turn == turn and g.phase == 0
        limits.append(g.limit())
        player = g.current_player()
        for i in range(g.limit()):
            assert g.phase == 0 and g.current_player() == player
            g.apply(g.legal_actions()[0])
        assert g.phase == 1  # placing ended by itself with the L-th strand
        while g.current_player() == player and g.phase == 1:
            g.apply(g.legal_actions()[-1])  # draw blind
            resolve_chance(g)
        assert sum(g.hands[player]) == 5
    assert limits == [1, 2, 2, 3, 3, 3]


def test_turn_limits_count_turns_over_all_players():
    g = scripted(players=3, size=8)
    seen = []
    for _ in range(4):
        seen.append((g.current_player(), g.limit()))
        act(g, "end") if g.placed else g.apply(g.legal_actions()[0])
        if g.phase == 0:
            act(g, "end")
        while g.phase == 1:
            g.apply(g.legal_actions()[-1])
            resolve_chance(g)
    assert seen == [(0, 1), (1, 2), (2, 2), (0, 3)]


def test_end_is_legal_only_after_placing_or_when_nothing_fits():
    g = scripted()
    assert why(g, "end") == "you must place at least one strand this turn: one of yours fits"
    assert END not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="must place"):
        g.apply(END)
    # a hand of Flips on a 4x4 board full of strands... simplest: no strands at all
    g = position([("cut/ne@c3", 0)], hands=[[0, 0, 0, 0], [1, 1, 1, 1]])
    assert g.legal_actions() == [END]
    assert why(g, "cut/sw@c3") == "you hold no Cut"


def test_end_then_draw_face_up_or_blind_back_up_to_five():
    g = position([("cut/ne@c3", 0)], hands=[[2, 1, 0, 0], [1, 1, 1, 1]], market=(2, 3), pile=[1, 0, 3])
    act(g, "cut/sw@c3", "end")
    base = END
    assert g.phase == 1 and g.legal_actions() == [base + 1, base + 2, base + 3]
    assert why(g, "end").startswith("placing is over")
    assert why(g, "cut/ne@a1").startswith("you have drawn or ended placing")
    act(g, "draw 0")  # a Hook, face up; slot 0 refilled from the pile's top (a Run)
    assert g.hands[0] == [1, 1, 1, 0] and g.market == [1, 3] and g.pile_size() == 2
    assert g.known[0] == [0, 0, 1, 0]
    act(g, "draw pile")  # blind: a Cut
    assert g.hands[0] == [2, 1, 1, 0] and g.known[0] == [0, 0, 1, 0]
    act(g, "draw 1")  # a Flip face up; the hand holds 5: the turn passes
    assert sum(g.hands[0]) == 5 and g.current_player() == 1 and g.phase == 0
    assert g.known[0] == [0, 0, 1, 1]


def test_drawing_is_skipped_when_the_hand_is_full_or_nothing_is_left():
    g = position([("cut/ne@c3", 0)], hands=[[0, 0, 0, 0], [1, 1, 1, 1]], market=(-1, -1), pile=[])
    act(g, "end")
    assert g.current_player() == 1 and g.phase == 0


def test_a_face_up_strand_is_known_until_placed():
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [1, 1, 1, 1]], market=(2, 2), pile=[0] * 6)
    act(g, "cut/sw@c3", "end", "draw 0", "draw 1")
    assert g.known[0] == [0, 0, 2, 0]
    act(g, "draw pile", "draw pile", "draw pile")
    assert g.current_player() == 1 and g.known[0] == [0, 0, 2, 0]
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 2, 0], [1, 1, 1, 1]], known=[[0, 0, 2, 0], [0, 0, 0, 0]])
    act(g, "cut/sw@c3")
    assert g.known[0] == [0, 0, 2, 0]  # a Cut was not known: nothing changes
    act(g, "hook/ne@c4")
    assert g.known[0] == [0, 0, 1, 0]


def test_draw_actions_are_refused_while_placing():
    g = scripted()
    assert why(g, "draw pile") == "draw only after placing: place a strand first"


def test_an_empty_market_slot_and_an_empty_pile_are_named():
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [1, 1, 1, 1]], market=(-1, 2), pile=[])
    act(g, "cut/sw@c3", "end")
    assert why(g, "draw 0") == "market slot 0 is empty"
    assert why(g, "draw pile") == "the pile is empty"
    assert g.legal_actions() == [END + 2]


# ----- the end and the bonus ---------------------------------------------------------------------------

def closing_race(first_two_points=True):
    strands = [("run/n@a1", 0), ("run/s@a1", 0), ("run/n@a6", 1), ("run/s@a6", 1)]
    if not first_two_points:
        strands = [("run/n@a1", 0), ("run/s@a1", 0), ("run/n@a5", 1), ("run/s@a5", 1)]
    return position(strands, hands=[[0, 0, 0, 1], [0, 0, 0, 1]], market=(-1, -1), pile=[])


def test_the_game_ends_when_nobody_can_place_and_a_bonus_tie_goes_to_the_first_closer():
    g = closing_race()
    act(g, "flip/w@b1")
    assert g.scores() == [2, 0] and g.legal_actions() == [END]
    act(g, "end")
    assert g.current_player() == 1
    act(g, "flip/w@b6", "end")  # the same length, closed later
    assert g.is_terminal() and g.current_player() == TERMINAL
    assert g.scores() == [2 + 5, 2]
    assert g.returns() == [1, -1]
    assert g.legal_actions() == []
    assert why(g, "end") == "the game is over: nobody can place a strand"


def test_the_longest_closed_ribbon_takes_the_bonus():
    g = position(
        [("run/n@a1", 0), ("run/s@a1", 0), ("cut/ne@b5", 1), ("hook/se@b4", 1), ("hook/nw@c5", 1)],
        hands=[[0, 0, 0, 1], [1, 0, 0, 0]], market=(-1, -1), pile=[],
    )
    act(g, "flip/w@b1", "end")  # 2 points, closed first
    # player_1's Cut and two Hooks around the b4/c4/b5/c5 block wait for a Cut in c4: four
    # inside links, a longer ribbon than player_0's
    act(g, "cut/sw@c4", "end")
    assert g.is_terminal()
    assert g.banked == [2, 4]
    assert g.scores() == [2, 4 + 5]
    assert g.bonus_owner() == 1


def test_no_closed_ribbon_no_bonus():
    g = position([("cut/ne@c3", 0)], hands=[[0, 0, 0, 0], [0, 0, 0, 0]], market=(-1, -1), pile=[])
    # nobody can place at this turn's start: the position is over as soon as a turn starts
    act(g, "end")
    assert g.is_terminal() and g.scores() == [0, 0] and g.returns() == [0, 0]


def test_scores_hold_banked_points_only_until_the_end():
    g = closing_race()
    act(g, "flip/w@b1")
    assert g.scores() == [2, 0]  # no bonus yet


# ----- options, notation, snapshots ----------------------------------------------------------------------

@pytest.mark.parametrize(
    "options, name",
    [
        ({"players": 5}, "players"),
        ({"players": 1}, "players"),
        ({"size": 3}, "size"),
        ({"size": 11}, "size"),
        ({"deck": [1, 2, 3]}, "deck"),
        ({"deck": [1, 1, 1, 1]}, "deck"),
        ({"deck": [-1, 20, 0, 0]}, "deck"),
        ({"pile": [0] * 9}, "pile"),
        ({"pile": [0] * 9 + [7]}, "pile"),
        ({"pile": "cut"}, "pile"),
        ({"colour": 1}, "colour"),
    ],
)
def test_bad_options_name_the_option(options, name):
    with pytest.raises(OptionError, match=name):
        KnotGame.resolve_options(options)


def test_defaults_scale_with_players():
    assert KnotGame.resolve_options({})["size"] == 6
    assert KnotGame.resolve_options({})["deck"] == [24, 18, 18, 12]
    three = KnotGame.resolve_options({"players": 3})
    assert three["size"] == 8 and three["deck"] == [36, 27, 27, 18]
    assert KnotGame.resolve_options({"players": 4, "deck": [5, 5, 5, 5]})["deck"] == [5, 5, 5, 5]
    assert KnotGame.resolve_options({"pile": ["Cut", "run", 2, "flip"] * 3})["pile"] == [0, 1, 2, 3] * 3


def test_scripted_pile_deals_hands_then_market_then_pile():
    pile = [0] * 5 + [1] * 5 + [2, 3] + [0, 1, 2]
    g = resolve_chance(KnotGame(KnotGame.resolve_options({"pile": pile})))
    assert g.hands == [[5, 0, 0, 0], [0, 5, 0, 0]]
    assert g.market == [2, 3]
    assert g.pile == [1, 1, 1, 0] and g.current_player() == 0


def test_a_pile_of_exactly_five_per_player_leaves_the_market_empty():
    g = resolve_chance(KnotGame(KnotGame.resolve_options({"pile": [0] * 10})))
    assert g.market == [-1, -1] and g.pile_size() == 0


def test_notation_round_trips_and_explains_mistakes():
    g = scripted()
    for a in range(16 * 36 + 4):
        assert g.string_to_action(g.action_to_string(a)) == a
    assert g.action_to_string(g.string_to_action("hook/ne@c4")) == "hook/ne@c4"
    assert g.string_to_action("cut/ne@a1") == 0
    assert g.string_to_action("run/n@a1") == 4 * 36
    assert g.string_to_action(" Draw  Pile ") == END + 3
    with pytest.raises(ValueError, match="corner"):
        g.string_to_action("cut/n@c4")
    with pytest.raises(ValueError, match="side"):
        g.string_to_action("run/ne@c4")
    with pytest.raises(ValueError, match="off the board"):
        g.string_to_action("cut/ne@g1")
    with pytest.raises(ValueError, match="not a move"):
        g.string_to_action("place a cut")


def test_snapshot_json_round_trip_continues_identically():
    opts = KnotGame.resolve_options({"players": 3})
    g = KnotGame(opts, random.Random(5))
    rng = random.Random(1)
    for _ in range(60):
        g.apply(rng.choice(g.legal_actions()))
    h = KnotGame.from_snapshot(json.loads(json.dumps(g.snapshot())))
    assert h.snapshot() == g.snapshot()
    while not g.is_terminal():
        assert h.legal_actions() == g.legal_actions()
        a = rng.choice(g.legal_actions())
        g.apply(a)
        h.apply(a)
        assert h.snapshot() == g.snapshot()
    assert h.scores() == g.scores()


def test_clone_is_independent():
    g = KnotGame(KnotGame.resolve_options({}), random.Random(2))
    rng = random.Random(3)
    for _ in range(30):
        g.apply(rng.choice(g.legal_actions()))
    before = json.dumps(g.snapshot())
    h = g.clone()
    for _ in range(30):
        if h.is_terminal():
            break
        h.apply(rng.choice(h.legal_actions()))
    assert json.dumps(g.snapshot()) == before


def test_clone_copies_every_declared_field_and_the_table_names_every_field():
    from envs.knot.snapshot import STATE_FIELDS

    declared = dict(STATE_FIELDS)
    g = KnotGame(KnotGame.resolve_options({"players": 3}), random.Random(6))
    rng = random.Random(6)
    for _ in range(50):
        g.apply(rng.choice(g.legal_actions()))
    games = [g, KnotGame.from_snapshot(g.snapshot()), KnotGame.lay_out(g.options, [(14, 0, 0, 1)], hand=[1, 0, 0, 0])]
    for game in games:
        assert set(vars(game)) == set(declared)  # a field the table misses would be shared by clones
        twin = game.clone()
        assert set(vars(twin)) == set(declared)
        for name, how in STATE_FIELDS:
            mine, theirs = getattr(game, name), getattr(twin, name)
            if how == "same":
                assert theirs is mine
            else:
                assert theirs == mine and theirs is not mine
                if how in ("lists", "optional lists", "sets"):
                    assert all(a is not b for a, b in zip(mine, theirs) if a is not None)


def _snap():
    g = KnotGame(KnotGame.resolve_options({}), random.Random(4))
    rng = random.Random(4)
    for _ in range(40):
        g.apply(rng.choice(g.legal_actions()))
    return g.snapshot()


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda s: s["state"].pop("hands"), "hands"),
        (lambda s: s["state"]["hands"][0].__setitem__(0, 6), "hand"),
        (lambda s: s["state"]["strands"].append(list(s["state"]["strands"][0])), "does not fit"),
        (lambda s: s["state"].__setitem__("scores", [99, 0]), "scores"),
        (lambda s: s["state"]["pile"].__setitem__(0, s["state"]["pile"][0] + 1), "deck"),
        (lambda s: s["state"]["pile"].append(0), "'pile' must hold 4 entries"),
        (lambda s: s["state"].__setitem__("phase", "dance"), "phase"),
        (lambda s: s["state"].__setitem__("growable", [3]), "growable"),
        (lambda s: s["state"]["strands"][0].__setitem__(3, 7), "strand 0"),
        (lambda s: s.__setitem__("game", "loom_v0"), "game"),
    ],
)
def test_malformed_snapshots_are_refused_with_a_reason(mutate, words):
    snap = _snap()
    mutate(snap)
    with pytest.raises(SnapshotError, match=words):
        KnotGame.from_snapshot(snap)


def test_same_seed_same_game():
    def run(seed):
        g = KnotGame(KnotGame.resolve_options({"players": 4}), random.Random(seed))
        rng = random.Random(seed)
        trail = []
        while not g.is_terminal():
            a = rng.choice(g.legal_actions())
            trail.append(a)
            g.apply(a)
        return trail, g.scores()

    assert run(7) == run(7)
    assert run(7) != run(8)
