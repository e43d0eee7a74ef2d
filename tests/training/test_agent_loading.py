"""What ``load_agent`` refuses when the agent is made, never later: options the game does not
accept and seeds that are not whole numbers 0…2**63 − 1, for every kind of spec (a search's at
load, not at its first move); and agent files under options they were not trained for, even
where the observation has the same shape (Fill with traps, Loom with another bounty), while the
shipped files load under every option set their manifests give them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.uzor.patterns import STANDARD_MAP
from training.players.load import load_agent
from training.search.mcts import MCTSAgent

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
SPECS = ["random", "heuristic", "mcts:5", "mcts:5:rollout=random"]
BAD_SEEDS = ["x", math.nan, 2**200, -1, True, 1.5, [1]]
BAD_OPTIONS = [{"bounty": "x"}, {"bounty": math.nan}, {"bounty": 2**200}, {"bounty": True}, {"zzz": 1}]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_an_invalid_seed_is_refused_at_load_naming_the_seed(spec, seed):
    with pytest.raises(ValueError, match=r"seed must be a whole number 0…9223372036854775807 or None"):
        load_agent(spec, "loom", seed=seed)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("options", BAD_OPTIONS, ids=lambda o: json.dumps(o, default=str))
def test_invalid_options_are_refused_at_load_naming_the_option(spec, options):
    name = next(iter(options))
    with pytest.raises(ValueError, match=rf"option '{name}'"):
        load_agent(spec, "loom", seed=0, **options)


def test_a_search_checks_its_options_when_it_is_made():
    with pytest.raises(ValueError, match=r"option 'board_size'"):
        MCTSAgent("uzor", seed=0, simulations=5, board_size=8)
    with pytest.raises(ValueError, match=r"seed must be a whole number"):
        MCTSAgent("uzor", seed=math.nan, simulations=5)


def test_valid_seeds_and_options_still_load_and_play():
    env = envs.load("loom").raw_env(bounty=3)
    env.reset(seed=1)
    observation = env.observe(env.agent_selection)
    for spec in SPECS:
        for seed in (None, 0, 7, np.int64(9), 2**63 - 1):
            agent = load_agent(spec, "loom", seed=seed, bounty=3)
            assert observation["action_mask"][agent.act(observation)]


def manifest_entries():
    for game in sorted(path.name for path in CHECKPOINTS.iterdir() if (path / "agents.json").is_file()):
        for entry in json.loads((CHECKPOINTS / game / "agents.json").read_text())["agents"]:
            yield game, entry


@pytest.mark.parametrize("game,entry", list(manifest_entries()), ids=lambda x: x["file"] if isinstance(x, dict) else x)
def test_every_shipped_file_loads_under_the_options_its_manifest_gives(game, entry):
    agent = load_agent(f"checkpoints/{game}/{entry['file']}", game, seed=0, **entry["options"])
    env = envs.load(game).raw_env(**entry["options"])
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation)]
    if "trained" in entry["roles"]:
        load_agent("trained", game, seed=0, **entry["options"])
    if "net" in entry["roles"]:
        load_agent("mcts:4:net=trained", game, seed=0, **entry["options"])


OTHER_GAMES = [
    ("fill", "fill__endgame__1.zip", {"traps": True}, "traps=True"),
    ("fill", "fill__alphazero__3.zip", {"gems": True}, "gems=True"),
    ("fill", "fill__maskppo__0.zip", {"rocks": True}, "rocks=True"),
    ("loom", "loom__dagger__2.zip", {"bounty": 0}, "bounty=0"),
    ("loom", "loom__maskppo__0.zip", {"bounty": 20}, "bounty=20"),
    ("uzor", "uzor__dagger__24.zip", {"patterns": [dict(p, points=1) for p in STANDARD_MAP]}, "patterns="),
]


@pytest.mark.parametrize("game,file,options,named", OTHER_GAMES, ids=[f"{g}-{n}" for g, _, _, n in OTHER_GAMES])
def test_an_agent_file_refuses_options_it_was_not_trained_for_though_the_shapes_agree(game, file, options, named):
    path = f"checkpoints/{game}/{file}"
    trained = load_agent(path, game)
    assert trained is not None
    with pytest.raises(ValueError, match=rf"was trained for {game}_v0 with other options: {named}"):
        load_agent(path, game, **options)
    entry = next(e for g, e in manifest_entries() if e["file"] == file)
    if entry["kind"] == "network":
        with pytest.raises(ValueError, match=rf"with other options: {named}"):
            load_agent(f"mcts:4:net={path}", game, **options)


def test_scripted_chance_and_clocks_are_not_other_games():
    """Options that fix chance outcomes or time a player change no rule: the file still plays."""
    load_agent("checkpoints/loom/loom__dagger__2.zip", "loom", throws=[[1, 2]] * 16)
    load_agent("checkpoints/fill/fill__endgame__1.zip", "fill", time_limit=True, clocked=["player_0"])
    load_agent("checkpoints/knot/knot__alphazero__2.zip", "knot", pile=[0, 1, 2, 3] * 10)
    load_agent("checkpoints/uzor/uzor__dagger__24.zip", "uzor", goals=[0, 1])


def test_the_web_server_refuses_a_trained_agent_for_other_options():
    from training.serving.bot_server import BotServer

    server = BotServer(listed_files_only=True)
    for request in ({"type": "web_new_game", "game": "loom", "opponent": "checkpoints/loom/loom__dagger__2.zip",
                     "options": {"bounty": 0}},
                    {"type": "web_new_game", "game": "fill", "opponent": "mcts:4:net=checkpoints/fill/fill__alphazero__3.zip",
                     "options": {"traps": True}}):
        answer = server.answer_line(json.dumps(request).encode())
        assert answer["ok"] is False and answer["error"]["code"] == "bad_agent", answer
        assert "with other options" in answer["error"]["message"]
