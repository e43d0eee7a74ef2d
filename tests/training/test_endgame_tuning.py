"""Endgame tuning (training/jobs/tuning.py): the solver's labels agree with a brute force
through the engine, the targets are what the docstring says (the solver's, or a teacher's at the
agent's own decisions), a tiny run writes an agent that plays, and bad settings are refused by
name."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from envs.fill.positions import position
from envs.fill.rules import FILL, FILL2, FillGame
from training.players.load import load_agent
from training.bots.fill import solved_scores
from training.agents.checkpoint import code_version
from training.jobs.tuning import best_moves, main, play_positions
from training.evaluation.tournament import play_game
from tests.fill.test_search import ONLY_C5_WINS, brute_force_winning_fills, random_positions

SHIPPED = "checkpoints/fill/fill__alphazero__3.zip"
LOOM = "checkpoints/loom/loom__dagger__2.zip"


def test_best_moves_are_the_brute_forces_winning_fills():
    """On every small fill position of random default games: where the solver decides every
    move, the best moves are exactly the fills after which the mover wins (all fills when none
    wins), as a brute force through the engine finds them."""
    memo: dict = {}
    checked = critical = 0
    for game in random_positions({}, games=40, seed=11):
        if game.phase not in (FILL, FILL2):
            continue
        legal = game.legal_actions()
        moves, scores = best_moves(game, legal, solved_scores)
        if scores is None:
            assert moves is None and solved_scores(game) is None
            continue
        mover = game.current_player()
        winners = brute_force_winning_fills(game, memo)
        assert moves is not None
        assert sorted(moves) == sorted(winners or legal)
        assert scores[mover] == (1.0 if winners else 0.0)
        checked += 1
        critical += 0 < len(winners) < len(legal)
    assert checked > 150 and critical > 20


def test_the_known_only_winning_fill_is_the_one_best_move():
    game = position(ONLY_C5_WINS)
    moves, scores = best_moves(game, game.legal_cells(), solved_scores)
    assert moves == [game.string_to_action("c5")] and scores == [0.0, 1.0]


def test_positions_carry_the_networks_own_targets_except_where_solved():
    """Critical positions put all their policy weight on the best moves (at least half of it
    spread evenly); the others keep the network's own policy; solved positions get the solved
    outcome as their value, for the player to move first."""
    from training.agents.files import load_network
    import envs

    task = {"game": "fill_v0", "options": {}, "agent": SHIPPED, "explore": 0.3,
            "games": [(5, "random"), (6, "heuristic"), (7, "self"), (8, "random")]}
    rows = play_positions(task)
    net, _ = load_network(SHIPPED)
    observer = envs.describe("fill").observer(FillGame.resolve_options({}))
    assert rows["critical"].any() and not rows["critical"].all()
    for vector, mask, policy, value, critical in zip(rows["vectors"], rows["masks"], rows["policies"],
                                                     rows["values"], rows["critical"]):
        assert abs(policy.sum() - 1.0) < 1e-5 and not policy[~mask].any()
        logits, values = net.evaluate(observer.planes(vector))
        own = np.exp(np.where(mask, logits[0], -np.inf) - logits[0][mask].max())
        own /= own.sum()
        if critical:
            support = np.flatnonzero(policy)
            assert len(support) < mask.sum()
            assert policy[support].min() >= 0.5 / len(support) - 1e-6
            assert sorted(value.tolist()) == [-1.0, 1.0]
        else:
            assert np.allclose(policy, own, atol=1e-5)


def test_a_teacher_labels_exactly_the_agents_own_decisions():
    """With --teacher, the rows are the agent's own decisions of the same games (both seats'
    against itself), each labelled with the teacher's distribution from that observation: here
    ``random``'s, uniform over the legal moves. A teacher only labels: the games are the same."""
    games = [(5, "heuristic"), (6, "random"), (7, "self")]
    for index, game in enumerate(games):
        task = {"game": "fill_v0", "options": {}, "agent": SHIPPED, "explore": 0.3, "games": [game]}
        every = play_positions(task)  # solver labels: every decision, both seats
        taught = play_positions({**task, "teacher": "random"})
        assert taught["critical"].all() and len(taught["vectors"]) > 5
        for mask, policy in zip(taught["masks"], taught["policies"]):
            assert np.allclose(policy[mask], 1.0 / mask.sum()) and not policy[~mask].any()
        # the taught rows are the agent's rows of the same game, in order
        all_rows = [v.tobytes() for v in every["vectors"]]
        positions = [all_rows.index(v.tobytes()) for v in taught["vectors"]]
        assert positions == sorted(positions)
        if game[1] == "self":
            assert len(positions) == len(all_rows)
        else:  # one seat's decisions: about half, and not the opponent's
            assert 0.3 * len(all_rows) < len(positions) < 0.7 * len(all_rows)


def test_with_a_teacher_value_targets_are_each_games_outcome_for_the_seat_to_move():
    """--teacher with --value-targets: every row of a game carries that game's outcome (ranked
    return and raw score margin) seen from the row's mover; in a game against itself both seats'
    rows appear, with opposite values. The policy labels are the teacher's as without it."""
    for seed, opponent in [(11, "self"), (12, "heuristic")]:
        task = {"game": "loom_v0", "options": {}, "agent": LOOM, "explore": 0.3, "teacher": "random",
                "games": [(seed, opponent)]}
        plain, outcome = play_positions(task), play_positions({**task, "outcome_values": True})
        assert np.array_equal(plain["vectors"], outcome["vectors"])
        assert np.array_equal(plain["policies"], outcome["policies"])
        seen = {tuple(v.tolist()) for v in outcome["values"]}
        assert len(seen) >= 1 and all(sorted(v) in ([-1.0, 1.0], [0.0, 0.0]) for v in seen)
        if opponent == "self":
            assert len(seen) == 2 or seen == {(0.0, 0.0)}  # both seats' rows, opposite outcomes
        else:
            assert len(seen) == 1  # one seat's rows, one outcome
        # the raw margins are score differences, opposite for the two seats, one per seat
        assert len({tuple(m.tolist()) for m in outcome["margins"]}) == len(seen)
        assert len({abs(float(m[0])) for m in outcome["margins"]}) == 1  # one final score gap
        for v, m in zip(outcome["values"], outcome["margins"]):
            assert np.sign(m[0]) == np.sign(v[0]) and m[0] == -m[1]
        assert not np.array_equal(plain["values"], outcome["values"])


def test_a_search_teachers_visit_shares_are_the_targets_in_a_game_without_solver(tmp_path):
    """Loom has no exact solver: with a search as teacher the tuning runs, its targets are the
    search's visit shares (spread over several moves, legal only), and the agent it writes plays
    full games."""
    rows = play_positions({"game": "loom_v0", "options": {}, "agent": LOOM, "explore": 0.3,
                           "teacher": "mcts:12:depth=2:margin=1", "games": [(3, "heuristic")]})
    assert rows["critical"].all() and len(rows["policies"]) > 5
    assert all(abs(p.sum() - 1) < 1e-5 and not p[~m].any() for p, m in zip(rows["policies"], rows["masks"]))
    assert any((p > 0).sum() > 1 for p in rows["policies"])  # shares, not one move
    result = main(["--agent", LOOM, "--teacher", "mcts:12:depth=2:margin=1", "--games", "2", "--steps", "2",
                   "--eval-games", "2", "--workers", "1", "--out-dir", str(tmp_path), "--seed", "3"])
    assert Path(result["dir"]).name.startswith("loom__dagger__3__")
    meta = json.loads(zipfile.ZipFile(result["agent"]).read("meta.json"))
    assert "--teacher mcts:12:depth=2:margin=1" in meta["command"] and "DAgger" in meta["algo"]
    agent = load_agent(result["agent"], "loom", seed=0)
    returns, _ = play_game("loom_v0", [load_agent("random", "loom", seed=1), agent], 1, {})
    assert sorted(returns) in ([-1, 1], [0, 0])


def test_a_tiny_run_writes_an_agent_that_plays_full_games(tmp_path):
    result = main(["--agent", SHIPPED, "--games", "12", "--steps", "3", "--eval-games", "2",
                   "--workers", "1", "--out-dir", str(tmp_path), "--seed", "4"])
    folder = Path(result["dir"])
    assert folder.name.startswith("fill__endgame__4__")
    report = json.loads((folder / "evaluation.json").read_text())
    assert set(report["final_evaluation"]) == set(report["start_evaluation"]) == {"random", "heuristic"}
    assert report["final_evaluation"]["heuristic"]["games"] == 2 and report["game"] == "fill_v0"
    assert report["critical_positions"] > 0 and report["positions"] > report["critical_positions"]
    agent = load_agent(result["agent"], "fill", seed=0)
    for seed in range(3):
        returns, _ = play_game("fill_v0", [agent, load_agent("random", "fill", seed=seed)], seed, {})
        assert sorted(returns) == [-1, 1]
    meta = json.loads(zipfile.ZipFile(result["agent"]).read("meta.json"))
    assert meta["tuned_from"] == SHIPPED and "training.endgame_tuning" in meta["command"]
    assert meta["code_version"] == code_version()  # the tuning's code, not the start's
    assert meta["critical_positions"] == report["critical_positions"]


def test_earlier_rounds_positions_join_this_rounds(tmp_path):
    """DAgger aggregation: --keep-positions saves the round's labelled positions, a later round's
    --earlier-positions learns from them with its own (the same seed and games without them give
    other weights), and a file labelled for another teacher is refused before anything starts."""
    first_dir, second_dir, alone_dir = (tmp_path / name for name in ("first", "second", "alone"))
    common = ["--agent", SHIPPED, "--teacher", "random", "--games", "2", "--steps", "2", "--eval-games", "0",
              "--workers", "1", "--critical-share", "0"]
    first = main(common + ["--keep-positions", "--out-dir", str(first_dir), "--seed", "1"])
    saved = Path(first["dir"]) / "positions.npz"
    with np.load(saved, allow_pickle=False) as stored:
        assert len(stored["vectors"]) == len(stored["policies"]) == first["positions"] > 5
        record = json.loads(str(stored["record"]))
        assert record["teacher"] == "random" and record["labels"] == "distribution"  # random's probabilities
        assert stored["vectors"].dtype == np.float16  # kept as the learner holds them
        arrays = {key: stored[key] for key in stored.files if key != "record"}
    second = main(common + ["--earlier-positions", str(saved), "--out-dir", str(second_dir), "--seed", "2"])
    alone = main(common + ["--out-dir", str(alone_dir), "--seed", "2"])
    assert second["earlier_positions"] == first["positions"] and alone["earlier_positions"] == 0
    assert second["positions"] == alone["positions"]  # the same games this round
    meta = json.loads(zipfile.ZipFile(second["agent"]).read("meta.json"))
    assert meta["earlier_positions"] == first["positions"] and meta["endgame_positions"] == second["positions"]
    weights = [zipfile.ZipFile(run["agent"]) for run in (second, alone)]
    names = [name for name in weights[0].namelist() if name != "meta.json"]
    assert any(weights[0].read(name) != weights[1].read(name) for name in names)
    refused = tmp_path / "refused"
    with pytest.raises(ValueError, match="--earlier-positions .* was labelled with teacher 'random', "
                                         "this round with 'heuristic'"):
        main(["--agent", SHIPPED, "--teacher", "heuristic", "--earlier-positions", str(saved),
              "--out-dir", str(refused)])
    # the same teacher's name with labels of another kind (a bot that had no probabilities when
    # the file was written labelled single moves), or a record that does not say: refused
    for name, changed in (("moves.npz", dict(record, labels="move")), ("unsaid.npz", {k: v for k, v in record.items()
                                                                                       if k != "labels"})):
        np.savez(tmp_path / name, record=np.asarray(json.dumps(changed)), **arrays)
    with pytest.raises(ValueError, match="--earlier-positions .* was labelled with labels 'move', "
                                         "this round with 'distribution'"):
        main(common + ["--earlier-positions", str(tmp_path / "moves.npz"), "--out-dir", str(refused)])
    with pytest.raises(ValueError, match="--earlier-positions .* does not say what its labels are"):
        main(common + ["--earlier-positions", str(tmp_path / "unsaid.npz"), "--out-dir", str(refused)])
    with pytest.raises(ValueError, match="--earlier-positions .* not a positions file"):
        not_positions = tmp_path / "other.npz"
        np.savez(not_positions, vectors=np.zeros(3))
        main(["--agent", SHIPPED, "--teacher", "random", "--earlier-positions", str(not_positions),
              "--out-dir", str(refused)])
    with pytest.raises(ValueError, match="--earlier-positions .* cannot be read"):
        main(["--agent", SHIPPED, "--teacher", "random", "--earlier-positions", str(tmp_path / "missing.npz"),
              "--out-dir", str(refused)])
    assert not refused.exists()  # nothing was started


@pytest.mark.parametrize("flags, message", [
    (["--agent", "checkpoints/linecatch/linecatch__dagger__46.zip"], "no exact solver"),
    ([], "--agent is required"),
    (["--agent", "no/such/file.zip"], "--agent 'no/such/file.zip'"),
    (["--agent", "checkpoints/fill/fill__maskppo__0.zip"], "--agent 'checkpoints/fill/fill__maskppo__0.zip'"),
    (["--agent", SHIPPED, "--critical-share", "1.5"], "--critical-share"),
    (["--agent", SHIPPED, "--games", "0"], "--games"),
    (["--agent", SHIPPED, "--opponents"], "--opponents"),
    (["--agent", SHIPPED, "--opponents", "random", "grandmaster"], "--opponents 'grandmaster'"),
    (["--agent", LOOM, "--teacher", "grandmaster"], "--teacher 'grandmaster'"),
    (["--agent", LOOM], "--teacher SPEC"),
])
def test_bad_settings_are_refused_by_name(flags, message, tmp_path):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        main(flags + ["--out-dir", str(tmp_path)])
    assert not list(tmp_path.iterdir())  # nothing was started
