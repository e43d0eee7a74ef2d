"""Agent files: the one reader (kinds, told by the metadata, not the name), regular files read
with a bound (a named pipe or a device answered at once, never read), and the manifest of every
game's folder (every file listed with its sha256, the roles ``trained`` and ``net=trained`` read
from it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envs
from tests.fuzz import craft
from training.players.load import load_agent
from training.agents import manifest
from training.agents.archive import CheckpointError
from training.agents.checkpoint import save_checkpoint
from training.agents.files import read_agent_file
from training.agents.kinds import KINDS, derived_kind, read_agent_meta

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINTS = ROOT / "checkpoints"
PROMPT_S = 60  # a refusal comes at once; a reader blocked on a named pipe never answers

# What "trained" and "mcts:N:net=trained" play, per game and option set (None: no network for them).
ROLES = {
    ("linecatch", ()): ("linecatch__dagger__46.zip", "linecatch__dagger__46.zip"),
    ("linecatch", (("cols", 4), ("rows", 4))): ("linecatch_4x4__maskppo__1.zip", None),
    ("loom", ()): ("loom__dagger__2.zip", "loom__dagger__3.zip"),
    ("fill", ()): ("fill__endgame__1.zip", "fill__alphazero__3.zip"),
    ("uzor", ()): ("uzor__dagger__24.zip", "uzor__dagger__22.zip"),
    ("uzor", (("board_size", 9),)): ("uzor_9x9__maskppo__0.zip", None),
    ("knot", ()): ("knot__alphazero__2.zip", "knot__dagger__7.zip"),
}

SHIPPED = [game for game in envs.GAMES if envs.describe(game).shipped]  # games with checkpoints/<game>/


def run_python(code: str, *args: str, timeout: float = PROMPT_S) -> dict:
    """``python -c code args…`` from the repository root; the JSON line it prints last. A
    subprocess, so that a reader that blocks fails the test instead of hanging the suite."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=environment, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {timeout} s: the reader blocked")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----- kinds -----------------------------------------------------------------------------------------

def test_every_shipped_file_is_of_the_kind_its_manifest_says():
    for game in SHIPPED:
        for entry in manifest.entries(game):
            kind, meta = read_agent_meta(entry["path"])
            assert kind == entry["kind"] and kind in KINDS, entry["file"]
            assert meta["game"] == envs.describe(game).name


def test_files_without_a_kind_get_it_from_their_format_in_one_place():
    meta = craft.valid_meta()
    assert derived_kind(meta, "zip") == "maskppo"
    assert derived_kind(dict(meta, algo="RLlib PPO"), "zip") == "rllib-ppo"
    assert derived_kind({"format": "abstract-games-suite/policy-value-net"}, "zip") == "network"
    assert derived_kind({"format": "abstract-games-suite/policy-onnx"}, "onnx") == "onnx-policy"
    assert derived_kind({"format": "abstract-games-suite/policy-value-onnx"}, "onnx") == "onnx-network"
    assert derived_kind({"format": "abstract-games-suite/policy-onnx"}, "zip") is None
    assert derived_kind({"format": "something-else"}, "zip") is None


def test_writers_record_the_kind(tmp_path):
    from training.agents.network import Architecture, save_network

    meta = craft.valid_meta()
    arrays = craft.valid_arrays(meta)
    layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(meta["layers"])]
    assert read_agent_file(save_checkpoint(tmp_path / "p.zip", layers, meta)).meta["kind"] == "maskppo"
    assert read_agent_file(save_checkpoint(tmp_path / "r.zip", layers, dict(meta, algo="RLlib PPO"))).meta["kind"] == "rllib-ppo"
    architecture = Architecture((3, 3, 4), filters=4, blocks=1, cell_channels=1, global_actions=0, players=2)
    weights = {name: np.zeros(shape, np.float32) for name, shape in architecture.weight_shapes().items()}
    network = save_network(tmp_path / "n.zip", architecture, weights, np.arange(9), {"game": craft.GAME, "num_actions": 9})
    assert read_agent_file(network).meta["kind"] == "network"


@pytest.mark.parametrize("change, words", [
    ({"kind": "network"}, r"declares kind 'network', whose format is 'abstract-games-suite/policy-value-net', but its format is"),
    ({"kind": "onnx-policy", "format": "abstract-games-suite/policy-onnx"}, r"declares kind 'onnx-policy' \(an ONNX model\), but it is a zip"),
    ({"kind": "pickle"}, r"declares kind 'pickle'; the kinds are maskppo, rllib-ppo, network, onnx-policy, onnx-network"),
    ({"kind": ["maskppo"]}, r"declares kind \['maskppo'\]"),
    ({"format": "someone-else"}, r"is not a suite checkpoint \(format 'someone-else'"),
])
def test_a_kind_that_does_not_fit_the_file_is_refused(tmp_path, change, words):
    path = craft.write_checkpoint(tmp_path / "c.zip", dict(craft.valid_meta(), **change), craft.valid_arrays(craft.valid_meta()))
    with pytest.raises(CheckpointError, match=words):
        load_agent(str(path), craft.GAME, **craft.OPTIONS)


def test_the_reader_goes_by_the_metadata_not_the_name(tmp_path, monkeypatch):
    policy = craft.write_checkpoint(tmp_path / "policy.zip")
    for name in ("policy.onnx", "policy.bin", "policy.zip.gz"):
        shutil.copy(policy, tmp_path / name)
        agent = load_agent(str(tmp_path / name), craft.GAME, **craft.OPTIONS)
        assert type(agent).__name__ == "PolicyAgent"
    shutil.copy(policy, tmp_path / "policy")  # a bare word names a bot, never a file, whatever lies there
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="unknown agent 'policy'"):
        load_agent("policy", craft.GAME, **craft.OPTIONS)
    network = tmp_path / "network.onnx"
    shutil.copy(CHECKPOINTS / "linecatch" / "linecatch__dagger__46.zip", network)
    assert type(load_agent(str(network), "linecatch")).__name__ == "NetworkAgent"
    assert read_agent_file(network).kind == "network"


def test_an_exported_file_says_its_kind_and_input(tmp_path):
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from training.agents.export_onnx import export_onnx

    policy = export_onnx(craft.write_checkpoint(tmp_path / "p.zip"), tmp_path / "p.onnx")
    kind, meta = read_agent_meta(policy)
    assert (kind, meta["kind"], meta["source_kind"], meta["input"]) == ("onnx-policy", "onnx-policy", "maskppo", "observation")
    network = export_onnx(CHECKPOINTS / "linecatch" / "linecatch__dagger__46.zip", tmp_path / "n.bin")  # any name
    kind, meta = read_agent_meta(network)
    assert (kind, meta["source_kind"], meta["input"]) == ("onnx-network", "network", "planes")
    planes = envs.describe("linecatch").observer(envs.describe("linecatch").resolve_options({})).planes_shape()
    assert meta["observation_shape"] == list(planes) and meta["action_n"] == 25
    assert type(load_agent(str(network), "linecatch")).__name__ == "OnnxNetworkAgent"


# ----- regular files, read with a bound ----------------------------------------------------------

LOAD = r"""
import json, sys
from training import load_agent
try:
    load_agent(sys.argv[1], sys.argv[2])
    print(json.dumps({"message": "loaded"}))
except Exception as error:
    print(json.dumps({"type": type(error).__name__, "message": str(error)}))
"""


@pytest.mark.parametrize("name", ["pipe.zip", "pipe.onnx", "pipe"])
def test_a_named_pipe_is_refused_at_once(tmp_path, name):
    os.mkfifo(tmp_path / name)
    report = run_python(LOAD, str(tmp_path / name), "loom")
    assert report["type"] == "CheckpointError", report
    assert "is a named pipe (FIFO), not a regular file" in report["message"]


def test_a_link_to_a_device_or_a_folder_is_refused_unread(tmp_path):
    (tmp_path / "zero.zip").symlink_to("/dev/zero")
    (tmp_path / "folder.zip").mkdir()
    report = run_python(LOAD, str(tmp_path / "zero.zip"), "loom")
    assert report["type"] == "CheckpointError" and "is a character device, not a regular file" in report["message"], report
    with pytest.raises(CheckpointError, match="is a folder, not a regular file"):
        load_agent(str(tmp_path / "folder.zip"), "loom")


def test_a_file_over_the_bound_is_refused_unread(tmp_path, monkeypatch):
    from training.agents import files

    path = craft.write_checkpoint(tmp_path / "c.zip")
    monkeypatch.setattr(files, "MAX_ARCHIVE_BYTES", path.stat().st_size - 1)
    with pytest.raises(CheckpointError, match=rf"is {path.stat().st_size} bytes; an agent file is at most"):
        read_agent_file(path)


def test_a_file_that_grows_while_it_is_read_is_read_as_it_was(tmp_path):
    from training.agents.archive import open_agent_file

    path = tmp_path / "growing.zip"
    path.write_bytes(b"x" * 100)
    with open_agent_file(path) as (stream, size):
        with open(path, "ab") as more:
            more.write(b"y" * 1000)
        assert size == 100 and stream.read() == b"x" * 100


SERVER_WITH_A_PIPE = r"""
import json, sys
from pathlib import Path
from training.agents import manifest
from training.serving.bot_server import BotServer
manifest.CHECKPOINTS = Path(sys.argv[1])
server = BotServer(agents_dir=sys.argv[1])
answers = [server.answer_line(json.dumps(request).encode()) for request in [
    {"id": 1, "type": "list_agents", "game": "linecatch"},
    {"id": 2, "type": "new_game", "game": "linecatch", "agent": "linecatch/pipe.zip"},
    {"id": 3, "type": "new_game", "game": "linecatch", "agent": "trained"},
    {"id": 4, "type": "list_agents", "game": "linecatch"},
]]
print(json.dumps(answers))
"""


def test_the_server_answers_with_a_named_pipe_in_its_agents_folder(tmp_path):
    """A named pipe among the shipped files: listing reads only the manifest; loading it, or
    resolving "trained" in its folder, is an error answered at once (subprocess: a server that
    blocks fails the test)."""
    folder = tmp_path / "linecatch"
    shutil.copytree(CHECKPOINTS / "linecatch", folder)
    os.mkfifo(folder / "pipe.zip")
    answers = run_python(SERVER_WITH_A_PIPE, str(tmp_path))
    listed, pipe, trained, again = answers
    assert listed["ok"] and listed == dict(again, id=1), answers
    assert sorted(listed["checkpoints"]) == sorted(f"linecatch/{e['file']}" for e in json.loads((folder / "agents.json").read_text())["agents"])
    assert pipe["error"]["code"] == "bad_agent" and "is a named pipe (FIFO)" in pipe["error"]["message"], pipe
    assert trained["error"]["code"] == "bad_agent" and "pipe.zip" in trained["error"]["message"], trained
    assert "does not list" in trained["error"]["message"]


def test_the_server_process_answers_after_a_named_pipe_is_asked_for(tmp_path):
    from tests.training.test_serve import ServerProcess, error_of

    os.mkfifo(tmp_path / "pipe.zip")
    server = ServerProcess("--agents-dir", str(tmp_path))
    try:
        assert server.ok("list_agents", game="loom")["checkpoints"] == []  # the shipped ones are outside
        error = error_of(server.request("new_game", game="loom", agent="pipe.zip"))
        assert error["code"] == "bad_agent" and "named pipe" in error["message"], error
        assert server.ok("list_agents", game="loom")["game"] == "loom_v0"
        assert server.ok("hello")["protocol"]
    finally:
        server.process.kill()
        server.process.wait(timeout=30)


# ----- the manifests -------------------------------------------------------------------------------

@pytest.mark.parametrize("game", SHIPPED)
def test_every_manifest_matches_its_folder(game):
    """Every agent file of the folder listed, every listed file there with its sha256, kind and
    options, each role at most once per option set."""
    listed = manifest.game_manifest(game)
    assert manifest.check_manifest(listed, envs.describe(game).name) == []
    taken = set()
    for entry in listed.entries:
        option_set = manifest.option_set(game, entry.options)
        assert entry.options == manifest.non_default_options(game, entry.options)
        for role in entry.roles:
            assert (role, option_set) not in taken, (role, entry.file)
            taken.add((role, option_set))
        assert entry.command.startswith("python -m "), entry.file
        assert all(isinstance(score.get("command"), str) and score["command"] for score in entry.scores), entry.file
        assert all(manifest.names_file(score["agent"], entry.file) for score in entry.scores), entry.file


def test_the_check_command_passes():
    assert manifest.main(["--check"]) == 0


def test_at_most_three_files_a_game_besides_the_trained_agents_of_other_options():
    for game in SHIPPED:
        listed = manifest.game_manifest(game).entries
        other_options = [e for e in listed if "trained" in e.roles and e.options]
        assert len(listed) - len(other_options) <= 3, [e.file for e in listed]


@pytest.mark.parametrize("game, options", sorted(ROLES), ids=lambda value: str(value))
def test_trained_and_net_trained_are_the_manifests_roles(game, options):
    trained, net = ROLES[(game, options)]
    options = dict(options)
    assert manifest.resolve(game, options, "trained").name == trained
    agent = load_agent("trained", game, **options)
    assert agent.meta["game"] == envs.describe(game).name
    if net is None:
        with pytest.raises(ValueError, match="no trained .* network is shipped for options"):
            load_agent("mcts:4:net=trained", game, **options)
    else:
        assert manifest.resolve(game, options, "net").name == net


def test_every_role_of_every_manifest_is_in_the_table_above():
    found = set()
    for game in SHIPPED:
        short = envs.describe(game).short_name
        for entry in manifest.game_manifest(game).entries:
            for role in entry.roles:
                found.add((short, tuple(sorted(entry.options.items())), role, entry.file))
    expected = {(game, options, role, name) for (game, options), names in ROLES.items()
                for role, name in zip(("trained", "net"), names) if name}
    assert found == expected


@pytest.fixture
def copied(tmp_path, monkeypatch):
    """checkpoints/linecatch copied, and the manifests read from the copy."""
    folder = tmp_path / "linecatch"
    shutil.copytree(CHECKPOINTS / "linecatch", folder)
    monkeypatch.setattr(manifest, "CHECKPOINTS", tmp_path)
    return folder


def test_an_unlisted_file_in_a_manifests_folder_is_an_error(copied):
    shutil.copy(copied / "linecatch_4x4__maskppo__1.zip", copied / "extra.zip")
    with pytest.raises(manifest.ManifestError, match=r"extra\.zip.*manifest .*linecatch/agents\.json does not list it"):
        load_agent(str(copied / "extra.zip"), "linecatch", rows=4, cols=4)
    with pytest.raises(manifest.ManifestError, match=r"holds agent files its manifest .*agents\.json does not list: extra\.zip"):
        load_agent("trained", "linecatch")
    problems = manifest.check_manifest(manifest.read_manifest(copied / "agents.json"), "linecatch_v0")
    assert problems == [f"{copied / 'agents.json'}: extra.zip is in the folder but not listed"]


def test_a_file_that_is_not_the_one_listed_names_the_file_and_the_manifest(copied):
    path = copied / "linecatch__dagger__46.zip"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1  # in the weights: the metadata still reads
    path.write_bytes(bytes(data))
    for spec in (str(path), "trained"):
        with pytest.raises(manifest.ManifestError, match=r"linecatch__dagger__46\.zip' is not the file its manifest .*agents\.json lists: its sha256 is"):
            load_agent(spec, "linecatch")
    problems = manifest.check_manifest(manifest.read_manifest(copied / "agents.json"), "linecatch_v0")
    assert len(problems) == 1 and "linecatch__dagger__46.zip: sha256" in problems[0]


def test_a_listed_file_that_is_missing_names_the_manifest(copied):
    (copied / "linecatch_4x4__maskppo__1.zip").unlink()
    with pytest.raises(manifest.ManifestError, match=r"linecatch_4x4__maskppo__1\.zip, 'trained' for options .* in the manifest .*agents\.json, is missing"):
        load_agent("trained", "linecatch", rows=4, cols=4)
    problems = manifest.check_manifest(manifest.read_manifest(copied / "agents.json"), "linecatch_v0")
    assert len(problems) == 1 and "does not exist" in problems[0]


@pytest.mark.parametrize("change, words", [
    (lambda d: d["agents"].append(dict(d["agents"][0])), "is listed twice"),
    (lambda d: d["agents"][1].update(roles=["trained", "net", "trained"]), "distinct roles"),
    (lambda d: d["agents"][1].update(roles=["best"]), "distinct roles"),
    (lambda d: d["agents"][0].update(file="../linecatch_4x4__maskppo__1.zip"), "'file' must be the name of an agent file"),
    (lambda d: d["agents"][0].update(sha256="ABC"), "'sha256' must be 64 lowercase"),
    (lambda d: d["agents"][0].pop("command"), "has no 'command'"),
    (lambda d: d["agents"][2].update(roles=["trained"]), "role 'trained' for options {} is given to both"),
    (lambda d: d.pop("agents"), 'not an object {"agents": \\[...\\]}'),
])
def test_a_damaged_manifest_is_named(copied, change, words):
    document = json.loads((copied / "agents.json").read_text())
    change(document)
    (copied / "agents.json").write_text(json.dumps(document))
    with pytest.raises(manifest.ManifestError, match=r"manifest .*agents\.json is damaged: .*" + words):
        load_agent("trained", "linecatch")


def test_a_manifest_that_is_a_named_pipe_is_refused_at_once(tmp_path):
    folder = tmp_path / "linecatch"
    folder.mkdir()
    shutil.copy(CHECKPOINTS / "linecatch" / "linecatch__dagger__46.zip", folder / "net.zip")
    os.mkfifo(folder / "agents.json")
    report = run_python(LOAD, str(folder / "net.zip"), "linecatch")
    assert report["type"] in ("CheckpointError", "ManifestError"), report
    assert "manifest" in report["message"] and "named pipe" in report["message"], report


def test_adding_a_file_lists_it_with_its_command_and_scores(copied):
    shutil.copy(copied / "linecatch_5x5__rllib-ppo__0.zip", copied / "again.zip")
    shutil.copy(copied / "linecatch_5x5__rllib-ppo__0.evaluation.json", copied / "again.evaluation.json")
    assert manifest.main(["--add", str(copied / "again.zip")]) == 0
    entry = manifest.read_manifest(copied / "agents.json").entry("again.zip")
    assert entry.kind == "rllib-ppo" and entry.roles == () and entry.options == {}
    assert entry.command.startswith("python -m training.train_rllib") and entry.scores
    assert type(load_agent(str(copied / "again.zip"), "linecatch")).__name__ == "PolicyAgent"
    shutil.copy(copied / "linecatch__dagger__46.zip", copied / "newer.zip")
    assert manifest.main(["--add", str(copied / "newer.zip"), "--roles", "trained"]) == 0
    listed = manifest.read_manifest(copied / "agents.json")
    assert listed.entry("newer.zip").roles == ("trained",) and listed.entry("linecatch__dagger__46.zip").roles == ("net",)
    assert manifest.resolve("linecatch", {}, "trained").name == "newer.zip"
