"""Determinization (envs/fill/sampling.py): full states drawn from one seat's observation.

Positions come from seeded random games under several option sets (the default, traps, gems,
the heaviest 8×8 strict set, clocks on one seat, a long gem script). The driving policy skips
traps and tokens now and then and sometimes fills the opponent's trapped cell, so that every
kind of trap stock, sprung traps and traps on filled cells occur.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import numpy as np
import pytest

from envs import fill_v0
from envs.core.game import SnapshotError, draw_outcome
from envs.fill.observer import FillObserver
from envs.fill.rules import (
    FILL, FILL2, NO_TRAP, OVER, RECHARGE, SEED, STAY, TOKEN, TRAP_PHASE, FillGame, bits,
)
from envs.fill.hidden import EXTRA_SET, NO_SET, REGULAR_SET, stock_pattern, trap_stocks
from envs.fill.sampling import complete_snapshot, hidden_possibilities, sampler

LONG_SCRIPT = [(c, k) for c, k in zip((3, 9, 14, 20, 27, 33, 30), ("trap", "double", "trap", "pass", "trap", "trap", "double"))]
OPTION_SETS = {
    "default": ({}, 14),
    "traps": ({"traps": True}, 14),
    "traps+gems": ({"traps": True, "gems": True}, 16),
    "8x8 strict traps+rocks+gems": ({"size": 8, "lines": "strict", "traps": True, "rocks": True, "gems": True}, 8),
    "7x7 off, clock on player_1": (
        {"size": 7, "lines": "off", "traps": True, "gems": True, "time_limit": True, "clocked": ["player_1"]}, 8),
    "gem script, rocks": ({"traps": True, "gems": True, "gem_cells": LONG_SCRIPT, "rocks": True, "rock_cells": [0, 35, 17]}, 10),
}


class TickClock:
    """A clock that advances 0.37 s per reading: exact, reproducible times."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 0.37
        return self.now


def with_clock(options: dict) -> dict:
    return dict(options, clock=TickClock()) if options.get("time_limit") else dict(options)


def choose(game: FillGame, rng: random.Random) -> int:
    """Random play that also skips traps and tokens, and walks into traps now and then."""
    legal, n = game.legal_actions(), game.n
    if game.phase == TRAP_PHASE and rng.random() < 0.4:
        return n + NO_TRAP
    if game.phase == TOKEN and len(legal) > 1 and rng.random() < 0.7:
        return rng.choice(legal[1:])
    trap = game.live_trap[1 - game.to_move]
    if game.phase in (FILL, FILL2) and trap in legal and rng.random() < 0.3:
        return trap
    return rng.choice(legal)


def random_positions(options: dict, games: int, seed: int = 0) -> list[FillGame]:
    """Every position (copies) of ``games`` seeded random games, the finished ones included."""
    resolved = FillGame.resolve_options(with_clock(options))
    out = []
    for index in range(games):
        game = FillGame(resolved)
        chance = random.Random(seed * 7919 + index)  # rocks and gems, as the env draws them
        rng = random.Random(seed * 7919 + index + 1)
        while not game.is_terminal():
            if game.is_chance_node():
                game.apply(draw_outcome(game.chance_outcomes(), chance))
                continue
            out.append(game.clone())
            game.apply(choose(game, rng))
        out.append(game)
    return out


def seat_view(game: FillGame, observer: FillObserver) -> dict:
    """What env.observe(name) returns for the seat to act."""
    seat = game.current_player()
    mask = np.zeros(game.n + 7, np.int8)
    mask[game.legal_actions()] = 1
    return {"observation": observer.observe(game, seat), "action_mask": mask}


def truth_of(game: FillGame) -> tuple:
    """The true hidden items, in hidden_possibilities' terms."""
    opp = 1 - game.to_move
    return (stock_pattern(game.recharge[opp], game.turns[opp]), game.extra[opp], game.live_trap[opp], game.double)


def play_out(game: FillGame, rng: random.Random) -> None:
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
    assert game.returns() in ([1, -1], [-1, 1])


# ----- every sample reproduces the observation; the truth is among the possibilities ----------


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_samples_reproduce_the_observation_and_the_truth_is_possible(name):
    options, games = OPTION_SETS[name]
    positions = [g for g in random_positions(options, games) if not g.is_terminal()]
    observer = FillObserver(positions[0].options)
    rng = random.Random(5)
    seen = Counter()
    for index, game in enumerate(positions):
        seat = game.current_player()
        view = seat_view(game, observer)
        draw = sampler(view, with_clock(options))
        possible = hidden_possibilities(draw)
        assert truth_of(game) in possible, (name, index, truth_of(game))
        for _ in range(3):
            state = draw(rng)
            assert state.current_player() == seat
            assert observer.observe(state, seat).tobytes() == view["observation"].tobytes()
            assert state.legal_actions() == np.flatnonzero(view["action_mask"]).tolist()
            restored = FillGame.from_snapshot(state.snapshot())
            assert observer.observe(restored, seat).tobytes() == view["observation"].tobytes()
            assert truth_of(state) in possible
        if index % 4 == 0:
            play_out(state, rng)
        seen["positions"] += 1
        seen["several possibilities"] += len(possible) > 1
        opp_trap = game.live_trap[1 - seat]
        seen["opponent's trap on a filled cell"] += opp_trap >= 0 and bool(game.filled >> opp_trap & 1)
        seen["opponent holds extra traps"] += game.extra[1 - seat] > 0
        seen["second fill"] += game.phase == FILL2
    assert seen["positions"] >= 300, seen
    if options.get("traps"):
        assert seen["several possibilities"] > seen["positions"] // 2, seen
        assert seen["opponent's trap on a filled cell"] > 0, seen
    if options.get("traps") and options.get("gems"):
        assert seen["opponent holds extra traps"] > 0 and seen["second fill"] > 0, seen


def test_the_interesting_cases_occur_often_enough_to_be_tested():
    """The policy's games hold traps sprung by both sides and both players' extra traps."""
    positions = random_positions(OPTION_SETS["traps+gems"][0], 16)
    owners = {g.last_sprung[1] for g in positions if g.last_sprung}
    assert owners == {0, 1}
    assert {p for g in positions for p in (0, 1) if g.extra[p]} == {0, 1}


# ----- the draws vary and cover what is possible ----------------------------------------------


def second_movers_first_turn(options: dict) -> FillGame:
    """player_0 seeds, player_1 swaps, player_0 fills (maybe trapping first): player_1's turn 1."""
    game = FillGame(FillGame.resolve_options(options), random.Random(0))
    game.apply(14)
    game.apply(game.n + 1)  # SWAP: the seeder moves first
    if game.phase == TRAP_PHASE:
        game.apply(game.n + NO_TRAP)
    game.apply(15)
    return game


def test_second_movers_first_turn_has_exactly_the_possibilities_the_rules_allow():
    game = second_movers_first_turn({"traps": True})
    observer = FillObserver(game.options)
    draw = sampler(seat_view(game, observer), {"traps": True})
    empty = bits(game.geo.full & ~game.filled)
    # no trap, or a regular trap on any empty cell or on one of the two filled cells (the
    # observation does not say which is the seed, and the opponent's fill came after their trap)
    expected = {((0, 0), 0, -1, False)} | {((0, RECHARGE), 0, c, False) for c in empty + [14, 15]}
    assert hidden_possibilities(draw) == expected
    rng = random.Random(1)
    drawn = Counter(truth_of(draw(rng)) for _ in range(4000))
    assert set(drawn) == expected
    assert 0.45 < drawn[((0, 0), 0, -1, False)] / 4000 < 0.55  # uniform over the two stocks first
    seeds = Counter(draw(rng).seed_cell for _ in range(400))
    assert set(seeds) == {14, 15}


def test_first_movers_first_turn_has_nothing_hidden():
    game = FillGame(FillGame.resolve_options({"traps": True, "gems": True}))
    game.apply(20)
    chance = random.Random(2)
    while game.is_chance_node():  # the gems
        game.apply(draw_outcome(game.chance_outcomes(), chance))
    game.apply(game.n + STAY)
    draw = sampler(seat_view(game, FillObserver(game.options)), {"traps": True, "gems": True})
    assert hidden_possibilities(draw) == {((0, 0), 0, -1, False)}


def test_draws_cover_every_possible_stock_in_a_rich_position():
    options = OPTION_SETS["traps+gems"][0]
    positions = [g for g in random_positions(options, 16) if not g.is_terminal()]
    game = max(positions, key=lambda g: len({t[:2] + t[3:] for t in hidden_possibilities(
        sampler(seat_view(g, FillObserver(g.options)), options))}))
    draw = sampler(seat_view(game, FillObserver(game.options)), options)
    possible = hidden_possibilities(draw)
    stocks = {t[:2] + t[3:] for t in possible}
    assert len(stocks) >= 6
    rng = random.Random(3)
    drawn = [truth_of(draw(rng)) for _ in range(6000)]
    assert set(drawn) <= possible
    assert {t[:2] + t[3:] for t in drawn} == stocks
    cells = {t[2] for t in possible if t[2] >= 0}
    assert {t[2] for t in drawn if t[2] >= 0} == cells


def test_trap_stocks_match_every_sequence_of_turns():
    """The enumeration against every history of up to 6 turns (the rules page's recharge and
    extra-trap rules, walked turn by turn)."""
    for budget in (0, 1, 2):
        brute = {point: {} for point in ("start", "before_trap", "after_trap")}
        brute["after_trap"][((0, 0), 0, NO_SET, False)] = 0

        def walk(turn, recharge, extra, used, set_before, last):
            if turn > last:
                return
            pattern = stock_pattern(recharge, turn)
            brute["start"].setdefault((pattern, extra, NO_SET, set_before), turn)
            for gain in (0, 1):
                if gain and (turn < 2 or used == budget):
                    continue
                held = extra + gain
                ready = held > 0 or min(recharge) <= turn
                outcomes = [(list(recharge), held, NO_SET)]
                if ready:
                    brute["before_trap"].setdefault((pattern, held, NO_SET, set_before), turn)
                    if held:
                        outcomes.append((list(recharge), held - 1, EXTRA_SET))
                    else:
                        slot = recharge.index(min(recharge))
                        outcomes.append(([turn + RECHARGE if i == slot else r for i, r in enumerate(recharge)], 0, REGULAR_SET))
                for after, left, how in outcomes:
                    key = (stock_pattern(after, turn), left, how, set_before)
                    brute["after_trap"].setdefault(key, turn)
                    walk(turn + 1, after, left, used + gain, set_before or how != NO_SET, last)

        for last in range(1, 7):  # shortest histories first, so setdefault keeps the least turn
            walk(1, [0, 0], 0, 0, False, last)
        for last in range(0, 7):
            tables = trap_stocks(budget, last)
            for point, table in brute.items():
                assert tables[point] == {k: t for k, t in table.items() if t <= last}, (budget, last, point)
    assert set(trap_stocks(0, 3)["after_trap"]) >= {((1, 2), 0, NO_SET, True), ((1, RECHARGE), 0, REGULAR_SET, True)}


# ----- reproducible, and blind to the true hidden items ------------------------------------------


def rich_position(options: dict, seed: int = 0) -> FillGame:
    """A mid-game position where the opponent has a live trap."""
    for game in random_positions(options, 12, seed):
        if not game.is_terminal() and game.live_trap[1 - game.to_move] >= 0 and game.filled.bit_count() > 8:
            return game
    raise AssertionError("no position with a live opponent trap")


def test_sampling_is_reproducible_from_the_rng_seed():
    options = {"traps": True, "gems": True}
    game = rich_position(options)
    view = seat_view(game, FillObserver(game.options))
    draw_a, draw_b = sampler(view, options), sampler(view, options)
    rng_a, rng_b = random.Random(9), random.Random(9)
    a = [draw_a(rng_a).snapshot() for _ in range(50)]
    b = [draw_b(rng_b).snapshot() for _ in range(50)]
    assert a == b
    other = random.Random(10)
    assert a != [draw_a(other).snapshot() for _ in range(50)]


def test_samples_do_not_depend_on_the_true_hidden_items():
    options = {"traps": True, "gems": True}
    game = rich_position(options, seed=1)
    seat, opp = game.to_move, 1 - game.to_move
    variant = game.clone()
    empty = [c for c in bits(game.geo.full & ~(game.filled | game.rock)) if c != game.live_trap[opp]]
    variant.live_trap[opp] = empty[len(empty) // 2]
    variant.extra[opp] += 1
    variant.recharge[opp] = [0, variant.turns[opp] + 2]
    views = []
    for state in (game, variant):
        env = fill_v0.raw_env(**options)
        env.reset(seed=0)
        env.restore(state.snapshot())
        views.append(env.observe(f"player_{seat}"))
    assert views[0]["observation"].tobytes() == views[1]["observation"].tobytes()
    assert views[0]["action_mask"].tobytes() == views[1]["action_mask"].tobytes()
    draws = [sampler(view, options) for view in views]
    rngs = [random.Random(4), random.Random(4)]
    for _ in range(30):
        assert draws[0](rngs[0]).snapshot() == draws[1](rngs[1]).snapshot()


def test_a_sample_holding_the_true_hidden_items_plays_on_exactly_like_the_truth():
    """What the observation does not record (turn numbers, token collection turns, the seed)
    is inferred so that nothing either seat sees later differs."""
    options = {"traps": True, "gems": True}
    checked = collected_this_turn = 0
    positions = random_positions(options, 12, seed=3)  # one second fill after collecting a token
    for index, game in enumerate(positions):
        if game.is_terminal() or game.phase == SEED or (index % 5 and game.phase != FILL2):
            continue
        seat, opp = game.to_move, 1 - game.to_move
        observer = FillObserver(game.options)
        draw = sampler(seat_view(game, observer), options)
        fresh_now = sorted((k, left) for k, left, born in game.tokens[seat] if born == game.turns[seat])
        for template, _ in draw.prepared:
            sample = template.clone()
            if (truth_of(sample)[:2] + (sample.double,) != truth_of(game)[:2] + (game.double,)
                    or sample.extra[seat] != game.extra[seat]
                    or fresh_now != sorted((k, left) for k, left, born in sample.tokens[seat] if born == sample.turns[seat])):
                continue
            sample.live_trap[opp] = game.live_trap[opp]
            truth, rng = game.clone(), random.Random(checked)
            while not truth.is_terminal():
                for p in (0, 1):
                    assert observer.observe(sample, p).tobytes() == observer.observe(truth, p).tobytes()
                assert sample.legal_actions() == truth.legal_actions()
                action = rng.choice(truth.legal_actions())
                truth.apply(action)
                sample.apply(action)
            assert sample.is_terminal() and sample.returns() == truth.returns()
            checked += 1
            collected_this_turn += bool(fresh_now)
            break
        else:
            raise AssertionError("no prepared state holds the true hidden items")
    assert checked > 50 and collected_this_turn > 0


def test_extra_traps_the_observation_clips_are_drawn_up_to_what_the_gems_allow():
    """With a long script of Trap gems a seat may hold more than 3 extra traps, shown as 3."""
    cells = [2, 5, 12, 17, 22, 30, 33]
    options = {"traps": True, "gems": True, "gem_cells": [(c, "trap") for c in cells]}
    # both regular traps ready and none set this turn: holding 4 extras is then possible (a
    # regular trap set recently would mean no extra was held then, extras being spent first)
    game = next(g for g in random_positions(options, 6, seed=8) if g.phase == FILL and g.turns[g.to_move] >= 6
                and g.recharge_counts(g.to_move) == [] and g.live_trap[g.to_move] < 0)
    seat = game.to_move
    game.extra[seat] = 4
    observer = FillObserver(game.options)
    view = seat_view(game, observer)
    draw = sampler(view, options)
    unseen = len(cells) - len(game.gems) - sum(len(game.tokens[p]) for p in (0, 1))
    rng = random.Random(0)
    extras = Counter()
    for _ in range(300):
        state = draw(rng)
        assert observer.observe(state, seat).tobytes() == view["observation"].tobytes()
        extras[state.extra[seat]] += 1
    assert set(extras) == set(range(3, unseen + 1)) and unseen >= 4


# ----- chance, clocks, bad input ------------------------------------------------------------------


def test_before_the_seed_a_sample_holds_no_future_chance():
    """The gems are chance nodes after the seed: a state sampled before it reaches the same
    gem nodes as the true game (nothing about them is drawn or stored in advance)."""
    options = {"gems": True, "traps": True}
    game = FillGame(FillGame.resolve_options(options))
    draw = sampler(seat_view(game, FillObserver(game.options)), options)
    rng = random.Random(0)
    truth = game.clone()
    truth.apply(14)
    for _ in range(5):
        state = draw(rng)
        assert "rng" not in state.snapshot()["state"]
        state.apply(14)
        assert state.is_chance_node() and state.chance_outcomes() == truth.chance_outcomes()


def test_clocks_show_the_observed_whole_seconds():
    options, _ = OPTION_SETS["7x7 off, clock on player_1"]
    positions = [g for g in random_positions(options, 2, seed=3) if not g.is_terminal() and g.phase != SEED]
    for game in positions[5::7]:
        seat = game.to_move
        draw = sampler(seat_view(game, FillObserver(game.options)), with_clock(options))
        state = draw(random.Random(0))
        assert state.time_left[1] == np.ceil(game.time_left[1]) and state.time_left[0] == game.time_left[0]
        assert state.shown_time[seat] == state.time_left[seat]


def test_observations_no_game_can_show_raise_value_error():
    options = {"traps": True, "gems": True}
    game = rich_position(options)
    observer = FillObserver(game.options)
    view = seat_view(game, observer)
    vector = view["observation"]
    with pytest.raises(ValueError, match="entries"):
        sampler(vector[:-1], options)
    with pytest.raises(ValueError, match="traps=True"):
        sampler(view, {"gems": True})
    with pytest.raises(ValueError, match="not the one to act|not of the seat to act"):
        sampler({"observation": observer.observe(game, 1 - game.to_move), "action_mask": np.zeros_like(view["action_mask"])}, options)
    with pytest.raises(ValueError, match="not of the seat to act"):
        sampler(observer.observe(game, 1 - game.to_move), options)
    broken = vector.copy()
    broken[observer.POISONED + next(iter(bits(game.legal_mask())))] = 1.0  # a legal cell marked poisoned too
    with pytest.raises(ValueError, match="POISONED|LEGAL"):
        sampler(broken, options)
    four_in_row = vector.copy()
    four_in_row[observer.FILLED:observer.FILLED + 3] = 1.0  # three filled across: no legal board
    with pytest.raises(ValueError, match="cannot come from"):
        sampler(four_in_row, options)
    wrong_mask = dict(view, action_mask=view["action_mask"].copy())
    wrong_mask["action_mask"][game.n + NO_TRAP] ^= 1
    with pytest.raises(ValueError, match="mask"):
        sampler(wrong_mask, options)
    # three gems on the board and a token: one more than random gems give
    over = next(g for g in random_positions(options, 4) if g.phase in (TOKEN, TRAP_PHASE, FILL) and len(g.gems) == 3)
    too_many = observer.observe(over, over.to_move)
    too_many[observer.THEIR_TOKENS + 1] = 1.0  # a Pass token
    too_many[observer.THEIR_TOKENS + 3] = 5 / 8
    with pytest.raises(ValueError, match="more than the 3"):
        sampler(too_many, options)
    finished = random_positions(options, 1)[-1]
    with pytest.raises(ValueError):
        sampler(observer.observe(finished, 0), options)


# ----- complete_snapshot ----------------------------------------------------------------------------


def strip_hidden(snapshot: dict, seat: int) -> dict:
    partial = copy.deepcopy(snapshot)
    state = partial["state"]
    for key in ("recharge", "extra_traps", "live_trap"):
        state[key][1 - seat] = None
    return partial


@pytest.mark.parametrize("name", ["traps+gems", "8x8 strict traps+rocks+gems", "gem script, rocks"])
def test_complete_snapshot_round_trips(name):
    options, games = OPTION_SETS[name]
    positions = random_positions(options, games // 2, seed=4)
    observer = FillObserver(positions[0].options)
    rng = random.Random(6)
    kept = ("rocks", "filled", "seed", "choice", "phase", "to_move", "gems", "tokens", "turns", "last_sprung",
            "double", "winner", "end_reason", "time_left", "shown_time")
    phases = set()
    for index, game in enumerate(positions):
        snapshot = game.snapshot()
        assert complete_snapshot(snapshot, index % 2, rng) == snapshot  # the true items are possible
        for seat in (0, 1):
            completed = complete_snapshot(strip_hidden(snapshot, seat), seat, rng)
            restored, truth = FillGame.from_snapshot(completed), FillGame.from_snapshot(snapshot)
            assert observer.observe(restored, seat).tobytes() == observer.observe(truth, seat).tobytes()
            assert restored.legal_actions() == truth.legal_actions()
            for key in kept:
                assert completed["state"][key] == snapshot["state"][key], key
            for key in ("recharge", "extra_traps", "live_trap"):
                assert completed["state"][key][seat] == snapshot["state"][key][seat]
            phases.add((game.phase, game.to_move == seat))
            if index % 9 == 0:
                play_out(restored, rng)
    covered = (TOKEN, TRAP_PHASE, FILL, FILL2) if name == "traps+gems" else (TOKEN, TRAP_PHASE, FILL)
    assert {(p, mine) for p in covered for mine in (True, False)} <= phases
    assert (OVER, True) in phases and (SEED, True) in phases


def test_complete_snapshot_draws_only_what_is_omitted():
    options = {"traps": True, "gems": True}
    game = rich_position(options, seed=5)
    seat, opp = game.to_move, 1 - game.to_move
    partial = strip_hidden(game.snapshot(), seat)
    partial["state"]["extra_traps"][opp] = game.extra[opp]
    partial["state"]["recharge"][opp] = list(game.recharge[opp])
    rng = random.Random(0)
    cells = set()
    for _ in range(200):
        completed = complete_snapshot(partial, seat, rng)
        assert completed["state"]["extra_traps"][opp] == game.extra[opp]
        assert completed["state"]["recharge"][opp] == game.recharge[opp]
        cells.add(completed["state"]["live_trap"][opp])
    set_now = RECHARGE in stock_pattern(game.recharge[opp], game.turns[opp])
    if set_now:  # a regular trap set on their last turn: it lies somewhere, never nowhere
        assert -1 not in cells and len(cells) > 10
    assert partial["state"]["live_trap"][opp] is None  # the input is not modified


def test_complete_snapshot_errors_name_the_problem():
    options = {"traps": True, "gems": True}
    game = rich_position(options, seed=6)
    seat, opp = game.to_move, 1 - game.to_move
    snapshot = game.snapshot()
    rng = random.Random(0)

    missing = strip_hidden(snapshot, seat)
    del missing["state"]["filled"]
    with pytest.raises(SnapshotError, match="'filled' is missing"):
        complete_snapshot(missing, seat, rng)
    own = strip_hidden(snapshot, seat)
    own["state"]["live_trap"][seat] = None
    with pytest.raises(SnapshotError, match="'live_trap' lacks player_%d's own entry" % seat):
        complete_snapshot(own, seat, rng)
    public = strip_hidden(snapshot, seat)
    public["state"]["tokens"] = None
    with pytest.raises(SnapshotError, match="'tokens' is null"):
        complete_snapshot(public, seat, rng)
    ahead = strip_hidden(snapshot, seat)
    ahead["state"]["recharge"][opp] = [0, game.turns[opp] + 5]
    with pytest.raises(SnapshotError, match="more than 3"):
        complete_snapshot(ahead, seat, rng)
    filled_long_ago = strip_hidden(snapshot, seat)
    filled_long_ago["state"]["live_trap"][opp] = snapshot["state"]["seed"]
    with pytest.raises(SnapshotError, match="impossible"):
        complete_snapshot(filled_long_ago, seat, rng)
    too_many = strip_hidden(snapshot, seat)
    too_many["state"]["tokens"][opp] = too_many["state"]["tokens"][opp] + [["pass", 4, 1]] * 4
    with pytest.raises(SnapshotError, match="more than the 3"):
        complete_snapshot(too_many, seat, rng)
    with pytest.raises(ValueError, match="seat"):
        complete_snapshot(strip_hidden(snapshot, seat), 2, rng)

    no_gems = rich_position({"traps": True}, seed=6)
    partial = strip_hidden(no_gems.snapshot(), no_gems.to_move)
    partial["state"]["extra_traps"][1 - no_gems.to_move] = 2  # extra traps need Trap gems
    with pytest.raises(SnapshotError, match="no trap stock"):
        complete_snapshot(partial, no_gems.to_move, rng)
