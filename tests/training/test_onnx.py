"""ONNX export: parity with the PyTorch policy on every game, shipped checkpoints, a torch-free
game through load_agent, loading errors; and docs/observations.md against the observers."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envs
from tests.cases import option_sets, published_games, seat_count_cases
from training.players.load import load_agent
from training.agents.archive import CheckpointError
from training.agents.checkpoint import PolicyAgent, env_spaces, save_checkpoint
from training.agents.files import read_checkpoint
from training.agents.files import load_onnx_agent
from training.agents.onnx_agent import OBSERVATION, OnnxAgent
from training.agents.onnx_file import ACTION_MASK, MASKED_LOGIT, MASKED_LOGITS, PROBABILITIES

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed (pip install -e .[onnx])")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed (pip install -e .[onnx])")

from training.agents.export_onnx import build_model, export_onnx, main as export_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# Every game with default options, and at each other number of players its option sets reach
# (a different relative-seat layout): (game, options, name).
CASES = [(*case.values, case.id) for case in seat_count_cases()]
KNOT_3P = next((game, options, name) for game, options, name in CASES
               if game == "knot_v0" and envs.describe(game).num_players(options) == 3)
POSITIONS = 1000
SEED = 11


def resolved(game: str, options: dict) -> dict:
    return envs.describe(game).resolve_options(options)


def record_positions(game: str, options: dict, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the acting seat over seeded random games, ``count`` of them."""
    env = envs.load(game).raw_env(**options)
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    index = 0
    while len(observations) < count:
        env.reset(seed=seed * 1000 + index)
        index += 1
        while not env.game.is_terminal() and len(observations) < count:
            observation = env.observe(env.possible_agents[env.game.current_player()])
            observations.append(observation["observation"])
            masks.append(observation["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return np.array(observations, np.float32), np.array(masks)


def fresh_policy(game: str, options: dict, seed: int):
    """A freshly initialised MaskablePPO with the suite's network config, built as train.py does."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.jobs.ppo import TrainConfig, make_env_fn, policy_kwargs

    config = TrainConfig(game=game, options=options, seed=seed, n_envs=1, opponents=["random"], n_steps=64, batch_size=64)
    vec_env = DummyVecEnv([make_env_fn(config, 0, list(config.opponents))])
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=config.n_steps, batch_size=config.batch_size,
                        policy_kwargs=policy_kwargs(config), seed=seed, device="cpu")
    # The initial action head (gain 0.01) gives logits within ±0.01, nearly tied; spread them
    # like a trained policy's so the comparison is not between near-zero numbers.
    with torch.no_grad():
        model.policy.action_net.weight.mul_(300.0)
    return model, config


def torch_masked_logits(model, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The policy's logits through SB3's own modules, masked like MaskableCategorical does."""
    import torch

    policy = model.policy
    with torch.no_grad():
        obs = torch.as_tensor(observations)
        latent = policy.mlp_extractor.forward_actor(policy.pi_features_extractor(obs))
        logits = policy.action_net(latent)
        return torch.where(torch.as_tensor(masks > 0), logits, torch.tensor(MASKED_LOGIT)).numpy()


def run_graph(agent: OnnxAgent, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return agent.session.run(
        [MASKED_LOGITS, PROBABILITIES], {OBSERVATION: observations, ACTION_MASK: masks.astype(np.float32)}
    )


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Per case: the torch model, its suite checkpoint and the ONNX export of that checkpoint."""
    import torch

    from training.jobs.ppo import actor_layers

    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("onnx")
    made = {}
    for game, options, name in CASES:
        model, config = fresh_policy(game, options, SEED)
        full = resolved(game, options)
        observation_shape, action_n = env_spaces(game, full)
        meta = {
            "game": game, "options": envs.describe(game).portable_options(full), "observation_shape": observation_shape,
            "action_n": action_n, "net_arch": list(config.net_arch), "activation": config.activation,
            "algo": "MaskablePPO", "steps_trained": 0, "seed": SEED, "code_version": "test",
        }
        checkpoint = save_checkpoint(folder / f"{name}.zip", actor_layers(model), meta)
        made[name] = (model, checkpoint, export_onnx(checkpoint, folder / f"{name}.onnx"))
    return made


@pytest.mark.parametrize(("game", "options", "name"), CASES, ids=[name for _, _, name in CASES])
def test_onnx_matches_the_torch_policy_on_recorded_positions(exported, game, options, name):
    model, checkpoint, path = exported[name]
    agent = load_agent(str(path), game, seed=0, **options)
    observations, masks = record_positions(game, options, POSITIONS, SEED)
    assert len(observations) == POSITIONS
    logits, probabilities = run_graph(agent, observations, masks)
    expected = torch_masked_logits(model, observations, masks)
    assert np.abs(logits - expected).max() <= 1e-4
    assert (logits[masks == 0] == np.float32(MASKED_LOGIT)).all()
    assert logits[masks > 0].std() > 0.1  # real logits, not a degenerate near-constant policy
    chosen, _ = model.predict(observations, action_masks=masks.astype(bool), deterministic=True)
    assert (logits.argmax(axis=1) == chosen).all()
    assert all(agent.act({"observation": o, "action_mask": m}) == c for o, m, c in zip(observations[:50], masks[:50], chosen))
    # The probabilities output is the policy's masked distribution.
    import torch

    with torch.no_grad():
        distribution = model.policy.get_distribution(torch.as_tensor(observations), action_masks=masks.astype(bool))
        torch_probabilities = distribution.distribution.probs.numpy()
    assert np.abs(probabilities - torch_probabilities).max() <= 1e-5
    assert (probabilities[masks == 0] == 0).all()
    # The checkpoint's metadata travels in the ONNX file.
    meta, _ = read_checkpoint(checkpoint)
    for key in ("game", "options", "observation_shape", "action_n", "steps_trained", "seed", "net_arch", "activation"):
        assert agent.meta[key] == meta[key], key


def test_action_probabilities_and_seeded_sampling(exported):
    game, options, name = KNOT_3P
    _, _, path = exported[name]
    observations, masks = record_positions(game, options, 40, 3)
    greedy = load_agent(str(path), game, **options)
    for observation, mask in zip(observations, masks):
        probabilities = greedy.action_probabilities({"observation": observation, "action_mask": mask})
        assert probabilities.shape == mask.shape and abs(probabilities.sum() - 1) < 1e-9
        assert (probabilities[mask == 0] == 0).all() and (probabilities[mask > 0] > 0).all()
    played = []
    for _ in range(2):
        sampler = load_onnx_agent(path, game, seed=5, sample=True, **options)
        played.append([sampler.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)])
    assert played[0] == played[1]
    assert all(masks[i][a] == 1 for i, a in enumerate(played[0]))
    assert played[0] != [int(np.argmax(greedy.masked_logits({"observation": o, "action_mask": m}))) for o, m in zip(observations, masks)]
    with pytest.raises(ValueError, match="action mask is empty"):
        greedy.act({"observation": observations[0], "action_mask": np.zeros_like(masks[0])})


def test_relu_policies_export_and_unknown_activations_are_refused(tmp_path):
    """The graph follows the checkpoint's activation (the export's own check compares it with
    the numpy agent in onnxruntime and raises on a mismatch)."""
    from training.agents.export_onnx import verify

    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(64, 128)).astype(np.float32), rng.normal(size=64).astype(np.float32)),
              (rng.normal(size=(25, 64)).astype(np.float32), rng.normal(size=25).astype(np.float32))]
    relu = build_model(layers, {"game": "linecatch_v0", "activation": "relu"})
    assert [node.op_type for node in relu.graph.node][:3] == ["Gemm", "Relu", "Gemm"]
    assert verify(relu.SerializeToString(), layers, "relu") <= 1e-4
    with pytest.raises(CheckpointError, match="disagrees with the checkpoint's numpy policy"):
        verify(relu.SerializeToString(), layers, "tanh")
    with pytest.raises(CheckpointError, match="cannot export activation 'gelu'"):
        build_model(layers, {"game": "linecatch_v0", "activation": "gelu"})


def shipped(kinds: tuple[str, ...]) -> list[Path]:
    """The shipped agent files of these kinds, as the game's manifests list them."""
    from training.agents.kinds import read_agent_meta

    return sorted(p for p in (ROOT / "checkpoints").glob("*/*.zip") if read_agent_meta(p)[0] in kinds)


def shipped_checkpoints() -> list[Path]:
    """The shipped policies (MaskablePPO, RLlib; the networks of training.alphazero are
    exported by the next test and tests/training/test_alphazero.py)."""
    return shipped(("maskppo", "rllib-ppo"))


def shipped_networks() -> list[Path]:
    return shipped(("network",))


@pytest.mark.parametrize("checkpoint", shipped_networks(), ids=lambda p: p.name)
def test_every_shipped_network_exports_and_plays_like_its_numpy_agent(checkpoint, tmp_path, capsys):
    from training.agents.files import load_network

    out = export_main([str(checkpoint), "-o", str(tmp_path / "agent.onnx")])
    assert "wrote" in capsys.readouterr().out
    net, meta = load_network(checkpoint)
    game, options = meta["game"], meta["options"]
    onnx_agent = load_agent(str(out), game, seed=0, **options)
    numpy_agent = load_agent(str(checkpoint), game, seed=0, **options)
    observations, masks = record_positions(game, options, 200, 1)
    for vector, mask in zip(observations, masks):
        observation = {"observation": vector, "action_mask": mask.astype(np.int8)}
        assert onnx_agent.act(observation) == numpy_agent.act(observation)


@pytest.mark.parametrize("checkpoint", shipped_checkpoints(), ids=lambda p: p.name)
def test_every_shipped_checkpoint_exports_and_matches_its_numpy_agent(checkpoint, tmp_path, capsys):
    out = export_main([str(checkpoint), "-o", str(tmp_path / "agent.onnx")])
    assert "wrote" in capsys.readouterr().out
    meta, layers = read_checkpoint(checkpoint)
    game, options = meta["game"], meta["options"]
    agent = load_agent(str(out), game, seed=0, **options)
    numpy_agent = PolicyAgent(layers, meta["activation"])
    observations, masks = record_positions(game, options, 400, 1)
    logits, _ = run_graph(agent, observations, masks)
    expected = np.where(masks > 0, numpy_agent.logits(observations), MASKED_LOGIT)
    assert np.abs(logits - expected).max() <= 1e-4
    assert (logits.argmax(axis=1) == expected.argmax(axis=1)).all()
    assert agent.meta["steps_trained"] == meta["steps_trained"] > 0


TORCH_FREE_GAMES = """
import importlib.abc, json, sys

class Refuse(importlib.abc.MetaPathFinder):
    # torch and the export-only onnx package must not be needed to play
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "onnx", "stable_baselines3", "sb3_contrib"):
            raise ImportError(f"{name} is refused in this test")
        return None

sys.meta_path.insert(0, Refuse())
import envs
from training import load_agent

results = []
for path, game, options in json.loads(sys.argv[1]):
    env = envs.load(game).raw_env(**options)
    agent = load_agent(path, game, seed=0, **options)
    env.reset(seed=4)
    moves = 0
    for name in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else agent.act(observation))
        moves += not (terminated or truncated)
    results.append({"game": game, "moves": moves, "over": env.game.is_terminal(), "scores": info["scores"].tolist()})
print(json.dumps({"results": results, "torch": "torch" in sys.modules, "onnx": "onnx" in sys.modules}))
"""


def test_load_agent_plays_full_games_from_onnx_without_torch(exported):
    games = [(str(exported[name][2]), game, options) for game, options, name in CASES]
    done = subprocess.run(
        [sys.executable, "-c", TORCH_FREE_GAMES, json.dumps(games)], cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["torch"] is False and report["onnx"] is False
    assert [r["game"] for r in report["results"]] == [game for game, _, _ in CASES]
    assert all(r["over"] and r["moves"] > 0 for r in report["results"])


def test_loading_errors_say_what_is_wrong(exported, tmp_path):
    _, checkpoint, good = exported["linecatch"]
    with pytest.raises(CheckpointError, match="trained for 'linecatch_v0', not 'loom_v0'"):
        load_agent(str(good), "loom")
    with pytest.raises(CheckpointError, match=r"expects observation shape \[128\] and 25 actions.*give shape \[83\]"):
        load_agent(str(good), "linecatch", rows=4, cols=4)
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(CheckpointError, match="is damaged or not an ONNX model"):
        load_agent(str(truncated), "linecatch")
    # the reader goes by what a file holds, not by its name: a checkpoint named .onnx is a checkpoint
    renamed = tmp_path / "zip_renamed.onnx"
    renamed.write_bytes(checkpoint.read_bytes())
    assert type(load_agent(str(renamed), "linecatch")).__name__ == "PolicyAgent"
    not_onnx = tmp_path / "text.onnx"
    not_onnx.write_bytes(b"not a model at all\n")
    with pytest.raises(CheckpointError, match="is damaged or not an ONNX model"):
        load_agent(str(not_onnx), "linecatch")
    model = onnx.load(str(good))
    del model.metadata_props[:]
    bare = tmp_path / "bare.onnx"
    onnx.save(model, str(bare))
    with pytest.raises(CheckpointError, match="has no suite metadata"):
        load_agent(str(bare), "linecatch")
    onnx.helper.set_model_props(model, {"format": json.dumps("someone-else")})
    onnx.save(model, str(bare))
    with pytest.raises(CheckpointError, match="is not a suite ONNX agent"):
        load_agent(str(bare), "linecatch")
    meta, layers = read_checkpoint(checkpoint)
    del meta["game"]
    onnx.save(build_model(layers, meta), str(bare))
    with pytest.raises(CheckpointError, match="missing metadata 'game'"):
        load_agent(str(bare), "linecatch")
    # Metadata that claims other spaces than the graph has.
    meta, _ = read_checkpoint(checkpoint)
    small_layers = [(np.zeros((4, 83), np.float32), np.zeros(4, np.float32)), (np.zeros((16, 4), np.float32), np.zeros(16, np.float32))]
    onnx.save(build_model(small_layers, meta), str(bare))
    with pytest.raises(CheckpointError, match="does not fit its declared spaces"):
        load_agent(str(bare), "linecatch")
    with pytest.raises(CheckpointError, match="does not exist"):
        load_agent(str(tmp_path / "missing.onnx"), "linecatch")
    with pytest.raises(ValueError, match="would overwrite"):
        export_onnx(checkpoint, checkpoint)
    load_agent(str(good), "linecatch", rows=5, cols=5)  # the same spaces: loads


# ----- docs/observations.md -------------------------------------------------------------------

OBSERVATIONS_DOC = ROOT / "docs" / "observations.md"


def evaluate(expression: str, names: dict[str, int]) -> int:
    """Integer arithmetic (+ - * and parentheses) over ``names``; anything else is refused."""
    operators = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}

    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            return names[node.id]
        raise ValueError(f"unsupported expression {expression!r}")

    return walk(ast.parse(expression, mode="eval"))


def documented_layouts() -> dict[str, dict]:
    """Per game section of the doc: variable definitions, the field table, the default size."""
    sections = re.split(r"^## ", OBSERVATIONS_DOC.read_text(), flags=re.M)
    layouts = {}
    for section in sections:
        title = section.split("\n", 1)[0].strip()
        if not title.endswith("_v0"):
            continue
        variables_line = re.search(r"^Variables: (.*)$", section, re.M).group(1)
        rows = re.findall(r"^\| `(\w+)` \| `([^`]+)` \| `([^`]+)` \|", section, re.M)
        size = int(re.search(r"size `(\d+)`", section).group(1))
        layouts[title] = {"variables": re.findall(r"`(\w+) = ([^`]+)`", variables_line), "rows": rows, "size": size}
    return layouts


def test_observations_doc_covers_every_published_game():
    assert sorted(documented_layouts()) == sorted(published_games())


@pytest.mark.parametrize("game", published_games())
def test_observations_doc_matches_the_observers(game):
    """At the defaults and at every option set the game's tests try, so that the formulas are
    checked as formulas."""
    layout = documented_layouts()[game]
    module = envs.load(game)
    for index, options in enumerate(option_sets(game, defaults=True)):
        full = resolved(game, options)
        observer = module.raw_env(**options).observer
        names = {key: value for key, value in full.items() if isinstance(value, int)}
        for name, expression in layout["variables"]:
            names[name] = evaluate(expression, names)
        position = 0
        for field, offset_text, width_text in layout["rows"]:
            offset, width = evaluate(offset_text, names), evaluate(width_text, names)
            assert offset == position, f"{game} {options}: {field} documented at {offset}, follows {position}"
            if hasattr(observer, field):
                assert getattr(observer, field) == offset, f"{game} {options}: {field}"
            position = offset + width
        assert position == observer.size == env_spaces(game, full)[0][0], f"{game} {options}"
        if index == 0:
            assert layout["size"] == observer.size


# ----- hostile graphs: checked node by node before onnxruntime sees them ------------------------------

def small_export(tmp_path, name="good"):
    """A small policy's export (the crafted Linecatch 3×3 checkpoint: no torch needed)."""
    from tests.fuzz import craft

    checkpoint = craft.write_checkpoint(tmp_path / f"{name}.zip")
    return export_onnx(checkpoint, tmp_path / f"{name}.onnx")


def test_a_constant_of_shape_asking_for_8_gb_is_refused_before_it_loads(tmp_path):
    from onnx import TensorProto, helper, numpy_helper

    from tests.fuzz.bounded import load_bounded

    good = small_export(tmp_path)
    model = onnx.load(str(good))
    graph = model.graph
    last = [node for node in graph.node if node.op_type == "Gemm"][-1].output[0]
    graph.initializer.append(numpy_helper.from_array(np.array([1 << 31], np.int64), "big_shape"))
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [1.0])
    extra = [
        helper.make_node("ConstantOfShape", ["big_shape"], ["big"], value=value),  # 2**31 floats: 8 GB
        helper.make_node("ReduceMax", ["big"], ["big_max"], keepdims=0),
        helper.make_node("Add", [last, "big_max"], ["shifted"]),
    ]
    at = len(graph.node) - 3  # before Greater, Where and Softmax
    for node in reversed(extra):
        graph.node.insert(at, node)
    next(node for node in graph.node if node.op_type == "Where").input[1] = "shifted"
    onnx.checker.check_model(model)  # a well-formed ONNX model…
    bomb = tmp_path / "bomb.onnx"
    onnx.save(model, str(bomb))
    report = load_bounded(bomb, "linecatch", {"rows": 3, "cols": 3})  # …loaded under 512 MB
    assert report["checkpoint_error"], report
    assert "'ConstantOfShape' operator; the exporter writes only Gemm, Tanh, Relu, Greater, Where, Softmax" in report["message"]
    assert load_bounded(good, "linecatch", {"rows": 3, "cols": 3})["message"] == "loaded"


def tampered(good, tmp_path, change) -> Path:
    model = onnx.load(str(good))
    change(model)
    path = tmp_path / "tampered.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def _set_transb(model, value):
    gemm = model.graph.node[0]
    gemm.ClearField("attribute")
    gemm.attribute.append(onnx.helper.make_attribute("transB", value))


def _external(model):
    tensor = model.graph.initializer[0]
    tensor.ClearField("raw_data")
    tensor.data_location = onnx.TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "location", "/etc/passwd"


def _nan_weight(model):
    tensor = model.graph.initializer[1]
    values = onnx.numpy_helper.to_array(tensor).copy()
    values.flat[0] = np.nan
    tensor.CopyFrom(onnx.numpy_helper.from_array(values, tensor.name))


def _double_weight(model):
    tensor = model.graph.initializer[0]
    tensor.CopyFrom(onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(tensor).astype(np.float64), tensor.name))


def _swap_activation(model):
    next(node for node in model.graph.node if node.op_type == "Tanh").op_type = "Relu"


def _rewire(model):
    model.graph.node[-2].input[1] = "linear0"  # skip the output layer


def _custom_domain(model):
    model.graph.node[0].domain = "com.example"


def _second_opset(model):
    model.opset_import.append(onnx.helper.make_opsetid("ai.onnx.ml", 3))


def _function(model):
    model.functions.append(onnx.helper.make_function("x", "f", ["a"], ["b"], [onnx.helper.make_node("Relu", ["a"], ["b"])], [onnx.helper.make_opsetid("", 17)]))


@pytest.mark.parametrize("change, words", [
    (lambda m: _set_transb(m, 0), r"node 0 is Gemm\(observation, w0, b0\) -> linear0 \{'transB': 0\}; the exporter writes .*\{'transB': 1\}"),
    (_swap_activation, r"node 1 is Relu.*the exporter writes Tanh"),
    (_rewire, r"node \d+ is Where\(legal, linear0, masked_logit\)"),
    (_custom_domain, r"node 0 is in a custom operator domain"),
    (_second_opset, r"imports opsets \[\('', 17\), \('ai.onnx.ml', 3\)\]"),
    (_function, r"the model has field 25"),
    (_external, r"an initializer has field 13, which the exporter does not write"),
    (_nan_weight, r"initializer 'b0' holds values that are not finite"),
    (_double_weight, r"initializer 'w0' is not float32 \(ONNX data type 11\)"),
    (lambda m: setattr(m, "ir_version", 9), r"IR version 9; the exporter writes 8"),
], ids=["transB", "activation", "rewired", "domain", "opset", "function", "external-data", "nan", "float64", "ir"])
def test_a_graph_that_is_not_what_the_exporter_writes_is_refused(tmp_path, change, words):
    path = tampered(small_export(tmp_path), tmp_path, change)
    with pytest.raises(CheckpointError, match=words):
        load_agent(str(path), "linecatch", rows=3, cols=3)


def test_onnx_metadata_of_the_wrong_type_is_named(tmp_path):
    good = small_export(tmp_path)
    for key, text, words in [
        ("action_n", '"9"', r"'action_n' must be an integer"),
        ("observation_shape", "[1e400]", r"'observation_shape' must be a list of one positive integer"),
        ("options", "[" * 5000 + "]" * 5000, r"'options' is nested deeper than"),
        ("format_version", "true", r"format version True"),
        ("game", "NaN", r"'game' is not JSON"),
    ]:
        def change(model, key=key, text=text):
            entry = next(p for p in model.metadata_props if p.key == key)
            entry.value = text
        with pytest.raises(CheckpointError, match=words):
            load_agent(str(tampered(good, tmp_path, change)), "linecatch", rows=3, cols=3)


def test_an_onnx_agent_given_an_observation_of_other_options_names_its_options(tmp_path):
    agent = load_agent(str(small_export(tmp_path)), "linecatch")
    env = envs.load("linecatch").raw_env(rows=4, cols=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"trained for linecatch_v0 with options \{.*'rows': 3.*this observation has size"):
        agent.act(env.observe("player_0"))


# ----- docs/onnx.md: its example and its tables against the exported files ----------------------------

ONNX_DOC = ROOT / "docs" / "onnx.md"


def doc_example() -> str:
    """The page's example that runs an export with onnxruntime and no suite code."""
    from tests.docs.markdown import blocks

    found = [block for block in blocks(ONNX_DOC, "python") if "onnxruntime.InferenceSession" in block]
    assert len(found) == 1, "docs/onnx.md shows one onnxruntime-only example"
    assert "training" not in found[0] and "envs" not in found[0]
    return found[0]


def documented_graph() -> dict[str, dict[str, tuple[str, str]]]:
    """The page's graph table: per file kind, name -> (input or output, type and shape)."""
    section = ONNX_DOC.read_text().split("## The graphs, for other languages", 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| (input|output) \| ([^|]+) \| ([^|]+) \|", section, re.M)
    graph: dict[str, dict[str, tuple[str, str]]] = {"onnx-policy": {}, "onnx-network": {}}
    for name, direction, policy, network in rows:
        for kind, cell in (("onnx-policy", policy.strip()), ("onnx-network", network.strip())):
            if cell != "—":
                graph[kind][name] = (direction, cell)
    return graph


def shown_shape(node, meta) -> str:
    """A graph input's or output's type and shape written as the page writes them."""
    names = {meta["action_n"]: "num_actions"}
    if meta["input"] == "observation":
        names[meta["observation_shape"][0]] = "observation_size"
    dims = [("batch" if isinstance(d, str) else names.get(d, str(d))) for d in node.shape]
    if meta["input"] == "planes" and node.name == "planes":
        dims = ["batch", "H", "W", "C"]
    if node.name == "value":
        dims = ["batch", "players"]
    return f"float32 `[{', '.join(dims)}]`" if node.type == "tensor(float)" else node.type


@pytest.mark.parametrize("agent_file", shipped_networks() + shipped_checkpoints(), ids=lambda p: p.name)
def test_the_pages_example_and_graph_table_fit_every_shipped_agent(agent_file, tmp_path, monkeypatch):
    """Every shipped network (and policy), exported: the page's onnxruntime-only example runs on
    it as written, and its graph's inputs, outputs and metadata are the ones the page lists for
    its kind."""
    import onnxruntime

    from tests.docs.markdown import run_block
    from training.agents.files import read_agent_file

    exported = export_onnx(agent_file, tmp_path / "bot.onnx")
    source = read_agent_file(agent_file)
    monkeypatch.chdir(tmp_path)
    printed = run_block(doc_example(), {"__name__": "__docs__"}, "docs/onnx.md example").splitlines()
    kind = "onnx-network" if source.kind == "network" else "onnx-policy"
    assert printed[0].startswith(f"{kind} {source.meta['game']}"), printed
    assert re.fullmatch(r"plays [01] with probability [0-9.]+", printed[1]), printed
    assert (len(printed) == 3 and printed[2].startswith("values, the observer first:")) == (kind == "onnx-network")
    session = onnxruntime.InferenceSession(str(exported), providers=["CPUExecutionProvider"])
    meta = {k: json.loads(v) for k, v in session.get_modelmeta().custom_metadata_map.items()}
    description = envs.describe(source.meta["game"])
    resolved_options = description.resolve_options(source.meta["options"])
    observer = description.observer(resolved_options)
    shape = list(observer.planes_shape()) if kind == "onnx-network" else [observer.size]
    assert (meta["kind"], meta["source_kind"], meta["observation_shape"]) == (kind, source.kind, shape)
    assert meta["input"] == ("planes" if kind == "onnx-network" else "observation")
    assert meta["action_n"] == description.engine.num_actions_for(resolved_options)
    graph = {node.name: ("input", shown_shape(node, meta)) for node in session.get_inputs()}
    graph.update({node.name: ("output", shown_shape(node, meta)) for node in session.get_outputs()})
    assert graph == documented_graph()[kind]
