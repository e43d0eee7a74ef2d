"""Uzor through PettingZoo; hidden information; invariants over thousands of random games."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import uzor_v0
from envs.uzor.observer import SLOT, UzorObserver
from envs.core.game import draw_outcome
from envs.uzor.rules import COPIES, EMPTY, IDLE_LIMIT, OVER, STONE, TYPES, UzorGame
from tests.uzor.util import dealt, step


def test_pettingzoo_api_seed_and_render():
    api_test(uzor_v0.env(), num_cycles=200)
    seed_test(uzor_v0.env, num_cycles=200)
    render_test(uzor_v0.env)


def test_spaces_follow_the_page():
    env = uzor_v0.raw_env()
    assert env.action_space("player_0").n == 5 * 21 * 21 + 27 == 2232
    env9 = uzor_v0.raw_env(board_size=9)
    assert env9.action_space("player_1").n == 5 * 81 + 27


# ----- hidden information ------------------------------------------------------------------------

def _position(seed: int, steps: int) -> UzorGame:
    """A game after ``steps`` random player actions (chance by its odds)."""
    rng = random.Random(seed + 100)
    game = dealt({}, seed)
    for _ in range(steps):
        if game.is_terminal():
            break
        step(game, rng.choice(game.legal_actions()), rng)
    return game


@pytest.mark.parametrize("seed", range(6))
def test_the_opponents_goal_never_reaches_the_observation_and_no_supply_order_is_kept(seed):
    # (the face-down supply has no order in the state since each draw became a chance node)
    game = _position(seed, 20 + 7 * seed)
    assert isinstance(game.snapshot()["state"]["facedown"], list) and "supply" not in game.snapshot()["state"]
    viewer = game.to_move
    other = 1 - viewer
    twin = game.clone()
    twin.goals[other] = next(g for g in range(15) if g not in game.goals)
    observer = UzorObserver(game.options)
    rng = random.Random(seed)
    for _ in range(40):
        if game.is_terminal():
            break
        a, b = observer.observe(game, viewer), observer.observe(twin, viewer)
        assert a.tobytes() == b.tobytes()
        assert game.legal_actions() == twin.legal_actions()
        action = draw_outcome(game.chance_outcomes(), rng) if game.is_chance_node() else rng.choice(game.legal_actions())
        closing = action - game.geo.close0
        if game.current_player() == other and closing in (game.goals[other], twin.goals[other]):
            break  # the score would show the goal: the information becomes public here
        game.apply(action)
        twin.apply(action)
    # my own goal is in my view: changing it changes what I see
    mine = game.clone()
    mine.goals = [g for g in range(15) if g not in game.goals][:1] + [game.goals[1]]
    assert observer.observe(mine, 0).tobytes() != observer.observe(game, 0).tobytes()


def test_observation_keeps_the_public_facts():
    env = uzor_v0.raw_env()
    env.reset(seed=5)
    rng = random.Random(5)
    observer = env.observer
    for _ in range(300):
        game = env.game
        if game.is_terminal():
            break
        for player in (0, 1):
            seen = observer.decode(observer.observe(game, player))
            assert seen["my_hand"] == game.hands[player]
            assert seen["their_hand"] == game.hands[1 - player]
            assert seen["market"] == game.market
            down = sum(game.facedown)
            assert seen["supply_size"] == down + len(game.discards)
            counts = list(game.facedown)
            for t in game.discards:
                counts[t] += 1
            assert seen["supply_counts"] == counts
            assert seen["supply_faceup"] == [None] * down + game.discards
            assert seen["my_goal"] == game.goals[player]
            assert seen["my_score"] == game.points[player] and seen["their_score"] == game.points[1 - player]
            assert seen["phase"] == ("over" if game.is_terminal() else
                                     ["place", "fork", "take", "discard", "dead_take", "pass"][game.phase])
            assert seen["to_move"] == (game.to_move == player)
            assert seen["last_cell"] == game.last_cell
            assert seen["fork"] == sorted(game.fork)
            assert seen["repeated"] == game.repeated and seen["continued"] == game.continued
            assert seen["idle"] == game.idle
            assert seen["board"] == [v if v < STONE else STONE for v in game.board]
        env.step(rng.choice(game.legal_actions()))


def test_a_discard_shows_face_up_where_it_lies():
    from tests.uzor.util import act, draw, position, tiles

    game = position(draw("Ca", top=4, left=4), tiles("Sr", "Se", "Sm", "Si", "Wr"))
    observer = UzorObserver(game.options)
    act(game, "discard 0", "take 0")  # (and the refill from the face-down supply)
    seen = observer.decode(observer.observe(game, 1))
    assert seen["supply_faceup"][-1] == game.discards[-1] == tiles("Sr")[0]
    assert all(x is None for x in seen["supply_faceup"][:-1])
    vec = observer.observe(game, 1)
    assert vec.min() >= 0.0 and vec.max() <= 1.0 and SLOT == 26


# ----- invariants over random games ----------------------------------------------------------------

def _check_state(game: UzorGame) -> None:
    counts = [0] * TYPES
    for v in game.board:
        if v != EMPTY:
            counts[v % STONE] += 1
    for t in game.hands[0] + game.hands[1] + game.discards + [x for x in game.market if x >= 0]:
        counts[t] += 1
    for t, n in enumerate(game.facedown):
        counts[t] += n
    assert counts == [COPIES] * TYPES, "75 tiles conserved"
    assert all(len(h) <= 5 for h in game.hands)
    recount = [0, 0]
    for player, k, cells in game.closed:
        recount[player] += game.geo.map.points[k] * (2 if game.goals[player] == k else 1)
        assert all(game.board[x] >= STONE for x in cells)
    assert recount == game.points, "scores equal the recount of the closed patterns"
    assert sum(1 for v in game.board if v >= STONE) == sum(len(c) for _, _, c in game.closed)
    on_table = [0] * TYPES
    for v in game.board:
        if v != EMPTY:
            on_table[v % STONE] += 1
    assert game.on_table == on_table
    assert game.outside_motif == [15 - sum(on_table[m * 5:m * 5 + 5]) for m in range(5)]
    assert game.outside_colour == [15 - sum(on_table[c::5]) for c in range(5)]


@pytest.mark.parametrize("size, games", [(21, 1500), (9, 500)])
def test_thousands_of_random_games_keep_the_invariants(size, games):
    options = UzorGame.resolve_options({"board_size": size})
    longest = UzorGame.max_game_length_for(options)
    rng = random.Random(size)
    ends = {"idle": 0, "stuck": 0}
    for g in range(games):
        game = UzorGame(options)
        steps = 0
        while not game.is_terminal():
            legal = game.legal_actions()
            assert legal, "a live game always has a legal action"
            if game.is_chance_node():
                outcomes = game.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and [o for o, _ in outcomes] == legal
                game.apply(draw_outcome(outcomes, rng))
                continue
            game.apply(rng.choice(legal))
            steps += 1
            assert steps <= longest, "the game ends within max_game_length_for"
            if g % 50 == 0:
                _check_state(game)
        _check_state(game)
        assert game.phase == OVER and game.returns() in ([1, -1], [-1, 1], [0, 0])
        acc = game.acceptance()
        stuck = not any(acc[t] for t in range(TYPES) if game.on_table[t] < COPIES)
        assert stuck or game.idle >= IDLE_LIMIT
        ends["stuck" if stuck else "idle"] += 1
    assert ends["stuck"] > 0


def test_random_games_through_the_env_keep_masks_honest_and_snapshots_exact():
    env = uzor_v0.raw_env(board_size=11)
    rng = random.Random(3)
    for seed in range(4):
        env.reset(seed=seed)
        while not env.game.is_terminal():
            acting = env.agent_selection
            for agent in env.agents:
                mask = env.observe(agent)["action_mask"]
                legal = set(np.flatnonzero(mask).tolist())
                if agent == acting:
                    assert legal == set(env.game.legal_actions())
                    for a in rng.sample(range(mask.size), 30):
                        assert (env.why_illegal(a) is None) == (a in legal)
                else:
                    assert not legal
            if rng.random() < 0.05:
                copy = uzor_v0.raw_env(board_size=11)
                copy.restore(json.loads(json.dumps(env.snapshot())))
                assert copy.snapshot() == env.snapshot()
            env.step(rng.choice(env.game.legal_actions()))


def test_pictures_show_no_secret_goal_and_name_the_state():
    env = uzor_v0.raw_env(render_mode="ansi")
    env.reset(seed=9)
    rng = random.Random(9)
    for _ in range(70):
        env.step(rng.choice(env.game.legal_actions()))
    twin = env.game.clone()
    twin.goals = [g for g in range(15) if g not in env.game.goals][:2]
    from envs.uzor import render

    assert render.ansi(env.game) == render.ansi(twin)
    assert np.array_equal(render.rgb(env.game), render.rgb(twin))
    text = env.render()
    assert "market" in text and "player_0" in text and "Line-3" in text
    image = render.rgb(env.game)
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8


def test_scripted_options_survive_snapshot_json_restore():
    import copy as _copy

    from envs.uzor.patterns import STANDARD_MAP
    from tests.uzor.test_rules import order_of, scripted_order

    patterns = _copy.deepcopy(STANDARD_MAP)
    patterns[14]["points"] = 11
    options = {"board_size": 13, "tiles": order_of(scripted_order(5)), "goals": [4, 9], "patterns": patterns}
    env = uzor_v0.raw_env(**options)
    env.reset(seed=1)
    rng = random.Random(2)
    for _ in range(40):
        env.step(rng.choice(env.game.legal_actions()))
    text = json.dumps(env.snapshot())
    copy = uzor_v0.raw_env(**options)
    copy.restore(json.loads(text))
    assert copy.snapshot() == json.loads(text)
    while not env.game.is_terminal():
        action = rng.choice(env.game.legal_actions())
        env.step(action)
        copy.step(action)
    assert copy.game.scores() == env.game.scores()


def test_same_seed_same_game():
    def trajectory(seed):
        env = uzor_v0.raw_env()
        env.reset(seed=seed)
        rng = random.Random(0)
        out = []
        while not env.game.is_terminal():
            action = rng.choice(env.game.legal_actions())
            out.append(action)
            env.step(action)
        return out, env.game.scores(), env.game.goals, env.history

    assert trajectory(17) == trajectory(17)
    assert trajectory(17) != trajectory(18)
