"""Knot through PettingZoo: the API suites for 2–4 players, observations, hidden information."""

from __future__ import annotations

import functools
import json
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import knot_v0
from envs.knot.observer import KnotObserver
from envs.knot.rules import KnotGame
from tests.knot.helpers import act, position


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_seed_and_render(players):
    api_test(knot_v0.env(players=players), num_cycles=400)
    seed_test(functools.partial(knot_v0.env, players=players), num_cycles=300)
    render_test(functools.partial(knot_v0.env, players=players))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spaces_follow_the_encoding(players):
    env = knot_v0.raw_env(players=players)
    env.reset(seed=0)
    size = 6 if players == 2 else 8
    S = size * size
    assert env.possible_agents == [f"player_{i}" for i in range(players)]
    assert env.action_space("player_0").n == 16 * S + 4
    assert env.observation_space("player_0")["observation"].shape == (S * (24 * players + 28) + 8 * players + 17,)


def play_random(env, rng, steps):
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent]:
            return
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_raw_env_raises_the_reason_and_wrapped_env_ends_the_game():
    env = knot_v0.raw_env()
    env.reset(seed=1)
    end = 16 * 36
    with pytest.raises(ValueError, match="must place at least one strand"):
        env.step(end)
    wrapped = knot_v0.env()
    wrapped.reset(seed=1)
    with pytest.warns(UserWarning, match="must place"):
        wrapped.step(end)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards["player_0"] == -1


def test_decode_names_what_the_engine_holds_relative_to_the_observer():
    env = knot_v0.raw_env(players=3)
    env.reset(seed=3)
    play_random(env, random.Random(3), 90)
    game = env.game
    observer = env.observer
    for seat in range(3):
        d = observer.decode(env.observe(f"player_{seat}"))
        rel = lambda p: (p - seat) % 3  # noqa: E731
        assert d["strands"] == sorted((sq, k, t, rel(o), c) for sq, k, t, o, c in game.strands())
        assert d["hand"] == game.hands[seat]
        assert d["market"] == game.market
        assert d["pile"] == game.pile_size()
        assert d["scores"] == [game.scores()[(seat + j) % 3] for j in range(3)]
        assert d["hand_sizes"] == [sum(game.hands[(seat + j) % 3]) for j in range(3)]
        assert d["known"][1:] == [game.known[(seat + j) % 3] for j in (1, 2)]
        assert d["ends"] == [game.ends[(seat + j) % 3] for j in range(3)]
        assert d["turn"] == game.turn and d["limit"] == game.limit()
        assert d["phase"] == ("place", "draw", "over")[game.phase]
        acting = game.current_player() == seat and game.phase == 0
        assert d["growable"] == (game.growable if acting else set())
        my_turn = game.current_player() == seat
        assert d["placed"] == (game.placed if my_turn else 0)
        assert d["actor"] == rel(game.current_player())
        for sq in range(game.n):
            assert d["blocked"][sq] == [s for s in range(4) if game.blocked_sides(sq) >> s & 1]


def _swap_hidden(snapshot, opponent, rng):
    """Swap one of the opponent's not-publicly-known strands with a pile strand of another kind
    (the pile holds counts per kind); returns whether a swap was possible."""
    state = snapshot["state"]
    hand, known, pile = state["hands"][opponent], state["known"][opponent], state["pile"]
    pairs = [(k, j) for k in range(4) if hand[k] > known[k] for j in range(4) if j != k and pile[j]]
    if not pairs:
        return False
    k, j = rng.choice(pairs)
    hand[k] -= 1
    hand[j] += 1
    pile[j] -= 1
    pile[k] += 1
    return True


@pytest.mark.parametrize("players", [2, 4])
def test_observations_do_not_change_when_an_opponents_hidden_items_change(players):
    rng = random.Random(players)
    checked = 0
    for seed in range(12):
        env = knot_v0.raw_env(players=players)
        env.reset(seed=seed)
        play_random(env, rng, rng.randrange(5, 120))
        if any(env.terminations.values()):
            continue
        for seat in range(players):
            name = f"player_{seat}"
            base = env.observe(name)
            for opponent in range(players):
                if opponent == seat:
                    continue
                snap = json.loads(json.dumps(env.snapshot()))
                swapped = _swap_hidden(snap, opponent, rng)
                other = knot_v0.raw_env(players=players)
                other.reset(seed=0)
                other.restore(snap)
                assert other.game.hands != env.game.hands or not swapped
                seen = other.observe(name)
                assert np.array_equal(seen["observation"], base["observation"])
                assert np.array_equal(seen["action_mask"], base["action_mask"])
                checked += 1
    assert checked > 20


def test_face_up_takes_stay_known_in_the_opponents_observation():
    g = position([("cut/ne@c3", 0)], hands=[[1, 0, 0, 0], [1, 1, 1, 1]], market=(2, 3), pile=[0] * 6)
    g.apply(g.string_to_action("cut/sw@c3"))
    g.apply(g.string_to_action("end"))
    act(g, "draw 0")  # a Hook, face up
    act(g, "draw pile")
    observer = KnotObserver({"players": 2, "size": 6})
    seen_by_1 = observer.decode(observer.observe(g, 1))
    assert seen_by_1["known"][1] == [0, 0, 1, 0]
    assert seen_by_1["hand_sizes"][1] == sum(g.hands[0])


def test_observation_is_in_the_box_and_the_mask_only_for_the_actor():
    env = knot_v0.raw_env(players=4)
    env.reset(seed=9)
    rng = random.Random(9)
    space = env.observation_space("player_0")["observation"]
    for _ in range(200):
        if any(env.terminations.values()):
            break
        for agent in env.agents:
            obs = env.observe(agent)
            assert space.contains(obs["observation"])
            if agent != env.agent_selection:
                assert not obs["action_mask"].any()
        play_random(env, rng, 1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pictures(players):
    env = knot_v0.raw_env(players=players, render_mode="rgb_array")
    env.reset(seed=players)
    play_random(env, random.Random(players), 150)
    image = env.render()
    size = env.game.size
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > size * 64 and image.shape[1] >= size * 64
    # every player's colour shows up as a band
    from envs.core.render import SEAT_COLOURS

    flat = image.reshape(-1, 3)
    for p in range(players):
        if env.game.own_bb[p]:
            assert (np.abs(flat.astype(int) - np.array(SEAT_COLOURS[p])).sum(axis=1) < 200).any()
    text = knot_v0.raw_env(players=players, render_mode="ansi")
    text.reset(seed=players)
    board = text.render()
    assert board.splitlines()[1].strip().startswith(".") and "player_0: 0 banked" in board and "legend:" in board


def test_benchmark_options_are_valid():
    for label, options in knot_v0.GAME.benchmark_options.items():
        KnotGame.resolve_options(dict(options))
    players = {o.get("players", 2) for o in knot_v0.GAME.benchmark_options.values()}
    assert {2, 4} <= players


def test_the_picture_weaves_the_odd_port_over_at_every_inside_crossing():
    from envs.core.render import SEAT_COLOURS
    from envs.knot import render

    def pale(colour):
        return np.array([int(c + (255 - c) * 0.45) for c in colour])

    # Two diagonals cross at the midpoint between c2 and c3: c3 N-east / c2 S-west (half 1,
    # odd ports) and c3 N-west / c2 S-east (half 0, even ports). The odd one is drawn on top,
    # whoever owns it.
    for odd_owner in (0, 1):
        even_owner = 1 - odd_owner
        g = position([
            ("cut/ne@c3", odd_owner), ("cut/sw@c2", odd_owner),
            ("hook/ne@c3", even_owner), ("cut/se@c2", even_owner),
        ])
        image = render.rgb(g, cell=64).astype(int)
        ox, oy = render.board_origin(64)
        x, y = ox + 2 * 64 + 32, oy + 2 * 64  # the midpoint of c3's N side
        pixel = image[y, x]
        assert np.abs(pixel - pale(SEAT_COLOURS[odd_owner])).sum() < 30, pixel


def test_the_picture_marks_open_ends_and_sets_closed_ribbons_apart():
    from envs.core.render import SEAT_COLOURS
    from envs.knot import render

    open_board = position([("run/n@a1", 0), ("run/s@a1", 0)])
    closed_board = position([("run/n@a1", 0), ("run/s@a1", 0), ("flip/w@b1", 0)])
    a = render.rgb(open_board, cell=64).astype(int)
    b = render.rgb(closed_board, cell=64).astype(int)
    # a1's open ends face b1 through a1's E crossing: white dots ringed in the owner's colour
    # just past the midpoint (64, 32 from the board's corner); none once the ribbon is closed
    ox, oy = render.board_origin(64)
    spot = (slice(oy + 22, oy + 42), slice(ox + 60, ox + 76))
    assert (a[spot] == 255).all(axis=-1).any()
    assert not (b[spot] == 255).all(axis=-1).any()
    # a closed ribbon carries a light centre line in its owner's colour; an open one does not
    line = np.array([int(c + (255 - c) * 0.75) for c in SEAT_COLOURS[0]])
    near = lambda img: (np.abs(img.reshape(-1, 3) - line).sum(axis=1) < 12).sum()  # noqa: E731
    square = (slice(oy, oy + 64), slice(ox, ox + 64))
    assert near(a[square]) == 0
    assert near(b[square]) > 20
