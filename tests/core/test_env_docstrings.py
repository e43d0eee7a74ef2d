"""Every env module opens with PettingZoo's table, its numbers measured on the env itself."""

from __future__ import annotations

import importlib

import pytest

import envs
from envs.core.wrapping import module_docstring

GAMES = [game for game in envs.GAMES if envs.describe(game).shipped]  # the toy games of tests/toy have no page


@pytest.mark.parametrize("game", GAMES)
def test_the_module_docstring_holds_the_envs_own_numbers(game):
    module = importlib.import_module(f"envs.{envs.describe(game).name}")
    doc = module.__doc__
    assert "{pettingzoo_table}" not in doc
    env = module.raw_env()
    planes = module.raw_env(observation_format="planes")
    agent = env.possible_agents[0]
    facts = envs.describe(game).facts
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in doc.splitlines()
            if line.startswith("| ") and line.count("|") == 3 and line.split("|")[1].strip() != "Agents"}
    assert rows["Import"] == f"`from envs import {envs.describe(game).name}`"
    assert rows["Action Values"].startswith(f"Discrete({env.action_space(agent).n})")
    assert rows["Observation Shape"].startswith(
        f"{env.observation_space(agent)['observation'].shape}, or {planes.observation_space(agent)['observation'].shape}")
    assert f"`agents= {env.possible_agents}`" in doc
    assert f"{facts.min_players} to {facts.max_players}" in doc or facts.min_players == facts.max_players
    assert f"abstract-games play --game {envs.describe(game).short_name}" in rows["Manual Control"]


def test_a_docstring_without_the_table_line_is_refused():
    with pytest.raises(ValueError, match="no \\{pettingzoo_table\\} line"):
        module_docstring("Knot, with no table.", envs.load("knot_v0").raw_env)
