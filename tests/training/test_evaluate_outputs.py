"""What training.evaluation.tournament (python -m training.evaluate) writes besides its printed table: the round-robin chart (the numbers it
places: each pair's score and W-D-L over its bar, every agent's Elo) and the ``--json`` file
(everything the table shows: counts, score, interval, mean points, Elo). The chart is checked
through the data feeding it and the texts it places, not its pixels."""

from __future__ import annotations

import json
import re

import pytest

from training.evaluation.tournament import PairResult, chart_data, elo_ratings, wilson_interval


def results() -> list[PairResult]:
    first = PairResult("checkpoints/loom/loom__maskppo__0.zip", "heuristic", wins=120, draws=10, losses=70)
    second = PairResult("checkpoints/loom/loom__maskppo__0.zip", "random", wins=200)
    third = PairResult("heuristic", "random", wins=190, draws=2, losses=8)
    return [first, second, third]


def test_every_bar_gets_its_score_and_record_just_over_its_interval():
    data = chart_data(results())
    assert [bar["text"] for bar in data["bars"]] == ["62.5%\n120-10-70", "100.0%\n200-0-0", "95.5%\n190-2-8"]
    for bar, result in zip(data["bars"], results()):
        low, high = wilson_interval(result.score, result.games)
        assert (bar["score"], bar["low"], bar["high"]) == (result.score, low, high)
        assert high < bar["text_y"] <= high + 0.05  # over the interval's cap, never on the bar
    assert data["bars"][0]["label"] == "loom\nmaskppo\n0\nvs heuristic"


def test_every_agent_gets_its_elo_highest_first():
    data = chart_data(results())
    ratings = elo_ratings(results())
    assert [e["agent"] for e in data["elo"]] == ["loom__maskppo__0", "heuristic", "random"]
    assert [e["elo"] for e in data["elo"]] == sorted(ratings.values(), reverse=True)
    assert [e["text"] for e in data["elo"]] == [f"{value:.0f}" for value in sorted(ratings.values(), reverse=True)]


def test_the_chart_places_those_numbers():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from training.evaluation.tournament import chart_figure

    data = chart_data(results())
    figure = chart_figure("loom_v0", results())
    try:
        bars_axis, elo_axis = figure.axes
        placed = [(text.get_text(), text.get_position()) for text in bars_axis.texts]
        assert placed == [(bar["text"], (i, bar["text_y"])) for i, bar in enumerate(data["bars"])]
        assert max(bar["text_y"] for bar in data["bars"]) < bars_axis.get_ylim()[1] - 0.1  # room for two lines
        written = [(text.get_text(), text.get_position()[1]) for text in elo_axis.texts]
        assert written == [(e["text"], i) for i, e in enumerate(data["elo"])]
        assert [label.get_text() for label in elo_axis.get_yticklabels()] == [e["agent"] for e in data["elo"]]
        for text, e in zip(elo_axis.texts, data["elo"]):  # at the bar's end, inside the axis
            assert e["elo"] < text.get_position()[0] < elo_axis.get_xlim()[1]
    finally:
        plt.close(figure)


def test_the_json_has_what_the_table_prints(tmp_path, capsys):
    from training.evaluation.tournament import main

    path = tmp_path / "table.json"
    played = main(["--game", "linecatch", "--agents", "heuristic", "random", "--games", "4", "--json", str(path)])
    printed = capsys.readouterr().out
    table = json.loads(path.read_text())
    (pair,) = table["pairs"]
    result = played[0]
    assert pair["mean_points"] == sum(result.points_for) / 4
    assert pair["mean_opponent_points"] == sum(result.points_against) / 4
    assert f"| {pair['mean_points']:.1f} : {pair['mean_opponent_points']:.1f} |" in printed
    assert list(table["elo"]) == sorted(elo_ratings(played), key=lambda name: -elo_ratings(played)[name])
    for name, value in table["elo"].items():
        assert value == pytest.approx(elo_ratings(played)[name])
        assert re.search(rf"\| {re.escape(name)} \| {value:.0f} \|", printed)


def test_each_pairs_record_by_seat_adds_up_and_follows_the_seat_rotation(tmp_path, capsys):
    """Game i seats the first agent as player i % 2: the JSON's ``by_seat`` splits the pair's
    games by that seat, and the printed lines say the same."""
    from training.evaluation.tournament import main

    path = tmp_path / "table.json"
    (result,) = main(["--game", "fill", "--agents", "heuristic", "random", "--games", "6", "--seed", "3",
                      "--json", str(path)])
    printed = capsys.readouterr().out
    assert result.seats == [0, 1, 0, 1, 0, 1]
    (pair,) = json.loads(path.read_text())["pairs"]
    rows = pair["by_seat"]
    assert [row["seat"] for row in rows] == [0, 1] and [row["games"] for row in rows] == [3, 3]
    for row in rows:
        games = [o for o, s in zip(result.outcomes, result.seats) if s == row["seat"]]
        assert (row["wins"], row["draws"], row["losses"]) == (games.count(1.0), games.count(0.5), games.count(0.0))
        assert row["score"] == pytest.approx(sum(games) / 3)
        assert f"player_{row['seat']} {row['wins']}–{row['draws']}–{row['losses']} ({row['score']:.1%})" in printed
    assert sum(row["wins"] for row in rows) == pair["wins"] and sum(row["losses"] for row in rows) == pair["losses"]
