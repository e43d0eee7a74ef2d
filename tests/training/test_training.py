"""Tiny training runs, the checkpoint format and its errors, and the shipped checkpoints."""

from __future__ import annotations

import json
import shlex
import zipfile
from pathlib import Path

import numpy as np
import pytest

import envs
from tests.cases import quick
from training.players.load import bot_table, load_agent
from training.agents.archive import CheckpointError
from training.agents.files import read_checkpoint
from training.evaluation.tournament import play_game
from training.jobs.ppo import TrainConfig, train

ROOT = Path(__file__).resolve().parents[2]


def tiny_config(game: str, tmp_path: Path, **overrides) -> TrainConfig:
    values = dict(
        game=game, options=quick(game), total_timesteps=256, n_envs=1, n_steps=128,
        batch_size=64, n_epochs=1, net_arch=[32], eval_every=128, eval_games=2,
        final_eval_games=4, out_dir=str(tmp_path), progress_bar=False,
        opponents=[name for name in ("random", "heuristic") if name in bot_table(game)],
    )
    values.update(overrides)
    return TrainConfig(**values)


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_tiny_training_run_writes_a_loadable_checkpoint(game, tmp_path):
    summary = train(tiny_config(game, tmp_path))
    path = Path(summary["checkpoint"])
    assert path.is_file() and path.parent.name.startswith(f"{envs.describe(game).short_name}__maskppo__0__")
    meta, layers = read_checkpoint(path)
    assert meta["game"] == game and meta["steps_trained"] >= 256 and meta["seed"] == 0
    assert "python -m training.train" in meta["command"]
    evaluation = json.loads((path.parent / "evaluation.json").read_text())
    assert evaluation["final_evaluation"]["random"]["games"] == 4
    agent = load_agent(str(path), game, seed=0, **quick(game))
    n = len(envs.load(game).raw_env(**quick(game)).possible_agents)
    returns, _ = play_game(game, [agent] * n, 1, quick(game))
    assert set(returns) <= {-1, 0, 1}


def test_numpy_agent_matches_the_torch_policy(tmp_path):
    """The checkpoint's numpy forward pass picks the same action as SB3's masked policy."""
    from sb3_contrib import MaskablePPO

    summary = train(tiny_config("loom", tmp_path, net_arch=[64, 64], total_timesteps=512, keep_best=False))
    model = MaskablePPO.load(Path(summary["checkpoint"]).parent / "sb3_model.zip", device="cpu")
    agent = load_agent(summary["checkpoint"], "loom")
    env = envs.load("loom").raw_env()
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(10):
        env.reset(seed=seed)
        while not env.game.is_terminal():
            obs = env.observe(env.agent_selection)
            expected, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool), deterministic=True)
            assert agent.act(obs) == int(expected)
            checked += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked == 320


def test_two_subprocess_envs_train(tmp_path):
    summary = train(tiny_config("linecatch_v0", tmp_path, n_envs=2))
    assert summary["steps"] >= 256
    assert 0 < summary["env_time_share"] < 1


def test_loading_errors_say_what_is_wrong(tmp_path):
    summary = train(tiny_config("linecatch_v0", tmp_path, options={"rows": 4, "cols": 4}))
    good = Path(summary["checkpoint"])
    with pytest.raises(CheckpointError, match="trained for 'linecatch_v0', not 'loom_v0'"):
        load_agent(str(good), "loom")
    with pytest.raises(CheckpointError, match="observation shape"):
        load_agent(str(good), "linecatch", rows=5, cols=5)
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    with pytest.raises(CheckpointError, match="damaged"):
        load_agent(str(damaged), "linecatch", rows=4, cols=4)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("meta.json", json.dumps({"format": "something-else"}))
        archive.writestr("policy.npz", b"")
    with pytest.raises(CheckpointError, match="not a suite checkpoint"):
        load_agent(str(foreign), "linecatch", rows=4, cols=4)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_agent(str(tmp_path / "missing.zip"), "linecatch")
    # Same game, same options: loads.
    load_agent(str(good), "linecatch", rows=4, cols=4)


def shipped_checkpoints() -> list[Path]:
    return sorted((ROOT / "checkpoints").glob("*/*.zip"))


@pytest.mark.parametrize("path", shipped_checkpoints(), ids=lambda p: p.name)
def test_shipped_checkpoint_loads_and_plays_complete_games(path):
    """Every shipped agent file (MaskablePPO policies and search-and-learn networks alike)."""
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("meta.json"))
    game, options = meta["game"], meta["options"]
    agent = load_agent(str(path), game, seed=0, **options)
    opponent = load_agent("random", game, seed=1, **options)
    n = len(envs.load(game).raw_env(**options).possible_agents)
    for index in range(10):
        seats = [opponent] * n
        seats[index % n] = agent
        returns, _ = play_game(game, seats, index, options)  # an illegal action would raise
        assert set(returns) <= {-1, 0, 1}
    assert path.stat().st_size < 5 * 1024 * 1024


def test_main_job_smoke_run_trains_and_prints_the_table(tmp_path, capsys):
    from training.jobs.main import main

    flags = [
        "--total-timesteps", "256", "--warm-start-games", "20", "--warm-start-epochs", "1",
        "--n-steps", "128", "--batch-size", "64", "--eval-every", "128", "--eval-games", "2",
        "--final-eval-games", "4", "--net-arch", "32", "--out-dir", str(tmp_path),
        "--no-progress-bar",
    ]
    main(flags + ["--games", "4"])
    out = capsys.readouterr().out
    # every phase says what it does
    for phase in ("warm start: 20 games of solver", "games of solver: 20/20 games", "imitating solver on",
                  "plays one of the teacher's best moves", "evaluating the starting policy",
                  "self-play: 256 learner steps", "final evaluation: 4 games", "round robin:"):
        assert phase in out, phase
    assert "| solver |" in out and "| heuristic | random | 4 |" in out
    assert "| agent | Elo |" in out
    # the run folder holds the table and its chart, and the command that made the agent
    run = next(tmp_path.glob("linecatch__maskppo__0__*"))
    assert (run / "round_robin.md").read_text().startswith("**linecatch_v0**")
    assert (run / "round_robin.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"chart: {run / 'round_robin.png'}" in out
    meta, _ = read_checkpoint(next(run.glob("*.zip")))
    evaluation = json.loads((run / "evaluation.json").read_text())
    from training.jobs.main import DEFAULT_RUN

    expected = "abstract-games train " + shlex.join(DEFAULT_RUN + flags)
    assert meta["command"] == evaluation["command"] == expected


def test_the_command_recorded_reproduces_the_flags(tmp_path):
    """``training.train.main(argv)`` records exactly the flags it was given."""
    from training.jobs.ppo import main

    flags = ["--game", "linecatch", "--options", '{"rows": 3, "cols": 3}', "--total-timesteps", "64",
             "--n-envs", "1", "--n-steps", "64", "--batch-size", "32", "--n-epochs", "1", "--net-arch", "16",
             "--eval-every", "64", "--eval-games", "2", "--final-eval-games", "2", "--out-dir", str(tmp_path),
             "--no-progress-bar"]
    summary = main(flags)
    meta, _ = read_checkpoint(summary["checkpoint"])
    assert meta["command"] == "python -m training.train " + shlex.join(flags)
    assert shlex.split(meta["command"])[3:] == flags


def test_learn_takes_whole_rollouts_and_says_so(tmp_path, capsys):
    """PPO collects whole rollouts: 300 steps with rollouts of 128 are 384, announced as such
    (the progress bar's total is the steps really taken, so it cannot overshoot)."""
    summary = train(tiny_config("linecatch_v0", tmp_path, total_timesteps=300, n_steps=128, eval_every=1000))
    assert summary["steps"] == 384
    assert "self-play: 384 learner steps (300 rounded up to whole rollouts)" in capsys.readouterr().out


def test_main_job_tournament_covers_every_game(capsys):
    from training.jobs.main import main

    main(["--tournament", "--games", "2"])
    out = capsys.readouterr().out
    for game in envs.GAMES:
        assert f"**{game}**" in out


def test_evaluation_reports_each_game_as_it_comes_back(capsys):
    from training.evaluation.tournament import main as evaluate_main, round_robin

    for workers in (None, 2):
        seen = []
        results = round_robin("linecatch", ["heuristic", "random"], 5, 7, {}, workers=workers,
                              on_game=lambda r: seen.append((r.games, r.wins, r.draws, r.losses)))
        assert [games for games, *_ in seen] == [1, 2, 3, 4, 5]
        assert seen[-1] == (5, results[0].wins, results[0].draws, results[0].losses)
        assert all(a[1] <= b[1] and a[2] <= b[2] and a[3] <= b[3] for a, b in zip(seen, seen[1:]))
    evaluate_main(["--game", "linecatch", "--agents", "heuristic", "random", "--games", "4", "--workers", "2"])
    captured = capsys.readouterr()
    assert "heuristic vs random" in captured.err and "after 4" in captured.err  # the progress bar, on stderr
    assert "after 4" not in captured.out and "| heuristic | random | 4 |" in captured.out


def test_tournament_table_is_the_same_for_any_number_of_workers(capsys, tmp_path):
    from training.evaluation.tournament import main as evaluate_main

    argv = ["--game", "loom", "--agents", "heuristic", "random", "mcts:8", "--games", "6", "--seed", "3"]
    serial = evaluate_main(argv + ["--workers", "1", "--json", str(tmp_path / "table.json")])
    parallel = evaluate_main(argv + ["--workers", "2"])
    assert [(r.first, r.second, r.outcomes, r.points_for) for r in serial] == \
        [(r.first, r.second, r.outcomes, r.points_for) for r in parallel]
    assert [r.games for r in serial] == [6, 6, 6]
    table = json.loads((tmp_path / "table.json").read_text())
    assert table["command"].startswith("python -m training.evaluate --game loom --agents heuristic random mcts:8")
    assert [(p["agent"], p["opponent"]) for p in table["pairs"]] == [("heuristic", "random"), ("heuristic", "mcts:8"),
                                                                    ("random", "mcts:8")]
    for pair, result in zip(table["pairs"], serial):
        assert (pair["wins"], pair["draws"], pair["losses"]) == (result.wins, result.draws, result.losses)
        assert pair["interval95"][0] <= pair["score"] == result.score <= pair["interval95"][1]
    with pytest.raises(SystemExit):
        evaluate_main(argv + ["--workers", "0"])
    assert "--workers must be at least 1, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # no games is no table: refused, not an empty table
        evaluate_main([arg if arg != "6" else "0" for arg in argv])
    assert "--games must be at least 1, got 0" in capsys.readouterr().err
