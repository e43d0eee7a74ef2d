"""``python -m training.rate``: an agent's Elo on the calibrated levels — the fit on known
records, real ratings of bots whose level is known, the JSON it writes and its errors."""

from __future__ import annotations

import json

import pytest

from training.agents.levels import agent_levels, option_set
from training.evaluation.rating import fit_elo, main, next_level
from training.evaluation.ratings import expected_score

FOUR = '{"rows": 4, "cols": 4}'


def test_the_fit_recovers_known_ratings():
    rating, error = fit_elo([(0.0, 500.0, 1000.0)])  # an even record against a player at 0
    assert abs(rating) < 1e-6 and 0 < error < 30
    p = expected_score(200.0)  # the record a player 200 above one rated 100 would expect
    rating, _ = fit_elo([(100.0, p * 100_000, 100_000)])
    assert abs(rating - 300.0) < 1.0
    rating, _ = fit_elo([(0.0, 40.0, 40.0), (400.0, 20.0, 40.0)])  # beats one level, even with the next
    assert 300 < rating < 460


def test_a_perfect_record_stays_finite():
    rating, error = fit_elo([(0.0, 30.0, 30.0), (300.0, 30.0, 30.0)])
    assert 600 < rating < 2000 and error > 0


def test_deals_go_to_levels_near_the_estimate():
    levels = [{"elo": 0.0}, {"elo": 300.0}, {"elo": 600.0}, {"elo": 1500.0}]
    assert next_level(levels, 280.0, [0, 0, 0, 0]) == 1
    assert next_level(levels, 450.0, [2, 50, 2, 2]) == 2  # the nearer level has had its games
    assert next_level(levels, 1400.0, [2, 2, 2, 2]) == 3


def test_a_level_is_rated_near_its_own_elo(tmp_path, capsys):
    levels = agent_levels("linecatch", rows=4, cols=4)
    level = next(level for level in levels if level["spec"] == "heuristic")
    out = tmp_path / "rating.json"
    result = main(["--game", "linecatch", "--options", FOUR, "--agent", "heuristic", "--games", "60", "--json", str(out)])
    low, high = result["elo_interval95"]
    assert low <= level["elo"] <= high
    assert json.loads(out.read_text()) == result
    assert result["games"] == 60 == sum(entry["games"] for entry in result["levels"])
    assert all(entry["games"] >= 2 for entry in result["levels"])  # a deal (both seats) against every level
    printed = capsys.readouterr().out
    assert "95% interval" in printed and "| 1 | beginner |" in printed
    # the scale is named by its calibration, since a recalibration moves it
    calibrated = option_set("linecatch_v0", {"rows": 4, "cols": 4})["calibration"]["date"]
    assert result["levels_calibrated"] == calibrated and f"on the levels calibrated {calibrated}" in printed
    weaker = main(["--game", "linecatch", "--options", FOUR, "--agent", "random", "--games", "40"])
    assert weaker["elo"] < result["elo"]


@pytest.mark.parametrize("argv,words", [
    (["--game", "linecatch", "--agent", "nonsense"], "unknown agent"),
    (["--game", "linecatch", "--options", '{"rows": 7}', "--agent", "random"], "no levels"),
    (["--game", "linecatch", "--options", "[1]", "--agent", "random"], "JSON object"),
    (["--game", "linecatch", "--agent", "random", "--games", "3"], "--games must be at least"),
    (["--game", "chess", "--agent", "random"], "unknown game"),
])
def test_bad_input_is_a_clear_error(argv, words, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert words in capsys.readouterr().err


# ----- the score against the field (3–4 players) ---------------------------------------------------

from training.evaluation.ratings import field_half_points, field_score  # noqa: E402


@pytest.mark.parametrize("returns, scores, seat, half", [
    ([1, -1], [5, 3], 0, 2), ([1, -1], [5, 3], 1, 0), ([0, 0], [4, 4], 0, 1),  # two players: W, L, D
    ([1, -1, -1], [9, 4, 7], 0, 4),     # sole winner: above both
    ([1, -1, -1], [9, 4, 7], 2, 2),     # second on points: below the winner, above the third
    ([1, -1, -1], [9, 4, 7], 1, 0),     # last
    ([0, 0, -1], [8, 8, 2], 0, 3),      # tied for first: level with the other, above the third
    ([-1, 1, -1, -1], [3, 9, 3, 1], 0, 3),  # level on points with seat 2, above seat 3, below the winner
])
def test_field_half_points_place_the_seats(returns, scores, seat, half):
    assert field_half_points(returns, scores, seat) == half


def test_field_scores_of_real_knot_games_share_out_one_point_a_pair():
    """Over real 3- and 4-player Knot games between random players: every pair of seats shares one
    point (so the seats' field scores sum to n/2), the sole winner takes 1, and a seat's score is
    a whole number of half-points over 2 (n − 1)."""
    import envs
    from training.players.load import load_agent

    for players in (3, 4):
        for seed in range(12):
            env = envs.load("knot_v0").raw_env(players=players)
            env.reset(seed=seed)
            agent = load_agent("random", "knot_v0", seed=seed, players=players)
            while not env.game.is_terminal():
                env.step(agent.act(env.observe(env.agent_selection)))
            returns, scores = env.game.returns(), env.game.scores()
            field = [field_score(returns, scores, seat) for seat in range(players)]
            assert sum(field) == pytest.approx(players / 2)
            for seat in range(players):
                assert (field[seat] == 1.0) == (returns[seat] > 0)
                assert (field_half_points(returns, scores, seat) / (2 * (players - 1))) == field[seat]
