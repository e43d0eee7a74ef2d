"""The contract every registered game meets, checked over every game the registry lists: its
description is complete and consistent, and invariants of the engine interface hold over many
positions of random games."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core.description import GameDescription
from envs.core.game import CHANCE, TERMINAL, draw_outcome
from training.bots import BotKit, bot_kit

GAMES = envs.GAMES
ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_lists_every_game_module():
    import pkgutil

    modules = sorted(f"envs.{m.name}" for m in pkgutil.iter_modules(envs.__path__) if re.search(r"_v\d+$", m.name))
    assert modules == sorted(envs.registry.BUILT_IN), "a game module the registry does not list is a game no test sees"
    assert all(isinstance(d, GameDescription) for d in envs.DESCRIPTIONS)
    assert envs.GAMES == [d.name for d in envs.DESCRIPTIONS] and len(set(envs.GAMES)) == len(envs.GAMES)


def test_registering_is_once_per_game():
    description = envs.DESCRIPTIONS[0]
    assert envs.register(description) is description and envs.GAMES.count(description.name) == 1
    with pytest.raises(ValueError, match="registered already"):
        envs.register(dataclasses.replace(description))
    with pytest.raises(TypeError, match="GameDescription"):
        envs.register(description.name)


@pytest.mark.parametrize("game", GAMES)
def test_names_resolve_every_way(game):
    description = envs.describe(game)
    assert envs.describe(description.short_name) is description
    assert description.name == f"{description.short_name}_v{description.version}" == description.engine.NAME
    assert description.env_id == f"abstract/{description.short_name}-v{description.version}"
    assert envs.describe(description.env_id) is description
    assert envs.load(game).GAME is description
    with pytest.raises(ValueError, match="unknown game"):
        envs.describe(description.short_name + "x")
    later = f"{description.short_name}_v{description.version + 1}"  # another version: refused as such
    for name in (later, f"abstract/{description.short_name}-v{description.version + 1}"):
        with pytest.raises(ValueError, match=rf"version {description.version + 1} of {description.short_name}, but this "
                                             rf"suite plays version {description.version}.*docs/changelog.md"):
            envs.describe(name)


@pytest.mark.parametrize("game", GAMES)
def test_the_version_names_the_env_and_a_mismatch_is_refused(game):
    """The env name, the engine's ``NAME`` and the PettingZoo id all follow ``version``; a
    description whose name, engine or version disagree is refused when it is built."""
    description = envs.describe(game)
    with pytest.raises(ValueError, match=r"_v<version>"):
        dataclasses.replace(description, version=description.version + 1)  # the engine and name still say the old one
    with pytest.raises(ValueError, match="its engine says it is"):
        dataclasses.replace(description, version=description.version + 1,
                            name=f"{description.short_name}_v{description.version + 1}")
    with pytest.raises(ValueError, match="version must be a whole number"):
        dataclasses.replace(description, version=-1)
    if envs.registry.PETTINGZOO_HAS_REGISTRY:
        from pettingzoo import aec_registry

        assert description.env_id in aec_registry


@pytest.mark.parametrize("game", GAMES)
def test_a_snapshot_of_another_version_is_refused_by_name(game):
    """Snapshots carry the versioned env name (``game``); one of another version of the same
    game is refused with a message that says so, before anything in it is read."""
    from envs.core.game import SnapshotError

    description = envs.describe(game)
    env = envs.load(game).raw_env(**description.test_options.quick)
    env.reset(seed=0)
    snapshot = env.snapshot()
    assert snapshot["game"] == description.name and isinstance(snapshot["version"], int)
    other = {**snapshot, "game": f"{description.short_name}_v{description.version + 1}"}
    with pytest.raises(SnapshotError, match=rf"another version of {description.short_name} .*docs/changelog.md"):
        description.engine.from_snapshot(other)
    with pytest.raises(SnapshotError, match=r"snapshot is of game 'nothing_v0', not"):
        description.engine.from_snapshot({**snapshot, "game": "nothing_v0"})


@pytest.mark.parametrize("game", [g for g in GAMES if envs.describe(g).docs is not None])
def test_a_published_game_has_a_board_and_marks_the_last_move(game):
    """A published game can be played on the web page (``board``) and its pictures mark the last
    move (the renderers' last-move hooks, which tests/core/test_last_move.py checks)."""
    description = envs.describe(game)
    assert description.board is not None
    assert description.render.marks_last_move, "declare last_move_cell, last_move_text and last_move_box in render.py"


@pytest.mark.parametrize("game", GAMES)
def test_the_description_matches_the_env(game):
    description = envs.describe(game)
    module = envs.load(game)
    raw = module.raw_env()
    assert type(raw).__name__ == "raw_env" and type(raw).description is description
    assert raw.metadata["name"] == game and raw.metadata["render_fps"] > 0
    facts = description.facts
    players = description.num_players({})
    assert facts.min_players <= players <= facts.max_players
    assert len(raw.possible_agents) == players
    assert raw.action_space(raw.possible_agents[0]).n == description.num_actions({})
    assert raw.observation_space(raw.possible_agents[0])["observation"].shape == (raw.observer.size,)
    assert facts.utility(players) == ("zero_sum" if players == 2 else "general_sum")
    assert envs.load(game).__name__ == description.module


@pytest.mark.parametrize("game", GAMES)
def test_a_published_game_has_its_page_and_a_shipped_one_its_agents(game):
    """``docs`` names the game's page (listed in docs/index.md; the observations section and
    the README picture are checked by tests/training/test_onnx.py and tests/docs/test_readme.py);
    ``shipped`` says whether checkpoints/<short_name>/ holds trained agents."""
    description = envs.describe(game)
    short = description.short_name
    if description.docs is not None:
        assert description.docs == f"docs/{short}.md" and (ROOT / description.docs).is_file()
        assert f"]({short}.md)" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert description.shipped == any((ROOT / "checkpoints" / short).glob("*.zip"))


@pytest.mark.parametrize("game", GAMES)
def test_the_bot_kit_is_complete(game):
    kit = bot_kit(game)
    assert isinstance(kit, BotKit)
    bots = kit.named_bots()
    assert {"random", "heuristic"} <= set(bots)
    hooks = kit.search
    for hook in (hooks.preferred, hooks.root_preferred, hooks.evaluate):
        assert hook is None or callable(hook)
    assert kit.ladders and all(isinstance(spec.options, dict) for spec in kit.ladders)


def positions(game: str, games: int, seed: int):
    """Engine states along seeded random games (chance drawn as the env draws it)."""
    rng = random.Random(seed)
    for index in range(games):
        env = envs.load(game).raw_env()
        env.reset(seed=seed + index)
        state = env.game
        while True:
            yield state
            if state.is_terminal():
                break
            state = state.clone()
            if state.current_player() == CHANCE:
                state.apply(draw_outcome(state.chance_outcomes(), rng))
            else:
                state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game", GAMES)
def test_why_illegal_is_none_exactly_for_the_legal_actions(game):
    description = envs.describe(game)
    actions = description.num_actions({})
    rng = random.Random(1)
    checked = 0
    for state in positions(game, 6, 100):
        if state.is_terminal() or state.current_player() == CHANCE:
            continue
        if rng.random() > 0.3:
            continue
        legal = set(state.legal_actions())
        for action in range(actions):
            reason = state.why_illegal(action)
            assert (reason is None) == (action in legal), (action, reason)
            assert reason is None or (isinstance(reason, str) and reason)
        for outside in (-1, actions, actions + 7):
            assert isinstance(state.why_illegal(outside), str)
        checked += 1
    assert checked > 3


@pytest.mark.parametrize("game", GAMES)
def test_notation_round_trips_for_every_legal_action(game):
    checked = 0
    for state in positions(game, 4, 200):
        if state.is_terminal() or state.current_player() == CHANCE:
            continue
        for action in state.legal_actions():
            text = state.action_to_string(action)
            assert isinstance(text, str) and text
            assert state.string_to_action(text) == action
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("game", GAMES)
def test_clones_are_independent_and_snapshots_round_trip(game):
    description = envs.describe(game)
    rng = random.Random(3)
    for state in positions(game, 3, 300):
        before = json.dumps(state.snapshot(), sort_keys=True)
        twin = state.clone()
        assert json.dumps(twin.snapshot(), sort_keys=True) == before
        if not twin.is_terminal():
            if twin.current_player() == CHANCE:
                twin.apply(draw_outcome(twin.chance_outcomes(), rng))
            else:
                twin.apply(rng.choice(twin.legal_actions()))
        assert json.dumps(state.snapshot(), sort_keys=True) == before, "a clone shares state with its original"
        again = description.engine.from_snapshot(json.loads(before))
        assert json.dumps(again.snapshot(), sort_keys=True) == before
        assert again.current_player() == state.current_player()
        if not state.is_terminal() and state.current_player() != CHANCE:
            assert again.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("game", GAMES)
def test_terminal_states_rank_players_and_only_terminal_states_have_no_player(game):
    for state in positions(game, 5, 400):
        player = state.current_player()
        if player == TERMINAL:
            assert state.is_terminal()
            returns = state.returns()
            assert set(returns) <= {-1, 0, 1} and max(returns) >= 0
        else:
            assert not state.is_terminal()
            assert player == CHANCE or 0 <= player < state.num_players
            assert state.returns() == [0] * state.num_players


@pytest.mark.parametrize("game", GAMES)
def test_idle_seats_observe_an_empty_mask_and_scores_are_float32_arrays(game):
    env = envs.load(game).raw_env()
    env.reset(seed=9)
    rng = random.Random(9)
    while not env.game.is_terminal():
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8
            assert bool(mask.any()) == (agent == env.agent_selection)
            scores = env.infos[agent]["scores"]
            assert scores.dtype == np.float32 and scores.shape == (len(env.possible_agents),)
            assert all(isinstance(v, (int, float, np.ndarray, np.number)) for v in env.infos[agent].values())
        env.step(rng.choice(env.game.legal_actions()))


def test_built_in_reads_the_games_folder_and_ships_nothing_unless_told():
    """``built_in`` finds render, sampling, svg and terminal (``PLAY``) in ``envs/<short_name>/``,
    names the env after the version, and says ``shipped=False`` as the dataclass does."""
    import importlib

    known = envs.describe("linecatch")
    made = GameDescription.built_in("linecatch", version=known.version, engine=known.engine, observer=known.observer,
                                    facts=known.facts)
    assert made.name == known.name and made.shipped is False and known.shipped is True
    assert made.play is importlib.import_module("envs.linecatch.terminal").PLAY is known.play
    assert made.render == known.render and made.board == known.board and made.render.marks_last_move
    with pytest.raises(TypeError, match="version"):
        GameDescription.built_in("linecatch", engine=known.engine, observer=known.observer, facts=known.facts)
