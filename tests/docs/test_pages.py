"""The cross-game pages of docs/ work as written: their Python runs, their commands exist.

The game pages (docs/<game>.md) are checked by each game's own tests; these are the pages every
game shares.
"""

from __future__ import annotations

import pytest

from tests.docs.markdown import ROOT, blocks, check_command, run_block, shell_commands

DOCS = ROOT / "docs"
PAGES = ["index.md", "contract.md", "bots.md", "training.md", "results.md", "history.md", "agents.md", "scaling.md", "jax.md"]

NOT_RUN = {
    ("scaling.md", 0): "a config of the reader's own for RLlib (needs Ray): tests/training/test_rllib.py runs it",
    ("scaling.md", 1): "converts an RLlib checkpoint of the reader's own run (needs Ray and that run)",
}
"""Python blocks shown but not run here, with the reason."""

BLOCKS = [(page, index) for page in PAGES for index in range(len(blocks(DOCS / page, "python")))]


def test_every_page_exists_and_the_index_lists_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in sorted(DOCS.glob("*.md")):
        if page.name != "index.md" and not page.name.startswith("results_"):
            assert f"]({page.name})" in index, f"docs/index.md does not list {page.name}"


@pytest.mark.parametrize("page,index", BLOCKS, ids=lambda x: str(x))
def test_python_blocks_run_as_written(page, index, monkeypatch):
    if (page, index) in NOT_RUN:
        pytest.skip(NOT_RUN[(page, index)])
    monkeypatch.chdir(ROOT)
    printed = run_block(blocks(DOCS / page, "python")[index], {"__name__": "__docs__"}, f"docs/{page} python block {index + 1}")
    assert printed.strip(), "every block shows its reader something"


@pytest.mark.parametrize("page", PAGES)
def test_commands_name_real_modules_flags_and_files(page):
    for words in shell_commands(DOCS / page):
        assert not words[0].startswith(".venv/"), f"docs/{page}: {' '.join(words)}: write python (the venv is active)"
        check_command(words)


def test_the_agents_page_lists_exactly_the_shipped_agent_files():
    """docs/agents.md's table of shipped files names every file of every game's manifest
    (checkpoints/<game>/agents.json), and no file that has left the tree."""
    import json
    import re

    import envs

    page = (DOCS / "agents.md").read_text(encoding="utf-8")
    table = page.split("| file (`checkpoints/…`) | options | what it is |", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"`([a-z0-9_]+/[A-Za-z0-9_.-]+\.(?:zip|onnx))`", table))
    shipped = set()
    for game in envs.GAMES:
        folder = envs.describe(game).short_name
        manifest = ROOT / "checkpoints" / folder / "agents.json"
        if manifest.is_file():
            shipped |= {f"{folder}/{agent['file']}" for agent in json.loads(manifest.read_text())["agents"]}
    assert shipped, "no manifests found"
    assert listed == shipped, f"only in the table: {sorted(listed - shipped)}; only in manifests: {sorted(shipped - listed)}"
