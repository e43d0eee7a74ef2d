"""Uzor rules, one scenario per rule of the game (``docs/uzor.md``; 9×9 tables, centre e5)."""

from __future__ import annotations

import json
import random

import pytest

from envs.core import CHANCE, IllegalActionError, OptionError, SnapshotError
from envs.core.game import draw_outcome
from envs.uzor.common import DEAL, GOAL, GOAL0, REFILL
from envs.uzor.rules import (
    DEAD_TAKE,
    DISCARD,
    EMPTY,
    FORK,
    OVER,
    PASS,
    PLACE,
    STONE,
    TAKE,
    UzorGame,
)
from tests.uzor.util import act, cell, dealt, draw, place, position, tile, tiles, top_of_supply

CENTRE = 4 * 9 + 4


def order_of(types):
    return [(t // 5, t % 5) for t in types]


def scripted_order(seed=0):
    """A full order whose deal lets player_0 place (t0 … t4 vs the centre t15)."""
    rng = random.Random(seed)
    while True:
        types = [t for t in range(25) for _ in range(3)]
        rng.shuffle(types)
        c = types[15]
        if any(t // 5 == c // 5 or t % 5 == c % 5 for t in types[:5]):
            return types


# ----- setup --------------------------------------------------------------------------------

def test_the_deal_follows_the_page():
    # (chance nodes since the setup became explicit: the goals, then t0 … t15 one at a time)
    types = scripted_order(1)
    game = UzorGame(UzorGame.resolve_options({"tiles": order_of(types), "goals": (3, 7)}))
    script = [GOAL0 + 3, GOAL0 + 7] + types[:16]
    for outcome in script:
        assert game.current_player() == CHANCE and game.chance_outcomes() == [(outcome, 1.0)]
        assert game.legal_actions() == [outcome]
        game.apply(outcome)
    assert game.hands == [sorted(types[0:5]), sorted(types[5:10])]
    assert game.market == types[10:15]
    assert game.board[game.geo.centre] == types[15]
    assert sum(1 for v in game.board if v != EMPTY) == 1
    assert game.facedown == [types[16:].count(t) for t in range(25)] and game.discards == []
    assert game.goals == [3, 7]
    assert game.current_player() == 0 and game.phase == PLACE
    assert game.geo.centre == 10 * 21 + 10
    # the supply's order is no part of the state: each draw is a chance node in the script's order
    game.apply(game.legal_actions()[0])
    if game.phase == FORK:
        game.apply(game.geo.cont)
    game.apply(game.geo.take0)
    assert game.phase == REFILL and game.chance_outcomes() == [(types[16], 1.0)]


def test_the_setup_deals_goals_then_tiles_each_by_its_odds():
    game = UzorGame(UzorGame.resolve_options({}))
    assert game.current_player() == CHANCE and game.phase == GOAL
    first = game.chance_outcomes()
    assert [o for o, _ in first] == [GOAL0 + k for k in range(15)] and all(p == 1 / 15 for _, p in first)
    game.apply(game.string_to_action("goal Cross"))
    second = game.chance_outcomes()
    assert [o for o, _ in second] == [GOAL0 + k for k in range(15) if k != 10]
    assert all(p == 1 / 14 for _, p in second) and abs(sum(p for _, p in second) - 1) < 1e-12
    assert "player_1's secret goal" in game.why_illegal(GOAL0 + 10)
    game.apply(GOAL0 + 2)
    assert game.goals == [10, 2] and game.phase == DEAL
    assert game.chance_outcomes() == [(t, 3 / 75) for t in range(25)]
    game.apply(game.string_to_action("draw wave/amber"))
    outcomes = dict(game.chance_outcomes())
    assert outcomes[tile("Wm")] == 2 / 74 and outcomes[tile("Ca")] == 3 / 74
    assert game.hands[0] == [tile("Wm")] and game.action_to_string(tile("Ca")) == "draw cedar/azure"
    with pytest.raises(ValueError, match="chance node"):
        game.string_to_action("take 3")
    with pytest.raises(IllegalActionError, match="not one of its outcomes"):
        game.apply(game.geo.take0)


def test_a_first_player_without_a_placement_gets_a_new_deal_with_the_goals_kept():
    game = UzorGame(UzorGame.resolve_options({}))
    game.apply(GOAL0 + 3)
    game.apply(GOAL0 + 7)
    # player_0's five tiles share neither motif nor colour with the centre tile (star/ivory)
    deal = tiles("Ca", "Ca", "Sr", "Sr", "We", "Bm", "Bm", "Ca", "Sr", "We", "We", "Cr", "Sa", "Wr", "Ba", "Xi")
    for outcome in deal:
        game.apply(outcome)
    assert game.phase == DEAL and game.goals == [3, 7]  # dealt again, the goals kept
    assert game.hands == [[], []] and game.market == [EMPTY] * 5 and game.facedown == [3] * 25
    assert all(v == EMPTY for v in game.board)
    for outcome in deal[:15] + tiles("Cr"):  # this time the centre tile is a cedar
        game.apply(outcome)
    assert game.phase == PLACE and game.current_player() == 0


def test_a_scripted_order_that_would_need_a_new_deal_is_refused():
    types = scripted_order(2)
    c = types[15]
    bad = [t for t in range(25) if t // 5 != c // 5 and t % 5 != c % 5]
    # move five tiles sharing nothing with the centre tile to the front
    front = []
    for t in bad:
        if len(front) < 5:
            front.append(t)
    rest = types[:]
    for t in front:
        rest.remove(t)
    rest.remove(c)
    order = front + rest[:10] + [c] + rest[10:]
    with pytest.raises(OptionError, match="deal again"):
        UzorGame.resolve_options({"tiles": order_of(order)})


@pytest.mark.parametrize("options, fragment", [
    ({"board_size": 20}, "odd"),
    ({"board_size": 7}, "9…31"),
    ({"board_size": 33}, "9…31"),
    ({"tiles": [(0, 0)] * 75}, "exactly 3 times"),
    ({"tiles": [(0, 0)] * 3}, "all 75"),
    ({"tiles": "abc"}, "'tiles'"),
    ({"goals": (2, 2)}, "two different"),
    ({"goals": (0, 15)}, "0…14"),
    ({"goals": 3}, "'goals'"),
    ({"patterns": [1, 2]}, "'patterns'"),
])
def test_bad_options_name_the_option(options, fragment):
    with pytest.raises(OptionError, match=fragment):
        UzorGame.resolve_options(options)


# ----- placement ------------------------------------------------------------------------------

def test_a_tile_goes_next_to_a_matching_open_tile():
    game = position(draw("Ca", top=4, left=4), tiles("Cr", "Sa", "Wm"))
    legal = {game.action_to_string(a) for a in game.legal_actions()}
    around = {"e4", "e6", "d5", "f5"}
    assert legal == {f"place {n} @ {w}" for n in ("cedar/crimson", "sun/azure") for w in around}
    assert game.why_illegal(game.string_to_action("place wave/amber @ e4")) == (
        "wave/amber matches no open neighbour of e4 by motif or by colour"
    )
    assert "not next to a tile" in game.why_illegal(game.string_to_action("place cedar/crimson @ a1"))
    assert "already holds cedar/azure" in game.why_illegal(game.string_to_action("place cedar/crimson @ e5"))


def test_matching_one_neighbour_is_enough():
    game = position(draw("Ca . Wm", top=4, left=4), tiles("Sa"))
    place(game, tile("Sa"), "f5")  # azure like e5, nothing like g5
    assert game.board[cell("f5")] == tile("Sa")


def test_nothing_is_placed_off_the_table():
    # cedar/azure on the right edge at i3: its neighbours are i2, i4, h3 and nothing beyond
    game = position({CENTRE: tile("Xi"), cell("i3"): tile("Ca")}, tiles("Cr"))
    cells = sorted(a % 81 for a in game.legal_actions())
    assert cells == sorted(cell(n) for n in ("i2", "i4", "h3"))
    game = position({CENTRE: tile("Xi"), cell("a4"): tile("Ca")}, tiles("Cr"))
    assert sorted(a % 81 for a in game.legal_actions()) == sorted(cell(n) for n in ("a3", "a5", "b4"))


def test_equal_tiles_in_a_hand_use_the_first_slot():
    game = position(draw("Ca", top=4, left=4), tiles("Cr", "Cr", "Sa"))
    assert game.hands[0] == sorted(tiles("Cr", "Cr", "Sa"))
    first = game.hands[0].index(tile("Cr"))
    a = (first + 1) * 81 + cell("e4")
    assert game.why_illegal(a) == f"slot {first + 1} holds the same tile as slot {first}: place it from slot {first}"
    assert a not in game.legal_actions() and first * 81 + cell("e4") in game.legal_actions()


# ----- the fork -------------------------------------------------------------------------------

def test_close_scores_crosses_out_and_turns_the_instance_to_stones():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce", "Cm"), goals=(13, 14))
    place(game, tile("Ce"), "g5")
    assert game.phase == FORK and set(game.fork) == {0}
    assert [game.action_to_string(a) for a in game.legal_actions()] == ["close Line-3", "continue"]
    act(game, "close Line-3")
    assert game.points == [2, 0]
    assert game.crossed == 1 << 0
    assert [game.board[cell(n)] for n in ("e5", "f5", "g5")] == [STONE + tile(n) for n in ("Ca", "Cr", "Ce")]
    assert game.phase == TAKE and game.to_move == 0
    act(game, "take 0")
    assert game.to_move == 1 and not game.repeated


def test_a_crossed_out_pattern_is_not_offered_again():
    # cedars at c3 d3, suns at c7 d7; stars in the centre; player_1 holds stars only
    table = {**draw("Ca Cr", top=2, left=2), **draw("Sa Sr", top=6, left=2), CENTRE: tile("Xi"),
             cell("e8"): tile("We"), cell("e9"): tile("Be")}
    game = position(table, tiles("Ce", "Se"), hand1=tiles("Xi", "Xi", "Xm", "Xm", "Xm"))
    place(game, tile("Ce"), "e3")
    act(game, "close Line-3", "take 0")
    assert game.to_move == 1
    while game.to_move == 1:  # stars go next to the centre star, far from row 7
        game.apply(game.legal_actions()[0])
    assert game.phase == PLACE and game.to_move == 0
    place(game, tile("Se"), "e7")
    assert set(game.fork) == {3}  # the emerald Flow-3 down column e; Line-3 is crossed out
    assert game.why_illegal(game.geo.close0 + 0) == "Line-3 is crossed out: it was closed already"


def test_continue_gives_a_repeated_turn_and_the_bigger_pattern():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce", "Cm"))
    place(game, tile("Ce"), "g5")
    act(game, "continue")
    assert game.phase == TAKE and game.continued and game.points == [0, 0]
    assert game.board[cell("g5")] == tile("Ce")  # the tiles stay open
    act(game, "take 1")
    assert game.to_move == 0 and game.repeated and not game.continued
    place(game, tile("Cm"), "h5")
    assert {0, 1} <= set(game.fork)
    act(game, "close Line-4")
    assert game.points == [5, 0]
    assert [game.board[cell(n)] >= STONE for n in ("e5", "f5", "g5", "h5")] == [True] * 4
    act(game, "take 0")
    assert game.to_move == 1 and not game.repeated


def test_a_second_continue_passes_the_turn_and_leaves_the_pattern_open():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce", "Cm"))
    place(game, tile("Ce"), "g5")
    act(game, "continue", "take 0")
    place(game, tile("Cm"), "h5")
    act(game, "continue")
    assert game.continued and game.repeated
    act(game, "take 0")
    assert game.to_move == 1 and not game.repeated
    assert [game.board[cell(n)] for n in ("e5", "f5", "g5", "h5")] == tiles("Ca", "Cr", "Ce", "Cm")


def test_continue_earns_a_repeated_turn_again_after_the_opponent_moved():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce", "Cm", "Ci"), hand1=tiles("Xe", "Xe", "Xe", "Xm", "Xm"))
    place(game, tile("Ce"), "g5")
    act(game, "continue", "take 0")
    assert game.to_move == 0 and game.repeated
    place(game, tile("Cm"), "e6")  # below the centre: completes nothing new
    assert game.phase == TAKE
    act(game, "take 0")
    assert game.to_move == 1 and not game.repeated
    while game.to_move == 1:
        game.apply(game.legal_actions()[0])
    assert game.to_move == 0 and not game.repeated
    place(game, tile("Ci"), "h5")
    act(game, "continue", "take 0")
    assert game.to_move == 0 and game.repeated


def test_the_secret_goal_doubles_its_points():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce"), goals=(0, 5))
    place(game, tile("Ce"), "g5")
    act(game, "close Line-3")
    assert game.points == [4, 0]
    assert game.closed == [(0, 0, (cell("e5"), cell("f5"), cell("g5")))]


def test_the_opponents_goal_is_not_doubled_for_me():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce"), goals=(5, 0))
    place(game, tile("Ce"), "g5")
    act(game, "close Line-3")
    assert game.points == [2, 0]


# ----- stones ---------------------------------------------------------------------------------

def test_stones_match_nothing_and_a_cell_among_stones_accepts_anything():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce", "Xi"), hand1=tiles("Wm", "Wm", "Wm", "Bi", "Bi"))
    place(game, tile("Ce"), "g5")
    act(game, "close Line-3")
    assert game.phase == TAKE  # turning tiles into stones completed nothing
    act(game, "take 0")
    # player_1 holds wave/amber and bird/ivory: next to stones only, anything goes
    legal = {game.action_to_string(a) for a in game.legal_actions()}
    assert "place wave/amber @ e4" in legal and "place bird/ivory @ g6" in legal
    assert len(legal) == 2 * 8  # the 8 empty cells around three stones, two tile types


def test_a_cell_next_to_a_stone_and_an_open_tile_must_match_the_open_tile():
    game = position({**draw("Ca Cr", top=4, left=4), cell("e3"): tile("Sa")}, tiles("Ce", "Xm", "Sm"))
    place(game, tile("Ce"), "g5")
    act(game, "close Line-3", "take 0")
    # e4 touches the stone e5 and the open sun/azure at e3
    while game.to_move == 1:
        game.apply(game.legal_actions()[-1])
    hand = game.hands[0]
    assert game.why_illegal(hand.index(tile("Xm")) * 81 + cell("e4")) is not None
    assert game.why_illegal(hand.index(tile("Sm")) * 81 + cell("e4")) is None


# ----- market, dead end, pass -------------------------------------------------------------------

def test_the_take_refills_the_emptied_slot_from_the_top():
    # (the refill is a chance node now: the face-down tiles by their counts)
    game = position(draw("Ca", top=4, left=4), tiles("Cr"))
    market = list(game.market)
    place(game, tile("Cr"), "f5")
    game.apply(game.string_to_action("take 3"))
    assert game.phase == REFILL and game.current_player() == CHANCE and game.market[3] == EMPTY
    total = sum(game.facedown)
    assert game.chance_outcomes() == [(t, n / total) for t, n in enumerate(game.facedown) if n]
    drawn = game.chance_outcomes()[-1][0]
    game.apply(drawn)
    assert game.market == market[:3] + [drawn] + market[4:]
    assert market[3] in game.hands[0] and game.to_move == 1


def test_dead_end_discards_to_the_bottom_face_up_then_takes():
    game = position(draw("Ca", top=4, left=4), tiles("Sr", "Se", "Sm", "Si", "Wr"))
    assert game.phase == DISCARD
    assert "discard" in game.why_illegal(0 * 81 + cell("f5"))
    act(game, "discard 0")
    assert game.discards == [tile("Sr")] and game.phase == DEAD_TAKE
    top = top_of_supply(game)  # face-down tiles are drawn before the discard
    act(game, "take 2")
    assert game.market[2] == top and game.discards == [tile("Sr")]
    assert game.to_move == 1 and game.idle == 1


def test_dead_end_with_an_empty_supply_takes_back_the_discard():
    game = position(draw("Ca", top=4, left=4), tiles("Sr", "Se", "Sm", "Si", "Wr"))
    game.facedown = [0] * 25  # white-box: the rest of the supply is gone for this rule
    act(game, "discard 1", "take 4")
    assert game.market[4] == tile("Se") and game.facedown == [0] * 25 and game.discards == []


def test_an_empty_market_means_no_take_and_a_dead_end_passes():
    game = position(draw("Ca", top=4, left=4), tiles("Cr", "Sr"), market=[EMPTY] * 5)
    game.facedown = [0] * 25  # white-box: an exhausted market has an empty supply
    place(game, tile("Cr"), "f5")
    assert game.to_move == 1  # no take: the turn passed at once
    game2 = position(draw("Ca", top=4, left=4), tiles("Sr"), market=[EMPTY] * 5)
    game2.facedown = [0] * 25
    game2._start_turn(0, False)
    assert game2.phase == PASS and game2.legal_actions() == [game2.geo.pass_]
    act(game2, "pass")
    assert game2.to_move == 1


# ----- the end ------------------------------------------------------------------------------------

def _crowded_table(hand_tile: str):
    """74 tiles on a 9×9 table, its 7 empty cells a1…g1 touched only by non-star, non-ivory
    tiles; the 75th tile in player_0's hand."""
    kept = tile(hand_tile)
    pool = [t for t in range(25) for _ in range(3)]
    pool.remove(kept)
    plain = [t for t in pool if t // 5 != 4 and t % 5 != 4]
    rest = [t for t in pool if not (t // 5 != 4 and t % 5 != 4)]
    ordered = plain[:9] + rest + plain[9:]
    cells = list(range(7, 81))
    return dict(zip(cells, ordered)), kept


def test_the_game_ends_when_no_tile_outside_the_table_fits():
    table, kept = _crowded_table("Xi")
    game = UzorGame.from_position({"board_size": 9}, table, [[kept], []], [EMPTY] * 5)
    assert game.phase == OVER and game.is_terminal() and game.legal_actions() == []
    assert game.returns() == [0, 0]
    assert "game is over" in game.why_illegal(0)
    table, kept = _crowded_table("Ca")
    game = UzorGame.from_position({"board_size": 9}, table, [[kept], []], [EMPTY] * 5)
    assert game.phase == PLACE


def test_the_game_ends_after_twenty_turns_without_a_placement():
    game = position(draw("Ca", top=4, left=4), tiles("Sr", "Se", "Sm", "Si", "Wr"))
    game.idle = 19  # white-box: nineteen dead-end turns before this one
    act(game, "discard 0", "take 0")
    assert game.phase == OVER
    game = position(draw("Ca", top=4, left=4), tiles("Sr", "Se", "Sm", "Si", "Wr"))
    game.idle = 18
    act(game, "discard 0", "take 0")
    assert game.phase != OVER


def test_more_points_wins():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce"))
    place(game, tile("Ce"), "g5")
    act(game, "close Line-3")
    game.phase = OVER  # white-box: end here
    assert game.returns() == [1, -1]


# ----- notation, refusals, snapshots ------------------------------------------------------------

def test_notation_matches_the_page():
    game = position(draw("Ca Cr", top=4, left=4), tiles("Ce", "Sa"))
    a = game.string_to_action("place cedar/emerald @ g5")
    assert game.action_to_string(a) == "place cedar/emerald @ g5"
    assert a == game.hands[0].index(tile("Ce")) * 81 + 4 * 9 + 6
    g = game.geo
    assert game.string_to_action("close Line-4") == g.close0 + 1
    assert game.string_to_action("close line-4") == g.close0 + 1
    assert game.string_to_action("continue") == g.cont
    assert game.string_to_action("take 3") == g.take0 + 3
    assert game.string_to_action("discard 1") == g.discard0 + 1
    assert game.string_to_action("pass") == g.pass_ == 5 * 81 + 26
    for text in ("fly away", "place cedar/pink @ a1", "place cedar/azure @ z99", "take 7", "close Blob"):
        with pytest.raises(ValueError):
            game.string_to_action(text)
    assert game.action_to_string(4 * 81 + 3) == "place slot 4 @ d1"
    assert game.string_to_action("place slot 4 @ d1") == 4 * 81 + 3


def test_refusals_say_why_and_change_nothing():
    game = position(draw("Ca", top=4, left=4), tiles("Cr"))
    before = json.dumps(game.snapshot())
    with pytest.raises(IllegalActionError, match="take a tile|place a tile"):
        game.apply(game.geo.take0)
    assert game.why_illegal(game.geo.num_actions) == f"action {game.geo.num_actions} is outside 0…{game.geo.num_actions - 1}"
    assert "an action is an integer" in game.why_illegal("x")
    assert json.dumps(game.snapshot()) == before


def test_snapshots_round_trip_and_refuse_tampering():
    rng = random.Random(4)
    game = UzorGame(UzorGame.resolve_options({}))
    for _ in range(60):  # (chance nodes too: any outcome is legal there)
        game.apply(rng.choice(game.legal_actions()))
    snap = json.loads(json.dumps(game.snapshot()))
    twin = UzorGame.from_snapshot(snap)
    assert twin.snapshot() == snap
    state = snap["state"]
    bad = []
    bad.append({**state, "scores": [state["scores"][0] + 1, state["scores"][1]]})
    facedown = list(state["facedown"])
    moved = next(t for t in range(25) if facedown[t])
    facedown[moved] -= 1
    facedown[(moved + 1) % 25] += 1
    bad.append({**state, "facedown": facedown})
    bad.append({**state, "phase": "nap"})
    bad.append({**state, "goals": [1, 1]})
    board = list(state["board"])
    board[0] = 3
    bad.append({**state, "board": board})
    bad.append({**state, "hands": [[3, 1], state["hands"][1]]})
    for wrong in bad:
        with pytest.raises(SnapshotError):
            UzorGame.from_snapshot({**snap, "state": wrong})


def test_the_declared_state_fields_make_the_snapshot_and_the_copy():
    from envs.uzor.state import STATE_FIELDS

    rng = random.Random(8)
    game = dealt({"board_size": 11}, 8)
    for _ in range(70):
        game.apply(rng.choice(game.legal_actions()))
    assert list(game.snapshot()["state"]) == [f.key for f in STATE_FIELDS]
    copy = game.clone()
    for field in STATE_FIELDS:
        mine, theirs = getattr(game, field.attr), getattr(copy, field.attr)
        assert mine == theirs
        if isinstance(mine, (list, dict)):
            assert mine is not theirs  # copied, not shared
    assert copy.hands[0] is not game.hands[0] and copy.hands[1] is not game.hands[1]
    before = json.dumps(game.snapshot())
    while not copy.is_terminal():
        copy.apply(rng.choice(copy.legal_actions()))
    assert json.dumps(game.snapshot()) == before


def test_snapshots_at_chance_nodes_hold_the_past_and_round_trip():
    from envs.uzor.sampling import complete_snapshot, strip_hidden

    rng = random.Random(11)
    game = UzorGame(UzorGame.resolve_options({"board_size": 9}))
    seen = set()
    while not game.is_terminal():
        if game.is_chance_node():
            snap = json.loads(json.dumps(game.snapshot()))
            twin = UzorGame.from_snapshot(snap)
            assert twin.snapshot() == snap and twin.chance_outcomes() == game.chance_outcomes()
            state = snap["state"]
            assert "supply" not in state and sum(state["facedown"]) == sum(game.facedown)
            assert state["goals"] == [g for g in game.goals if g is not None]  # those dealt so far
            for seat in (0, 1):
                assert UzorGame.from_snapshot(complete_snapshot(strip_hidden(snap, seat), seat, rng)).phase == game.phase
            seen.add(game.phase)
            game.apply(draw_outcome(game.chance_outcomes(), rng))
        else:
            game.apply(rng.choice(game.legal_actions()))
    assert seen == {GOAL, DEAL, REFILL}


def test_the_longest_game_and_the_chance_outcomes_are_bounded():
    for size in (9, 21, 31):
        options = UzorGame.resolve_options({"board_size": size})
        assert UzorGame.max_chance_outcomes_for(options) == 40
        placements = min(74, size * size - 1)
        assert UzorGame.max_game_length_for(options) == 3 * placements + 2 * 20 * (placements + 1)
