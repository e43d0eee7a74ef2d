"""The training jobs share one base config (game, options, seed, out_dir) and one set of checks."""

from __future__ import annotations

import dataclasses

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
