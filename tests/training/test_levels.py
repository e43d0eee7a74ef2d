"""Strength levels: the data each game ships (``agent_levels``), ``level:K`` specs wherever an
agent is named (load_agent, the bot server, terminal play), and the calibration that writes
them (its Elo fit, its intervals, its resumable results file)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envs
from training.agents.levels import agent_levels
from training.players.load import load_agent
from training.agents.levels import default_level, levelled_option_sets, option_key, read_levels_file
from training.evaluation import calibration, level_games, level_tables
from training.evaluation.calibration import MARGIN
from training.evaluation.level_games import ResultStore, pair_seed
from training.evaluation.ratings import elo_mle, expected_score
from training.evaluation.tournament import wilson_interval
from training.serving.bot_server import BotServer

ROOT = Path(__file__).resolve().parents[2]

REQUIRED = [
    ("linecatch_v0", {}), ("linecatch_v0", {"rows": 4, "cols": 4}), ("linecatch_v0", {"pro": True}),
    ("loom_v0", {}), ("fill_v0", {}), ("uzor_v0", {}), ("knot_v0", {}), ("knot_v0", {"players": 3}),
    ("knot_v0", {"players": 4}),
]
"""The option sets that have levels: every game's defaults (Knot: 2 players), Linecatch's 4×4
board and pro mode, and Knot with 3 and 4 players."""


def fewest_levels(game: str, options: dict) -> int:
    """Five levels at least with two players; four with 3–4, where fewer kinds of player exist."""
    return 5 if envs.describe(game).num_players(options) == 2 else 4


def fewest_games(game: str, options: dict) -> int:
    """Games a level plays against the level below: 400 with two players; 200 with 3–4, where a
    game holds a comparison against every other seat (the score against the field)."""
    return 400 if envs.describe(game).num_players(options) == 2 else 200


def levelled() -> list[tuple[str, dict]]:
    return [(game, entry["options"]) for game in envs.GAMES for entry in levelled_option_sets(game)]


LEVELLED = levelled()
EVERY_LEVEL = [(game, options, level["level"]) for game, options in LEVELLED for level in agent_levels(game, **options)]


def label(value) -> str:
    return json.dumps(value) if isinstance(value, dict) else str(value)


# ----- the data -------------------------------------------------------------------------------------

def calibrated(game: str, options: dict) -> bool:
    """Whether the option set's levels file holds its levels yet."""
    try:
        return len(agent_levels(game, **options)) > 0
    except ValueError:
        return False


# The option sets still being calibrated (python -m training.levels --game G --resume): each
# is expected to fail until its levels land, and strict xfail fails the run the day one lands
# without its entry here being removed.
NOT_YET = {label(game) + label(options) for game, options in REQUIRED if not calibrated(game, options)}


@pytest.mark.parametrize("game, options", [
    pytest.param(game, options, marks=pytest.mark.xfail(strict=True, reason="not calibrated yet"))
    if label(game) + label(options) in NOT_YET else (game, options) for game, options in REQUIRED], ids=label)
def test_every_required_option_set_has_levels(game, options):
    assert len(agent_levels(game, **options)) >= fewest_levels(game, options)


def test_every_option_set_the_docs_name_is_calibrated():
    """docs/agents.md shows a table for each: every game's defaults, Linecatch 4×4 and pro."""
    assert not NOT_YET, sorted(NOT_YET)


@pytest.mark.parametrize("game, options", LEVELLED, ids=label)
def test_levels_shape_and_invariants(game, options):
    levels = agent_levels(game, **options)
    assert len(levels) >= fewest_levels(game, options)
    assert [level["level"] for level in levels] == list(range(1, len(levels) + 1))
    assert levels[0]["elo"] == 0.0 and levels[0]["vs_below"] is None
    assert len({level["name"] for level in levels}) == len(levels)
    for lower, upper in zip(levels, levels[1:]):
        assert upper["elo"] > lower["elo"], (lower, upper)
    for level in levels:
        assert isinstance(level["name"], str) and level["name"].isprintable()
        assert isinstance(level["spec"], str) and level["spec"]
        assert isinstance(level["elo"], float)
        low, high = level["elo_interval95"]
        assert low <= level["elo"] <= high
        assert level["ms_per_move"] >= 0
        below = level["vs_below"]
        if level["level"] > 1:
            assert below["games"] >= fewest_games(game, options) and below["score"] >= MARGIN
            assert below["wins"] + below["draws"] + below["losses"] == below["games"]
            if envs.describe(game).num_players(options) == 2:  # more seats: the score against the field
                assert below["score"] == pytest.approx((below["wins"] + 0.5 * below["draws"]) / below["games"])
            assert below["interval95"] == pytest.approx(list(wilson_interval(below["score"], below["games"])))


@pytest.mark.parametrize("game, options", LEVELLED, ids=label)
def test_the_levels_file_records_how_it_was_made(game, options):
    entry = next(e for e in read_levels_file(game)["option_sets"] if e.get("levels") and e["options"] == options)
    calibration_record = entry["calibration"]
    assert calibration_record["command"].startswith("python -m training.levels --game ")
    assert (ROOT / calibration_record["results_file"]).is_file()
    top = entry["levels"][-1]["spec"]
    assert top in entry["candidates"] or top.startswith("checkpoints/")
    assert all(level["spec"] in entry["candidates"] for level in entry["levels"])


@pytest.mark.parametrize("game, options", [(g, o) for g, o in LEVELLED if calibrated(g, o)], ids=label)
def test_the_stored_games_were_played_by_the_agent_files_shipped_now(game, options):
    """Every pair behind the levels records the sha256 of the files its specs play: a network
    shipped under ``trained`` (or as a search's ``net``) after the calibration fails here, until
    ``abstract-games levels --resume`` has set its old games aside and played them again."""
    from training.evaluation.level_games import file_fingerprint

    entry = next(e for e in read_levels_file(game)["option_sets"] if e.get("levels") and e["options"] == options)
    stored = json.loads((ROOT / entry["calibration"]["results_file"]).read_text())
    assert stored["pairs"]
    for key, pair in stored["pairs"].items():
        assert "files" in pair, f"{entry['calibration']['results_file']}: {key} records no agent files"
        for spec in (pair["upper"], pair["lower"]):
            now = file_fingerprint(game, options, spec)
            assert pair["files"].get(spec) == now, (
                f"{entry['calibration']['results_file']}: {key} was played by another file behind {spec!r} than the "
                f"one shipped now; run: {entry['calibration']['command']} --resume")


@pytest.mark.parametrize("game, options, number", EVERY_LEVEL, ids=label)
def test_every_level_loads_and_plays_a_legal_move(game, options, number):
    agent = load_agent(f"level:{number}", game, seed=3, **options)
    env = envs.load(game).raw_env(**options)
    env.reset(seed=11)
    observation = env.observe(env.agent_selection)
    action = agent.act(observation)
    assert observation["action_mask"][action] == 1


def test_levels_load_from_any_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for game, options, number in EVERY_LEVEL:
        if "checkpoints/" in agent_levels(game, **options)[number - 1]["spec"]:
            load_agent(f"level:{number}", game, **options)


def test_options_without_levels_name_the_option_sets_that_have_them():
    with pytest.raises(ValueError, match=r"no levels for linecatch_v0 .*'rows': 3.*the option sets with levels: .*\{\"rows\": 4, \"cols\": 4\} \(4×4\)"):
        agent_levels("linecatch", rows=3, cols=3)
    with pytest.raises(ValueError, match=r"the option sets with levels: the defaults \(5×5\)"):
        agent_levels("linecatch", rows=3, cols=3)
    with pytest.raises(ValueError, match="the option sets with levels"):
        load_agent("level:1", "linecatch", rows=3, cols=3)


@pytest.mark.parametrize("spec", ["level:0", "level:99", "level:x", "level:"])
def test_a_level_out_of_range_names_the_valid_range(spec):
    count = len(agent_levels("linecatch", rows=4, cols=4))
    with pytest.raises(ValueError, match=rf"level:1 … level:{count}"):
        load_agent(spec, "linecatch", rows=4, cols=4)


def test_default_options_match_however_they_are_written():
    assert agent_levels("linecatch", rows=4, cols=4) == agent_levels("linecatch_v0", cols=4, rows=4, pro=False)


def test_the_default_opponent_is_a_quick_level():
    level = default_level("linecatch", rows=4, cols=4)
    assert level is not None and level.startswith("level:")
    number = int(level.split(":")[1])
    levels = agent_levels("linecatch", rows=4, cols=4)
    assert levels[number - 1]["ms_per_move"] <= 1000
    assert all(other["ms_per_move"] > 1000 for other in levels[number:])
    assert default_level("linecatch", rows=3, cols=3) is None


# ----- the bot server and terminal play -----------------------------------------------------------

def ask(server: BotServer, **request) -> dict:
    return server.answer_line(json.dumps(request).encode())


def test_list_agents_includes_the_levels():
    server = BotServer(agents_dir=ROOT)
    answer = ask(server, id=1, type="list_agents", game="linecatch", options={"rows": 4, "cols": 4})
    assert answer["ok"], answer
    levels = agent_levels("linecatch", rows=4, cols=4)
    assert answer["levels"] == [{k: level[k] for k in ("level", "name", "spec", "elo", "ms_per_move")} for level in levels]
    assert {"options": {"rows": 4, "cols": 4}, "label": "4×4"} in answer["levels_for"]
    other = ask(server, id=2, type="list_agents", game="linecatch", options={"cols": 4, "rows": 4, "pro": False})
    assert [level["spec"] for level in other["levels"]] == [level["spec"] for level in levels]
    assert ask(server, id=3, type="list_agents", game="linecatch", options={"rows": 3, "cols": 3})["levels"] == []
    assert ask(server, id=4, type="list_agents", game="linecatch", options={"rows": 0})["error"]["code"] == "bad_options"


def test_new_game_with_a_level_plays_it():
    server = BotServer(agents_dir=ROOT)
    levels = agent_levels("linecatch", rows=4, cols=4)
    started = ask(server, id=1, type="new_game", game="linecatch", options={"rows": 4, "cols": 4},
                  agent=f"level:{len(levels)}", seed=5)
    assert started["ok"] and started["agent"] == f"level:{len(levels)}", started
    moved = ask(server, id=2, type="move", actions=[])
    assert moved["ok"] and 0 <= moved["action"] < 16
    wrong = ask(server, id=3, type="new_game", game="linecatch", options={"rows": 4, "cols": 4}, agent="level:99")
    assert wrong["error"]["code"] == "bad_agent" and f"level:{len(levels)}" in wrong["error"]["message"]


def test_a_level_is_held_to_the_servers_limits():
    game, options, number = next((g, o, n) for g, o, n in EVERY_LEVEL
                                 if agent_levels(g, **o)[n - 1]["spec"].startswith("mcts:"))
    spec = agent_levels(game, **options)[number - 1]["spec"]
    simulations = int(spec.split(":")[1])
    server = BotServer(agents_dir=ROOT, max_simulations=simulations - 1)
    answer = ask(server, id=1, type="new_game", game=game, options=options, agent=f"level:{number}")
    assert answer["error"]["code"] == "over_limit" and f"{simulations} simulations" in answer["error"]["message"]


def test_a_level_with_a_file_loads_whatever_the_agents_folder(tmp_path):
    found = [(g, o, n) for g, o, n in EVERY_LEVEL if "checkpoints/" in agent_levels(g, **o)[n - 1]["spec"]
             or agent_levels(g, **o)[n - 1]["spec"] == "trained"]
    if not found:
        pytest.skip("no level plays an agent file")
    game, options, number = found[0]
    server = BotServer(agents_dir=tmp_path)
    answer = ask(server, id=1, type="new_game", game=game, options=options, agent=f"level:{number}")
    assert answer["ok"], answer


def test_terminal_play_against_a_level():
    levels = agent_levels("linecatch", rows=4, cols=4)
    result = subprocess.run(
        [sys.executable, "-m", "training.play", "--game", "linecatch", "--option", "rows=4", "--option", "cols=4",
         "--opponent", "level:2", "--seat", "1"],
        cwd=ROOT, input="moves\nquit\n", capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "player_0 (level:2) plays" in result.stdout
    assert "you left the game before its end" in result.stdout
    refused = subprocess.run(
        [sys.executable, "-m", "training.play", "--game", "linecatch", "--option", "rows=4", "--option", "cols=4",
         "--opponent", "level:99"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert refused.returncode == 2 and f"level:1 … level:{len(levels)}" in refused.stderr


# ----- the calibration ----------------------------------------------------------------------------

def test_elo_mle_recovers_known_ratings():
    truth = {"a": 0.0, "b": 120.0, "c": 300.0, "d": 310.0}
    pairs = []
    for first, second, games in (("b", "a", 400), ("c", "b", 400), ("d", "c", 1000), ("c", "a", 100), ("d", "b", 50)):
        pairs.append((first, second, games * expected_score(truth[first] - truth[second]), games))
    ratings, errors = elo_mle(pairs, anchor="a")
    for name, value in truth.items():
        assert ratings[name] == pytest.approx(value, abs=1e-6)
    assert errors["a"] == 0.0 and 0 < errors["b"] < errors["c"] < errors["d"]


def test_elo_mle_standard_error_of_one_pair():
    # one pair at 50%: the information is n·k²/4, so the standard error is 2 / (k·√n)
    ratings, errors = elo_mle([("b", "a", 200.0, 400)], anchor="a")
    k = math.log(10) / 400
    assert ratings["b"] == pytest.approx(0.0, abs=1e-9)
    assert errors["b"] == pytest.approx(2 / (k * math.sqrt(400)))


def test_elo_mle_keeps_a_perfect_record_finite_with_a_virtual_draw():
    ratings, _ = elo_mle([("b", "a", 400.0, 400)], anchor="a", virtual_draws=1.0)
    # 400.5 points in 401 games: p = 400.5/401, so b - a = 400·log10(p / (1 - p))
    assert ratings["b"] == pytest.approx(400 * math.log10(400.5 / 0.5), rel=1e-6)
    with pytest.raises(ValueError, match="connect"):
        elo_mle([("b", "a", 200.0, 400), ("d", "c", 10.0, 20)], anchor="a")


@pytest.mark.parametrize("score, n, low, high", [
    (0.5, 400, 0.45123, 0.54877),
    (0.55, 400, 0.50100, 0.59805),
    (0.0, 10, 0.0, 0.27754),
    (1.0, 20, 0.83887, 1.0),
])
def test_wilson_interval_known_values(score, n, low, high):
    assert wilson_interval(score, n) == pytest.approx((low, high), abs=1e-5)


def tiny_levels_file(tmp_path: Path, monkeypatch, candidates: tuple = ("random", "heuristic", "solver")) -> Path:
    """A levels file for 3×3 Linecatch with three cheap candidates, results under tmp_path."""
    path = tmp_path / "levels.json"
    path.write_text(json.dumps({"game": "linecatch_v0", "option_sets": [{
        "key": "3x3", "label": "3×3", "options": {"rows": 3, "cols": 3},
        "candidates": list(candidates), "reference": "solver",
    }]}))
    monkeypatch.setattr(calibration, "levels_file", lambda game: path)
    monkeypatch.setattr(calibration, "RESULTS", tmp_path / "results")
    return path


def games_played(monkeypatch) -> list[tuple[str, str, int]]:
    """The games the calibration plays from now on, as (upper, lower, index), in order."""
    played: list[tuple[str, str, int]] = []
    real = level_games.play_timed_game

    def counting(job):
        played.append((job[2], job[3], job[4]))
        return real(job)

    monkeypatch.setattr(level_games, "play_timed_game", counting)
    return played


def test_the_calibration_resumes_without_replaying_stored_pairs(tmp_path, monkeypatch):
    tiny_levels_file(tmp_path, monkeypatch)
    played = games_played(monkeypatch)
    settings = dict(games=12, quick_games=4, jump_games=4, reference_games=4, workers=1, write=False, log=lambda text: None)
    first = calibration.calibrate("linecatch", {"rows": 3, "cols": 3}, **settings)
    results = tmp_path / "results" / "linecatch-3x3.json"
    stored = json.loads(results.read_text())
    assert sum(len(p["outcomes"]) for p in stored["pairs"].values()) == len(played) > 0

    # a second run without --resume refuses to overwrite what is stored
    with pytest.raises(SystemExit, match="--resume"):
        calibration.calibrate("linecatch", {"rows": 3, "cols": 3}, **settings)

    # with --resume nothing is played again and the levels come out the same
    played.clear()
    again = calibration.calibrate("linecatch", {"rows": 3, "cols": 3}, resume=True, **settings)
    assert played == []
    assert [level["spec"] for level in again["levels"]] == [level["spec"] for level in first["levels"]]

    # a pair cut short is completed: only its missing games are played, from where it stopped
    key = next(k for k, p in stored["pairs"].items() if len(p["outcomes"]) == 12)
    stored["pairs"][key]["outcomes"] = stored["pairs"][key]["outcomes"][:5]
    results.write_text(json.dumps(stored))
    played.clear()
    calibration.calibrate("linecatch", {"rows": 3, "cols": 3}, resume=True, **settings)
    pair = stored["pairs"][key]
    assert played == [(pair["upper"], pair["lower"], index) for index in range(5, 12)]


def test_a_pair_played_by_a_file_since_replaced_is_set_aside_and_played_again(tmp_path, monkeypatch):
    """Each stored pair keeps the sha256 of the agent files its specs play. With --resume, a pair
    whose file has changed since (a new network shipped under the same name) is moved to
    ``stale_pairs`` and played again; pairs of unchanged files and of bots are kept; a store
    written before fingerprints gets today's files recorded and nothing replayed."""
    from training.agents.network import Architecture, save_network

    options = {"rows": 3, "cols": 3}
    network = tmp_path / "net.zip"

    def write_network(seed: int) -> None:
        observer = envs.describe("linecatch").make_observer(options)
        layout = observer.policy_layout()
        architecture = Architecture(tuple(observer.planes_shape()), 4, 1, layout.cell_channels, layout.global_actions, 2)
        rng = np.random.default_rng(seed)
        weights = {k: rng.standard_normal(shape).astype(np.float32) for k, shape in architecture.weight_shapes().items()}
        save_network(network, architecture, weights, layout.index, {"game": "linecatch_v0", "options": options, "num_actions": 9})

    write_network(0)
    tiny_levels_file(tmp_path, monkeypatch, ("random", str(network), "solver"))
    played = games_played(monkeypatch)
    lines: list[str] = []
    settings = dict(games=6, quick_games=4, jump_games=4, reference_games=4, workers=1, write=False, log=lines.append)
    calibration.calibrate("linecatch", options, **settings)
    results = tmp_path / "results" / "linecatch-3x3.json"
    stored = json.loads(results.read_text())
    import hashlib
    first_sha = hashlib.sha256(network.read_bytes()).hexdigest()
    with_file = {k for k, p in stored["pairs"].items() if str(network) in (p["upper"], p["lower"])}
    assert with_file and len(with_file) < len(stored["pairs"])
    for key, pair in stored["pairs"].items():
        assert pair["files"] == ({str(network): first_sha} if key in with_file else {})

    # the same file: nothing is played again
    played.clear()
    calibration.calibrate("linecatch", options, resume=True, **settings)
    assert played == []

    # a store from before fingerprints: today's files are recorded, nothing is played again
    for pair in stored["pairs"].values():
        del pair["files"]
    results.write_text(json.dumps(stored))
    lines.clear()
    calibration.calibrate("linecatch", options, resume=True, **settings)
    assert played == [] and any("no record of the agent files" in line for line in lines)
    assert all("files" in pair for pair in json.loads(results.read_text())["pairs"].values())

    # another network under the same path: its pairs are set aside and played again from game 0
    write_network(1)
    lines.clear()
    calibration.calibrate("linecatch", options, resume=True, **settings)
    again = json.loads(results.read_text())
    replayed = {(stored["pairs"][k]["upper"], stored["pairs"][k]["lower"]) for k in with_file}
    for pair in replayed:  # every game of the new file's pairs is played again, from the first
        assert sorted(index for upper, lower, index in played if (upper, lower) == pair)[:1] == [0]
    for upper, lower, index in played:  # no other stored game is replayed (a pair may be new or lengthened)
        kept = stored["pairs"].get(f"{upper} vs {lower}")
        assert (upper, lower) in replayed or kept is None or index >= len(kept["outcomes"])
    assert sorted(p["upper"] + " vs " + p["lower"] for p in again["stale_pairs"]) == sorted(with_file)
    assert all(p["files"] == {str(network): first_sha} and p["outcomes"] == stored["pairs"][k]["outcomes"]
               for p in again["stale_pairs"] for k in [p["upper"] + " vs " + p["lower"]])
    new_sha = hashlib.sha256(network.read_bytes()).hexdigest()
    assert all(again["pairs"][k]["files"] == {str(network): new_sha} for k in with_file)
    for key in set(stored["pairs"]) - with_file:  # the bots' pairs keep their games (the new chain may add more)
        assert again["pairs"][key]["outcomes"].startswith(stored["pairs"][key]["outcomes"])
    assert sum("set aside" in line and "has changed since" in line for line in lines) == len(with_file)


def test_a_pairs_games_do_not_depend_on_the_order_it_is_named_in():
    assert pair_seed(10, "heuristic", "random") == pair_seed(10, "random", "heuristic")
    assert pair_seed(10, "heuristic", "random") != pair_seed(10, "heuristic", "mcts:10")


def test_the_store_reads_a_pair_either_way_round(tmp_path):
    store = ResultStore(tmp_path / "r.json", {"seed_base": 0})
    entry = store.record("b", "a", 0)
    entry["outcomes"] = "WWDL"
    assert store.score("b", "a")["score"] == pytest.approx(0.625)
    assert store.score("a", "b")["score"] == pytest.approx(0.375)
    assert store.score("a", "b", games=2) == {"games": 2, "wins": 0, "draws": 0, "losses": 2, "score": 0.0,
                                              "interval95": list(wilson_interval(0.0, 2))}


def test_a_pair_of_more_than_two_seats_scores_against_the_field(tmp_path):
    """3 seats: W–D–L are the lone seat's first places, the score its half-points over 4 a game."""
    store = ResultStore(tmp_path / "r.json", {"seed_base": 0})
    entry = store.record("b", "a", 0)
    entry.update(outcomes="WLLD", seats=3, field="4213")   # 1, ½, ¼, ¾ against the field
    assert store.score("b", "a")["score"] == pytest.approx(0.625)
    assert store.score("a", "b")["score"] == pytest.approx(0.375)
    first_two = store.score("b", "a", games=2)
    assert (first_two["wins"], first_two["losses"], first_two["score"]) == (1, 1, pytest.approx(0.75))


def test_the_agents_page_shows_each_levelled_option_set():
    page = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    for game, options in LEVELLED:
        entry = next(e for e in read_levels_file(game)["option_sets"] if e.get("levels") and e["options"] == options)
        start, end = level_tables.marker(game, entry["key"])
        shown = page.split(start, 1)[1].split(end, 1)[0].strip()
        assert shown == level_tables.levels_table(game, entry), f"docs/agents.md's {game} {entry['key']} table is stale"


def test_expected_score_is_the_elo_curve():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert np.isclose(expected_score(-400), 1 / 11)


def test_the_results_page_summarises_every_levelled_option_set():
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    start, end = level_tables.SUMMARY_MARKERS
    assert page.split(start, 1)[1].split(end, 1)[0].strip() == level_tables.summary_table()


def test_of_two_equals_the_preferred_or_the_quicker_one_is_kept(tmp_path):
    store = ResultStore(tmp_path / "r.json", {"seed_base": 0})
    slow, quick = store.record("mcts:1000", "policy", 0), store.record("solver", "mcts:30", 0)
    slow["think"] = {"upper": [10.0, 10], "lower": [0.01, 10]}   # mcts:1000 1 s a move, policy 1 ms
    quick["think"] = {"upper": [0.05, 10], "lower": [0.2, 10]}   # solver 5 ms, mcts:30 20 ms
    assert calibration.wins_tie("policy", "mcts:1000", [], store)
    assert not calibration.wins_tie("mcts:1000", "policy", [], store)
    assert calibration.wins_tie("solver", "policy", ["solver"], store)      # preferred, though slower
    assert not calibration.wins_tie("policy", "solver", ["solver"], store)
    assert not calibration.wins_tie("unplayed", "policy", [], store)
    # of two preferred, the one listed first, whichever thinks less
    assert calibration.wins_tie("mcts:1000", "policy", ["mcts:1000", "policy"], store)
    assert not calibration.wins_tie("policy", "mcts:1000", ["mcts:1000", "policy"], store)


def test_the_quick_order_keeps_the_list_unless_the_games_clearly_contradict_it(tmp_path):
    store = ResultStore(tmp_path / "r.json", {"seed_base": 0})
    store.record("b", "a", 0)["outcomes"] = "W" * 30 + "L" * 10     # b clearly above a
    store.record("c", "b", 0)["outcomes"] = "L" * 35 + "W" * 5      # c clearly below b
    store.record("d", "c", 0)["outcomes"] = "W" * 18 + "L" * 22     # d level with c: order kept
    assert calibration.quick_order(store, ["a", "b", "c", "d"], 40) == ["a", "c", "b", "d"]
    assert calibration.quick_order(store, ["a", "b", "c", "d"], 3) == ["a", "b", "c", "d"]  # 0 of 3 is no proof


def test_a_calibrations_pairs_become_scores_of_the_shipped_files_they_play(tmp_path, monkeypatch):
    """Pairs with a shipped file on one side (as ``trained``, a search's ``net=trained`` or its
    path) land in that file's manifest entry, seen from the file's side; a second run of the same
    command replaces its scores instead of adding them again; other files keep theirs."""
    import shutil

    from training.agents import manifest as manifests
    from training.evaluation.level_manifest import record_calibration

    shutil.copytree(ROOT / "checkpoints" / "linecatch", tmp_path / "linecatch")
    monkeypatch.setattr(manifests, "CHECKPOINTS", tmp_path)
    before = {e.file: e.scores for e in manifests.read_manifest(tmp_path / "linecatch" / "agents.json").entries}
    pairs = [
        {"upper": "trained", "lower": "heuristic", "games": 10, "wins": 6, "draws": 2, "losses": 2, "score": 0.7,
         "interval95": [0.4, 0.9]},
        {"upper": "mcts:10:w=inf", "lower": "trained", "games": 10, "wins": 1, "draws": 0, "losses": 9, "score": 0.1,
         "interval95": [0.02, 0.4]},
        {"upper": "heuristic", "lower": "random", "games": 10, "wins": 9, "draws": 0, "losses": 1, "score": 0.9,
         "interval95": [0.6, 0.98]},
    ]
    command = "python -m training.levels --game linecatch --options '{\"rows\": 4, \"cols\": 4}'"
    for _ in range(2):
        assert record_calibration("linecatch", {"rows": 4, "cols": 4}, pairs, command) == 2
    after = {e.file: e.scores for e in manifests.read_manifest(tmp_path / "linecatch" / "agents.json").entries}
    added = [s for s in after["linecatch_4x4__maskppo__1.zip"] if s["command"] == command]
    shipped = "checkpoints/linecatch/linecatch_4x4__maskppo__1.zip"
    assert [(s["agent"], s["spec"], s["opponent"], s["wins"], s["losses"], s["score"]) for s in added] == [
        (shipped, "trained", "heuristic", 6, 2, 0.7), (shipped, "trained", "mcts:10:w=inf", 9, 1, 0.9)]
    assert added[1]["interval95"] == pytest.approx([0.6, 0.98])
    assert after["linecatch_4x4__maskppo__1.zip"][:-2] == before["linecatch_4x4__maskppo__1.zip"]
    for name in set(before) - {"linecatch_4x4__maskppo__1.zip"}:
        assert after[name] == before[name]


def test_a_levels_file_names_each_option_set_once():
    for game in envs.GAMES:
        sets = read_levels_file(game)["option_sets"]
        keys = [option_key(game, entry.get("options", {})) for entry in sets]
        assert len(keys) == len(set(keys)), f"{game}: an option set listed twice in its levels.json"
        assert len({entry["key"] for entry in sets}) == len(sets), f"{game}: a key used twice"


TRAINED_BAR = {"loom_v0": 0.50}  # Loom's dice cap what skill can win; every other game 55%


@pytest.mark.parametrize("game", [g for g, options in LEVELLED if options == {} and envs.describe(g).shipped], ids=str)
def test_the_trained_policy_beats_the_heuristic_on_fresh_seeds(game):
    """The calibration's own pair of ``trained`` and the heuristic (seeds from 900,000,000, far
    from the trainers'): at least 400 games and the game's bar (docs/agents.md's table)."""
    entry = next(e for e in read_levels_file(game)["option_sets"] if e.get("levels") and e["options"] == {})
    store = ResultStore.open(ROOT / entry["calibration"]["results_file"], {"seed_base": entry["calibration"]["seed_base"]}, True)
    record = store.score("trained", "heuristic")
    assert record["games"] >= 400, f"{game}: trained and the heuristic played {record['games']} games"
    assert record["score"] >= TRAINED_BAR.get(game, 0.55), record


def test_writing_one_option_set_keeps_what_another_calibration_wrote_meanwhile(tmp_path, monkeypatch):
    """Two calibrations of one game (3 and 4 players) may run at once: each replaces its own
    entry in the levels file as the file is when it writes, not as it was when it started."""
    path = tmp_path / "levels.json"
    started = {"game": "knot_v0", "option_sets": [{"key": "3p", "candidates": ["random"]},
                                                  {"key": "4p", "candidates": ["random"]}]}
    meanwhile = json.loads(json.dumps(started))
    meanwhile["option_sets"][1]["levels"] = [{"level": 1, "spec": "random"}]  # the 4-player run finished first
    path.write_text(json.dumps(meanwhile), encoding="utf-8")
    monkeypatch.setattr(calibration, "levels_file", lambda game: path)
    monkeypatch.setattr(calibration, "write_agents_table", lambda game, entry: True)
    monkeypatch.setattr(calibration, "write_summary", lambda: True)
    monkeypatch.setattr(calibration, "record_calibration", lambda *args: 0)
    monkeypatch.setattr(calibration, "ROOT", tmp_path)
    monkeypatch.setattr(calibration, "AGENTS_PAGE", tmp_path / "agents.md")
    mine = {**started["option_sets"][0], "levels": [{"level": 1, "spec": "random"}, {"level": 2, "spec": "heuristic"}],
            "calibration": {"command": "python -m training.levels --game knot"}}
    store = ResultStore(tmp_path / "r.json", {"seed_base": 0})
    calibration._write_calibration("knot_v0", {"players": 3}, started, mine, store, log=lambda text: None)
    written = json.loads(path.read_text(encoding="utf-8"))["option_sets"]
    assert [entry["key"] for entry in written] == ["3p", "4p"]
    assert len(written[0]["levels"]) == 2 and written[1]["levels"] == [{"level": 1, "spec": "random"}]


def test_trained_plays_the_heuristic_a_full_pair_wherever_the_chain_puts_them(tmp_path, monkeypatch):
    """docs/agents.md quotes each game's `trained` against the heuristic over the calibration's own
    games: where both are candidates they play `games` games even when a level lies between them."""
    path = tmp_path / "levels.json"
    path.write_text(json.dumps({"game": "linecatch_v0", "option_sets": [{
        "key": "4x4", "label": "4×4", "options": {"rows": 4, "cols": 4},
        "candidates": ["random", "heuristic", "mcts:100:w=inf", "trained"], "reference": "solver"}]}))
    monkeypatch.setattr(calibration, "levels_file", lambda game: path)
    monkeypatch.setattr(calibration, "RESULTS", tmp_path / "results")
    played = games_played(monkeypatch)
    lines: list[str] = []
    result = calibration.calibrate("linecatch", {"rows": 4, "cols": 4}, games=8, quick_games=4, jump_games=4,
                                   reference_games=2, workers=1, write=False, log=lines.append)
    chain = [level["spec"] for level in result["levels"]]
    assert chain.index("trained") - chain.index("heuristic") > 1  # not neighbours: the chain alone plays them 4 games
    pair = [index for upper, lower, index in played if {upper, lower} == {"trained", "heuristic"}]
    assert sorted(pair) == list(range(8)) and any("trained against the heuristic (8 games)" in line for line in lines)
