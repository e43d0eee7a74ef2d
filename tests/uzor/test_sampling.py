"""Uzor determinization (``envs/uzor/sampling.py``): full states from one seat's observation.

Positions come from seeded games (random play that closes most forks, so stones and scores
build up) under the default options, both table-size extremes, scripted tiles and goals, and a
Map whose patterns are all worth the same (so scores say little about the opponent's goal).
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter

import numpy as np
import pytest

from envs import uzor_v0
from envs.core import OptionError, SnapshotError
from envs.uzor.observer import UzorObserver
from envs.uzor.patterns import CRITERIA, MAP_SIZE, STANDARD_MAP
from envs.core.game import draw_outcome
from envs.uzor.rules import FORK, STONE, TAKE, UzorGame
from tests.uzor.util import resolve
from envs.uzor.sampling import complete_snapshot, sampler, strip_hidden
from tests.uzor.test_rules import order_of, scripted_order

FLAT_MAP = [dict(p, points=4) for p in STANDARD_MAP]
OPTION_SETS = {
    "default 21x21": {},
    "smallest 9x9": {"board_size": 9},
    "largest 31x31": {"board_size": 31},
    "scripted 15x15": {"board_size": 15, "tiles": order_of(scripted_order(4)), "goals": (6, 11)},
    "flat Map 11x11": {"board_size": 11, "patterns": FLAT_MAP},
}


def play(options: dict, seed: int, stop: int | None = None):
    """Yield (game, seat to act, observation dict) along a seeded game, then keep playing:
    forks are closed three times out of four, everything else is uniform."""
    resolved = UzorGame.resolve_options(dict(options))
    observer = UzorObserver(resolved)
    rng = random.Random(seed)
    game = resolve(UzorGame(resolved), rng)
    steps = 0
    while not game.is_terminal() and (stop is None or steps < stop):
        seat = game.current_player()
        legal = game.legal_actions()
        mask = np.zeros(game.num_actions, np.int8)
        mask[legal] = 1
        yield game, seat, {"observation": observer.observe(game, seat), "action_mask": mask}
        closes = legal[:-1]
        game.apply(rng.choice(closes) if game.phase == FORK and rng.random() < 0.75 else rng.choice(legal))
        resolve(game, rng)
        steps += 1


def position(options: dict, seed: int, steps: int):
    """The game, seat and observation after ``steps`` actions of ``play``."""
    for game, seat, obs in play(options, seed):
        if steps == 0:
            return game, seat, obs
        steps -= 1
    raise AssertionError("the game ended before the position asked for")


def face_down(game: UzorGame) -> list[int]:
    """The supply's face-down tiles, as a sorted list (a state keeps their counts, no order)."""
    return [t for t, n in enumerate(game.facedown) for _ in range(n)]


def feasible_goals(game: UzorGame, seat: int) -> set[int]:
    """Brute force, independent of the sampler: the opponent goals that some split of the
    crossed-out patterns between the players turns into both scores."""
    opp = 1 - seat
    points = game.geo.map.points
    crossed = [k for _, k, _ in game.closed]
    found = set()
    for g in range(MAP_SIZE):
        if g == game.goals[seat]:
            continue
        goals = {seat: game.goals[seat], opp: g}
        for owners in itertools.product((0, 1), repeat=len(crossed)):
            recount = [0, 0]
            for p, k in zip(owners, crossed):
                recount[p] += points[k] * (2 if goals[p] == k else 1)
            if recount == game.points:
                found.add(g)
                break
    return found


def meets(criterion: str, types: list[int]) -> bool:
    motifs = {t // 5 for t in types}
    colours = {t % 5 for t in types}
    return {
        "same_motif": len(motifs) == 1,
        "same_colour": len(colours) == 1,
        "same_motif_or_colour": len(motifs) == 1 or len(colours) == 1,
        "different_colours": len(colours) == len(types),
        "different_motifs": len(motifs) == len(types),
        "identical": len(set(types)) == 1,
        "any": True,
        "hollow_centre": True,
    }[criterion]


def play_out(game: UzorGame, rng: random.Random) -> None:
    for _ in range(5000):
        if game.is_terminal():
            return
        if game.is_chance_node():
            game.apply(draw_outcome(game.chance_outcomes(), rng))
        else:
            game.apply(rng.choice(game.legal_actions()))
    raise AssertionError("a sampled state's game did not end")


# ----- the sampler over thousands of positions -----------------------------------------------

GAMES = {"default 21x21": 6, "smallest 9x9": 12, "largest 31x31": 2, "scripted 15x15": 4, "flat Map 11x11": 6}


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_every_sample_reproduces_the_observation_and_mask_and_plays_to_the_end(name):
    options = OPTION_SETS[name]
    observer = UzorObserver(UzorGame.resolve_options(dict(options)))
    rng = random.Random(7)
    positions = faithful_faces = stoned = 0
    for seed in range(GAMES[name]):
        for step, (game, seat, obs) in enumerate(play(options, seed)):
            sample = sampler(obs, options)
            state = sample(rng)
            positions += 1
            assert state.current_player() == seat
            assert observer.observe(state, seat).tobytes() == obs["observation"].tobytes()
            assert state.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
            assert game.goals[1 - seat] in sample.goal_choices
            assert state.goals[seat] == game.goals[seat] and state.goals[1 - seat] in sample.goal_choices
            assert state.facedown == game.facedown and state.discards == game.discards  # public, and no order
            if options.get("tiles"):
                assert sample.goal_choices == (game.goals[1 - seat],)
            if state.closed:
                stoned += 1
                criteria = state.geo.map.criteria
                faithful_faces += all(
                    meets(CRITERIA[criteria[k]], [state.board[x] - STONE for x in cells]) for _, k, cells in state.closed
                )
            if step % 7 == 0:
                restored = UzorGame.from_snapshot(json.loads(json.dumps(state.snapshot())))
                assert observer.observe(restored, seat).tobytes() == obs["observation"].tobytes()
                play_out(restored, rng)
            if step % 25 == 0 and len(game.closed) <= 9 and not options.get("goals"):
                assert set(sample.goal_choices) == feasible_goals(game, seat)
    assert positions >= 250
    assert stoned > 50
    # stone faces are settled by a bounded search; it may give up (faces in type order), rarely
    assert faithful_faces >= 0.99 * stoned


def test_through_the_env_every_seat_to_act_gets_faithful_samples():
    options = {"board_size": 9}
    env = uzor_v0.env(**options)
    env.reset(seed=3)
    observer = env.unwrapped.observer
    rng = random.Random(0)
    turns = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = int(agent[-1])
        state = sampler(obs, options)(rng)
        assert observer.observe(state, seat).tobytes() == obs["observation"].tobytes()
        assert state.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
        env.step(rng.choice(state.legal_actions()))
        turns += 1
    assert turns > 50


def test_the_opponents_goal_is_drawn_evenly_among_those_the_scores_allow():
    options = OPTION_SETS["flat Map 11x11"]
    checked = 0
    for seed in range(20):
        for game, seat, obs in play(options, seed):
            if len(game.closed) >= 3 and game.points[1 - seat] > 0:
                break
        else:
            continue
        sample = sampler(obs, options)
        allowed = feasible_goals(game, seat)
        assert set(sample.goal_choices) == allowed and game.goals[1 - seat] in allowed
        if len(allowed) < 2:
            continue
        rng = random.Random(seed)
        drawn = Counter(sample(rng).goals[1 - seat] for _ in range(300 * len(allowed)))
        assert set(drawn) == allowed
        assert all(200 <= n <= 400 for n in drawn.values()), drawn
        checked += 1
        if checked == 2:
            return
    raise AssertionError("no position with several possible goals was found")


def test_a_goal_closed_at_double_points_is_known_to_the_other_seat():
    # Every pattern of the flat Map is worth 4: an opponent whose only close scored 8
    # closed their own goal, and the sampler knows it.
    options = OPTION_SETS["flat Map 11x11"]
    for seed in range(40):
        for game, seat, obs in play(options, seed):
            opp = 1 - seat
            theirs = [k for p, k, _ in game.closed if p == opp]
            if game.goals[opp] in theirs and len(game.closed) == 1:
                assert sampler(obs, options).goal_choices == (game.goals[opp],)
                return
    raise AssertionError("no position where the opponent closed their goal first")


def test_the_sampler_draws_only_the_goal_and_the_next_draw_stays_chance():
    # (the face-down order is no part of a state since every draw became a chance node)
    options = {"board_size": 9}
    for seed in range(30):
        for game, seat, obs in play(options, seed):
            if game.discards and len(face_down(game)) >= 12 and game.phase == TAKE:
                break
        else:
            continue
        sample = sampler(obs, options)
        rng = random.Random(1)
        for _ in range(50):
            state = sample(rng)
            assert (state.facedown, state.discards, state.market, state.hands) == (
                game.facedown, game.discards, game.market, game.hands)
            state.apply(state.legal_actions()[0])  # the take: its refill is a chance node
            total = sum(game.facedown)
            assert state.chance_outcomes() == [(t, n / total) for t, n in enumerate(game.facedown) if n]
        return
    raise AssertionError("no take with face-up discards under a deep supply")


def test_sampling_is_reproducible_from_the_rng_seed():
    game, seat, obs = position({}, seed=2, steps=60)
    first, second = sampler(obs, {}), sampler(obs, {})
    runs = [[first(random.Random(s)).snapshot() for s in range(8)], [second(random.Random(s)).snapshot() for s in range(8)]]
    assert runs[0] == runs[1]
    assert len(first.goal_choices) > 2 and len({json.dumps(snap["state"]["goals"]) for snap in runs[0]}) > 2


def test_samples_do_not_depend_on_the_true_hidden_items():
    for seed in range(6):
        game, seat, obs = position({"board_size": 11}, seed=seed, steps=40 + 5 * seed)
        opp = 1 - seat
        crossed = {k for _, k, _ in game.closed}
        if game.goals[opp] in crossed:
            continue
        twin = game.clone()
        twin.goals[opp] = next(k for k in range(MAP_SIZE) if k not in crossed and k not in game.goals)
        assert twin.goals != game.goals
        twin = UzorGame.from_snapshot(twin.snapshot())
        observer = UzorObserver(game.options)
        twin_obs = {"observation": observer.observe(twin, seat), "action_mask": obs["action_mask"]}
        assert twin_obs["observation"].tobytes() == obs["observation"].tobytes()
        for s in range(3):
            one = sampler(obs, {"board_size": 11})(random.Random(s)).snapshot()
            two = sampler(twin_obs, {"board_size": 11})(random.Random(s)).snapshot()
            assert one == two


# ----- refusals ------------------------------------------------------------------------------

def test_an_observation_that_cannot_come_from_these_options_is_refused():
    game, seat, obs = position({"board_size": 9}, seed=1, steps=50)
    vector = obs["observation"]
    observer = UzorObserver(game.options)
    with pytest.raises(ValueError, match="entries"):
        sampler(obs, {"board_size": 11})
    with pytest.raises(OptionError, match="colour"):
        sampler(obs, {"board_size": 9, "colour": 1})
    with pytest.raises(ValueError, match="not the one to act"):
        sampler(observer.observe(game, 1 - seat), {"board_size": 9})
    with pytest.raises(ValueError, match="mask is empty"):
        sampler({"observation": vector, "action_mask": np.zeros_like(obs["action_mask"])}, {"board_size": 9})
    wrong_mask = obs["action_mask"].copy()
    wrong_mask[np.flatnonzero(wrong_mask == 0)[0]] = 1
    with pytest.raises(ValueError, match="action mask"):
        sampler({"observation": vector, "action_mask": wrong_mask}, {"board_size": 9})
    extra = vector.copy()
    # a type whose three copies are all in sight, none a stone or in the supply
    t = next(t for t in range(25) if game.board.count(t) + game.hands[0].count(t) + game.hands[1].count(t)
             + game.market.count(t) == 3 and game.hands[seat].count(t) < 3)
    extra[observer.MY_HAND + t] += 1 / 3  # a fourth copy of that tile
    with pytest.raises(ValueError, match="there are only 3"):
        sampler(extra, {"board_size": 9})
    rich = vector.copy()
    rich[observer.SCORES] += 1 / observer.scale  # a point no close explains
    with pytest.raises(ValueError, match="scores"):
        sampler(rich, {"board_size": 9})
    stray = vector.copy()
    stray[observer.REPEATED] = 0.5  # not a flag the observer writes
    with pytest.raises(ValueError, match="REPEATED"):
        sampler(stray, {"board_size": 9})


def test_scripted_goals_must_match_the_observed_goal_and_a_finished_game_has_no_seat():
    options = OPTION_SETS["scripted 15x15"]
    game, seat, obs = position(options, seed=0, steps=10)
    other = dict(options, goals=(7, 11) if seat == 0 else (6, 12))
    with pytest.raises(ValueError, match="scripted 'goals'"):
        sampler(obs, other)
    for game, seat, obs in play({"board_size": 9}, seed=5):
        pass
    assert game.is_terminal()
    with pytest.raises(ValueError, match="finished game"):
        sampler(UzorObserver(game.options).observe(game, 0), {"board_size": 9})


def test_a_discard_above_a_face_down_tile_is_refused():
    for seed in range(30):
        for game, seat, obs in play({"board_size": 9}, seed):
            if game.discards and len(face_down(game)) >= 2:
                observer = UzorObserver(game.options)
                vector = obs["observation"].copy()
                top = observer.SUPPLY_PLACES
                vector[top] = 0.0
                vector[top + 1 + game.discards[-1]] = 1.0  # the top place shown face up
                with pytest.raises(ValueError, match="face-up discard above a face-down tile"):
                    sampler(vector, {"board_size": 9})
                return
    raise AssertionError("no position with a discard under face-down tiles")


# ----- complete_snapshot -----------------------------------------------------------------------

def hide(snapshot: dict, seat: int) -> dict:
    """The snapshot as ``seat`` may send it: the opponent's goal unknown."""
    partial = copy.deepcopy(snapshot)
    partial["state"]["goals"][1 - seat] = None
    return partial


@pytest.mark.parametrize("name", ["default 21x21", "smallest 9x9", "scripted 15x15", "flat Map 11x11"])
def test_complete_snapshot_round_trips_for_either_seat(name):
    options = OPTION_SETS[name]
    observer = UzorObserver(UzorGame.resolve_options(dict(options)))
    rng = random.Random(0)
    done = 0
    for seed in range(2):
        for step, (game, _, _) in enumerate(play(options, seed)):
            if step % 9:
                continue
            for seat in (0, 1):
                snapshot = game.snapshot()
                partial = hide(snapshot, seat)
                assert partial == strip_hidden(snapshot, seat)
                given = copy.deepcopy(partial)
                completed = complete_snapshot(partial, seat, rng)
                assert partial == given  # the caller's dict is untouched
                restored = UzorGame.from_snapshot(completed)
                assert observer.observe(restored, seat).tobytes() == observer.observe(game, seat).tobytes()
                state = completed["state"]
                for key, value in given["state"].items():
                    if key != "goals":
                        assert state[key] == value
                assert state["goals"][seat] == game.goals[seat]
                opp = 1 - seat
                theirs = [k for p, k, _ in game.closed if p == opp]
                points = game.geo.map.points
                assert sum(points[k] * (2 if k == state["goals"][opp] else 1) for k in theirs) == game.points[opp]
                if options.get("goals"):
                    assert restored.goals == game.goals
                done += 1
    assert done > 40


def test_complete_snapshot_draws_from_its_rng_alone_and_keeps_a_full_snapshot():
    game, seat, _ = position({"board_size": 11}, seed=4, steps=70)
    partial = hide(game.snapshot(), seat)
    one = complete_snapshot(partial, seat, random.Random(9))
    assert one == complete_snapshot(partial, seat, random.Random(9))
    assert len({json.dumps(complete_snapshot(partial, seat, random.Random(s))) for s in range(12)}) > 1
    full = game.snapshot()
    assert complete_snapshot(full, seat, random.Random(0)) == full


def test_complete_snapshot_refuses_a_missing_public_key_by_name():
    game, seat, _ = position({"board_size": 9}, seed=2, steps=30)
    snapshot = game.snapshot()
    for key in snapshot["state"]:
        partial = copy.deepcopy(snapshot)
        del partial["state"][key]
        with pytest.raises(SnapshotError, match=f"'{key}'"):
            complete_snapshot(partial, seat, random.Random(0))
        partial["state"][key] = None
        with pytest.raises(SnapshotError, match=f"'{key}'"):
            complete_snapshot(partial, seat, random.Random(0))
    partial = copy.deepcopy(snapshot)
    partial["state"]["goals"][seat] = None
    with pytest.raises(SnapshotError, match="own goal"):
        complete_snapshot(partial, seat, random.Random(0))


def test_complete_snapshot_refuses_inconsistent_partial_snapshots():
    for seed in range(30):
        for game, seat, _ in play({"board_size": 9}, seed):
            if game.discards and len(face_down(game)) >= 2 and game.closed:
                break
        else:
            continue
        break
    snapshot = game.snapshot()
    rng = random.Random(0)
    partial = hide(snapshot, seat)
    partial["state"]["facedown"][face_down(game)[0]] += 1  # one face-down tile more than there are
    with pytest.raises(SnapshotError, match="there are exactly 3"):
        complete_snapshot(partial, seat, rng)
    partial = hide(snapshot, seat)
    state = partial["state"]
    seen = Counter([v % STONE for v in state["board"] if v >= 0] + state["hands"][0] + state["hands"][1]
                   + [x for x in state["market"] if x >= 0])
    t, count = seen.most_common(1)[0]
    state["hands"][seat] = sorted(state["hands"][seat] + [t] * (4 - count))  # a fourth tile of that type
    with pytest.raises(SnapshotError, match="there are exactly 3"):
        complete_snapshot(partial, seat, rng)
    partial = hide(snapshot, seat)
    partial["state"]["scores"][1 - seat] += 1  # a point their closes cannot give
    with pytest.raises(SnapshotError, match="no secret goal"):
        complete_snapshot(partial, seat, rng)
    partial = hide(snapshot, seat)
    partial["state"]["board"][game.geo.centre] = -1
    with pytest.raises(SnapshotError):
        complete_snapshot(partial, seat, rng)


def test_complete_snapshot_with_scripted_tiles_refuses_face_down_tiles_the_script_contradicts():
    options = OPTION_SETS["scripted 15x15"]
    game, seat, _ = position(options, seed=0, steps=40)
    partial = hide(game.snapshot(), seat)
    state = partial["state"]
    # a market tile and a face-down one of another type swap places: no count overflows, only
    # the face-down tiles are no longer the script's last ones
    m, t = next((m, t) for m, t in enumerate(state["market"]) if t >= 0 and state["facedown"][t] < 3)
    other = next(x for x in face_down(game) if x != t)
    state["market"][m], state["facedown"][t], state["facedown"][other] = other, state["facedown"][t] + 1, \
        state["facedown"][other] - 1
    with pytest.raises(SnapshotError, match="scripted 'tiles'"):
        complete_snapshot(partial, seat, random.Random(0))


# ----- the one route, for bots too ------------------------------------------------------------

def test_bots_read_their_position_through_the_one_route():
    from envs.uzor.sampling import read_position
    from training.players.load import load_agent

    options = {"board_size": 9}
    for seed in range(3):
        for step, (game, seat, obs) in enumerate(play(options, seed)):
            if step % 5:
                continue
            bot = load_agent("heuristic", "uzor_v0", seed=step, **options)
            state = bot.position(obs)
            position = read_position(obs, options)
            assert bot.me == seat == position.seat
            observer = UzorObserver(position.view.options)
            assert observer.observe(state, seat).tobytes() == obs["observation"].tobytes()
            assert state.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
            assert state.facedown == position.state.facedown


def test_an_observation_no_game_gives_is_refused_by_name():
    # A position built for a puzzle may leave more tiles in the supply than a game ever does
    # (59 after the deal); the observation shows 59 places, no game's, and the route says so.
    from tests.uzor.util import draw, position as puzzle, tiles

    game = puzzle(draw("Ca Cr", top=4, left=4), tiles("Ce", "Cm", "Ci"))
    assert sum(game.facedown) == 60
    vector = UzorObserver(game.options).observe(game, 0)
    assert vector.max() <= 1.0
    with pytest.raises(ValueError, match="supply contents .60 tiles. do not match its 59 face-down places"):
        sampler(vector, {"board_size": 9})
