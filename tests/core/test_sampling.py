"""The sampling contract, for every game: a sampled state is indistinguishable from the truth
for the seat that observed it, and a snapshot stripped of what that seat may not know completes
to a state it cannot tell from the truth either. (Each game's own tests go deeper.)"""

from __future__ import annotations

import random

import numpy as np
import pytest

import envs
from tests.cases import imperfect_games, option_cases, search


def positions(game: str, options: dict, games: int, seed: int):
    """(env, seat) at random points of seeded random games, the seat being the one to act. A
    game is played to its end once to count its decisions, then replayed (same seed, same
    moves, so the same chance) to a random point before the end."""
    rng = random.Random(seed)
    for index in range(games):
        moves_seed = rng.getrandbits(32)
        probe = envs.load(game).raw_env(**options)
        probe.reset(seed=seed + index)
        moves = random.Random(moves_seed)
        length = 0
        while not probe.game.is_terminal():
            probe.step(moves.choice(probe.game.legal_actions()))
            length += 1
        env = envs.load(game).raw_env(**options)
        env.reset(seed=seed + index)
        moves = random.Random(moves_seed)
        for _ in range(rng.randrange(length)):
            env.step(moves.choice(env.game.legal_actions()))
        yield env, env.game.current_player()


@pytest.mark.parametrize("game,options", option_cases())
def test_samples_reproduce_the_observation_and_mask(game, options):
    sampling = envs.describe(game).sampling
    observer = envs.describe(game).make_observer(options)
    rng = random.Random(0)
    checked = 0
    for env, seat in positions(game, options, 40, seed=100):
        name = env.possible_agents[seat]
        seen = env.observe(name)
        draw = sampling.sampler(seen, options)
        for _ in range(3):
            state = draw(rng)
            assert state.current_player() == seat or not sampling.keeps_seat
            again = observer.observe(state, state.current_player())
            assert again.tobytes() == np.asarray(seen["observation"]).tobytes()
            assert state.legal_actions() == np.flatnonzero(seen["action_mask"]).tolist()
            checked += 1
    assert checked >= 60


@pytest.mark.parametrize("game,options", option_cases())
def test_a_stripped_snapshot_completes_to_a_state_the_seat_cannot_tell_apart(game, options):
    sampling = envs.describe(game).sampling
    module = envs.load(game)
    for env, seat in positions(game, options, 25, seed=200):
        name = env.possible_agents[seat]
        partial = sampling.strip_hidden(env.snapshot(), seat)
        completed = sampling.complete_snapshot(partial, seat, random.Random(seat))
        other = module.raw_env(**options)
        other.reset(seed=0)
        other.restore(completed)
        assert np.array_equal(other.observe(name)["observation"], env.observe(name)["observation"])
        assert np.array_equal(other.observe(name)["action_mask"], env.observe(name)["action_mask"])


@pytest.mark.parametrize("game", imperfect_games())
def test_completions_differ_in_hidden_items_only(game):
    """Stripping really removes something: different seeds complete to different full states
    (for some position), yet the seat's observation never differs."""
    sampling = envs.describe(game).sampling
    options = search(game)
    differed = 0
    for env, seat in positions(game, options, 25, seed=300):
        partial = sampling.strip_hidden(env.snapshot(), seat)
        a = sampling.complete_snapshot(partial, seat, random.Random(1))
        b = sampling.complete_snapshot(partial, seat, random.Random(2))
        differed += a != b
    assert differed >= 5
