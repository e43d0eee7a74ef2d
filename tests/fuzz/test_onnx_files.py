"""Exported ONNX agents damaged at random (hypothesis): bytes flipped, cut or inserted anywhere in
the protobuf, metadata replaced by hostile JSON. The loader reads the file itself before
onnxruntime does, so every one gives a CheckpointError or an agent that plays a legal move."""

from __future__ import annotations

import json
import resource
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz import craft
from tests.fuzz import strategies as fuzz
from tests.fuzz.conftest import examples
from tests.fuzz.test_checkpoint_files import MEMORY_SLACK_KB, byte_damage, observation
from training.agents.archive import CheckpointError

pytest.importorskip("onnx", reason="the onnx extra is not installed (pip install -e .[onnx])")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed (pip install -e .[onnx])")

from training.agents.export_onnx import export_onnx  # noqa: E402
from training.agents.files import load_onnx_agent  # noqa: E402

FOLDER = Path(tempfile.mkdtemp())
VALID = export_onnx(craft.write_checkpoint(FOLDER / "valid.zip"), FOLDER / "valid.onnx")
VALID_BYTES = VALID.read_bytes()


def loads_or_refuses(path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        agent = load_onnx_agent(path, craft.GAME, seed=0, **craft.OPTIONS)
    except CheckpointError as error:
        assert len(str(error)) <= 1500
        return
    finally:
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < MEMORY_SLACK_KB
    seen = observation()
    assert seen["action_mask"][agent.act(seen)] == 1


@settings(max_examples=examples(150))
@given(damaged=byte_damage(VALID_BYTES))
def test_damaged_onnx_bytes_give_a_checkpoint_error_or_a_working_agent(tmp_path_factory, damaged):
    path = tmp_path_factory.mktemp("onnx") / "damaged.onnx"
    path.write_bytes(damaged)
    loads_or_refuses(path)


@settings(max_examples=examples(60))
@given(key=st.sampled_from(["game", "options", "observation_shape", "action_n", "format", "format_version", "activation", "net_arch"]),
       value=fuzz.hostile_values())
def test_hostile_onnx_metadata_gives_a_checkpoint_error_or_a_working_agent(tmp_path_factory, key, value):
    import onnx

    model = onnx.load_from_string(VALID_BYTES)
    entry = next((p for p in model.metadata_props if p.key == key), None)
    if entry is None:
        entry = model.metadata_props.add()
        entry.key = key
    entry.value = fuzz.dumps(value).encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    path = tmp_path_factory.mktemp("meta") / "meta.onnx"
    path.write_bytes(model.SerializeToString())
    loads_or_refuses(path)


def test_the_valid_export_loads():
    loads_or_refuses(VALID)
    assert json.loads(json.dumps(load_onnx_agent(VALID, craft.GAME).meta))["game"] == craft.GAME
