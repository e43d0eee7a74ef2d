"""training/common/flags.py: every trainer's ``--help`` gives each flag's default (argparse's
``(default: …)``), and the module docstring as written."""

from __future__ import annotations

import dataclasses
import importlib
import re
import subprocess
import sys

import pytest

from tests.docs.markdown import ROOT

TRAINERS = {  # every trainer whose flags training/common/flags.py builds, and its config dataclass
    "training.jobs.ppo": "TrainConfig",
    "training.jobs.alphazero.job": "AlphaZeroConfig",
    "training.jobs.tuning": "EndgameConfig",
    "training.jobs.rllib": "RLlibTrainConfig",
}


def flag_blocks(text: str) -> dict[str, str]:
    """Each ``--flag``'s help in ``--help``'s output, joined onto one line."""
    blocks, name = {}, None
    for line in text.splitlines():
        match = re.match(r"  (--[a-z0-9-]+)", line)
        if match:
            name = match.group(1)
            blocks[name] = line
        elif name and line.startswith("    "):
            blocks[name] += " " + line.strip()
        else:
            name = None
    return {flag: re.sub(r"\s+", " ", block) for flag, block in blocks.items()}


def shown(default) -> str:
    """A default as the help writes it (a tuple field's flag holds a list)."""
    return str(list(default) if isinstance(default, tuple) else default)


@pytest.mark.parametrize("module", sorted(TRAINERS))
def test_every_flag_of_every_trainer_shows_its_default(module, capsys):
    trainer = importlib.import_module(module)
    with pytest.raises(SystemExit) as done:
        trainer.main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert trainer.__doc__.strip().splitlines()[0] in text  # the docstring, as written
    blocks = flag_blocks(text)
    for field in dataclasses.fields(getattr(trainer, TRAINERS[module])):
        flag = "--" + field.name.replace("_", "-")
        default = field.default if field.default is not dataclasses.MISSING else field.default_factory()
        assert flag in blocks, f"{module}: no {flag} in --help"
        assert blocks[flag].count("(default: ") == 1 + blocks[flag].count("(default: the"), blocks[flag]
        assert blocks[flag].endswith(f"(default: {shown(default)})"), f"{module} {flag}: {blocks[flag]}"


def test_python_m_training_train_help_shows_defaults():
    result = subprocess.run([sys.executable, "-m", "training.train", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    blocks = flag_blocks(result.stdout)
    from training.jobs.ppo import TrainConfig

    config = TrainConfig()
    assert blocks["--n-steps"].endswith(f"(default: {config.n_steps})")
    assert blocks["--out-dir"].endswith(f"(default: {config.out_dir})")
