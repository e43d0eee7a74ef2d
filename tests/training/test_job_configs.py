"""The training jobs share one base config (game, options, seed, out_dir) and one set of checks."""

from __future__ import annotations

import dataclasses
import json

import pytest

from training.common.flags import field_docs, parse_flags
from training.jobs.alphazero.config import AlphaZeroConfig, check_config
from training.jobs.config import JobConfig, PolicyJobConfig
from training.jobs.ppo import TrainConfig
from training.jobs.tuning import EndgameConfig
from training.jobs.tuning import check_config as check_tuning


@pytest.mark.parametrize("config_cls", [AlphaZeroConfig, TrainConfig])
def test_every_trainer_config_is_a_job_config_with_documented_fields(config_cls):
    assert issubclass(config_cls, JobConfig)
    names = [f.name for f in dataclasses.fields(config_cls)]
    assert names[:4] == ["game", "options", "seed", "out_dir"]  # the shared fields come first, once
    docs = field_docs(config_cls)
    assert set(names) <= set(docs), set(names) - set(docs)  # inherited fields keep their help


def test_the_two_ppo_trainers_share_their_policy_settings():
    rllib = pytest.importorskip("training.jobs.rllib")
    assert issubclass(rllib.RLlibTrainConfig, PolicyJobConfig) and issubclass(TrainConfig, PolicyJobConfig)
    shared = {f.name for f in dataclasses.fields(PolicyJobConfig)}
    assert {"net_arch", "learning_rate", "gamma", "keep_best", "final_eval_games"} <= shared
    assert rllib.RLlibTrainConfig().learning_rate == TrainConfig().learning_rate == 3e-4
    assert set(f.name for f in dataclasses.fields(rllib.RLlibTrainConfig)) <= set(field_docs(rllib.RLlibTrainConfig))


def test_the_two_search_jobs_share_their_settings_with_their_own_defaults():
    from training.jobs.config import SearchJobConfig
    from training.jobs.gumbel.job import GumbelConfig

    shared = [f.name for f in dataclasses.fields(SearchJobConfig)]
    assert {"iterations", "simulations", "considered", "filters", "blocks", "learning_rate", "batch_size",
            "replay_size", "value_mix", "eval_every", "eval_opponents"} <= set(shared)
    for config_cls in (AlphaZeroConfig, GumbelConfig):
        assert issubclass(config_cls, SearchJobConfig)
        assert [f.name for f in dataclasses.fields(config_cls)][:len(shared)] == shared  # declared once, in the base
        docs = field_docs(config_cls)
        assert all(docs[name] == field_docs(SearchJobConfig)[name] for name in shared)
    python, compiled = AlphaZeroConfig(), GumbelConfig()
    assert (python.iterations, python.simulations, python.blocks, python.batch_size, python.value_mix) == (20, 32, 3, 256, 0.5)
    assert (compiled.iterations, compiled.simulations, compiled.blocks, compiled.batch_size, compiled.value_mix) == (100, 16, 2, 512, 0.0)
    assert parse_flags(GumbelConfig, ["--replay-size", "7"]).replay_size == 7
    assert parse_flags(GumbelConfig, []).replay_size == 200_000 and parse_flags(AlphaZeroConfig, []).replay_size == 100_000


def test_a_run_folder_holds_its_config(tmp_path):
    run_dir, stamp = TrainConfig(out_dir=str(tmp_path), seed=7).new_run_folder("lc", "maskppo")
    assert run_dir.parent == tmp_path and run_dir.name == f"lc__maskppo__7__{stamp}"
    assert json.loads((run_dir / "config.json").read_text()) == dataclasses.asdict(TrainConfig(out_dir=str(tmp_path), seed=7))


def test_the_closing_lines_give_each_opponents_detailed_result():
    from training.jobs.config import final_lines

    final = {"random": {"score": 0.875, "games": 40, "wins": 34, "draws": 2, "losses": 4}}
    assert final_lines(final) == ["final vs random: score 87.5% over 40 games (W 34 D 2 L 4)"]
    assert final_lines({}) == []


def test_a_subclass_keeps_its_own_default_and_help():
    assert TrainConfig().game == "loom" and AlphaZeroConfig().game == "linecatch"
    assert field_docs(TrainConfig)["game"] != field_docs(JobConfig)["game"]
    assert parse_flags(TrainConfig, ["--seed", "3"]).seed == 3


@pytest.mark.parametrize("argv, flag", [
    (["--workers", "0"], "--workers"),
    (["--eval-games", "-1"], "--eval-games"),
    (["--value-mix", "1.5"], "--value-mix"),
])
def test_a_bad_number_names_its_flag(argv, flag):
    with pytest.raises(ValueError, match=flag):
        check_config(parse_flags(AlphaZeroConfig, argv))


def test_a_bool_is_not_a_count():
    with pytest.raises(ValueError, match="--games must be a positive integer"):
        check_tuning(EndgameConfig(agent="x.zip", games=True))
