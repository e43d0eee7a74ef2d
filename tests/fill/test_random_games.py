"""Invariants over thousands of random games under every option combination."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from envs.core.game import CHANCE, draw_outcome
from envs.fill.rules import FILL, FILL2, OVER, TOKEN_LIFE, TRAP_PHASE, FillGame, bits

COMBOS = list(itertools.product((6, 7, 8), ("orthogonal", "strict", "off"), (False, True), (False, True), (False, True)))


class TickClock:
    def __init__(self, step):
        self.now, self.step = 0.0, step

    def __call__(self):
        self.now += self.step
        return self.now


def check_invariants(game: FillGame, deep: bool) -> None:
    full = game.geo.full
    legal = game.legal_mask()
    assert not legal & game.poison and not legal & (game.filled | game.rock)
    assert not game.poison & (game.filled | game.rock)
    if game.phase in (FILL, FILL2):
        assert legal and game.legal_actions() == bits(legal)
    for p in (0, 1):
        for kind, left, born in game.tokens[p]:
            assert 1 <= left <= TOKEN_LIFE[game.options["size"]]
            assert kind in ((0, 1, 2) if game.options["traps"] else (0, 1))
        assert game.extra[p] >= 0 and game.ready_regular(p) + len(game.recharge_counts(p)) == 2
        assert all(1 <= c <= 3 for c in game.recharge_counts(p))
    if not game.options["traps"]:
        assert game.live_trap == [-1, -1] and game.phase != TRAP_PHASE
    for gem in game.gems:
        assert not (game.filled | game.rock) >> gem & 1
        if deep:
            assert game.can_still_be_filled(gem)
    assert full >= legal


def check_chance_node(game: FillGame) -> None:
    """A chance node: its outcomes are exactly the actions why_illegal accepts, with
    probabilities that sum to 1, all equal (uniform draws) or a single scripted one."""
    outcomes = game.chance_outcomes()
    ids = [o for o, _ in outcomes]
    assert game.current_player() == CHANCE and sorted(ids) == game.legal_actions() and len(set(ids)) == len(ids)
    top = FillGame.max_chance_outcomes_for(game.options)
    assert ids and all(0 <= o < top for o in ids)
    assert ids == [a for a in range(top) if game.why_illegal(a) is None] or len(ids) == 1
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    assert len({p for _, p in outcomes}) == 1 and outcomes[0][1] == 1.0 / len(ids)
    for o in ids:
        assert game.string_to_action(game.action_to_string(o)) == o


@pytest.mark.parametrize("size, lines, traps, rocks, gems", COMBOS)
def test_random_games_keep_the_invariants(size, lines, traps, rocks, gems):
    options = dict(size=size, lines=lines, traps=traps, rocks=rocks, gems=gems)
    resolved = FillGame.resolve_options(options)
    n = size * size
    longest = FillGame.max_game_length_for(resolved)
    for seed in range(30):
        game = FillGame(resolved)
        rng = random.Random(1000 + seed)
        deep = seed < 3
        steps = 0
        while not game.is_terminal():
            check_invariants(game, deep)
            if game.is_chance_node():
                if deep:
                    check_chance_node(game)
                game.apply(draw_outcome(game.chance_outcomes(), rng))
                continue
            legal = game.legal_actions()
            assert legal == [a for a in range(n + 7) if game.why_illegal(a) is None]
            if deep and game.phase in (FILL, FILL2):
                # the mask never includes poisoned cells; every legal cell is fillable now
                assert all(game.fill_problem(c) is None for c in legal)
            game.apply(rng.choice(legal))
            steps += 1
            assert steps < 8 * n + 20, "game length out of bounds"
        assert steps <= longest
        assert game.phase == OVER and sorted(game.scores()) == [0, 1]
        assert game.rock.bit_count() == (size - 3 if rocks else 0)
        loser = 1 - game.winner
        assert game.end_reason == "no legal cell"
        assert game.legal_mask() == 0 and game.to_move == loser  # the player to move had no cell
        assert game.gems == {}  # no cell can be filled, so every gem shattered


@pytest.mark.parametrize("options", [
    {}, {"traps": True, "gems": True}, {"traps": True, "rocks": True, "gems": True, "size": 8, "lines": "strict"},
    {"gems": True, "lines": "off", "size": 7},
])
def test_snapshot_json_restore_and_clone_continue_identically(options):
    resolved = FillGame.resolve_options(options)
    for seed in range(15):
        game = FillGame(resolved, random.Random(seed))
        rng = random.Random(seed)
        cut = rng.randrange(0, 30)
        for _ in range(cut):
            if game.is_terminal():
                break
            game.apply(rng.choice(game.legal_actions()))
        restored = FillGame.from_snapshot(json.loads(json.dumps(game.snapshot())))
        copy = game.clone()
        assert restored.snapshot() == game.snapshot() == copy.snapshot()
        moves = random.Random(seed + 7)
        while not game.is_terminal():
            a = moves.choice(game.legal_actions())
            for g in (game, restored, copy):
                g.apply(a)
        assert restored.snapshot() == game.snapshot() == copy.snapshot()
        assert restored.scores() == game.scores()


def test_clone_is_independent():
    game = FillGame(FillGame.resolve_options({"gems": True, "traps": True}), random.Random(4))
    rng = random.Random(4)
    for _ in range(6):
        game.apply(rng.choice(game.legal_actions()))
    before = game.snapshot()
    copy = game.clone()
    while not copy.is_terminal():
        copy.apply(rng.choice(copy.legal_actions()))
    assert game.snapshot() == before


def test_clone_before_the_seed_reaches_the_same_gem_chance_nodes():
    game = FillGame(FillGame.resolve_options({"gems": True}))
    copy = game.clone()
    game.apply(14)
    copy.apply(14)
    assert game.is_chance_node() and game.chance_outcomes() == copy.chance_outcomes()
    first = game.chance_outcomes()[5][0]
    game.apply(first)
    assert copy.gems == {} and copy.chance_outcomes() != game.chance_outcomes()


def test_clocked_random_games_end_by_time_or_board():
    reasons = set()
    for seed in range(40):
        clock = TickClock(step=(seed % 5) * 2 + 0.5)
        game = FillGame(FillGame.resolve_options({"time_limit": True, "clock": clock, "traps": True}), random.Random(seed))
        rng = random.Random(seed)
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
        reasons.add(game.end_reason)
        if game.end_reason == "time":
            assert game.time_left[1 - game.winner] == 0.0
    assert reasons == {"time", "no legal cell"}


def test_engine_restore_keeps_its_clock_and_charges_nobody_for_the_gap():
    clock = TickClock(step=0.0)
    options = FillGame.resolve_options({"time_limit": True, "clock": clock})
    game = FillGame(options, random.Random(0))
    clock.now = 10.0
    game.apply(14)  # the seed took 10 s
    snap = json.loads(json.dumps(game.snapshot()))
    assert snap["state"]["time_left"] == [110.0, 120.0]
    clock.now = 500.0  # time passes while the game is saved
    game.restore(snap)
    assert game.clock is clock
    clock.now = 503.0
    game.apply(game.n)  # stay: 3 s of player_1's time
    assert game.time_left == [110.0, 117.0]
