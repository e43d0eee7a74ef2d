"""A game's version follows what was made on it: agent files record the versioned env name and
are refused, with a message that says so, for another version of the same game (policies,
networks, the levels files); every results table the suite writes names ``<game>_v<N>``."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from tests.fuzz import craft
from training import load_agent
from training.agents.archive import CheckpointError

OTHER = "linecatch_v1"  # a version of Linecatch this suite does not play
WORDS = r"linecatch_v1 is version 1 of linecatch, this suite plays version 0, whose seeded play differs"


def test_the_version_note_speaks_only_of_another_version_of_the_same_game():
    note = envs.registry.version_note
    assert note(OTHER, "linecatch").startswith("; linecatch_v1 is version 1 of linecatch")
    assert note("linecatch_v0", "linecatch") == note("loom_v1", "linecatch") == note(None, "linecatch") == ""
    assert note("linecatch_vx", "linecatch") == note("linecatch", "linecatch") == ""


def test_a_policy_file_of_another_version_is_refused_by_version(tmp_path):
    path = craft.write_checkpoint(tmp_path / "c.zip", dict(craft.valid_meta(), game=OTHER))
    with pytest.raises(CheckpointError, match=rf"was trained for 'linecatch_v1', not 'linecatch_v0'; {WORDS}"):
        load_agent(str(path), craft.GAME, **craft.OPTIONS)
    fine = craft.write_checkpoint(tmp_path / "d.zip")  # the same file made for this version loads
    assert type(load_agent(str(fine), craft.GAME, **craft.OPTIONS)).__name__ == "PolicyAgent"


def test_a_network_file_of_another_version_is_refused_by_version(tmp_path):
    from training.agents.network import Architecture, save_network

    architecture = Architecture((3, 3, 8), filters=4, blocks=1, cell_channels=1, global_actions=0, players=2)
    weights = {name: np.zeros(shape, np.float32) for name, shape in architecture.weight_shapes().items()}
    meta = {"game": OTHER, "options": dict(craft.OPTIONS), "num_actions": 9}
    path = save_network(tmp_path / "n.zip", architecture, weights, np.arange(9), meta)
    with pytest.raises(ValueError, match=rf"was trained for 'linecatch_v1', not 'linecatch_v0'; {WORDS}"):
        load_agent(str(path), "linecatch", **craft.OPTIONS)


def test_a_levels_file_of_another_version_is_refused_by_version(tmp_path):
    from training.agents.levels import check_levels

    with pytest.raises(ValueError, match=rf"'game' is 'linecatch_v1'.*; {WORDS}"):
        check_levels({"game": OTHER, "option_sets": []}, tmp_path / "levels.json", "linecatch")
    assert check_levels({"game": "linecatch_v0", "option_sets": []}, tmp_path / "levels.json", "linecatch")


def test_every_results_table_names_the_versioned_game():
    from training.bots import LadderSpec
    from training.evaluation import ladder, level_tables, tournament

    options = {"rows": 3, "cols": 3}
    result = tournament.play_pair("linecatch", "random", "heuristic", 2, 0, options)
    assert tournament.markdown_table("linecatch", options, [result]).startswith("**linecatch_v0** ")
    assert tournament.json_table("linecatch", options, "command", [result])["game"] == "linecatch_v0"
    assert ladder.markdown("linecatch", LadderSpec(options, note="a note"), []).startswith("**linecatch_v0** ")
    rows = level_tables.summary_table().splitlines()[2:]
    assert rows and all(row.split("|")[1].strip().split(" ")[0] in envs.GAMES for row in rows)
    from training.agents.levels import read_levels_file

    entry = next(e for e in read_levels_file("linecatch")["option_sets"] if e.get("levels"))
    assert "Measured on `linecatch_v0` " in level_tables.levels_table("linecatch", entry)
