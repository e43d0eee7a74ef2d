"""Every game as an OpenSpiel game (envs.openspiel): pyspiel's own consistency test, chance
nodes, replays against the AEC env, OpenSpiel's algorithms and bots, and Shimmy's PettingZoo
view of the pyspiel games."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import envs
import envs.openspiel  # noqa: F401  (registers the games)
import pyspiel
from envs.core.game import OptionError
from envs.openspiel import OpenSpielAgent
from tests.cases import imperfect_games, option_cases, option_sets, quick, search
from training.players.openspiel import SuiteBot


def load(game: str, options: dict):
    description = envs.describe(game)
    return pyspiel.load_game(f"abstract_{description.short_name}",
                             envs.openspiel.parameters_from_options(description, options))


def test_every_game_is_registered_with_the_declared_facts():
    names = set(pyspiel.registered_names())
    for description in envs.DESCRIPTIONS:
        short = f"abstract_{description.short_name}"
        assert short in names
        game = pyspiel.load_game(short)
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert (kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC) == (description.facts.chance == "explicit")
        imperfect = kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert imperfect == (description.facts.information == "imperfect")
        assert game.num_players() == description.num_players({})
        assert game.num_distinct_actions() == description.num_actions({})
        assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert pyspiel.load_game("abstract_knot", {"players": 3}).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert pyspiel.load_game("abstract_knot").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


@pytest.mark.parametrize("game,options", option_cases(defaults=True))
def test_pyspiel_random_sim_test(game, options):
    pyspiel.random_sim_test(load(game, options), num_sims=3, serialize=True, verbose=False)


def test_parameters_are_the_env_options_with_the_same_messages():
    with pytest.raises(Exception, match="option 'rows' must be an integer 3…12, not 30"):
        pyspiel.load_game("abstract_linecatch", {"rows": 30})
    with pytest.raises(Exception, match="Unknown parameter 'colour'"):  # pyspiel checks names itself
        pyspiel.load_game("abstract_linecatch", {"colour": 1})
    with pytest.raises(OptionError, match="JSON"):
        envs.openspiel.options_from_parameters(envs.describe("loom"), {"throws": "[[1,"})
    defaults = pyspiel.load_game("abstract_loom").get_parameters()
    assert defaults["bounty"] == envs.describe("loom").engine.OPTIONS["bounty"]


@pytest.mark.parametrize("game,options", option_cases(defaults=True))
def test_chance_outcomes_are_distributions_and_the_aec_env_replays_the_same_game(game, options):
    """Play the AEC env with its seeded chance; replay its history (chance outcomes included)
    through the pyspiel game: the same positions, observations and returns at every step."""
    description = envs.describe(game)
    spiel = load(game, options)
    for seed in range(3):
        env = envs.load(game).raw_env(**options)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not env.game.is_terminal():
            env.step(rng.choice(env.game.legal_actions()))
        state = spiel.new_initial_state()
        for action in env.history:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                assert all(p > 0 for _, p in outcomes) and action in dict(outcomes)
            else:
                assert action in state.legal_actions()
            state.apply_action(action)
        assert state.is_terminal()
        assert state.returns() == [float(r) for r in env.game.returns()]
        assert json.dumps(state.engine.snapshot(), sort_keys=True) == json.dumps(env.game.snapshot(), sort_keys=True)
        for player in range(spiel.num_players()):
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(player), np.float32),
                                          description.observer(env.options).observe(env.game, player))


def test_alpha_beta_agrees_with_the_suite_solver():
    """From several 3×3 openings, OpenSpiel's alpha-beta value for the player to move equals the
    sign of what the suite's exact solver says: points so far plus the best future margin."""
    from open_spiel.python.algorithms import minimax

    from envs.linecatch.solver import LinecatchSolver

    solver = LinecatchSolver(3, 3, False)
    rng = random.Random(4)
    for trial in range(8):
        opening = rng.sample(range(9), rng.randrange(0, 4))
        game = pyspiel.load_game("abstract_linecatch", {"rows": 3, "cols": 3, "opening": json.dumps(opening)})
        state = game.new_initial_state()
        mover = state.current_player()
        value, _ = minimax.alpha_beta_search(game, state=state, maximizing_player_id=mover)
        engine = state.engine
        black = sum(1 << cell for cell, b in enumerate(engine.black) if b)
        points = engine.scores()
        final_margin = points[mover] - points[1 - mover] + solver.value(black)
        assert value == float(np.sign(final_margin)), (opening, value, final_margin)


def test_cfr_converges_on_a_small_linecatch_opening():
    from open_spiel.python.algorithms import cfr, exploitability

    game = pyspiel.load_game("abstract_linecatch", {"rows": 3, "cols": 3, "opening": json.dumps([4, 0, 8, 2])})
    solver = cfr.CFRSolver(game)
    first = exploitability.exploitability(game, solver.average_policy())
    for _ in range(60):
        solver.evaluate_and_update_policy()
    last = exploitability.exploitability(game, solver.average_policy())
    assert last < 0.05 and last < first


def win_rate(game: str, options: dict, make_bot, games: int) -> float:
    spiel = load(game, options)
    players = spiel.num_players()
    score = 0.0
    for index in range(games):
        mine = index % players
        bots = [SuiteBot(spiel, p, "random", seed=1000 * index + p) for p in range(players)]
        bots[mine] = make_bot(spiel, index)
        state = spiel.new_initial_state()
        rng = np.random.RandomState(index)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                state.apply_action(bots[state.current_player()].step(state))
        returns = state.returns()
        score += 1.0 if returns[mine] > 0 else 0.5 if returns[mine] == 0 else 0.0
    return score / games


# OpenSpiel's Python MCTSBot: its C++ MCTSBot crashes on every Python-implemented game in
# open_spiel 2.0.2 (OpenSpiel's own python_tic_tac_toe included), so it is not used here.
@pytest.mark.parametrize("game,options,simulations,rollouts,games", [
    ("linecatch", {"rows": 4, "cols": 4}, 100, 2, 40),
    ("loom", {}, 50, 1, 20),
])
def test_openspiel_mcts_bot_beats_random(game, options, simulations, rollouts, games):
    from open_spiel.python.algorithms import mcts

    def make(spiel, index):
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=np.random.RandomState(index))
        return mcts.MCTSBot(spiel, 1.4, simulations, evaluator, random_state=np.random.RandomState(index), solve=True)

    assert win_rate(game, options, make, games) >= 0.8


def ismcts_bot(simulations: int, rollouts: int):
    from open_spiel.python.algorithms import ismcts, mcts

    class SeededISMCTSBot(ismcts.ISMCTSBot):
        """OpenSpiel's ISMCTS draws each resample with a fresh, unseeded sampler; this one seeds
        it from the bot's own random state, so a game replays exactly."""

        def resample_from_infostate(self, state):
            seed = int(self._random_state.randint(2**31))
            return state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0))

    def make(spiel, index):
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=np.random.RandomState(index))
        return SeededISMCTSBot(spiel, evaluator, 1.4, simulations, random_state=np.random.RandomState(index),
                               allow_inconsistent_action_sets=True)

    return make


def test_openspiel_ismcts_bot_beats_random_at_fill_with_hidden_traps():
    # ISMCTS searches states drawn by resample_from_infostate: the opponent's traps are unknown
    assert win_rate("fill", {"traps": True}, ismcts_bot(40, 1), 20) >= 0.8


@pytest.mark.parametrize("game", imperfect_games())
def test_openspiel_ismcts_plays_whole_games_of_the_hidden_information_games(game):
    # A strength test would need minutes in the long games (rollouts of 100+ moves). Instead
    # ISMCTS plays one whole game against random; at each of its turns the states it would
    # search, drawn by resample_from_infostate, share the mover's information state and legal moves.
    spiel = load(game, search(game))
    bot = ismcts_bot(8, 1)(spiel, 0)
    opponent = [SuiteBot(spiel, p, "random", seed=p) for p in range(spiel.num_players())]
    rng = np.random.RandomState(0)
    state, decisions = spiel.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        elif state.current_player() == 0:
            for draw in range(3):
                sampled = state.resample_from_infostate(0, np.random.RandomState(draw).random_sample)
                assert sampled.information_state_string(0) == state.information_state_string(0)
                assert sampled.legal_actions() == state.legal_actions()
            state.apply_action(bot.step(state))  # apply_action refuses an illegal move
            decisions += 1
        else:
            state.apply_action(opponent[state.current_player()].step(state))
    assert decisions >= 5 and len(state.returns()) == spiel.num_players()


def test_suite_agents_and_openspiel_bots_both_ways():
    from open_spiel.python.algorithms import evaluate_bots

    spiel = load("linecatch", {"rows": 3, "cols": 4})
    bots = [SuiteBot(spiel, 0, "heuristic", seed=0), SuiteBot(spiel, 1, "random", seed=1)]
    returns = evaluate_bots.evaluate_bots(spiel.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == 2
    # an OpenSpiel bot as a suite agent in the AEC env
    from open_spiel.python.algorithms import mcts

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(spiel, 1.4, 30, evaluator, random_state=np.random.RandomState(0))
    agent = OpenSpielAgent(bot, "linecatch", rows=3, cols=4)
    env = envs.load("linecatch").raw_env(rows=3, cols=4)
    env.reset(seed=0)
    while not env.game.is_terminal():
        name = env.agent_selection
        env.step(agent.act(env.observe(name)))
    assert env.game.is_terminal()


def shimmy_env(cls, game: str, options: dict):
    """Shimmy's PettingZoo view of a game, by name and parameters (given the game object,
    Shimmy's reset would load the game again without its parameters)."""
    description = envs.describe(game)
    return cls(game_name=f"abstract_{description.short_name}",
               config=envs.openspiel.parameters_from_options(description, options))


@pytest.mark.parametrize("game", envs.GAMES)
def test_shimmy_turns_each_pyspiel_game_back_into_a_pettingzoo_env(game):
    from pettingzoo.test import api_test
    from shimmy import OpenSpielCompatibilityV0

    options = quick(game)
    env = shimmy_env(OpenSpielCompatibilityV0, game, options)
    api_test(env, num_cycles=200)
    env.reset(seed=0)
    assert env.game_state.get_game().get_parameters() == load(game, options).get_parameters()


def play_shimmy_game(env, seed: int) -> tuple[int, dict]:
    """Random legal play to the end through a Shimmy env: the moves made and what each agent
    read from ``last()`` when it left (reward, terminated, truncated)."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    moves, left = 0, {}
    for agent in env.agent_iter(100_000):
        _, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            left[agent] = (reward, terminated, truncated)
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
        moves += 1
    return moves, left


def test_shimmy_2_0_1_truncates_games_with_chance_and_pays_the_second_leaver_twice():
    """What docs/openspiel.md says of Shimmy 2.0.1: chance nodes counted as moves (Loom cut
    after 21 of its 32 moves) and the final reward added again on each leaver's step."""
    import shimmy
    from shimmy import OpenSpielCompatibilityV0

    if shimmy.__version__ != "2.0.1":
        pytest.skip(f"documents Shimmy 2.0.1, not {shimmy.__version__}")
    env = shimmy_env(OpenSpielCompatibilityV0, "loom", {})
    moves, left = play_shimmy_game(env, 0)
    assert moves == 21 and not env.game_state.is_terminal()
    assert left == {"player_0": (0.0, False, True), "player_1": (0.0, False, True)}
    env = shimmy_env(OpenSpielCompatibilityV0, "fill", {})
    moves, left = play_shimmy_game(env, 0)
    returns = env.game_state.returns()
    assert env.game_state.is_terminal() and sorted(returns) == [-1.0, 1.0]
    first, second = list(left)
    assert left[first][0] == returns[int(first[-1])] and left[second][0] == 2 * returns[int(second[-1])]


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_documented_shimmy_subclass_plays_every_game_to_its_end_and_pays_once(game, monkeypatch):
    from pettingzoo.test import api_test

    from tests.docs.markdown import ROOT, blocks, run_block

    (code,) = [b for b in blocks(ROOT / "docs" / "openspiel.md", "python") if "class SuiteOpenSpielCompatibility" in b]
    namespace = {"__name__": "__docs__", "pyspiel": pyspiel}
    monkeypatch.chdir(ROOT)
    assert run_block(code, namespace, "docs/openspiel.md, the Shimmy subclass").strip() == str(
        ["player_0", "player_1", "player_2"])
    cls = namespace["SuiteOpenSpielCompatibility"]
    for options in option_sets(game)[:2]:
        env = shimmy_env(cls, game, options)
        for seed in range(2):
            moves, left = play_shimmy_game(env, seed)
            state = env.game_state
            assert state.is_terminal() and moves <= state.get_game().max_game_length()
            returns = state.returns()
            assert left == {f"player_{p}": (returns[p], True, False) for p in range(len(returns))}
    api_test(shimmy_env(cls, game, quick(game)), num_cycles=200)
