"""Search-and-learn: the network (numpy twin of the torch one), the Gumbel search, the training
job (a tiny run per game, resume), and the agents it makes."""

from __future__ import annotations

import dataclasses
import json
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core.observer import Symmetry
from training.players.load import load_agent
from training.jobs.alphazero.config import AlphaZeroConfig
from training.jobs.alphazero.job import main
from training.jobs.alphazero.learning import Learner
from training.jobs.alphazero.network import torch_network
from training.jobs.alphazero.run import Run
from training.search.guided import (
    GuidedSearch, NetworkEvaluator, considered_visits, run_batched, to_absolute, to_relative,
)
from training.evaluation.tournament import play_game
from training.agents.archive import CheckpointError
from tests.cases import imperfect_games, quick, shipped_games
from tests.cases import search as search_options
from tests.training.hidden_states import positions_with_two_hidden_worlds
from training.agents.files import load_network, read_network_file
from training.agents.network import Architecture, PolicyValueNet, save_network


def has_planes(game: str) -> bool:
    try:
        envs.describe(game).make_observer({}).planes_shape()
    except NotImplementedError:
        return False
    return True


PLANE_GAMES = [g for g in envs.GAMES if has_planes(g)]


def random_net(game: str, options: dict, seed: int = 0, filters: int = 8, blocks: int = 1) -> PolicyValueNet:
    description = envs.describe(game)
    observer = description.make_observer(options)
    layout = observer.policy_layout()
    arch = Architecture(tuple(observer.planes_shape()), filters, blocks, layout.cell_channels, layout.global_actions,
                        description.num_players(options))
    rng = np.random.default_rng(seed)
    weights = {k: rng.standard_normal(s).astype(np.float32) * 0.3 for k, s in arch.weight_shapes().items()}
    return PolicyValueNet(arch, weights, layout.index)


def test_sequential_halving_schedule_matches_the_paper():
    # 4 actions, 8 simulations: one visit each, then the best 2 get the remaining four
    assert considered_visits(4, 8) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert considered_visits(1, 3) == [0, 1, 2]
    schedule = considered_visits(16, 64)
    assert len(schedule) == 64 and schedule[:16] == [0] * 16
    assert max(schedule) < 64


def test_values_between_relative_and_absolute_seats():
    relative = np.array([[0.5, -0.1, 0.2], [0.9, 0.0, -0.9]])
    absolute = to_absolute(relative, np.array([1, 2]), 3)
    assert absolute[0].tolist() == [0.2, 0.5, -0.1]  # seat 1 is "me"
    assert to_relative(absolute[1], 2).tolist() == relative[1].tolist()


def test_the_convolution_equals_the_benchmarks_sliding_window_reference(monkeypatch):
    """scripts/benchmark.py --network times the network against the textbook im2col: both must
    compute the same convolution (odd sizes, several channels, a batch) for the ratio to mean
    anything."""
    from tests.scripts import import_script
    from training.agents.network import conv3x3, conv_matrix

    reference = import_script(monkeypatch, "benchmark").sliding_window_conv3x3
    rng = np.random.default_rng(0)
    for n, h, w, c, out in [(1, 5, 7, 3, 4), (3, 9, 9, 16, 8), (2, 1, 4, 2, 5)]:
        x = rng.standard_normal((n, h, w, c)).astype(np.float32)
        weight = rng.standard_normal((out, c, 3, 3)).astype(np.float32)
        bias = rng.standard_normal(out).astype(np.float32)
        np.testing.assert_allclose(conv3x3(x, conv_matrix(weight), bias), reference(x, weight, bias),
                                   rtol=1e-4, atol=1e-4)
    # one output cell by hand: the weight's (kh, kw) = (0, 0) tap reads the up-left neighbour
    x = np.zeros((1, 3, 3, 1), np.float32)
    x[0, 0, 0, 0] = 1.0
    weight = np.zeros((1, 1, 3, 3), np.float32)
    weight[0, 0, 0, 0] = 2.0
    assert conv3x3(x, conv_matrix(weight), np.zeros(1, np.float32))[0, 1, 1, 0] == 2.0


@pytest.mark.parametrize("game", PLANE_GAMES)
def test_numpy_network_equals_the_trained_torch_network(game):
    import torch

    options = quick(game)
    config = AlphaZeroConfig(game=game, options=options, filters=8, blocks=2, seed=1)
    description = envs.describe(game)
    observer = description.make_observer(options)
    layout = observer.policy_layout()
    arch = Architecture(tuple(observer.planes_shape()), 8, 2, layout.cell_channels, layout.global_actions,
                        description.num_players(options))
    learner = Learner(config, arch, observer)
    # a few updates so that the batch-norm statistics are not the identity
    rng = np.random.default_rng(0)
    env = description_env(game, options)
    vectors = np.stack([env.observe(env.agent_selection)["observation"]] * 8)
    batch = {"vectors": vectors + 0, "masks": np.ones((8, len(layout.index)), bool),
             "policies": np.full((8, len(layout.index)), 1.0 / len(layout.index), np.float32),
             "values": np.zeros((8, arch.players), np.float32), "margins": np.zeros((8, arch.players), np.float32)}
    for _ in range(3):
        learner.step(batch, rng)
    # positions whose outcome is no target (--no-opponent-outcomes) weigh nothing in the value losses
    batch["values"] = np.ones((8, arch.players), np.float32)
    assert learner.step(dict(batch, value_weights=np.zeros(8, np.float32)), rng)["loss/value"] == 0.0
    assert learner.step(dict(batch, value_weights=np.ones(8, np.float32)), rng)["loss/value"] > 0.0
    net = PolicyValueNet(arch, learner.weights(), layout.index)
    planes = observer.planes(vectors)
    learner.model.eval()
    with torch.no_grad():
        head, values, margins = learner.model(torch.as_tensor(planes))
    ours = net.forward(planes)
    np.testing.assert_allclose(ours[0], head.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours[1], values.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours[2], margins.numpy(), rtol=1e-4, atol=1e-5)


def description_env(game: str, options: dict, seed: int = 0):
    env = envs.load(game).raw_env(**options)
    env.reset(seed=seed)
    return env


# the network alone; and AlphaGo's mixture, the hook scoring leaves after two play-out moves
LEAF_SETTINGS = {"network": {}, "playouts": {"hook_weight": 0.5, "playout": 2}}


@pytest.mark.parametrize("leaves", LEAF_SETTINGS)
@pytest.mark.parametrize("game", PLANE_GAMES)
def test_guided_search_is_legal_in_every_game(game, leaves):
    options = quick(game)
    net = random_net(game, options)
    search = GuidedSearch(game, options, simulations=12, **LEAF_SETTINGS[leaves])
    evaluator = NetworkEvaluator(net, search.observer, search.seats)
    env = description_env(game, options, seed=3)
    rng = random.Random(0)
    searched = 0
    while not env.game.is_terminal() and searched < 25:
        name = env.possible_agents[env.game.current_player()]
        observation = env.observe(name)
        result = run_batched([search.run(observation, rng)], evaluator)[0]
        mask = observation["action_mask"]
        assert mask[result.action] == 1
        assert abs(result.policy.sum() - 1) < 1e-6 and not result.policy[mask == 0].any()
        assert sum(result.visits.values()) == (12 if mask.sum() > 1 else 0)
        env.step(result.action)
        searched += 1
    assert searched > 0


@pytest.mark.parametrize("game", PLANE_GAMES)
def test_with_the_hooks_whole_weight_the_value_heads_have_no_say(game):
    """``hook=1`` (Uzor's recorded setting): leaves are scored by the game's evaluation after the
    play-out, so two networks that differ only in their value and margin heads search alike
    (same policy, same move); with ``hook=0`` the heads score the leaves and the searches part."""
    options = quick(game)
    net = random_net(game, options, seed=6)
    other_heads = dict(net.weights)
    rng = np.random.default_rng(9)
    for name, value in net.weights.items():
        if name.startswith(("value.", "margin.")):
            other_heads[name] = (rng.standard_normal(value.shape) * 0.6).astype(np.float32)
    twin = PolicyValueNet(net.architecture, other_heads, net.index)
    parted = {}
    for hook in (1.0, 0.0):
        search = GuidedSearch(game, options, simulations=12, hook_weight=hook, playout=1, value_mix=0.5)
        env = description_env(game, options, seed=5)
        play = random.Random(5)
        parted[hook] = 0
        for _ in range(8):
            if env.game.is_terminal():
                break
            observation = env.observe(env.possible_agents[env.game.current_player()])
            results = [run_batched([search.run(observation, random.Random(3))],
                                   NetworkEvaluator(n, search.observer, search.seats, 0.5))[0] for n in (net, twin)]
            same = results[0].action == results[1].action and np.array_equal(results[0].policy, results[1].policy)
            if hook == 1.0:
                assert same
            parted[hook] += not same
            env.step(play.choice(env.game.legal_actions()))
    assert parted[1.0] == 0 and parted[0.0] > 0


def three_squares_left(seed: int):
    """A Linecatch 3×3 env after random moves (seeded) up to three white squares left."""
    env = description_env("linecatch_v0", {"rows": 3, "cols": 3}, seed=seed)
    rng = random.Random(seed)
    while len(env.game.legal_actions()) > 3:
        env.step(rng.choice(env.game.legal_actions()))
    return env


def test_guided_search_finds_the_winning_square_with_a_random_network():
    """Linecatch 3×3 with three white squares: one leaves the opponent a catch of the last line
    and loses, the search must see it through terminal values whatever the network says."""
    game, options = "linecatch_v0", {"rows": 3, "cols": 3}
    wins = 0
    for seed in range(6):
        env = three_squares_left(seed)
        seat = env.game.current_player()
        observation = env.observe(env.possible_agents[seat])
        # the exact value of every move, by brute force through the engine
        def best(state):
            if state.is_terminal():
                return state.returns()
            outcomes = []
            for a in state.legal_actions():
                child = state.clone()
                child.apply(a)
                outcomes.append(best(child))
            mover = state.current_player()
            return max(outcomes, key=lambda r: r[mover])
        exact = {}
        for a in env.game.legal_actions():
            child = env.game.clone()
            child.apply(a)
            exact[a] = best(child)[seat]
        net = random_net(game, options, seed=seed)
        search = GuidedSearch(game, options, simulations=48)
        result = run_batched([search.run(observation, random.Random(1))], NetworkEvaluator(net, search.observer, 2))[0]
        top = max(exact.values())
        wins += exact[result.action] == top
    assert wins == 6


@pytest.mark.parametrize("game", PLANE_GAMES)
def test_a_tiny_run_writes_an_agent_that_plays_full_games_and_resumes(game, tmp_path):
    options = quick(game)
    argv = ["--game", game, "--options", json.dumps(options), "--iterations", "1", "--games-per-iteration", "2",
            "--simulations", "4", "--concurrent-games", "2", "--workers", "1", "--filters", "8", "--blocks", "1",
            "--steps-per-iteration", "2", "--batch-size", "16", "--eval-every", "1", "--eval-games", "2",
            "--final-eval-games", "0", "--out-dir", str(tmp_path), "--seed", "3"]
    summary = main(argv)
    run_dir = summary["run"]
    assert summary["iterations"] == 1 and summary["self_play_games"] == 2 and summary["positions"] > 0
    agent_file = f"{run_dir}/latest.zip"
    with zipfile.ZipFile(agent_file) as archive:
        meta = json.loads(archive.read("meta.json"))
    assert meta["game"] == game and "--iterations 1" in meta["command"]
    for spec in (agent_file, f"mcts:3:net={agent_file}"):
        players = envs.describe(game).num_players(options)
        agents = [load_agent(spec, game, seed=i, **options) for i in range(players)]
        returns, _ = play_game(game, agents, 5, options)
        assert sorted(returns) in ([-1, 1], [0, 0]) or len(returns) > 2
    # resume: one more iteration on top of the saved state
    first = Run.resume(run_dir, {})
    assert first.iteration == 1 and first.games_played == 2
    summary = main(["--resume", run_dir, "--iterations", "2", "--workers", "1", "--final-eval-games", "0"])
    assert summary["iterations"] == 2 and summary["self_play_games"] == 4
    again = Run.resume(run_dir, {})
    assert again.positions == summary["positions"] and again.buffer.size == summary["positions"]
    assert again.learner.steps == first.learner.steps + 2
    assert summary["command"].endswith(f"&& python -m training.alphazero --resume {run_dir} --iterations 2 --workers 1 "
                                       "--final-eval-games 0")  # every sitting recorded


def test_no_evaluation_games_records_no_score(tmp_path):
    """--eval-games 0 skips the scheduled evaluations: no score of 0% over no games in the history,
    no best.zip chosen by one; the run still writes latest.zip and its scheduled snapshots."""
    argv = ["--game", "linecatch", "--options", json.dumps({"rows": 3, "cols": 4}), "--iterations", "2",
            "--games-per-iteration", "2", "--simulations", "4", "--concurrent-games", "2", "--workers", "1",
            "--filters", "8", "--blocks", "1", "--steps-per-iteration", "2", "--batch-size", "16",
            "--eval-every", "1", "--eval-games", "0", "--final-eval-games", "0", "--out-dir", str(tmp_path)]
    summary = main(argv)
    run_dir = Path(summary["run"])
    assert [line["iteration"] for line in summary["history"]] == [1, 2]
    assert not any("evaluation" in line for line in summary["history"])
    assert not (run_dir / "best.zip").exists() and (run_dir / "latest.zip").exists()
    # the scheduled networks are still kept, for learning curves measured later
    assert sorted(f.name for f in (run_dir / "snapshots").glob("*.zip")) == ["iteration_0001.zip", "iteration_0002.zip"]


def test_the_final_evaluation_scores_the_better_of_best_and_last(tmp_path, monkeypatch):
    import training.jobs.alphazero as alphazero

    argv = ["--game", "linecatch", "--options", json.dumps({"rows": 3, "cols": 4}), "--iterations", "1",
            "--games-per-iteration", "2", "--simulations", "4", "--concurrent-games", "2", "--workers", "1",
            "--filters", "8", "--blocks", "1", "--steps-per-iteration", "2", "--batch-size", "16",
            "--eval-every", "1", "--eval-games", "2", "--final-eval-games", "0", "--out-dir", str(tmp_path)]
    run = Run.resume(main(argv)["run"], {})
    run.workers = None  # the evaluations below are replaced; the first call plays none
    assert run.choose_final(10) == (str(run.dir / "best.zip"), {})  # best is the last network: nothing to choose
    run.iteration = 2  # a later network whose scheduled evaluation did not beat best.zip's
    played = []

    def fake_evaluation(workers, game, options, agent, opponent, games, seed):
        played.append((Path(agent).name, opponent, games, seed))
        return {"score": scores[Path(agent).name], "games": games}

    from training.jobs.alphazero import run as run_module

    monkeypatch.setattr(run_module, "evaluate_agent", fake_evaluation)  # choose_final plays through it
    for scores, expected in (({"best.zip": 0.4, "latest.zip": 0.7}, "latest.zip"),
                             ({"best.zip": 0.6, "latest.zip": 0.5}, "best.zip"),
                             ({"best.zip": 0.5, "latest.zip": 0.5}, "best.zip")):
        chosen, selection = run.choose_final(10)
        assert chosen == str(run.dir / expected) and selection["chosen"] == expected
        assert selection["opponent"] == "heuristic" and selection["candidates"]["latest.zip"]["score"] == scores["latest.zip"]
    assert played[:2] == [("best.zip", "heuristic", 10, 4_000_000), ("latest.zip", "heuristic", 10, 4_000_000)]
    with zipfile.ZipFile(run.dir / "latest.zip") as archive:
        assert json.loads(archive.read("meta.json"))["iteration"] == 2  # the network the choice played


def test_agent_files_refuse_damage_and_other_options(tmp_path):
    game, options = "linecatch_v0", {"rows": 3, "cols": 4}
    net = random_net(game, options)
    meta = {"game": game, "options": options, "num_actions": 12}
    path = save_network(tmp_path / "a.zip", net.architecture, net.weights, net.index, meta)
    load_network(path)
    agent = load_agent(str(path), game, **options)
    env = description_env(game, options)
    assert env.observe(env.agent_selection)["action_mask"][agent.act(env.observe(env.agent_selection))] == 1
    planes_env = envs.load(game).raw_env(observation_format="planes", **options)
    planes_env.reset(seed=0)
    assert agent.act(planes_env.observe(planes_env.agent_selection)) == agent.act(env.observe(env.agent_selection))
    with pytest.raises(ValueError, match="trained for linecatch_v0 with options"):
        agent.act(description_env(game, {}).observe("player_0"))
    with pytest.raises(ValueError, match="trained for"):
        load_agent(str(path), game, rows=5, cols=5)
    # a NaN weight, a wrong dtype, a missing array: each refused by name
    for damage in ("nan", "dtype", "missing"):
        weights = dict(net.weights)
        if damage == "nan":
            weights["stem.w"] = weights["stem.w"].copy()
            weights["stem.w"][0, 0, 0, 0] = np.nan
        bad = tmp_path / f"{damage}.zip"
        save_network(tmp_path / "ok.zip", net.architecture, net.weights, net.index, meta)
        with zipfile.ZipFile(tmp_path / "ok.zip") as source, zipfile.ZipFile(bad, "w") as target:
            target.writestr("meta.json", source.read("meta.json"))
            import io

            arrays = dict(np.load(io.BytesIO(source.read("weights.npz"))))
            if damage == "nan":
                arrays["stem.w"] = weights["stem.w"]
            elif damage == "dtype":
                arrays["stem.b"] = arrays["stem.b"].astype(np.int32)
            else:
                del arrays["value.fc1.b"]
            buffer = io.BytesIO()
            np.savez(buffer, **arrays)
            target.writestr("weights.npz", buffer.getvalue())
        with pytest.raises(CheckpointError, match={"nan": "NaN", "dtype": "stem.b", "missing": "value.fc1.b"}[damage]):
            load_network(bad)


@pytest.mark.parametrize("game", shipped_games())
def test_trained_plays_full_games_at_the_default_options_of_every_shipped_game(game):
    trained = load_agent("trained", game, seed=0)
    players = envs.describe(game).engine.num_players_for(envs.describe(game).resolve_options({}))
    for seed in range(2):
        seats = [trained] + [load_agent("random", game, seed=seed * 10 + p) for p in range(1, players)]
        returns, scores = play_game(game, seats[seed % 2:] + seats[:seed % 2], seed, {})
        assert len(returns) == len(scores) == players


def test_trained_without_a_shipped_agent_lists_what_is_shipped():
    with pytest.raises(ValueError, match="shipped"):
        load_agent("trained", "linecatch", rows=3, cols=7)


def test_network_search_specs_are_checked():
    with pytest.raises(ValueError, match="net="):
        load_agent("mcts:10:m=4", "linecatch")
    with pytest.raises(ValueError, match="hook= in .* applies to network-guided search only"):
        load_agent("mcts:10:hook=0.5", "linecatch")
    with pytest.raises(ValueError, match="with net= only m=, hook=, mix=, cscale= and playout= apply"):
        load_agent("mcts:10:net=trained:c=0.5", "linecatch")
    with pytest.raises(ValueError, match="mix= in .* applies to network-guided search only"):
        load_agent("mcts:10:mix=0.5", "linecatch")
    with pytest.raises(ValueError, match="cscale= in .* applies to network-guided search only"):
        load_agent("mcts:10:depth=2:cscale=0.5", "linecatch")
    with pytest.raises(ValueError, match=r"mix .* must lie in \[0, 1\]"):
        load_agent("mcts:10:net=trained:mix=1.5", "linecatch")
    with pytest.raises(ValueError, match="cscale in .* must be greater than 0"):
        load_agent("mcts:10:net=trained:cscale=0", "linecatch")
    with pytest.raises(ValueError, match=r"hook .* must lie in \[0, 1\]"):
        load_agent("mcts:10:net=trained:hook=1.5", "linecatch")
    with pytest.raises(ValueError, match="hook .* must be a number, not 'x'"):
        load_agent("mcts:10:net=trained:hook=x", "linecatch")
    # the file's weight (0 for this agent) unless the spec gives one
    assert load_agent("mcts:10:net=trained", "linecatch").search.hook_weight == 0.0
    assert load_agent("mcts:10:net=trained:hook=0.25", "linecatch").search.hook_weight == 0.25
    # the margin head's weight and the prior's pull: the file's (its training job's) unless given
    default = load_agent("mcts:10:net=trained", "linecatch")
    assert (default.search.value_mix, default.search.c_scale) == (0.5, 0.1)
    tuned = load_agent("mcts:10:net=trained:mix=1:cscale=0.03", "linecatch")
    assert (tuned.search.value_mix, tuned.evaluator.value_mix, tuned.search.c_scale) == (1.0, 1.0, 0.03)


def test_a_leaf_play_out_reaches_the_end_and_leaves_the_leaf_unchanged():
    """Linecatch 3×3 with three white squares left: a play-out of three or more moves always
    ends the game, so the hook's value is the finished game's (the engine's returns and margins,
    as the search scores a terminal node); the leaf's own state is not moved."""
    game, options = "linecatch_v0", {"rows": 3, "cols": 3}
    search = GuidedSearch(game, options, simulations=4, hook_weight=1.0, playout=3)
    for seed in range(5):
        env = three_squares_left(seed)
        before = env.game.clone()
        values = search.hook_values(env.game, random.Random(seed))
        assert env.game.legal_actions() == before.legal_actions() and env.game.scores() == before.scores()
        # the same play-out, by hand: the hook's preferred moves (Linecatch: every legal one)
        state, draw = env.game.clone(), random.Random(seed)
        while not state.is_terminal():
            preferred = search.preferred(state) if search.preferred is not None else state.legal_actions()
            state.apply(draw.choice(preferred))
        np.testing.assert_allclose(values, search.terminal_values(state))
        assert all(-1.0 <= v <= 1.0 for v in values)
    with pytest.raises(ValueError, match="play-out depth must be a whole number"):
        GuidedSearch(game, options, simulations=4, playout=-1)


def test_search_settings_recorded_in_an_agent_file_are_its_defaults(tmp_path):
    from training.agents import network_agent

    source = Path(__file__).resolve().parents[2] / "checkpoints" / "linecatch" / "linecatch__dagger__46.zip"

    def with_meta(name, **extra):
        path = tmp_path / name
        with zipfile.ZipFile(source) as old, zipfile.ZipFile(path, "w") as new:
            for item in old.namelist():
                data = old.read(item)
                if item == "meta.json":
                    data = json.dumps(dict(json.loads(data), **extra)).encode()
                new.writestr(item, data)
        return str(path)

    recorded = with_meta("tuned.zip", search={"value_mix": 1.0, "c_scale": 0.03})
    agent = load_agent(f"mcts:10:net={recorded}", "linecatch")
    assert (agent.search.value_mix, agent.evaluator.value_mix, agent.search.c_scale) == (1.0, 1.0, 0.03)
    assert load_agent(f"mcts:10:net={recorded}:cscale=0.2", "linecatch").search.c_scale == 0.2  # the spec wins
    with pytest.raises(network_agent.NetworkFileError, match="'search' must be an object with some of"):
        load_agent(f"mcts:10:net={with_meta('odd.zip', search={'exploration': 1.0})}", "linecatch")
    with pytest.raises(network_agent.NetworkFileError, match="search setting 'c_scale' is out of range"):
        load_agent(f"mcts:10:net={with_meta('zero.zip', search={'c_scale': 0})}", "linecatch")


def test_symmetry_helpers_map_policies_consistently():
    actions = np.array([2, 0, 1])
    symmetry = Symmetry("cycle", "identity", actions)
    policy = np.array([0.5, 0.3, 0.2])
    assert symmetry.apply_policy(policy).tolist() == [0.3, 0.2, 0.5]


def test_a_network_exports_to_onnx_and_plays_the_same_moves_without_torch(tmp_path):
    from training.agents.export_onnx import export_onnx

    game, options = "linecatch_v0", {"rows": 3, "cols": 4}
    net = random_net(game, options, seed=5, filters=8, blocks=2)
    source = save_network(tmp_path / "n.zip", net.architecture, net.weights, net.index,
                          {"game": game, "options": options, "num_actions": 12})
    out = export_onnx(source, tmp_path / "n.onnx")
    onnx_agent, numpy_agent = load_agent(str(out), game, **options), load_agent(str(source), game, **options)
    env = description_env(game, options, seed=2)
    rng = random.Random(2)
    while not env.game.is_terminal():
        observation = env.observe(env.agent_selection)
        assert onnx_agent.act(observation) == numpy_agent.act(observation)
        np.testing.assert_allclose(onnx_agent.action_probabilities(observation),
                                   numpy_agent.action_probabilities(observation), atol=1e-5)
        env.step(rng.choice(env.game.legal_actions()))
    # a graph that is not the exporter's (one operator changed) is refused before onnxruntime runs it
    tampered = tmp_path / "t.onnx"
    tampered.write_bytes(out.read_bytes().replace(b"Relu", b"Selu", 1))
    with pytest.raises(CheckpointError, match="not a suite network graph"):
        load_agent(str(tampered), game, **options)


@pytest.mark.parametrize("leaves", LEAF_SETTINGS)
@pytest.mark.parametrize("game", [g for g in imperfect_games() if g in PLANE_GAMES])
def test_the_guided_search_does_not_move_when_an_opponents_hidden_items_change(game, leaves):
    """Two true states that differ only in what the seat cannot see (a stripped snapshot
    completed with two seeds) give the seeded network-guided search the same policy and move
    (with play-outs too: they run on the sampled states alone)."""
    options = search_options(game)
    net = random_net(game, options, seed=4)
    search = GuidedSearch(game, options, simulations=10, **LEAF_SETTINGS[leaves])
    evaluator = NetworkEvaluator(net, search.observer, search.seats)
    compared = differed = 0
    for env, name, worlds in positions_with_two_hidden_worlds(game, options, 10, random.Random(7)):
        differed += worlds[0] != worlds[1]
        results = []
        for world in worlds:
            env.restore(world)
            results.append(run_batched([search.run(env.observe(name), random.Random(11))], evaluator)[0])
        assert results[0].action == results[1].action
        np.testing.assert_array_equal(results[0].policy, results[1].policy)
        compared += 1
    assert compared >= 6 and differed >= 3


def test_init_from_starts_a_new_run_from_an_agent_file(tmp_path):
    """--init-from: the new run's network is the file's (inference mode exactly; training mode
    nearly, once the normalisations are calibrated), its margin scale is kept, and files for
    other options, other tower shapes or together with a warm start are refused."""
    options = {"rows": 3, "cols": 4}
    argv = ["--game", "linecatch", "--options", json.dumps(options), "--iterations", "1", "--games-per-iteration", "4",
            "--simulations", "4", "--concurrent-games", "2", "--workers", "1", "--filters", "8", "--blocks", "2",
            "--steps-per-iteration", "20", "--batch-size", "16", "--eval-every", "1", "--eval-games", "2",
            "--final-eval-games", "0", "--out-dir", str(tmp_path)]
    first = main(argv + ["--seed", "3"])
    agent = f"{first['run']}/latest.zip"
    meta, weights = read_network_file(agent)
    no_filters = [a for i, a in enumerate(argv) if a not in ("--filters", "--blocks") and argv[i - 1] not in ("--filters", "--blocks")]
    unchanged = main(no_filters + ["--seed", "4", "--init-from", agent, "--steps-per-iteration", "0"])
    copy_meta, copy = read_network_file(f"{unchanged['run']}/latest.zip")
    assert copy_meta["architecture"] == meta["architecture"] and copy_meta["margin_scale"] == meta["margin_scale"]
    assert all(np.allclose(copy[k], weights[k], atol=1e-6) for k in weights)

    # calibration: training mode on the calibration positions computes what inference mode does
    run = Run.resume(unchanged["run"], {})
    learner = run.learner
    learner.load_folded({k: v for k, v in weights.items() if k != "policy.index"})
    planes = run.observer.planes(run.buffer.sample(np.random.default_rng(0), run.buffer.size)["vectors"])
    torch = learner.torch
    x = torch.as_tensor(planes)
    learner.model.eval()
    with torch.no_grad():
        before = learner.model(x)
        learner.calibrate(planes)
        after = learner.model(x)
        learner.model.train()
        training_mode = learner.model(x)
    for a, b, c in zip(before, after, training_mode):
        assert torch.allclose(a, b, atol=1e-4) and torch.allclose(a, c, atol=1e-3)
    assert not learner.needs_calibration

    learned = main(no_filters + ["--seed", "5", "--init-from", agent])  # 20 updates on top of the file's network
    assert learned["iterations"] == 1 and learned["positions"] > 0
    with pytest.raises(ValueError, match="--filters 16 differs from the --init-from network's 8"):
        main(no_filters + ["--init-from", agent, "--filters", "16"])
    with pytest.raises(ValueError, match="was trained for linecatch_v0 with options"):
        main(["--game", "linecatch", "--options", json.dumps({"rows": 4, "cols": 4}), "--init-from", agent,
              "--out-dir", str(tmp_path)])
    with pytest.raises(ValueError, match="--init-from and --warm-start"):
        main(no_filters + ["--init-from", agent, "--warm-start", "heuristic"])


def test_a_fixed_opponent_takes_one_seat_and_only_the_searched_seats_are_recorded(tmp_path):
    """--opponent heuristic random --opponent-share: the opponents, in turn, play their seat
    (seed % players) in that share of the games, unrecorded; the searched seat's results
    against each are returned and logged."""
    from training.jobs.alphazero.self_play import play_games

    game, options = "linecatch_v0", {"rows": 3, "cols": 4}  # 12 squares: 12 moves, a catch moves again
    net = random_net(game, options)
    arch = net.architecture
    model = torch_network(arch).eval()
    task = {"game": game, "options": options, "seeds": [10, 11, 12, 13], "architecture": dataclasses.asdict(arch),
            "state_dict": model.state_dict(), "index": net.index, "simulations": 4, "considered": 4,
            "concurrent": 4, "value_mix": 0.5, "margin_scale": 1.0, "opponent_games": {11: "heuristic", 13: "random"}}
    out = play_games(task)
    lengths = [len(r.vectors) for r in out["records"]]
    # both seats recorded in 10 and 12 (the last square is forced); in 11 and 13 the opponent's moves are not
    assert all(n > 6 for n in lengths[0::2]) and all(n < 11 for n in lengths[1::2]), lengths
    assert all(record.moves == 12 for record in out["records"])
    for record in out["records"][1::2]:  # seeds 11 and 13: only the searched seat's positions, one outcome
        assert len(set(record.values[:, 0].tolist())) == 1
    assert [name for name, _ in out["opponent_scores"]] == ["heuristic", "random"]
    assert all(0.0 <= x <= 1.0 for _, x in out["opponent_scores"])
    assert all(r.outcome_is_target for r in out["records"])
    # --no-opponent-outcomes: the games against an opponent train the policy alone
    policy_only = play_games(dict(task, opponent_outcomes=False))["records"]
    assert [r.outcome_is_target for r in policy_only] == [True, False, True, False]

    argv = ["--game", game, "--options", json.dumps(options), "--iterations", "1", "--games-per-iteration", "4",
            "--simulations", "4", "--concurrent-games", "2", "--workers", "1", "--filters", "8", "--blocks", "1",
            "--steps-per-iteration", "2", "--batch-size", "16", "--eval-every", "1", "--eval-games", "2",
            "--final-eval-games", "0", "--out-dir", str(tmp_path), "--opponent", "heuristic", "random", "--opponent-share", "0.75"]
    folder = main(argv)["run"]
    run = Run.resume(folder, {})
    assert run.opponent_games(100) == {100: "heuristic", 101: "random", 102: "heuristic"}
    assert set(run.history[-1]["self_play_score_vs_opponent"]) == {"heuristic", "random"}
    # a run saved when --opponent named one agent (a string) resumes with that one agent
    import torch

    state = torch.load(Path(folder) / "state.pt", weights_only=False)
    state["config"]["opponent"] = "heuristic"
    torch.save(state, Path(folder) / "state.pt")
    assert Run.resume(folder, {}).config.opponent == ("heuristic",)
    with pytest.raises(ValueError, match="--opponent and --opponent-share"):
        main(argv[:-2])
    with pytest.raises(ValueError, match="--opponent and --opponent-share"):
        main(argv[:-5] + argv[-2:])  # a share with no opponent
    with pytest.raises(ValueError, match="--opponent-share must lie in"):
        main(argv[:-1] + ["1.5"])


def test_the_replay_buffer_keeps_which_outcomes_are_targets_through_a_save():
    """A policy-only record (a game against a fixed opponent, --no-opponent-outcomes) keeps its
    zero value weight in the ring, in the saved state and after loading it; a state saved before
    the weights existed loads with every outcome a target."""
    from training.jobs.alphazero.learning import ReplayBuffer
    from training.jobs.alphazero.self_play import GameRecord

    def record(n, target):
        return GameRecord(np.zeros((n, 3), np.float16), np.ones((n, 2), bool), np.full((n, 2), 0.5, np.float16),
                          np.ones((n, 2), np.float32), np.zeros((n, 2), np.float32), n, outcome_is_target=target)

    buffer = ReplayBuffer(capacity=8, size=3, actions=2, seats=2)
    buffer.add(record(3, True))
    buffer.add(record(4, False))
    assert buffer.value_weights[:7].tolist() == [1, 1, 1, 0, 0, 0, 0]
    state = buffer.state()
    again = ReplayBuffer(capacity=8, size=3, actions=2, seats=2)
    again.load(state)
    assert again.value_weights[:7].tolist() == [1, 1, 1, 0, 0, 0, 0]
    assert set(again.sample(np.random.default_rng(0), 50)["value_weights"].tolist()) == {0.0, 1.0}
    old = {k: v for k, v in state.items() if k != "value_weights"}
    again.load(old)
    assert again.value_weights[:7].tolist() == [1] * 7


def test_iterations_0_is_the_warm_start_alone_saved_as_the_runs_agent(tmp_path):
    """``--iterations 0 --warm-start SPEC``: the imitation of the teacher, no self-play, written as
    latest.zip (what a chain of DAgger rounds starts from); without --warm-start it is refused."""
    argv = ["--game", "linecatch", "--options", '{"rows": 3, "cols": 3}', "--iterations", "0", "--warm-start", "solver",
            "--warm-start-games", "4", "--warm-start-steps", "3", "--workers", "1", "--filters", "8", "--blocks", "1",
            "--batch-size", "16", "--eval-games", "2", "--final-eval-games", "0", "--out-dir", str(tmp_path), "--seed", "3"]
    summary = main(argv)
    assert summary["iterations"] == 0 and summary["self_play_games"] == 0 and summary["positions"] == 0
    assert summary["history"][0]["warm_start"] == "solver"
    agent_file = Path(summary["run"]) / "latest.zip"
    with zipfile.ZipFile(agent_file) as archive:
        meta = json.loads(archive.read("meta.json"))
    assert meta["iteration"] == 0 and meta["architecture"]["filters"] == 8
    agents = [load_agent(str(agent_file), "linecatch", seed=i, rows=3, cols=3) for i in range(2)]
    returns, _ = play_game("linecatch", agents, 5, {"rows": 3, "cols": 3})
    assert sorted(returns) in ([-1, 1], [0, 0])
    with pytest.raises(ValueError, match="--iterations 0 runs the warm start alone: it needs --warm-start"):
        main([arg for arg in argv if arg not in ("--warm-start", "solver")] + ["--out-dir", str(tmp_path / "refused")])
    assert not (tmp_path / "refused").exists()
