"""Loom rules, one scenario per rule of docs/loom.md."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import loom_v0
from envs.core import OptionError
from envs.loom.cloth import CELLS, allowed_cells, cloth_score, line_score
from envs.loom.rules import LoomGame
from training.players.load import load_agent
from training.evaluation.tournament import play_game
from tests.loom.util import throw_dice

FLAT = [(1, 2)] * 16


def new_game(**options) -> LoomGame:
    import random as _r

    return LoomGame(LoomGame.resolve_options(options), _r.Random(0))


def cells(*names: str) -> list[int]:
    return [(int(n[1]) - 1) * 4 + (ord(n[0]) - ord("a")) for n in names]


def test_line_scores_distinct_dyes_and_the_bounty_for_a_finished_four_dye_line():
    assert line_score([3, 3, 5, 2], 8) == 10
    assert line_score([1, 2, 3, 4], 8) == 18
    assert line_score([1, 2, 3, 0], 8) == 6  # not finished: no bounty
    assert line_score([6, 6, 6, 6], 8) == 6
    assert line_score([1, 2, 3, 4], 0) == 10


def test_the_bounty_is_paid_when_the_weave_finishes_the_line():
    throws = [(1, 2), (3, 4), (1, 2), (3, 4)] + [(5, 6)] * 12
    env = loom_v0.raw_env(throws=throws, bounty=8)
    env.reset(seed=0)
    # player_0 drafts 1@a1, player_1 weaves 2 somewhere; round 1 player_1 drafts 3, player_0 gets 4...
    env.step(env.string_to_action("1@a1"))
    env.step(env.string_to_action("2@a4"))
    env.step(env.string_to_action("3@d4"))   # player_1 drafts 3
    env.step(env.string_to_action("4@b1"))   # player_0 gets the leftover 4
    env.step(env.string_to_action("2@c1"))   # round 2: player_0 drafts 2
    env.step(env.string_to_action("1@d3"))
    env.step(env.string_to_action("4@c4"))   # round 3: player_1 drafts 4
    g = env.game
    assert g.gain(0, cells("d1")[0], 3) == 3 + 3 + 8  # row 1 finishes 1 4 2 3; column d gains 3
    env.step(env.string_to_action("3@d1"))
    assert g.cloths[0][:4] == [1, 4, 2, 3]
    assert g.points[0] == cloth_score(g.cloths[0], 8) == (10 + 8) + 1 + 4 + 2 + 3


def test_touching_law_and_its_exception():
    cloth = [0] * 16
    cloth[cells("b2")[0]] = 3
    allowed = allowed_cells(cloth, 3)
    assert set(cells("b1", "a2", "c2", "b3")).isdisjoint(allowed)
    assert set(allowed) == set(range(16)) - set(cells("b2", "b1", "a2", "c2", "b3"))
    assert len(allowed_cells(cloth, 5)) == 15
    # Every empty cell touches a 3: any empty cell is allowed.
    crowded = [3 if (i // 4 + i % 4) % 2 == 0 else 1 for i in range(16)]
    for i in cells("b1", "a2"):
        crowded[i] = 0
    assert sorted(allowed_cells(crowded, 3)) == sorted(cells("b1", "a2"))


def test_touching_law_in_the_env_mask_and_why_illegal():
    throws = [(2, 2), (2, 5)] + [(1, 6)] * 14
    env = loom_v0.raw_env(throws=throws)
    env.reset(seed=0)
    env.step(env.string_to_action("2@b2"))      # player_0 drafts a 2
    env.step(env.string_to_action("2@a1"))      # player_1 weaves the other 2
    # round 1: player_1 drafts; player_0 then must weave the leftover
    env.step(env.string_to_action("5@d4"))      # player_1 takes the 5
    mask = env.observe("player_0")["action_mask"]
    legal_cells = {a % 16 for a in np.flatnonzero(mask)}
    assert all(a // 16 == 0 for a in np.flatnonzero(mask)), "the rival weaves only the leftover thread 0 (dye 2)"
    assert legal_cells.isdisjoint(cells("b1", "a2", "c2", "b3", "b2"))
    reason = env.why_illegal(cells("b1")[0])
    assert "touch another 2" in reason
    assert "leftover" in env.why_illegal(16 + cells("c3")[0])
    with pytest.raises(ValueError, match="touch another 2"):
        env.step(cells("b1")[0])


def test_equal_dyes_drafter_uses_thread_0_rival_thread_1():
    env = loom_v0.raw_env(throws=[(4, 4)] * 16)
    env.reset(seed=0)
    mask = env.observe("player_0")["action_mask"]
    assert mask[:16].sum() == 16 and mask[16:].sum() == 0
    assert "take thread 0" in env.why_illegal(16)
    env.step(5)
    mask = env.observe("player_1")["action_mask"]
    assert mask[:16].sum() == 0 and mask[16:].sum() == 16
    assert env.string_to_action("4@a1") == 16


def test_the_draft_alternates_and_the_rival_weaves_the_leftover():
    env = loom_v0.raw_env(throws=FLAT)
    env.reset(seed=0)
    order = []
    rng = random.Random(0)
    while not env.game.is_terminal():
        order.append(env.agent_selection)
        env.step(rng.choice(env.game.legal_actions()))
    expected = []
    for k in range(16):
        drafter = k % 2
        expected += [f"player_{drafter}", f"player_{1 - drafter}"]
    assert order == expected
    assert len(order) == 32


def test_leftover_is_the_thread_the_drafter_did_not_take():
    env = loom_v0.raw_env(throws=[(1, 6)] * 16)
    env.reset(seed=0)
    env.step(16 + 0)  # player_0 takes thread 1 (dye 6) into a1
    mask = env.observe("player_1")["action_mask"]
    assert mask[:16].sum() == 16 and mask[16:].sum() == 0
    assert env.game.cloths[0][0] == 6


def test_scripted_throws_are_used_in_order_and_sorted():
    throws = [(6, 1), (2, 5)] + [(3, 3)] * 14
    env = loom_v0.raw_env(throws=throws)
    env.reset(seed=0)
    seen = env.unwrapped.observer.decode(env.observe("player_0"))
    assert seen["throw"] == (1, 6) and seen["round"] == 0 and seen["drafter"]
    env.step(0)
    env.step(16 + 1)
    seen = env.unwrapped.observer.decode(env.observe("player_1"))
    assert seen["throw"] == (2, 5) and seen["round"] == 1 and seen["drafter"]


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"throws": [(1, 2)] * 15}, "16 pairs"),
        ({"throws": [(1, 7)] * 16}, "dyes 1…6"),
        ({"throws": "123"}, "'throws'"),
        ({"throws": [(1, 2, 3)] * 16}, "'throws'"),
        ({"bounty": -1}, "'bounty' must be an integer 0…100"),
        ({"bounty": "8"}, "'bounty'"),
    ],
)
def test_bad_options_name_the_option(options, fragment):
    with pytest.raises(OptionError, match=fragment):
        loom_v0.raw_env(**options)


def test_gain_prices_a_weave_and_refuses_nonsense():
    g = new_game()
    assert g.gain(0, 0, 5) == 10  # row and column each gain 5
    g.cloths[0][1] = 5
    assert g.gain(0, 0, 5) == 5   # row already has a 5: only the column gains
    with pytest.raises(ValueError, match="not empty"):
        g.gain(0, 1, 3)
    with pytest.raises(ValueError, match="dye"):
        g.gain(0, 2, 7)
    env = loom_v0.raw_env()
    env.reset(seed=1)
    assert env.unwrapped.gain(1, 3, 2) == 4


def test_future_throws_never_reach_the_observation():
    base = [(1, 2)] + [(3, 4)] * 15
    other = [(1, 2)] + [(5, 6)] * 15
    a, b = loom_v0.raw_env(throws=base), loom_v0.raw_env(throws=other)
    a.reset(seed=0)
    b.reset(seed=0)
    for agent in a.possible_agents:
        assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])
    a.step(0)
    b.step(0)
    for agent in a.possible_agents:
        assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])
        assert np.array_equal(a.observe(agent)["action_mask"], b.observe(agent)["action_mask"])


def recount(cloth, bounty):
    total = 0
    for i in range(4):
        for line in ([cloth[i * 4 + j] for j in range(4)], [cloth[j * 4 + i] for j in range(4)]):
            distinct = set(line) - {0}
            total += sum(distinct) + (bounty if len(distinct) == 4 and 0 not in line else 0)
    return total


def naive_allowed(cloth, dye):
    def touching(c):
        r, k = divmod(c, 4)
        return any(0 <= r + dr < 4 and 0 <= k + dk < 4 and cloth[(r + dr) * 4 + k + dk] == dye
                   for dr, dk in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    empty = [c for c in range(16) if cloth[c] == 0]
    return [c for c in empty if not touching(c)] or empty


def test_thousands_of_random_games_keep_the_invariants():
    rng = random.Random(11)
    for index in range(2000):
        bounty = rng.choice([0, 8, 20])
        g = throw_dice(LoomGame(LoomGame.resolve_options({"bounty": bounty})), rng)
        steps = 0
        while not g.is_terminal():
            player = g.current_player()
            legal = g.legal_actions()
            assert legal
            low, high = g.throws[g.round]
            threads = ((0,) if low == high else (0, 1)) if g.taken < 0 else (1 - g.taken,)
            expected = sorted(t * 16 + c for t in threads for c in naive_allowed(g.cloths[player], g.throws[g.round][t]))
            assert sorted(legal) == expected
            g.apply(rng.choice(legal))
            throw_dice(g, rng)
            steps += 1
            assert steps <= 32
        assert steps == 32
        assert all(all(g.cloths[p]) for p in (0, 1))
        assert g.points == [recount(g.cloths[0], bounty), recount(g.cloths[1], bounty)]


def test_heuristic_beats_random_clearly():
    a = load_agent("heuristic", "loom", seed=1)
    b = load_agent("random", "loom", seed=2)
    score = 0.0
    for index in range(100):
        seats = [a, b] if index % 2 == 0 else [b, a]
        returns, _ = play_game("loom_v0", seats, index, {})
        score += (returns[index % 2] + 1) / 2
    assert score >= 85


def test_price_rings_in_the_observation_equal_gain_and_the_touching_law():
    rng = random.Random(4)
    for index in range(150):
        bounty = rng.choice([0, 8, 30])
        env = loom_v0.raw_env(bounty=bounty)
        env.reset(seed=index)
        for _ in range(rng.randrange(0, 31)):
            env.step(rng.choice(env.game.legal_actions()))
        g = env.game
        for player in (0, 1):
            seen = env.unwrapped.observer.decode(env.observe(f"player_{player}"))
            throw = g.throws[g.round]
            for t, dye in enumerate(throw):
                for cell in range(16):
                    mine_expected = g.gain(player, cell, dye) if g.cloths[player][cell] == 0 else 0
                    theirs_expected = g.gain(1 - player, cell, dye) if g.cloths[1 - player][cell] == 0 else 0
                    assert seen["my_rings"][t][cell] == mine_expected
                    assert seen["their_rings"][t][cell] == theirs_expected
                assert set(np.flatnonzero(seen["their_room"][t])) == set(allowed_cells(g.cloths[1 - player], dye))


def test_random_games_through_the_env_keep_masks_honest():
    rng = random.Random(21)
    for index in range(300):
        env = loom_v0.raw_env(bounty=rng.choice([0, 8]))
        env.reset(seed=index)
        steps = 0
        while not env.game.is_terminal():
            actor = env.agent_selection
            idle = "player_1" if actor == "player_0" else "player_0"
            mask = env.observe(actor)["action_mask"]
            assert mask.sum() > 0 and env.observe(idle)["action_mask"].sum() == 0
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(env.game.legal_actions())
            assert env.infos[actor]["scores"].tolist() == [env.game.points[0], env.game.points[1]]
            env.step(rng.choice(np.flatnonzero(mask).tolist()))
            steps += 1
        assert steps == 32
        assert env.rewards["player_0"] == -env.rewards["player_1"]
        assert env.game.points == [recount(env.game.cloths[0], env.game.bounty), recount(env.game.cloths[1], env.game.bounty)]
