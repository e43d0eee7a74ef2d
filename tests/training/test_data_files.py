"""The data files beside the shipped agents, ``checkpoints/<game>/levels.json`` and
``agents.json``, read by one bounded, checked reader: a damaged file is an error that names the
file and the field — in Python (``load_agent``, ``agent_levels``) and over the protocol
(``bad_agent``, never ``internal``) — and a level that names an agent file outside the game's own
folder (an absolute path) is refused, by the reader and by the web server's listed-files-only
rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from training.agents.levels import agent_levels
from training.players.load import load_agent
from training.agents import levels as levels_module
from training.agents import manifest
from training.serving.bot_server import BotServer

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """checkpoints/loom copied; levels and manifests read from the copy."""
    copy = tmp_path / "loom"
    shutil.copytree(CHECKPOINTS / "loom", copy)
    monkeypatch.setattr(manifest, "CHECKPOINTS", tmp_path)
    monkeypatch.setattr(levels_module, "CHECKPOINTS", tmp_path)
    levels_module._read.cache_clear()
    yield copy
    levels_module._read.cache_clear()


def level(spec, **fields):
    return {"level": 1, "name": "beginner", "spec": spec, "elo": 0.0, "ms_per_move": 1.0, **fields}


def levels_document(*levels, options=None) -> dict:
    return {"game": "loom_v0", "option_sets": [{"options": options or {}, "label": "x", "levels": list(levels)}]}


DAMAGED_LEVELS = [
    ("[]", "the file must be an object"),
    ('{"game": "loom_v0"}', "no 'option_sets'"),
    ('{"option_sets": "x"}', "option_sets must be a list"),
    ('{"option_sets": [1]}', r"option_sets\[0\] must be an object"),
    ('{"option_sets": [{"options": [1], "levels": []}]}', r"option_sets\[0\]\.options must be an object"),
    ('{"option_sets": [{"options": {"zzz": 1}, "levels": []}]}', r"option_sets\[0\]\.options are not options loom_v0 accepts"),
    ('{"option_sets": [{"options": {}, "levels": {"a": 1}}]}', r"option_sets\[0\]\.levels must be a list"),
    ('{"option_sets": [{"options": {}, "levels": [{"level": 1}]}]}', r"levels\[0\] has no 'name'"),
    (json.dumps(levels_document(level(5))), r"levels\[0\]\.spec must be a non-empty string"),
    (json.dumps(levels_document(level("random", level=2))), r"levels\[0\]\.level is 2"),
    (json.dumps(levels_document(level("level:1"))), r"levels\[0\]\.spec is 'level:1': a level plays an agent"),
    (json.dumps(levels_document(level("random", ms_per_move="fast"))), r"levels\[0\]\.ms_per_move must be a number"),
    ("[" * 100_000 + "]" * 100_000, "nests lists and objects deeper than"),
    (b'\xff\xfe{"option_sets": []}', "not UTF-8 text"),
    ('{"option_sets": [], "x": NaN}', "not JSON"),
    ('{"option_sets": [], "padding": "' + "x" * (2 << 20) + '"}', "larger than 1048576 bytes"),
]


@pytest.mark.parametrize("text,message", DAMAGED_LEVELS, ids=[m for _, m in DAMAGED_LEVELS])
def test_a_damaged_levels_file_names_the_file_and_the_field(folder, text, message):
    path = folder / "levels.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    pattern = rf"levels file .*loom/levels\.json .*{message}"
    with pytest.raises(ValueError, match=pattern):
        agent_levels("loom")
    with pytest.raises(ValueError, match=pattern):
        load_agent("level:1", "loom")
    server = BotServer(listed_files_only=True, agents_dir=folder.parent)
    for request in ({"type": "web_new_game", "game": "loom", "opponent": "level:1"},
                    {"type": "new_game", "game": "loom", "agent": "level:1"}):
        answer = server.answer_line(json.dumps(request).encode())
        assert answer["ok"] is False and answer["error"]["code"] == "bad_agent", answer
        assert "levels.json" in answer["error"]["message"]
    listing = server.answer_line(json.dumps({"type": "list_agents", "game": "loom"}).encode())
    assert listing["ok"] and listing["levels"] == [] and "levels.json" in listing["levels_error"], listing
    assert "heuristic" in listing["agents"]  # the agents are still listed


DAMAGED_MANIFESTS = [
    ("[]", "it is not an object"),
    (b"\xff{}", "not UTF-8 text"),
    ("[" * 100_000 + "]" * 100_000, "nests lists and objects deeper than"),
    ('{"agents": [' + ",".join(['{"x": 1}'] * 200_000) + "]}", "larger than 1048576 bytes"),
    ("OPTIONS", r"the entry of loom__dagger__2\.zip: 'options' are not options loom_v0 accepts: unknown option 'zzz'"),
]


@pytest.mark.parametrize("text,message", DAMAGED_MANIFESTS, ids=[m for _, m in DAMAGED_MANIFESTS])
def test_a_damaged_manifest_names_the_file_and_the_field(folder, text, message):
    path = folder / "agents.json"
    if text == "OPTIONS":
        document = json.loads(path.read_text())
        document["agents"][0]["options"] = {"zzz": 1}
        text = json.dumps(document)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    pattern = rf"manifest .*loom/agents\.json .*{message}"
    with pytest.raises(manifest.ManifestError, match=pattern):
        load_agent("trained", "loom")
    server = BotServer(listed_files_only=True, agents_dir=folder.parent)
    for request in ({"type": "web_new_game", "game": "loom", "opponent": "trained"},
                    {"type": "new_game", "game": "loom", "agent": "trained"},
                    {"type": "list_agents", "game": "loom"}):
        answer = server.answer_line(json.dumps(request).encode())
        assert answer["ok"] or answer["error"]["code"] == "bad_agent", answer
        if not answer["ok"]:
            assert "agents.json" in answer["error"]["message"]


def test_a_level_that_names_an_agent_file_outside_the_games_folder_is_refused(folder, tmp_path):
    outside = tmp_path / "elsewhere" / "agent.zip"
    outside.parent.mkdir()
    shutil.copy(CHECKPOINTS / "loom" / "loom__maskppo__0.zip", outside)
    assert load_agent(str(outside), "loom").act  # a good agent file, in a folder without a manifest
    for spec in (str(outside), "checkpoints/loom/../../elsewhere/agent.zip", "checkpoints/fill/x.zip"):
        (folder / "levels.json").write_text(json.dumps(levels_document(level(spec))))
        levels_module._read.cache_clear()
        with pytest.raises(ValueError, match=r"levels\[0\]\.spec names the agent file"):
            load_agent("level:1", "loom")
        server = BotServer(listed_files_only=True, agents_dir=folder.parent)
        answer = server.answer_line(json.dumps({"type": "web_new_game", "game": "loom", "opponent": "level:1"}).encode())
        assert answer["ok"] is False and answer["error"]["code"] == "bad_agent", answer
        assert not server.web.games


def test_the_web_server_plays_a_levels_agent_file_only_when_its_manifest_lists_it(folder, monkeypatch):
    """Even a level the reader lets through (a file in the game's folder) is refused by the
    listed-files-only rule unless the manifest lists it; a listed one plays."""
    import training.serving.bot_server as bot_server

    listed = "checkpoints/loom/loom__maskppo__0.zip"
    (folder / "levels.json").write_text(json.dumps(levels_document(level(listed))))
    levels_module._read.cache_clear()
    server = BotServer(listed_files_only=True, agents_dir=folder.parent)
    answer = server.answer_line(json.dumps({"type": "web_new_game", "game": "loom", "opponent": "level:1"}).encode())
    assert answer["ok"], answer
    for target in ("/etc/hostname.zip", str(folder / "unlisted.zip")):
        monkeypatch.setattr(bot_server, "level_spec", lambda spec, name, target=target, **options: target)
        answer = server.answer_line(json.dumps({"type": "web_new_game", "game": "loom", "opponent": "level:1"}).encode())
        assert answer["ok"] is False and answer["error"]["code"] == "bad_agent", answer
        assert "not a shipped agent file" in answer["error"]["message"]


def test_the_shipped_levels_and_manifests_read_cleanly():
    import envs

    for game in envs.GAMES:
        levels_module.read_levels_file(game)
        try:
            manifest.game_manifest(game)
        except manifest.ManifestError as error:
            assert "no agent is shipped" in str(error)
