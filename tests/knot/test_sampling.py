"""Determinization for Knot: full states drawn from one seat's observation, and partial snapshots.

Positions come from seeded random games under option sets from the default to the extremes
(4 players on the smallest board, the largest board with a deck that runs out, kinds missing
from the deck, a scripted pile). The true state is used only to pick positions and to check
that its hidden items are among those the sampler can draw.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections import Counter

import numpy as np
import pytest

from envs.core.game import CHANCE, SnapshotError
from envs.knot.observer import KnotObserver
from envs.knot.options import DRAW, HAND_SIZE, OVER, PLACE, deck_totals
from envs.knot.rules import KnotGame
from envs.knot.sampling import complete_snapshot, sampler
from tests.knot.helpers import new_game, play_randomly, random_step

SCRIPTED = [k for k in range(4) for _ in range((24, 18, 18, 12)[k])]
random.Random(7).shuffle(SCRIPTED)

OPTION_SETS = {
    "default": {},
    "4 players 4x4": {"players": 4, "size": 4},
    "3 players 10x10 small deck": {"players": 3, "size": 10, "deck": [6, 5, 8, 2]},
    "no Runs, no Flips": {"players": 2, "size": 5, "deck": [30, 0, 20, 0]},
    "scripted pile": {"players": 2, "pile": SCRIPTED},
}


def positions(options, games, seed, stride=1):
    """``(game, observation dict)`` for the player to act, every ``stride``-th player step of
    seeded random games, chance drawn by its probabilities (the game is live: use it before
    asking for the next)."""
    resolved = KnotGame.resolve_options(dict(options))
    observer = KnotObserver(resolved)
    rng = random.Random(seed)
    for _ in range(games):
        game = new_game(resolved, rng.getrandbits(32))
        step = 0
        while not game.is_terminal():
            if game.current_player() == CHANCE:
                random_step(game, rng)
                continue
            legal = game.legal_actions()
            if step % stride == 0:
                mask = np.zeros(game.num_actions, np.int8)
                mask[legal] = 1
                yield game, {"observation": observer.observe(game, game.player), "action_mask": mask}
            game.apply(rng.choice(legal))
            step += 1


def play_out(game, rng):
    play_randomly(game, rng)


def hidden_part(game, p):
    """Player ``p``'s strands that the others do not know of."""
    return tuple(game.hands[p][k] - game.known[p][k] for k in range(4))


def find_position(options, seed, wanted, games=50):
    for game, observation in positions(options, games, seed):
        if wanted(game):
            return game.clone(), observation
    raise AssertionError("no such position in the seeded games")


def game_went_on(game) -> bool:
    """At the start of this turn someone could place (only checkable when nothing was placed)."""
    if game.placed or game.phase == OVER:
        return True
    players = [p for p in range(game.n_players) if not (game.phase == DRAW and p == game.player)]
    return any(game.placements(p, game.ends[p]) for p in players)


# ----- every sample reproduces the observation ------------------------------------------------

@pytest.mark.parametrize("name", OPTION_SETS)
def test_samples_reproduce_observation_mask_and_validate(name):
    options = OPTION_SETS[name]
    resolved = KnotGame.resolve_options(dict(options))
    observer = KnotObserver(resolved)
    totals = deck_totals(resolved)
    rng = random.Random(11)
    checked = played = 0
    for game, observation in positions(options, games=60, seed=len(name)):
        if checked >= 1200:  # 600 positions
            break
        seat, legal = game.player, game.legal_actions()
        sample = sampler(observation, options)
        for i in range(2):
            state = sample(random.Random(i))
            assert state.current_player() == seat
            assert observer.observe(state, seat).tobytes() == observation["observation"].tobytes()
            assert state.legal_actions() == legal
            restored = KnotGame.from_snapshot(state.snapshot())
            assert observer.observe(restored, seat).tobytes() == observation["observation"].tobytes()
            # What the seat sees is kept; the rest adds up to the deck.
            for p in range(game.n_players):
                assert sum(state.hands[p]) == sum(game.hands[p])
                assert state.known[p] == game.known[p] or p == seat
                assert all(state.known[p][k] <= state.hands[p][k] for k in range(4))
            assert state.hands[seat] == game.hands[seat] and state.pile_size() == game.pile_size()
            counts = Counter({k: state.pile[k] for k in range(4)})
            for h in state.hands:
                counts.update({k: h[k] for k in range(4)})
            counts.update(k for k in state.market if k >= 0)
            counts.update(k for _, k, _, _, _ in state.strands())
            assert [counts[k] for k in range(4)] == totals
            assert game_went_on(state)
            if resolved["pile"] is not None:
                assert state.pile == game.pile
            checked += 1
            if checked % 20 == 0:
                play_out(state, rng)
                played += 1
    assert checked >= 1200 and played >= 60


# ----- hidden items vary over exactly what is possible --------------------------------------

def multisets(pool_counts, size):
    """Every hand of ``size`` strands within ``pool_counts``."""
    return {
        h for h in itertools.product(*(range(c + 1) for c in pool_counts)) if sum(h) == size
    }


def unseen_pool(game, seat):
    """Strands per kind the seat cannot place: opponents' unknown strands plus the pile."""
    pool = Counter({k: game.pile[k] for k in range(4)})
    for p in range(game.n_players):
        if p != seat:
            pool.update({k: hidden_part(game, p)[k] for k in range(4)})
    return [pool[k] for k in range(4)]


def test_late_game_samples_cover_every_possible_hand_and_pile():
    def small_but_open(g):
        hidden = sum(hidden_part(g, 1 - g.player))
        return g.placed and g.pile_size() <= 6 and len(multisets(unseen_pool(g, g.player), hidden)) >= 6

    game, observation = find_position({}, 3, small_but_open)
    seat, other = game.player, 1 - game.player
    pool = unseen_pool(game, seat)
    n = sum(hidden_part(game, other))
    possible = multisets(pool, n)
    assert hidden_part(game, other) in possible
    sample = sampler(observation, {})
    rng = random.Random(5)
    hands, piles = Counter(), set()
    for _ in range(1500):
        state = sample(rng)
        hands[hidden_part(state, other)] += 1
        piles.add(tuple(state.pile))
    assert set(hands) == possible
    # Each arrangement of the unseen strands is equally likely: hand frequencies follow the
    # multivariate hypergeometric law.
    total = sum(pool)
    for hand in possible:
        ways = np.prod([comb(pool[k], hand[k]) for k in range(4)])
        expected = 1500 * ways / comb(total, n)
        assert abs(hands[hand] - expected) < 5 * np.sqrt(expected) + 2
    assert len(piles) > 3


def comb(n, k):
    from math import comb as c
    return c(n, k)


def test_mid_game_hidden_hand_and_next_draw_follow_the_unseen_strands():
    game, observation = find_position({"players": 3}, 4, lambda g: g.turn == 12 and g.placed == 1)
    seat = game.player
    pool = unseen_pool(game, seat)
    total = sum(pool)
    sample = sampler(observation, {"players": 3})
    rng = random.Random(8)
    runs = 2000
    per_kind = [0, 0, 0, 0]
    tops = Counter()  # the chance of each kind at the next draw from the pile
    others = [p for p in range(3) if p != seat]
    for _ in range(runs):
        state = sample(rng)
        for k in range(4):
            per_kind[k] += hidden_part(state, others[0])[k]
        blind = state.clone()
        blind.pending = 2  # as if the player drew blind now: the node's outcomes
        for k, probability in blind.chance_outcomes():
            tops[k] += probability
            assert probability == state.pile[k] / state.pile_size()
    n = sum(hidden_part(game, others[0]))
    for k in range(4):
        share = pool[k] / total
        assert abs(per_kind[k] / runs - n * share) < 0.1 + 4 * np.sqrt(n * share / runs)
        assert abs(tops[k] / runs - share) < 4 * np.sqrt(share * (1 - share) / runs) + 0.01


def test_the_game_going_on_restricts_the_hands_exactly():
    """The seat cannot place and places nothing: the opponent must hold a strand that fits."""

    def stuck_and_binding(g):
        if g.placed or g.legal_actions() != [16 * g.n]:
            return False
        other = 1 - g.player
        fits = [k for k in range(4) if probe(g, other, k)]
        unseen = unseen_pool(g, g.player)
        return (g.pile_size() >= 2 and not any(g.known[other][k] for k in fits)
                and any(unseen[k] for k in range(4) if k not in fits))

    game, observation = find_position({}, 1, stuck_and_binding, games=60)
    seat, other = game.player, 1 - game.player
    fits = [k for k in range(4) if probe(game, other, k)]
    pool = unseen_pool(game, seat)
    n = sum(hidden_part(game, other))
    known = game.known[other]
    everything = multisets(pool, n)
    possible = {h for h in everything if any(h[k] + known[k] for k in fits)}
    assert hidden_part(game, other) in possible and possible != everything
    sample = sampler(observation, {})
    rng = random.Random(2)
    seen = {hidden_part(sample(rng), other) for _ in range(600)}
    assert seen == possible


def probe(game, player, kind):
    scratch = game.clone()
    scratch.hands[player] = [int(k == kind) for k in range(4)]
    return bool(scratch.placements(player, scratch.ends[player]))


def test_public_facts_missing_from_the_observation_are_drawn_where_they_cannot_be_inferred():
    game, observation = find_position(
        {"players": 2, "size": 4}, 6, lambda g: len(g.closed_ribbons) >= 3 and g.turn >= 2 and sum(g.hands[g.player]) >= 2
    )
    seat = game.player
    sample = sampler(observation, {"players": 2, "size": 4})
    rng = random.Random(4)
    orders, own_known = set(), set()
    for _ in range(200):
        state = sample(rng)
        orders.add(tuple(min(state.rib_strands[r]) for r in state.closed_ribbons))
        own_known.add(tuple(state.known[seat]))
        assert all(state.known[seat][k] <= state.hands[seat][k] for k in range(4))
    assert len(orders) > 2 and len(own_known) > 2
    # Before its first draw a seat has taken nothing face up.
    first, observation = next(positions({"players": 4}, 1, 9))
    state = sampler(observation, {"players": 4})(random.Random(0))
    assert state.known[0] == [0, 0, 0, 0] and first.turn == 0


# ----- reproducible, and blind to the true hidden items -------------------------------------

def test_sampling_is_reproducible_and_seeds_differ():
    def open_hands(g):
        return g.turn >= 9 and all(sum(hidden_part(g, p)) >= 4 for p in range(3) if p != g.player)

    game, observation = find_position({"players": 3}, 5, open_hands)
    first = sampler(observation, {"players": 3})
    second = sampler(observation, {"players": 3})
    a = [first(random.Random(21)).snapshot() for _ in range(3)]
    b = [second(random.Random(21)).snapshot() for _ in range(3)]
    assert a == b
    rng = random.Random(21)
    # The pile holds counts, not an order: draws differ by the hands they deal (which fix the
    # pile's counts), so two of them may coincide; most do not.
    draws = [first(rng).snapshot()["state"] for _ in range(8)]
    assert len({(str(d["hands"]), str(d["pile"])) for d in draws}) >= 6


def reshuffle_hidden(game, seat, rng):
    """The same position with every item hidden from ``seat`` dealt afresh."""
    snap = game.snapshot()
    state = snap["state"]
    unseen = [k for k in range(4) for _ in range(state["pile"][k])]
    for p in range(game.n_players):
        if p != seat:
            unseen += [k for k in range(4) for _ in range(hidden_part(game, p)[k])]
    rng.shuffle(unseen)
    at = 0
    for p in range(game.n_players):
        if p != seat:
            n = sum(hidden_part(game, p))
            hand = list(game.known[p])
            for k in unseen[at:at + n]:
                hand[k] += 1
            state["hands"][p] = hand
            at += n
    state["pile"] = [unseen[at:].count(k) for k in range(4)]
    return KnotGame.from_snapshot(snap)


@pytest.mark.parametrize("players", [2, 4])
def test_samples_do_not_depend_on_the_true_hidden_items(players):
    options = {"players": players}
    resolved = KnotGame.resolve_options(options)
    observer = KnotObserver(resolved)
    rng = random.Random(31)
    compared = differed = 0
    for game, observation in positions(options, games=2, seed=players, stride=5):
        twin = reshuffle_hidden(game, game.player, rng)
        differed += twin.hands != game.hands or twin.pile != game.pile
        twin_observation = {"observation": observer.observe(twin, twin.player), "action_mask": observation["action_mask"]}
        assert twin.legal_actions() == game.legal_actions()
        a = sampler(observation, options)(random.Random(compared)).snapshot()
        b = sampler(twin_observation, options)(random.Random(compared)).snapshot()
        assert a == b
        compared += 1
    assert compared >= 20 and differed >= compared // 2


# ----- bad observations --------------------------------------------------------------------

def test_observations_that_cannot_be_sampled_are_refused():
    game, observation = find_position({}, 2, lambda g: g.turn == 6 and g.phase == PLACE)
    observer = KnotObserver(KnotGame.resolve_options({}))
    vector = observation["observation"]
    with pytest.raises(ValueError, match="has 2769 entries"):
        sampler(vector[:-1], {})
    with pytest.raises(ValueError, match=r"lie in \[0, 1\]"):
        sampler(np.where(np.arange(vector.size) == 5, np.nan, vector), {})
    with pytest.raises(ValueError, match="3 players"):
        sampler(vector, {"players": 3})
    with pytest.raises(ValueError, match="mask is empty"):
        sampler({"observation": vector, "action_mask": np.zeros_like(observation["action_mask"])}, {})
    waiting = observer.observe(game, 1 - game.player)
    with pytest.raises(ValueError, match="does not act now"):
        sampler(waiting, {})
    more_pile = vector.copy()
    more_pile[observer.PILE] += 3 / observer.total
    with pytest.raises(ValueError, match="does not show"):
        sampler(more_pile, {})
    odd_turn = vector.copy()
    odd_turn[observer.TURN] += 0.3 / observer.turn_scale
    with pytest.raises(ValueError, match="turn block"):
        sampler(odd_turn, {})
    wrong_mask = observation["action_mask"].copy()
    wrong_mask[np.flatnonzero(wrong_mask == 0)[0]] = 1
    with pytest.raises(ValueError, match="action mask"):
        sampler({"observation": vector, "action_mask": wrong_mask}, {})
    # A bare vector is accepted as well as the dict.
    assert sampler(vector, {})(random.Random(0)).legal_actions() == game.legal_actions()


def test_an_observation_in_which_the_game_would_have_ended_is_refused():
    """The seat cannot place and the opponent's only strands are known ones that fit nowhere."""
    game, observation = find_position(
        {}, 1, lambda g: not g.placed and g.legal_actions() == [16 * g.n] and g.pile_size() >= 2, games=60
    )
    other = 1 - game.player
    fits = [k for k in range(4) if probe(game, other, k)]
    assert fits != [0, 1, 2, 3]
    snap = game.snapshot()
    state = snap["state"]
    # The opponent's whole hand becomes known strands that fit nowhere (the pile pays for it).
    pool = [k for k in range(4) for _ in range(state["pile"][k])]
    pool += [k for k in range(4) for _ in range(state["hands"][other][k])]
    misfits = [k for k in pool if k not in fits][:HAND_SIZE]
    assert misfits
    for k in misfits:
        pool.remove(k)
    state["hands"][other] = [misfits.count(k) for k in range(4)]
    state["known"][other] = list(state["hands"][other])
    state["pile"] = [pool.count(k) for k in range(4)]
    impossible = KnotGame.from_snapshot(snap)
    vector = KnotObserver(impossible.options).observe(impossible, impossible.player)
    with pytest.raises(ValueError, match="game would be over"):
        sampler(vector, {})


# ----- complete_snapshot ----------------------------------------------------------------------

def strip_hidden(snapshot, seat, how):
    """``snapshot`` with the items hidden from ``seat`` left out in one of the documented ways."""
    partial = copy.deepcopy(snapshot)
    state = partial["state"]
    if how == "pile missing, sizes":
        del state["pile"]
        for p in range(len(state["hands"])):
            if p != seat:
                state["hands"][p] = sum(state["hands"][p])
    elif how == "pile given, hands null":
        for p in range(len(state["hands"])):
            if p != seat:
                state["hands"][p] = None
    elif how == "pile null, hands null":
        state["pile"] = None
        for p in range(len(state["hands"])):
            if p != seat:
                state["hands"][p] = None
    return partial


def inferable(game, seat, how):
    """Whether the documented rules fix every size ``how`` leaves out."""
    if how == "pile missing, sizes":
        return True
    market = any(k >= 0 for k in game.market)
    open_sizes = [p for p in range(game.n_players) if p != seat and (
        not market or (p == game.player and game.phase == DRAW))]
    pile_open = how == "pile null, hands null" and market
    return len(open_sizes) + pile_open <= 1


@pytest.mark.parametrize("name", ["default", "4 players 4x4", "3 players 10x10 small deck", "scripted pile"])
def test_complete_snapshot_round_trips(name):
    options = OPTION_SETS[name]
    resolved = KnotGame.resolve_options(dict(options))
    observer = KnotObserver(resolved)
    rng = random.Random(17)
    ways = ("pile missing, sizes", "pile given, hands null", "pile null, hands null")
    done = refused = 0
    for i, (game, _) in enumerate(positions(options, games=30, seed=40, stride=4)):
        if done >= 30:
            break
        snapshot = game.snapshot()
        seat = rng.randrange(game.n_players)  # any seat, not only the one to act
        how = ways[i % 3]
        partial = strip_hidden(snapshot, seat, how)
        if not inferable(game, seat, how):
            with pytest.raises(SnapshotError, match="cannot tell how many strands"):
                complete_snapshot(partial, seat, rng)
            refused += 1
            continue
        completed = complete_snapshot(partial, seat, rng)
        restored = KnotGame.from_snapshot(completed)
        assert observer.observe(restored, seat).tobytes() == observer.observe(game, seat).tobytes()
        assert restored.legal_actions() == game.legal_actions() or game.player != seat
        for key, value in snapshot["state"].items():
            if key not in ("pile", "hands"):
                assert completed["state"][key] == value
        assert completed["options"] == snapshot["options"]
        assert completed["state"]["hands"][seat] == snapshot["state"]["hands"][seat]
        for p in range(game.n_players):
            assert sum(restored.hands[p]) == sum(game.hands[p])
        assert sum(completed["state"]["pile"]) == game.pile_size()
        if how == "pile given, hands null" or resolved["pile"] is not None:
            assert completed["state"]["pile"] == snapshot["state"]["pile"]
        assert game_went_on(restored)
        done += 1
    assert done >= 30


def test_complete_snapshot_keeps_the_rules_of_a_finished_game():
    for game, _ in positions({"players": 3, "size": 4}, games=1, seed=3):
        pass
    play_out(game, random.Random(0))
    partial = strip_hidden(game.snapshot(), 0, "pile missing, sizes")
    for seed in range(5):
        restored = KnotGame.from_snapshot(complete_snapshot(partial, 0, random.Random(seed)))
        assert restored.phase == OVER
        assert not any(restored.placements(p, restored.ends[p]) for p in range(3))


def test_complete_snapshot_fills_only_what_is_left_out():
    game, _ = find_position({"players": 3}, 8, lambda g: g.turn == 7 and g.phase == PLACE)
    snapshot = game.snapshot()
    partial = copy.deepcopy(snapshot)
    partial["state"]["pile"] = None
    partial["state"]["hands"][2] = None  # player_1 acts; player_2's hand holds 5
    completed = complete_snapshot(partial, 0, random.Random(1))
    pile, true_pile = completed["state"]["pile"], snapshot["state"]["pile"]
    assert completed["state"]["hands"][:2] == snapshot["state"]["hands"][:2]
    # The pile and player_2's unknown strands are what is left, shared out anew.
    hand, true_hand = completed["state"]["hands"][2], snapshot["state"]["hands"][2]
    assert sum(hand) == sum(true_hand) and sum(pile) == sum(true_pile)
    assert all(hand[k] >= game.known[2][k] for k in range(4))
    assert [hand[k] + pile[k] for k in range(4)] == [true_hand[k] + true_pile[k] for k in range(4)]
    # Given as it is, the pile is kept and player_2's hand is what it leaves: the true hand.
    partial["state"]["pile"] = list(true_pile)
    again = complete_snapshot(partial, 0, random.Random(2))
    assert again["state"]["pile"] == true_pile and again["state"]["hands"] == snapshot["state"]["hands"]


def test_complete_snapshot_errors_say_what_is_wrong():
    game, _ = find_position({"players": 3}, 8, lambda g: g.turn == 7 and g.phase == PLACE)
    snapshot = game.snapshot()
    rng = random.Random(0)

    def broken(change):
        partial = strip_hidden(snapshot, 0, "pile null, hands null")
        change(partial["state"])
        return partial

    for key in ("market", "known", "strands", "turn", "growable", "closed"):
        with pytest.raises(SnapshotError, match=f"'{key}' is missing"):
            complete_snapshot(broken(lambda s: s.pop(key)), 0, rng)
    with pytest.raises(SnapshotError, match=r"'hands\[0\]' is missing"):
        complete_snapshot(broken(lambda s: s["hands"].__setitem__(0, None)), 0, rng)
    with pytest.raises(SnapshotError, match="'hands' is missing"):
        complete_snapshot(broken(lambda s: s.pop("hands")), 0, rng)
    with pytest.raises(SnapshotError, match="hand size 0…5"):
        complete_snapshot(broken(lambda s: s["hands"].__setitem__(1, 6)), 0, rng)
    with pytest.raises(SnapshotError, match="fewer than player_1's known"):
        complete_snapshot(broken(lambda s: (s["hands"].__setitem__(1, 0), s["known"].__setitem__(1, [1, 0, 0, 0]))), 0, rng)
    st = snapshot["state"]
    flips = 60 + sum(1 for item in st["strands"] if item[1] == 3) + st["hands"][0][3] + st["market"].count(3)
    flips += sum(st["known"][p][3] for p in (1, 2))
    with pytest.raises(SnapshotError, match=f"shows {flips} Flips .* but the game has only 18"):
        complete_snapshot(broken(lambda s: s.__setitem__("pile", [0, 0, 0, 60])), 0, rng)
    with pytest.raises(SnapshotError, match="'pile' must hold 4 entries"):
        complete_snapshot(broken(lambda s: s.__setitem__("pile", [0, 1])), 0, rng)

    def short_hand(s):
        s["pile"] = list(snapshot["state"]["pile"])
        s["hands"][1] = sum(snapshot["state"]["hands"][1])
        s["hands"][2] = sum(snapshot["state"]["hands"][2]) - 1

    with pytest.raises(SnapshotError, match="does not show"):
        complete_snapshot(broken(short_hand), 0, rng)
    with pytest.raises(SnapshotError, match="not 'knot_v0'"):
        complete_snapshot(dict(snapshot, game="loom_v0"), 0, rng)
    with pytest.raises(ValueError, match="seat must be"):
        complete_snapshot(snapshot, 3, rng)
    # Sizes the rules cannot fix must be given: an empty market with two hidden hands.
    empty = copy.deepcopy(snapshot)
    state = empty["state"]
    moved = [k for k in state["market"]] + [k for k in range(4) for _ in range(state["pile"][k])]
    state["market"], state["pile"] = [-1, -1], [0, 0, 0, 0]
    state["hands"][2] = None
    state["hands"][1] = None
    empty["options"] = dict(empty["options"], deck=[d - moved.count(k) for k, d in enumerate(empty["options"]["deck"])])
    with pytest.raises(SnapshotError, match="cannot tell how many strands player_1 holds"):
        complete_snapshot(empty, 0, rng)
