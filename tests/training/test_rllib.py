"""The RLlib path: the multi-agent wrapper, seat mapping, module → checkpoint conversion, and
tiny local training runs whose checkpoints load_agent and evaluate.py play like any agent."""

from __future__ import annotations

import json
import random
import shlex
from types import SimpleNamespace

import numpy as np
import pytest

REASON = "Ray RLlib is the optional 'rllib' extra: pip install -e '.[rllib]' (scripts/test.sh installs it)"
ray = pytest.importorskip("ray", reason=REASON)
pytest.importorskip("ray.rllib", reason=REASON)
pytest.importorskip("torch", reason="RLlib's PPO here runs on torch (the 'train' set-up installs the CPU build)")

import envs  # noqa: E402
from tests.cases import seat_count_cases  # noqa: E402
from training.players.load import load_agent  # noqa: E402
from training.agents.checkpoint import PolicyAgent  # noqa: E402
from training.agents.files import read_checkpoint  # noqa: E402
from training.jobs.rllib import RLlibTrainConfig, check_config, main  # noqa: E402
from training.jobs.rllib_policy import SeatMapping, actor_layers, fold_normalization, module_spec  # noqa: E402
from wrappers.rllib import MaskedRandomRLModule, SuiteMultiAgentEnv, observation_statistics  # noqa: E402

SETUPS = seat_count_cases()  # every game at its defaults, and at its other numbers of players


def play_random_game(env: SuiteMultiAgentEnv, seed: int):
    """Random legal play through the RLlib env; checks each step against the engine."""
    rng = random.Random(seed)
    observations, _ = env.reset(seed=seed)
    game = env.env.unwrapped.game
    repeats, moves, engine_repeats = 0, 0, 0
    while True:
        assert len(observations) == 1, "mid-game, only the seat to move observes"
        (agent,) = observations
        assert agent == env.possible_agents[game.current_player()]
        obs = observations[agent]
        assert set(obs) == {"observations", "action_mask"}
        assert obs["action_mask"].dtype == np.float32
        assert sorted(np.flatnonzero(obs["action_mask"])) == sorted(game.legal_actions())
        assert env.observation_spaces[agent].contains(obs)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        observations, rewards, terminated, truncated, _ = env.step({agent: action})
        game = env.env.unwrapped.game
        moves += 1
        if terminated["__all__"]:
            return game, observations, rewards, terminated, (repeats, engine_repeats), moves
        assert not truncated["__all__"] and set(rewards) == set(observations)
        repeats += next(iter(observations)) == agent
        engine_repeats += env.possible_agents[game.current_player()] == agent


@pytest.mark.parametrize("game, options", SETUPS)
def test_wrapper_plays_full_games_and_pays_every_seat(game, options):
    env = SuiteMultiAgentEnv({"game": game, "options": options})
    players = envs.describe(game).num_players(options)
    assert env.possible_agents == [f"player_{i}" for i in range(players)]
    for seed in range(6):
        final, observations, rewards, terminated, (repeats, engine_repeats), moves = play_random_game(env, seed)
        # multi-step turns (the engine gives the same seat the next move) go through the wrapper
        assert repeats == engine_repeats
        assert final.is_terminal()
        # Every seat, including ones that did not move last, gets its final return.
        assert set(observations) == set(env.possible_agents)
        assert rewards == {a: float(final.returns()[i]) for i, a in enumerate(env.possible_agents)}
        assert all(terminated[a] for a in env.possible_agents)


@pytest.mark.parametrize("game, options", SETUPS)
def test_score_shaping_pays_each_seat_its_final_margin(game, options):
    weight = 0.05
    env = SuiteMultiAgentEnv({"game": game, "options": options, "score_shaping": weight})
    for seed in range(5):
        rng = random.Random(seed)
        observations, _ = env.reset(seed=seed)
        collected = dict.fromkeys(env.possible_agents, 0.0)
        done = False
        while not done:
            (agent,) = observations
            action = int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
            observations, rewards, terminated, _, _ = env.step({agent: action})
            for name, reward in rewards.items():
                collected[name] += reward
            done = terminated["__all__"]
        game_state = env.env.unwrapped.game
        scores, returns = game_state.scores(), game_state.returns()
        for i, name in enumerate(env.possible_agents):
            margin = scores[i] - max(s for j, s in enumerate(scores) if j != i)
            assert collected[name] == pytest.approx(returns[i] + weight * margin)


def test_wrapper_is_seeded():
    env = SuiteMultiAgentEnv({"game": "knot", "options": {"players": 3}})
    first = play_random_game(env, 11)[0].snapshot()
    assert play_random_game(env, 11)[0].snapshot() == first


def normalized_config(game: str, options: dict, games: int = 10, seed: int = 0) -> dict:
    shift, scale = observation_statistics(game, options, games, seed)
    return {"game": game, "options": options, "observation_shift": shift.tolist(), "observation_scale": scale.tolist()}


def test_observation_statistics_are_seeded_means_and_floored_spreads():
    options = {"rows": 4, "cols": 4}
    shift, scale = observation_statistics("linecatch", options, 30, seed=5)
    again = observation_statistics("linecatch", options, 30, seed=5)
    np.testing.assert_array_equal(shift, again[0])
    np.testing.assert_array_equal(scale, again[1])
    assert not np.array_equal(shift, observation_statistics("linecatch", options, 30, seed=6)[0])
    n = 16
    # Black squares: about half the board is black over a game; pro mode is constant (off),
    # so its spread is the floor, not 0.
    assert 0.3 < shift[:n].mean() < 0.7 and np.all(scale[:n] > 0.4)
    assert shift[3 * n + 2] == 0 and scale[3 * n + 2] == pytest.approx(0.05)
    assert np.all(scale >= 0.05)
    with pytest.raises(ValueError, match="at least 1 game"):
        observation_statistics("linecatch", options, 0, seed=0)


@pytest.mark.parametrize("game, options", SETUPS)
def test_normalized_wrapper_serves_shifted_scaled_observations(game, options):
    config = normalized_config(game, options)
    shift, scale = np.asarray(config["observation_shift"]), np.asarray(config["observation_scale"])
    env, plain = SuiteMultiAgentEnv(config), SuiteMultiAgentEnv({"game": game, "options": options})
    rng = random.Random(1)
    observations, _ = env.reset(seed=4)
    raw, _ = plain.reset(seed=4)
    for _ in range(12):
        if len(observations) > 1:  # the game is over (every seat observes its end)
            break
        (name,) = observations
        assert env.observation_spaces[name].contains(observations[name])
        np.testing.assert_allclose(observations[name]["observations"], (raw[name]["observations"] - shift) / scale, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(observations[name]["action_mask"], raw[name]["action_mask"])
        action = int(rng.choice(np.flatnonzero(raw[name]["action_mask"])))
        observations, raw = env.step({name: action})[0], plain.step({name: action})[0]


def test_wrapper_rejects_bad_normalization():
    good = normalized_config("linecatch", {"rows": 3, "cols": 3}, games=2)
    with pytest.raises(ValueError, match="both"):
        SuiteMultiAgentEnv({**good, "observation_scale": None})
    with pytest.raises(ValueError, match="'observation_shift' needs 48 numbers"):
        SuiteMultiAgentEnv({**good, "observation_shift": good["observation_shift"][:-1]})
    with pytest.raises(ValueError, match="positive"):
        SuiteMultiAgentEnv({**good, "observation_scale": [0.0] * 48})


def test_wrapper_rejects_bad_config():
    with pytest.raises(ValueError, match="needs 'game'"):
        SuiteMultiAgentEnv({"options": {}})
    with pytest.raises(ValueError, match="not colour"):
        SuiteMultiAgentEnv({"game": "loom", "colour": 1})
    with pytest.raises(ValueError, match="players"):
        SuiteMultiAgentEnv({"game": "knot", "options": {"players": 5}})


def test_masked_random_module_plays_only_legal_moves():
    module = MaskedRandomRLModule(observation_space=None, action_space=None, model_config={"seed": 3})
    masks = np.zeros((200, 9), np.float32)
    masks[np.arange(200), np.arange(200) % 9] = 1
    masks[::2, 4] = 1
    actions = module.forward_exploration({"obs": {"action_mask": masks, "observations": np.zeros((200, 2))}})["actions"]
    assert all(masks[i, a] == 1 for i, a in enumerate(actions))
    assert set(actions[::2]) >= {4}  # both legal squares of the two-move rows get picked


def fake_episode(index: int):
    return SimpleNamespace(id_=f"episode-{index}")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seat_mapping_seats_one_learner_against_frozen_opponents(players):
    mapping = SeatMapping(["learner"], ["random", "snapshot_1"], 0.5, players, seed=7)
    against_frozen = 0
    for index in range(2000):
        episode = fake_episode(index)
        seats = [mapping(f"player_{s}", episode) for s in range(players)]
        assert seats == [mapping(f"player_{s}", episode) for s in range(players)], "one draw per game"
        if set(seats) != {"learner"}:
            against_frozen += 1
            assert seats.count("learner") == 1
            assert set(seats) - {"learner"} <= {"random", "snapshot_1"}
    assert 0.45 < against_frozen / 2000 < 0.55


def test_seat_mapping_per_seat_learners_and_pure_self_play():
    per_seat = SeatMapping(["learner_seat0", "learner_seat1", "learner_seat2"], [], 0.5, 3, seed=0)
    assert [per_seat(f"player_{s}", fake_episode(1)) for s in range(3)] == ["learner_seat0", "learner_seat1", "learner_seat2"]
    never = SeatMapping(["learner"], ["random"], 0.0, 2, seed=0)
    assert {never(f"player_{s}", fake_episode(i)) for i in range(200) for s in range(2)} == {"learner"}


def test_config_errors_name_the_option():
    with pytest.raises(ValueError, match="'opponents'"):
        check_config(RLlibTrainConfig(opponents=["heuristic"]), 2)
    with pytest.raises(ValueError, match="'opponent_share'"):
        check_config(RLlibTrainConfig(opponents=["random"], opponent_share=1.5), 2)
    with pytest.raises(ValueError, match="shared"):
        check_config(RLlibTrainConfig(opponents=["snapshot"], shared_policy=False), 2)
    with pytest.raises(ValueError, match="'activation'"):
        check_config(RLlibTrainConfig(activation="swish"), 2)
    with pytest.raises(ValueError, match="'minibatch_size'"):
        check_config(RLlibTrainConfig(train_batch_size=100, minibatch_size=200), 2)
    with pytest.raises(ValueError, match="'grad_clip'"):
        check_config(RLlibTrainConfig(grad_clip=-1.0), 2)
    with pytest.raises(ValueError, match="'normalization_games'"):
        check_config(RLlibTrainConfig(normalization_games=0), 2)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_converted_actor_matches_rllib_logits(activation):
    """The numpy PolicyAgent computes the same masked logits as RLlib's masking module."""
    import torch

    env_config = {"game": "knot", "options": {"players": 3}}
    torch.manual_seed(0)
    config = RLlibTrainConfig(net_arch=[24, 16], activation=activation)
    module = module_spec(config, env_config).build()
    agent = PolicyAgent(actor_layers(module, activation), activation)
    env = SuiteMultiAgentEnv(env_config)
    rng = random.Random(0)
    for seed in range(5):
        observations, _ = env.reset(seed=seed)
        for _ in range(rng.randrange(1, 15)):
            (name,) = observations
            observations = env.step({name: int(rng.choice(np.flatnonzero(observations[name]["action_mask"])))})[0]
        (name,) = observations
        obs = observations[name]
        batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
        rllib_logits = module.forward_inference(batch)["action_dist_inputs"][0].detach().numpy()
        legal = obs["action_mask"] > 0
        suite = agent.masked_logits({"observation": obs["observations"], "action_mask": obs["action_mask"]})
        np.testing.assert_allclose(suite[legal], rllib_logits[legal], rtol=1e-5, atol=1e-5)
        assert np.all(np.isinf(suite[~legal]))
        assert agent.act({"observation": obs["observations"], "action_mask": obs["action_mask"]}) == int(np.argmax(rllib_logits))


@pytest.mark.parametrize("game, options", [("linecatch", {"rows": 5, "cols": 5}), ("knot", {"players": 3})])
def test_folded_normalization_reproduces_rllib_logits_on_raw_observations(game, options):
    """A module trained on normalised observations, converted with the normalisation folded
    into its first layer, plays raw observations exactly as RLlib plays normalised ones."""
    import torch

    config = normalized_config(game, options, games=3)
    torch.manual_seed(1)
    module = module_spec(RLlibTrainConfig(net_arch=[24, 16]), config).build()
    agent = PolicyAgent(fold_normalization(actor_layers(module, "tanh"), config), "tanh")
    assert not np.allclose(agent.layers[0][0], actor_layers(module, "tanh")[0][0]), "the fold changed the first layer"
    env, plain = SuiteMultiAgentEnv(config), SuiteMultiAgentEnv({"game": game, "options": options})
    rng = random.Random(2)
    for seed in range(4):
        observations, _ = env.reset(seed=seed)
        raw, _ = plain.reset(seed=seed)
        for _ in range(rng.randrange(1, 15)):
            (name,) = observations
            action = int(rng.choice(np.flatnonzero(raw[name]["action_mask"])))
            observations, raw = env.step({name: action})[0], plain.step({name: action})[0]
        (name,) = observations
        batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in observations[name].items()}}
        rllib_logits = module.forward_inference(batch)["action_dist_inputs"][0].detach().numpy()
        legal = raw[name]["action_mask"] > 0
        suite = agent.masked_logits({"observation": raw[name]["observations"], "action_mask": raw[name]["action_mask"]})
        np.testing.assert_allclose(suite[legal], rllib_logits[legal], rtol=1e-4, atol=1e-4)
    assert fold_normalization(agent.layers, {"game": game}) is agent.layers, "no normalisation: layers unchanged"


def test_conversion_refuses_a_shared_encoder():
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    spec = module_spec(RLlibTrainConfig(net_arch=[8]), {"game": "linecatch", "options": {"rows": 3, "cols": 3}})
    spec.model_config = DefaultModelConfig(fcnet_hiddens=[8], vf_share_layers=True)
    with pytest.raises(ValueError, match="actor encoder"):
        actor_layers(spec.build(), "tanh")


@pytest.mark.parametrize("game", ["uzor", "knot"])
def test_rllib_s_env_check_steps_an_unmasked_action_the_raw_env_refuses(game):
    """Why docs/scaling.md has a config turn RLlib's env check off: the check's one step
    from the start, an unmasked sample, is illegal here (its space seeded so that it is)."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = SuiteMultiAgentEnv({"game": game})
    observations, _ = env.reset(seed=42)  # as the check resets it
    (agent, observation), = observations.items()
    space = env.get_action_space(agent)
    for seed in range(100):
        space.seed(seed)
        if observation["action_mask"][space.sample()] == 0:
            break
    space.seed(seed)
    with pytest.raises(ValueError, match="step"):
        check_multiagent_environments(env)


# ----- tiny local training runs --------------------------------------------------------------


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the training runs (train_rllib leaves a running Ray alone)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def test_a_config_of_one_s_own_runs_as_docs_scaling_md_shows_it(local_ray, monkeypatch):
    """The page's own RLlib config (the check off), run as written: one training iteration."""
    from tests.docs.markdown import ROOT, blocks, run_block

    (code,) = [block for block in blocks(ROOT / "docs" / "scaling.md", "python") if "disable_env_checking" in block]
    monkeypatch.chdir(ROOT)
    printed = run_block(code, {"__name__": "__docs__"}, "docs/scaling.md, a config of one's own")
    assert printed.startswith("steps sampled: ") and float(printed.split(":")[1]) >= 128


TINY = [
    "--iterations", "2", "--train-batch-size", "256", "--minibatch-size", "128", "--num-epochs", "2",
    "--net-arch", "32", "--eval-every", "1", "--eval-games", "4", "--final-eval-games", "10",
    "--num-env-runners", "1", "--no-save-rllib-checkpoint", "--normalization-games", "3",
]


def play_full_games(agent, game: str, options: dict, games: int) -> None:
    """The agent in every seat of raw envs (which raise on an illegal move)."""
    module = envs.load(game)
    for seed in range(games):
        env = module.raw_env(**options)
        env.reset(seed=seed)
        while not env.game.is_terminal():
            observation = env.observe(env.agent_selection)
            action = agent.act(observation)
            assert observation["action_mask"][action] == 1
            env.step(action)


@pytest.mark.parametrize(
    "game, options, extra",
    [
        ("linecatch", {"rows": 4, "cols": 4}, ["--opponents", "random", "snapshot", "--snapshot-every", "1"]),
        ("knot", {"players": 3}, ["--opponents", "random"]),
    ],
)
def test_tiny_run_writes_a_checkpoint_that_load_agent_plays(local_ray, tmp_path, capsys, game, options, extra):
    argv = ["--game", game, "--options", json.dumps(options), "--seed", "3", "--out-dir", str(tmp_path), *TINY, *extra]
    summary = main(argv)
    out = capsys.readouterr().out
    assert "[iter    2 |" in out and "final vs random" in out
    (run_dir,) = tmp_path.iterdir()
    assert run_dir.name.startswith(f"{game}__rllib-ppo__3__")
    checkpoint = run_dir / f"{game}__rllib-ppo__3.zip"
    assert summary["checkpoint"] == str(checkpoint) and checkpoint.is_file()
    assert summary["steps"] >= 512
    meta, layers = read_checkpoint(checkpoint)
    assert meta["command"] == "python -m training.train_rllib " + " ".join(shlex.quote(a) for a in argv)
    assert meta["algo"] == "RLlib PPO" and meta["game"] == f"{game}_v0" and len(layers) == 2
    assert meta["observation_normalization"].startswith("mean/std over 3 random games")
    evaluation = json.loads((run_dir / "evaluation.json").read_text())
    assert evaluation["final_evaluation"]["random"]["games"] == 10

    agent = load_agent(str(checkpoint), game, seed=0, **options)
    play_full_games(agent, game, options, games=5)

    from training.evaluation.tournament import main as evaluate_main

    results = evaluate_main(["--game", game, "--options", json.dumps(options), "--agents", str(checkpoint), "random", "--games", "6"])
    assert results[0].games == 6
