"""Fill rules, one scenario per rule of docs/fill.md (boards drawn as pictures)."""

from __future__ import annotations

import random

import pytest

from envs.core.game import TERMINAL, IllegalActionError, OptionError, draw_outcome
from envs.fill.positions import position
from envs.fill.rules import (
    CHOOSE, DOUBLE, FILL, FILL2, OVER, PASS, SEED, TOKEN, TRAP, TRAP_PHASE, FillGame, bits,
)

N6 = 36
STAY, SWAP, NO_TOKEN, USE_DOUBLE, USE_PASS, USE_TRAP, NO_TRAP = range(N6, N6 + 7)


def settle(game: FillGame, rng: random.Random) -> FillGame:
    """Play the chance nodes the game has reached (rocks, gems) from ``rng``, as the env does."""
    while game.is_chance_node():
        game.apply(draw_outcome(game.chance_outcomes(), rng))
    return game


def new(seed=0, **options) -> FillGame:
    """A new game past its opening chance nodes (the rocks), drawn from ``seed``."""
    return settle(FillGame(FillGame.resolve_options(options)), random.Random(seed))


def do(game: FillGame, *moves: str) -> None:
    for move in moves:
        game.apply(game.string_to_action(move))
        settle(game, random.Random(game.filled))


def cells(game: FillGame, *names: str) -> list[int]:
    return sorted(game.string_to_action(n) for n in names)


# ----- legal fills -----------------------------------------------------------------------------

ACROSS = """
. . . . . .
. # # . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
"""


def test_three_in_a_row_across_is_poisoned():
    game = position(ACROSS)
    assert game.legal_cells() == cells(game, "a1", "b1", "c1", "d1", "a3", "b3", "c3", "d3")
    assert game.poisoned_cells() == cells(game, "a2", "d2")
    assert game.why_illegal(game.string_to_action("d2")) == "that cell would make three in a row across"
    with pytest.raises(ValueError, match="three in a row"):
        do(game, "a2")


def test_three_in_a_row_down_is_poisoned():
    game = position("""
    . . . . . .
    . # . . . .
    . # . . . .
    . . . . . .
    . . . . . .
    . . . . . .
    """)
    assert game.poisoned_cells() == cells(game, "b1", "b4")
    assert game.why_illegal(game.string_to_action("b4")) == "that cell would make three in a row down"


DIAGONAL = """
. . . . . .
. # . . . .
. . # . . .
. . . . . .
. . . . . .
. . . . . .
"""


def test_diagonals_are_fine_unless_strict():
    game = position(DIAGONAL)
    assert game.poisoned_cells() == []
    assert game.string_to_action("d4") in game.legal_cells()
    strict = position(DIAGONAL, lines="strict")
    assert strict.poisoned_cells() == cells(strict, "a1", "d4")
    assert strict.why_illegal(strict.string_to_action("a1")) == "that cell would make three in a row diagonally"
    anti = position("""
    . . . . . .
    . . # . . .
    . # . . . .
    . . . . . .
    . . . . . .
    . . . . . .
    """, lines="strict")
    assert anti.poisoned_cells() == cells(anti, "d1", "a4")


def test_lines_off_allows_three_in_a_row():
    game = position(ACROSS, lines="off")
    assert game.poisoned_cells() == []
    do(game, "d2")  # three across is fine now
    do(game, "a2")  # and four
    assert game.filled == sum(1 << c for c in cells(game, "a2", "b2", "c2", "d2"))


def test_two_by_two_block_is_poisoned_in_every_lines_setting():
    picture = """
    . . . . . .
    . # # . . .
    . # . . . .
    . . . . . .
    . . . . . .
    . . . . . .
    """
    for lines in ("orthogonal", "strict", "off"):
        game = position(picture, lines=lines)
        c3 = game.string_to_action("c3")
        assert c3 in game.poisoned_cells()
        assert c3 not in game.legal_cells()
        assert game.why_illegal(c3) == "that cell would complete a solid 2×2 block"


def test_a_fill_must_touch_a_filled_cell_diagonal_counts():
    game = position(ACROSS)
    assert game.why_illegal(game.string_to_action("f6")) == "that cell touches no filled cell"
    assert game.string_to_action("d3") in game.legal_cells()  # touches c2 diagonally
    assert game.why_illegal(game.string_to_action("b2")) == "b2 is already filled"


def test_poisoned_cells_never_become_legal():
    game = new(3)
    rng = random.Random(3)
    poisoned = 0
    while not game.is_terminal():
        assert game.poison & poisoned == poisoned & ~game.filled
        assert not game.poison & game.filled
        poisoned |= game.poison
        game.apply(rng.choice(game.legal_actions()))
    assert poisoned & ~game.filled == poisoned  # no poisoned cell was ever filled


# ----- rocks ------------------------------------------------------------------------------------

def test_rocks_never_count_as_filled():
    # (c1 joins b2 and d2: the filled cells of a game are always joined up)
    game = position("""
    . . # . . .
    . # R # . .
    . . . . . .
    . . . . . .
    . . . . R .
    . . . . . .
    """)
    a2, c3, b3 = (game.string_to_action(x) for x in ("a2", "c3", "b3"))
    assert a2 in game.legal_cells()  # a2 b2 c2: c2 is a rock, not three in a row
    do(game, "b3")
    do(game, "c3")  # b2 c2 b3 c3: the rock does not complete a 2×2
    assert game.why_illegal(game.string_to_action("f6")) == "that cell touches no filled cell"
    assert game.why_illegal(game.string_to_action("e4")) == "that cell touches no filled cell"  # only the rock e5


def test_rocks_cannot_be_seeded_filled_or_trapped():
    game = new(rocks=True, rock_cells=[0, 7], traps=True)
    assert game.why_illegal(0) == "a1 is a rock: rocks cannot be seeded"
    assert 0 not in game.legal_actions() and 1 in game.legal_actions()
    do(game, "c2", "stay")
    assert game.phase == TRAP_PHASE
    assert game.why_illegal(7) == "b2 is a rock: rocks cannot be trapped"
    assert 7 not in game.legal_actions()
    do(game, "no-trap")
    assert game.why_illegal(7) == "b2 is a rock: rocks cannot be filled"


def test_random_rocks_are_size_minus_three_and_reproducible():
    for size in (6, 7, 8):
        games = [new(seed, rocks=True, size=size) for seed in (1, 1, 2)]
        assert [g.rock.bit_count() for g in games] == [size - 3] * 3
        assert games[0].rock == games[1].rock
    assert new(5, rocks=False, rock_cells=[1, 2]).rock == 0  # rock_cells only with rocks on


# ----- setup and turns ------------------------------------------------------------------------------

def test_seed_then_choice_stay_and_swap():
    game = new()
    assert game.phase == SEED and game.current_player() == 0
    assert game.legal_actions() == list(range(N6))
    assert game.why_illegal(STAY) == "first player_0, the seeder, fills any cell: choose a cell"
    do(game, "f6")  # any cell, even a corner
    assert game.phase == CHOOSE and game.current_player() == 1
    assert game.legal_actions() == [STAY, SWAP]
    stay = game.clone()
    do(stay, "stay")
    assert stay.current_player() == 1 and stay.phase == FILL and stay.turns == [0, 1]
    do(game, "swap")
    assert game.current_player() == 0 and game.phase == FILL and game.turns == [1, 0]


def test_turns_alternate_and_count():
    game = new()
    do(game, "c3", "stay", "c4", "d3")
    assert game.turns == [1, 2] and game.current_player() == 1  # turns started so far
    do(game, "e2")
    assert game.turns == [2, 2] and game.current_player() == 0


NO_EXIT = """
# . . . . .
R R R . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
"""


def test_no_legal_cell_at_turn_start_loses():
    game = position(NO_EXIT)  # player_1 to move, one legal cell: b1
    assert game.legal_cells() == [1]
    do(game, "b1")  # c1 would be three across: nothing is legal now
    assert game.is_terminal() and game.current_player() == TERMINAL
    assert game.winner == 1 and game.end_reason == "no legal cell"
    assert game.scores() == [0, 1] and game.returns() == [-1, 1]
    assert game.turns == [0, 1]  # player_0's turn never happened
    assert game.why_illegal(3) == "the game is over"
    with pytest.raises(ValueError):
        game.apply(3)


def test_no_legal_cell_right_after_the_choice_loses():
    game = new(rocks=True, rock_cells=[1, 6, 7])
    do(game, "a1", "stay")
    assert game.is_terminal() and game.winner == 0


def test_a_pass_token_cannot_save_a_player_without_legal_cell():
    game = position(NO_EXIT, tokens={0: [("pass", 8)]})
    do(game, "b1")
    assert game.is_terminal() and game.winner == 1


def test_no_draws_every_game_has_a_winner():
    for seed in range(30):
        game, rng = new(seed), random.Random(seed)
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
        assert sorted(game.scores()) == [0, 1] and sorted(game.returns()) == [-1, 1]


# ----- gems and tokens ---------------------------------------------------------------------------------

def test_random_gems_avoid_the_seed_and_only_pick_fillable_cells():
    kinds_seen = set()
    for seed in range(60):
        traps = seed % 2 == 1
        game = new(seed, gems=True, traps=traps, rocks=seed % 3 == 0)
        assert game.gems == {}
        game.apply(random.Random(seed).choice(game.legal_actions()))
        settle(game, random.Random(seed))  # the gems, chance nodes right after the seed
        seed_cell = game.seed_cell
        assert len(game.gems) == 3
        for cell, kind in game.gems.items():
            assert not game.geo.nbr[seed_cell] >> cell & 1 and cell != seed_cell
            assert not game.rock >> cell & 1
            assert game.can_still_be_filled(cell)
            assert kind in ((DOUBLE, PASS, TRAP) if traps else (DOUBLE, PASS))
            kinds_seen.add((traps, kind))
    assert kinds_seen == {(False, DOUBLE), (False, PASS), (True, DOUBLE), (True, PASS), (True, TRAP)}


def test_scripted_gems_are_placed_in_order_with_exceptions():
    gems = [(0, "double"), (0, "pass"), (7, "pass"), (5, "double"), (34, "pass"), (35, "pass"), (15, "double")]
    game = new(rocks=True, rock_cells=[4, 10, 11, 34], gems=True, gem_cells=gems)
    do(game, "c3")  # cell 14; b2 (7) touches it; f1 (5) is walled off by rocks; 34 is a rock; 15 touches
    assert game.gems == {0: DOUBLE, 35: PASS}


def test_scripted_gem_kinds_and_cells_are_checked_at_creation():
    with pytest.raises(ValueError, match="gem_cells"):
        new(gems=True, gem_cells=[(3, "bomb")])
    with pytest.raises(ValueError, match="traps"):
        new(gems=True, gem_cells=[(3, "trap")])
    with pytest.raises(ValueError, match="off the board"):
        new(gems=True, gem_cells=[(36, "pass")])
    with pytest.raises(ValueError, match="off the board"):
        new(gems=True, gem_cells=[(-1, "pass")])
    new(gems=True, traps=True, gem_cells=[(3, "trap")])  # fine with traps on


GEM_PICTURE = """
. . . . . .
. # # . D .
. . . . . .
. . . . . .
. . . . . .
P . . . . .
"""


def test_a_gem_is_collected_and_its_token_counts_down():
    game = position(GEM_PICTURE)  # player_1 to move, its turn t
    t = game.turns[1]
    do(game, "d3")
    do(game, "c1")  # player_0's turn
    assert game.gems[game.string_to_action("e2")] == DOUBLE
    do(game, "e2")  # player_1 collects the Double on its turn t + 1
    assert game.string_to_action("e2") not in game.gems
    assert game.tokens[1] == [[DOUBLE, 8, t + 1]]
    assert game.phase == FILL and game.current_player() == 0  # no token phase for player_0
    do(game, "e1")
    assert game.tokens[1][0][1] == 8  # the collecting turn does not count down
    assert game.phase == TOKEN and game.legal_actions() == [NO_TOKEN, USE_DOUBLE]
    do(game, "no-token", "e4")
    assert game.tokens[1][0][1] == 7  # down by one at the end of each later turn


def test_a_token_lasts_the_holders_next_turns_then_is_gone():
    game = position(ACROSS, lines="off", tokens={1: [("pass", 2)]})
    do(game, "no-token", "b3", "d2")  # player_1's turn, then player_0's
    assert game.tokens[1] == [[PASS, 1, 0]]
    assert game.legal_actions() == [NO_TOKEN, USE_PASS]  # usable while it shows 1
    do(game, "no-token", "a3", "e1")
    assert game.tokens[1] == [] and game.phase == FILL


def test_the_soonest_expiring_token_of_a_kind_is_spent():
    game = position(ACROSS, tokens={1: [("pass", 5), ("pass", 2), ("double", 1)]})
    do(game, "pass")
    assert sorted(game.tokens[1]) == [[PASS, 4, 0]]  # Double at 1 expired, Pass 5 -> 4


def test_gem_shatters_when_its_cell_can_no_longer_be_filled():
    game = position("""
    D R . . . .
    R . # . . .
    . . . . . .
    . . . . . .
    . . . . . .
    . . . . . .
    """)
    assert game.gems == {0: DOUBLE}
    do(game, "d3")
    assert game.gems == {0: DOUBLE}
    do(game, "d2")  # b2 c2 d2 across: b2, the gem's only way in, is poisoned
    assert game.gems == {}


ROUTE = """
D . . . . .
R R . . . .
. . . . . .
. . # . . .
. . . . . .
. . . . . .
"""


def test_gem_shatters_when_every_route_to_it_would_poison():
    # a1's only neighbour is b1; b1 leads on to c1 (a1 b1 c1 would be three across) or c2.
    game = position(ROUTE)
    assert game.gems == {0: DOUBLE}
    do(game, "c3")  # c2 c3 c4 down: c2 is poisoned; b1 is not, yet a1 can never be filled
    assert game.string_to_action("b1") not in game.poisoned_cells()
    assert game.gems == {}


def test_with_lines_off_the_route_stays_open():
    game = position(ROUTE, lines="off")
    do(game, "c3", "c2", "b1")
    assert game.gems == {0: DOUBLE}
    do(game, "a1")
    assert game.tokens[0] == [[DOUBLE, 8, 2]]


def test_double_fills_twice():
    game = position(ACROSS, tokens={1: [("double", 8)]})
    turns = game.turns[:]
    do(game, "double", "c1")
    assert game.phase == FILL2 and game.current_player() == 1
    do(game, "a3")
    assert game.current_player() == 0 and game.turns == [turns[0] + 1, turns[1]]


def test_double_with_no_second_cell_ends_the_turn_and_the_opponent_loses():
    game = position(NO_EXIT, tokens={1: [("double", 8)]})
    do(game, "double", "b1")
    assert game.is_terminal() and game.winner == 1


def test_pass_ends_the_turn_at_once():
    game = position(ACROSS, traps=True, tokens={1: [("pass", 8)]})
    before, turns = game.filled, game.turns[:]
    do(game, "pass")
    assert game.filled == before and game.current_player() == 0 and game.turns == [turns[0] + 1, turns[1]]
    assert game.live_trap == [-1, -1] and game.recharge[1] == [0, 0]


def test_trap_token_gives_an_extra_trap_used_first():
    game = position(ACROSS, traps=True, tokens={1: [("trap", 8)]})
    assert game.legal_actions() == [NO_TOKEN, USE_TRAP]
    do(game, "trap-token")
    assert game.phase == TRAP_PHASE and game.extra[1] == 1
    do(game, "trap f6")
    assert game.extra[1] == 0 and game.recharge[1] == [0, 0] and game.live_trap[1] == 35


# ----- traps ----------------------------------------------------------------------------------------

def test_trap_springs_cancels_the_fill_and_is_revealed():
    game = position(ACROSS, traps=True)
    turns = game.turns[:]
    do(game, "trap d3", "c1")  # player_1 traps d3, fills c1
    assert game.current_player() == 0 and game.phase == TRAP_PHASE
    do(game, "no-trap")
    before = game.filled
    do(game, "d3")  # sprung: cancelled, player_0's turn is over
    assert game.filled == before
    assert game.last_sprung == (game.string_to_action("d3"), 1)
    assert game.live_trap == [-1, -1]
    assert game.current_player() == 1 and game.turns == [turns[0] + 1, turns[1] + 1]


def test_a_trapped_gem_is_not_collected():
    game = position(GEM_PICTURE, traps=True)
    do(game, "trap e2", "d3")
    do(game, "no-trap", "e2")  # sprung
    assert game.gems == {game.string_to_action("e2"): DOUBLE, game.string_to_action("a6"): PASS}
    assert game.tokens == [[], []] and game.last_sprung == (game.string_to_action("e2"), 1)


def test_trap_does_not_spring_with_two_legal_cells():
    game = position("""
    # . R . . .
    . . R . . .
    R R R . . .
    . . . . . .
    . . . . . .
    . . . . . .
    """, traps=True)
    do(game, "trap a2", "b1")  # player_1
    assert game.legal_cells() == cells(game, "a2", "b2")
    do(game, "no-trap", "a2")  # two legal cells: the fill is made, nothing is revealed
    assert game.filled >> game.string_to_action("a2") & 1
    assert game.last_sprung is None
    assert game.is_terminal() and game.winner == 0  # b2 would complete a 2×2: player_1 is stuck


def test_trap_springs_with_exactly_three_legal_cells():
    game = position("""
    # . . R . .
    . . . R . .
    R R R R . .
    . . . . . .
    . . . . . .
    . . . . . .
    """, traps=True)
    do(game, "trap c2", "b1")
    assert game.legal_cells() == cells(game, "a2", "b2", "c2")
    do(game, "no-trap", "c2")
    assert game.last_sprung == (game.string_to_action("c2"), 1)
    assert not game.filled >> game.string_to_action("c2") & 1


def test_trap_expires_after_the_opponents_next_turn():
    game = position(ACROSS, traps=True, lines="off")
    do(game, "trap f1", "c1")  # player_1's turn
    assert game.live_trap[1] == 5
    do(game, "no-trap", "d1")  # player_0's turn: not f1
    assert game.live_trap[1] == -1
    do(game, "no-trap", "e1")  # player_1 turn 2
    do(game, "no-trap", "f1")  # player_0 fills f1: no trap any more
    assert game.filled >> 5 & 1 and game.last_sprung is None


def test_trap_recharges_three_own_turns_later():
    game = position(ACROSS, traps=True, lines="off", first=1)
    t = game.turns[1]  # player_1's turn t: its traps are counted from here
    p1_moves = ["a1", "a3", "a4", "a5", "a6"]
    p0_moves = ["b1", "c3", "d3", "e3", "f3"]
    # player_1 turn t: trap (slot 0), t + 1: trap (slot 1), t + 2: none ready, t + 3: ready.
    do(game, "trap f6", p1_moves[0])
    assert game.recharge_counts(1) == [3]
    do(game, "no-trap", p0_moves[0])
    assert game.phase == TRAP_PHASE and game.recharge_counts(1) == [2]
    do(game, "trap f5", p1_moves[1])
    assert game.recharge_counts(1) == [2, 3]
    do(game, "no-trap", p0_moves[1])
    assert game.phase == FILL and game.turns[1] == t + 2 and game.recharge_counts(1) == [1, 2]
    do(game, p1_moves[2])
    do(game, "no-trap", p0_moves[2])
    assert game.turns[1] == t + 3 and game.phase == TRAP_PHASE and game.recharge_counts(1) == [1]
    assert game.ready_regular(1) == 1


def test_a_sprung_trap_on_the_first_fill_of_a_double_loses_the_whole_turn():
    game = position(ACROSS, traps=True, tokens={0: [("double", 8)]})
    do(game, "trap d3", "c1")
    do(game, "double", "no-trap", "d3")
    assert game.current_player() == 1 and game.last_sprung == (game.string_to_action("d3"), 1)


def test_a_sprung_trap_on_the_second_fill_keeps_the_first():
    game = position(ACROSS, traps=True, tokens={0: [("double", 8)]})
    do(game, "trap d3", "c1")
    do(game, "double", "no-trap", "a1")
    assert game.phase == FILL2
    do(game, "d3")
    assert game.filled >> 0 & 1 and not game.filled >> game.string_to_action("d3") & 1
    assert game.current_player() == 1 and game.tokens[0] == []


def test_the_setter_may_fill_its_own_trap():
    game = position(ACROSS, traps=True)
    do(game, "trap c1", "c1")
    assert game.filled >> 2 & 1 and game.current_player() == 0


# ----- clocks -------------------------------------------------------------------------------------------

class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_clock_runs_out_and_the_late_action_is_not_applied():
    clock = FakeClock()
    game = new(time_limit=True, clock=clock)
    assert game.time_left == [120.0, 120.0]
    clock.now += 30
    do(game, "c3")  # seed: 30 s of player_0's time
    clock.now += 10
    do(game, "stay")
    assert game.time_left == [90.0, 110.0]
    clock.now += 110
    filled = game.filled
    game.apply(game.string_to_action("c4"))  # arrives at 0 s left
    assert game.is_terminal() and game.winner == 0 and game.end_reason == "time"
    assert game.filled == filled


def test_unclocked_player_never_loses_on_time():
    clock = FakeClock()
    game = new(time_limit=True, clock=clock, clocked=["player_1"])
    clock.now += 10_000
    do(game, "c3")
    assert not game.is_terminal() and game.time_left[0] == 120.0
    clock.now += 5
    do(game, "stay")
    assert game.time_left[1] == 115.0


def test_time_limit_scales_with_size():
    assert [new(size=s, time_limit=True).time_left[0] for s in (6, 7, 8)] == [120.0, 180.0, 240.0]


# ----- options, notation -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "options, words",
    [
        ({"size": 5}, "'size'"),
        ({"lines": "diagonal"}, "'lines'"),
        ({"traps": 1}, "'traps'"),
        ({"rocks": "yes"}, "'rocks'"),
        ({"gems": None}, "'gems'"),
        ({"time_limit": 60}, "'time_limit'"),
        ({"clocked": ["player_2"]}, "'clocked'"),
        ({"clock": 5}, "'clock'"),
        ({"rocks": True, "rock_cells": [40]}, "'rock_cells'"),
        ({"gems": True, "gem_cells": [3]}, "'gem_cells'"),
        ({"colour": "red"}, "unknown option 'colour'"),
    ],
)
def test_bad_options_name_the_option(options, words):
    with pytest.raises(OptionError) as info:
        FillGame.resolve_options(options)
    assert words in str(info.value)


def test_notation_round_trips():
    game = new(traps=True)
    for a in range(N6 + 7):
        assert game.string_to_action(game.action_to_string(a)) == a
    assert game.action_to_string(0) == "a1" and game.action_to_string(1) == "b1"
    assert game.action_to_string(8) == "c2"
    assert [game.action_to_string(a) for a in range(N6, N6 + 7)] == [
        "stay", "swap", "no-token", "double", "pass", "trap-token", "no-trap"]
    do(game, "c3", "stay")
    assert game.action_to_string(21) == "trap d4"
    assert game.string_to_action("trap d4") == 21
    with pytest.raises(ValueError):
        game.string_to_action("z9")


def test_illegal_actions_raise_value_error_with_the_reason():
    game = new(traps=True)
    with pytest.raises(IllegalActionError, match="does not exist"):
        game.apply(99)
    with pytest.raises(ValueError, match="integer"):
        game.apply("c3")
    do(game, "c3")
    assert game.why_illegal(3) == "player_1 now chooses: stay (move next) or swap (the seeder moves next)"
    do(game, "stay")
    assert game.why_illegal(game.string_to_action("c3")) == "c3 is already filled: a trap goes on an empty cell"
    assert game.why_illegal(N6 + 3) == "now set a trap on an empty cell or choose no-trap"
    do(game, "no-trap")
    assert game.why_illegal(N6 + 6) == "now fill a legal cell"
    assert game.why_illegal(0) == "that cell touches no filled cell"
