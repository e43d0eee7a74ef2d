"""The self-play env, the bot-seating wrapper and the agent interface."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs import linecatch_v0
from tests.cases import search
from training.players.load import load_agent
from wrappers.seat_bots import SeatBots
from training.players.self_play import SelfPlayEnv


class LowestLegal:
    """A scripted agent: always the lowest legal action (makes games deterministic)."""

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


def scripted_outcome(rows: int, cols: int) -> tuple[list[int], int]:
    """Returns and last mover of a game where both seats play the lowest legal square."""
    env = linecatch_v0.raw_env(rows=rows, cols=cols)
    env.reset(seed=0)
    last = None
    while not env.game.is_terminal():
        last = env.game.current_player()
        env.step(min(env.game.legal_actions()))
    return env.game.returns(), last


@pytest.mark.parametrize("rows, cols", [(3, 3), (3, 4), (4, 4), (4, 5)])
@pytest.mark.parametrize("seat", [0, 1])
def test_learner_gets_its_own_terminal_reward_in_either_seat(rows, cols, seat):
    returns, _ = scripted_outcome(rows, cols)
    env = SelfPlayEnv("linecatch", {"rows": rows, "cols": cols}, [LowestLegal()], seed=1, learner_seat=seat)
    obs, info = env.reset(seed=3)
    assert info["learner_seat"] == seat
    me = LowestLegal()
    total, done, steps = 0.0, False, 0
    while not done:
        mask = env.action_masks()
        assert mask.any()
        obs, reward, done, truncated, info = env.step(me.act({"observation": obs, "action_mask": mask}))
        total += reward
        steps += 1
        if not done:
            assert reward == 0.0
    assert total == returns[seat]


def test_the_loser_of_a_game_ended_by_the_opponents_move_still_gets_minus_one():
    # Find a board where the opponent makes the last move, then check the learner's reward.
    for rows, cols in [(3, 3), (3, 4), (4, 4), (4, 5), (5, 5)]:
        returns, last = scripted_outcome(rows, cols)
        learner = 1 - last
        env = SelfPlayEnv("linecatch", {"rows": rows, "cols": cols}, [LowestLegal()], learner_seat=learner)
        obs, _ = env.reset(seed=0)
        done, reward = False, 0.0
        while not done:
            obs, reward, done, _, _ = env.step(LowestLegal().act({"observation": obs, "action_mask": env.action_masks()}))
        assert reward == returns[learner]
        if returns[learner] == -1:
            return
    pytest.fail("no scripted board ended with the opponent's winning move; extend the list")


def test_masks_match_the_engine_and_seats_are_drawn_at_random():
    env = SelfPlayEnv("loom", {}, ["random"], seed=5)
    seats = set()
    for episode in range(30):
        obs, info = env.reset()
        seats.add(info["learner_seat"])
        game = env.raw.game
        assert game.current_player() == info["learner_seat"]
        expected = np.zeros(32, bool)
        expected[game.legal_actions()] = True
        assert np.array_equal(env.action_masks(), expected)
        assert env.observation_space.contains(obs)
    assert seats == {0, 1}


def test_same_seed_same_episodes():
    def run(seed):
        env = SelfPlayEnv("loom", {}, ["random", "heuristic"], seed=seed)
        obs, _ = env.reset()
        rng = np.random.default_rng(0)
        out, done = [obs.copy()], False
        while not done:
            obs, reward, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            out.append(obs.copy())
        return np.array(out), reward

    a, b = run(9), run(9)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_empty_pool_and_bad_seat_are_refused():
    with pytest.raises(ValueError, match="opponent pool is empty"):
        SelfPlayEnv("loom", {}, [])
    with pytest.raises(ValueError, match="learner_seat"):
        SelfPlayEnv("loom", {}, ["random"], learner_seat=2)
    with pytest.raises(ValueError, match="unknown agent"):
        SelfPlayEnv("loom", {}, ["grandmaster"])


def test_seat_bots_lets_a_program_play_one_seat():
    bot = load_agent("heuristic", "linecatch", seed=0)
    env = SeatBots(linecatch_v0.env(), {"player_1": bot})
    env.reset(seed=2)
    me = LowestLegal()
    seen = set()
    for agent in env.agent_iter():
        seen.add(agent)
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else me.act(obs))
    assert seen == {"player_0"}
    assert env.agents == []
    with pytest.raises(ValueError, match="no seat named"):
        SeatBots(linecatch_v0.env(), {"player_7": bot})


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_named_bot_plays_legal_moves_to_the_end(game):
    from training.players.load import bot_table
    from training.evaluation.tournament import play_game

    module = envs.load(game)
    for name in bot_table(game):
        options = search(game)
        try:
            load_agent(name, game, **options)
        except ValueError:  # a bot for some options only (Fill's solver): it plays the defaults
            options = {}
        n = module.GAME.num_players(options)
        agents = [load_agent(name, game, seed=i, **options) for i in range(n)]
        for seed in range(3):
            returns, _ = play_game(game, agents, seed, options)  # raw env: an illegal move raises
            assert set(returns) <= {-1, 0, 1} and max(returns) >= 0, returns


def test_score_shaping_sums_to_the_weighted_margin_gained():
    env = SelfPlayEnv("loom", {}, ["random"], seed=2, score_shaping=0.01)
    for episode in range(5):
        obs, info = env.reset()
        seat = info["learner_seat"]
        start = info["scores"][seat] - info["scores"][1 - seat]  # the opponent may have opened
        total, done = 0.0, False
        rng = np.random.default_rng(episode)
        while not done:
            obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += reward
        scores = info["scores"]
        outcome = env.raw.game.returns()[seat]
        assert total == pytest.approx(outcome + 0.01 * (scores[seat] - scores[1 - seat] - start))


# ----- what the env checkers found -------------------------------------------------------

def episode(env, seed, moves_seed=0):
    """Observations, rewards and seats of one episode from reset(seed=seed), with seeded legal moves."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(moves_seed)
    trace, done = [obs.tobytes(), info["learner_seat"]], False
    while not done:
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        trace += [obs.tobytes(), reward]
    return trace


@pytest.mark.parametrize("opponents", [["random"], ["random", "heuristic"], ["mcts:8"]], ids=str)
def test_reset_with_the_same_seed_replays_the_same_episode_on_one_env(opponents):
    env = SelfPlayEnv("loom", {}, opponents)
    first = episode(env, 123)
    episode(env, 7)  # the generators move on between
    assert episode(env, 123) == first
    assert any(episode(env, seed) != first for seed in (1, 2, 3))


def test_reset_with_the_same_seed_reseeds_a_sampling_policy_opponent():
    from training.agents.files import read_checkpoint

    meta, layers = read_checkpoint("checkpoints/loom/loom__maskppo__0.zip")
    env = SelfPlayEnv("loom", {}, [{"layers": layers, "activation": meta["activation"], "sample": True}], learner_seat=1)
    first = episode(env, 5)
    episode(env, 6)
    assert episode(env, 5) == first


def illegal_action_of(env) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_an_illegal_action_ends_the_episode_as_a_loss_by_default_with_a_warning():
    from envs.core.wrapping import IllegalMoveWarning

    env = SelfPlayEnv("linecatch", {"rows": 3, "cols": 3}, ["random"], learner_seat=1)
    assert env.illegal_action == "lose"
    obs, _ = env.reset(seed=0)
    action = illegal_action_of(env)
    with pytest.warns(IllegalMoveWarning, match=rf"illegal action {action} by the learner \(player_1\).*already"):
        after, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)


def test_an_illegal_action_raises_with_raise_and_the_state_is_unchanged():
    from envs.core.game import IllegalActionError

    env = SelfPlayEnv("linecatch", {"rows": 3, "cols": 3}, ["random"], learner_seat=1, illegal_action="raise")
    env.reset(seed=0)
    before = env.raw.snapshot()
    with pytest.raises(IllegalActionError, match="already"):
        env.step(illegal_action_of(env))
    assert env.raw.snapshot() == before
    for bad in (True, 1.0, np.array([3]), "a1"):
        with pytest.raises(ValueError, match="an action is an integer"):
            env.step(bad)
    assert env.raw.snapshot() == before


@pytest.mark.filterwarnings("ignore::envs.core.wrapping.IllegalMoveWarning")
def test_illegal_action_lose_ends_the_episode_with_minus_one():
    env = SelfPlayEnv("linecatch", {"rows": 3, "cols": 3}, ["random"], learner_seat=1, illegal_action="lose",
                      score_shaping=0.5)
    obs, _ = env.reset(seed=0)
    before = env.raw.snapshot()
    after, reward, terminated, truncated, info = env.step(illegal_action_of(env))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True and np.array_equal(after, obs)
    assert env.raw.snapshot() == before  # the illegal move was not played
    for action in (99, -1):  # out of range: illegal too
        env.reset(seed=0)
        assert env.step(action)[1:3] == (-1.0, True)
    with pytest.raises(ValueError, match="an action is an integer"):
        env.reset(seed=0)
        env.step(2.5)  # not an action at all: a bug in the caller, not a move
    env.reset(seed=0)
    env.step(illegal_action_of(env))
    with pytest.raises(RuntimeError, match="the episode is over: call reset"):
        env.step(0)
    obs, _ = env.reset(seed=0)  # and it plays on after a reset
    assert env.step(int(np.flatnonzero(env.action_masks())[0]))[2] in (False, True)


def test_legal_play_is_the_same_under_raise_and_lose():
    traces = [episode(SelfPlayEnv("knot", {"players": 3}, ["random"], illegal_action=mode), 4) for mode in ("raise", "lose")]
    assert traces[0] == traces[1]


def test_unknown_illegal_action_mode_and_the_metadata():
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'lose'"):
        SelfPlayEnv("loom", {}, ["random"], illegal_action="ignore")
    env = SelfPlayEnv("loom", {}, ["random"], render_mode="ansi")
    assert env.metadata["render_fps"] > 0 and set(env.metadata["render_modes"]) == {"ansi", "rgb_array"}
    env.reset(seed=0)
    assert isinstance(env.render(), str)
    info = env.reset(seed=0)[1]
    assert info["scores"].dtype == np.float32


def test_the_wrapper_alone_seats_agents_and_names_what_builds_any_other_opponent():
    """``wrappers.self_play`` knows no bots: agent objects play as they are, a spec is refused by
    a message that says which env builds it, and the training stack's env builds it."""
    from wrappers.self_play import SelfPlayEnv as BareSelfPlayEnv

    returns, _ = scripted_outcome(3, 3)
    bare = BareSelfPlayEnv("linecatch", {"rows": 3, "cols": 3}, [LowestLegal()], seed=1, learner_seat=0)
    bare.reset(seed=3)
    done, total = False, 0.0
    while not done:
        _, reward, done, _, _ = bare.step(int(np.flatnonzero(bare.action_masks())[0]))
        total += reward
    assert total == returns[0]  # both seats played the lowest square: the scripted game
    with pytest.raises(ValueError, match=r"opponent 'heuristic' is not an agent .*training\.players\.self_play"):
        BareSelfPlayEnv("loom", {}, ["heuristic"])
    built = SelfPlayEnv("loom", {}, ["heuristic"], seed=0)
    assert type(built.pool[0]).__name__ == "HeuristicLoomBot"
