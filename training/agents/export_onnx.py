"""Export a suite agent file (.zip) to ONNX, so any language with an ONNX runtime can run the bot.

    abstract-games export-onnx checkpoints/loom/loom__maskppo__0.zip            # -> ./loom__maskppo__0.onnx
    abstract-games export-onnx checkpoints/loom/loom__maskppo__0.zip -o bot.onnx
    abstract-games export-onnx checkpoints/linecatch/linecatch__dagger__46.zip  # a policy-value network

The file's kind (``training.agents.files``) decides the graph: a policy (``maskppo``,
``rllib-ppo``) becomes an ``onnx-policy`` file, a policy-value network (``network``, from
``training.alphazero``) an ``onnx-network`` file, exported by ``training.agents.onnx_network``
(inputs ``planes`` and ``action_mask``; outputs ``masked_logits``, ``probabilities`` and
``value``). The rest of this page is the policy's graph. By default the export is written in
the working folder (a folder with a manifest, such as ``checkpoints/<game>/``, holds only the
files its ``agents.json`` lists).

The graph is built straight from the checkpoint's numpy weights with ``onnx.helper`` (no torch
needed): one ``Gemm`` per linear layer, ``Tanh`` or ``Relu`` between them as the checkpoint's
``activation`` says, then the mask applied with ``Where``.

Inputs (``batch`` is dynamic):

* ``observation``: float32 ``[batch, observation_size]`` — the env's ``"observation"`` vector;
* ``action_mask``: float32 ``[batch, num_actions]`` — the env's ``"action_mask"`` as floats; an
  entry ``> 0`` marks a legal action.

Outputs:

* ``masked_logits``: float32 ``[batch, num_actions]`` — the policy's logits on legal actions,
  ``MASKED_LOGIT`` (−1e8, the value sb3-contrib's masked distribution uses) on illegal ones;
  the bot plays the argmax;
* ``probabilities``: float32 ``[batch, num_actions]`` — softmax of ``masked_logits``: the
  policy's distribution, exactly 0 on illegal actions.

The checkpoint's ``meta.json`` goes into the model's ``metadata_props``, every value as JSON
text (``game`` is ``"\\"loom_v0\\""``), plus ``kind`` = ``"onnx-policy"`` (``source_kind`` the
.zip's), ``format`` = ``"abstract-games-suite/policy-onnx"``, ``format_version`` and ``input`` =
``"observation"``; ``training.agents.onnx_agent`` checks them on loading. See docs/onnx.md.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from training.agents.archive import CheckpointError
from training.agents.checkpoint import PolicyAgent
# Opset 17 / IR 8 (training.agents.onnx_file): the loader (training.agents.onnx_agent.read_onnx)
# accepts exactly the graph written here.
from training.agents.onnx_agent import ACTIVATION_OPS, OBSERVATION, ONNX_FORMAT, ONNX_FORMAT_VERSION
from training.agents.onnx_file import ACTION_MASK, IR_VERSION, MASKED_LOGIT, MASKED_LOGITS, OPSET, PROBABILITIES


def build_model(layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]):
    """The ONNX model (``onnx.ModelProto``) of a policy: ``layers`` as ``(weight out×in, bias)``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    activation = meta.get("activation", "tanh")
    if activation not in ACTIVATION_OPS:
        raise CheckpointError(f"cannot export activation {activation!r}; known: {', '.join(ACTIVATION_OPS)}")
    observation_size, action_n = int(layers[0][0].shape[1]), int(layers[-1][0].shape[0])
    nodes, initializers = [], []
    current = OBSERVATION
    for i, (weight, bias) in enumerate(layers):
        initializers.append(numpy_helper.from_array(np.asarray(weight, np.float32), f"w{i}"))
        initializers.append(numpy_helper.from_array(np.asarray(bias, np.float32), f"b{i}"))
        # Gemm with transB: x @ wᵀ + b, the weight kept in torch's out×in layout.
        nodes.append(helper.make_node("Gemm", [current, f"w{i}", f"b{i}"], [f"linear{i}"], transB=1))
        current = f"linear{i}"
        if i < len(layers) - 1:
            nodes.append(helper.make_node(ACTIVATION_OPS[activation], [current], [f"hidden{i}"]))
            current = f"hidden{i}"
    initializers.append(numpy_helper.from_array(np.zeros((), np.float32), "zero"))
    initializers.append(numpy_helper.from_array(np.array(MASKED_LOGIT, np.float32), "masked_logit"))
    nodes.append(helper.make_node("Greater", [ACTION_MASK, "zero"], ["legal"]))
    nodes.append(helper.make_node("Where", ["legal", current, "masked_logit"], [MASKED_LOGITS]))
    nodes.append(helper.make_node("Softmax", [MASKED_LOGITS], [PROBABILITIES], axis=1))
    graph = helper.make_graph(
        nodes,
        f"{meta.get('game', 'policy')}_policy",
        [
            helper.make_tensor_value_info(OBSERVATION, TensorProto.FLOAT, ["batch", observation_size]),
            helper.make_tensor_value_info(ACTION_MASK, TensorProto.FLOAT, ["batch", action_n]),
        ],
        [
            helper.make_tensor_value_info(MASKED_LOGITS, TensorProto.FLOAT, ["batch", action_n]),
            helper.make_tensor_value_info(PROBABILITIES, TensorProto.FLOAT, ["batch", action_n]),
        ],
        initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="abstract-games-suite",
        doc_string=(
            f"Policy of a suite agent for {meta.get('game')}: inputs observation float32 [batch, {observation_size}] "
            f"and action_mask float32 [batch, {action_n}] (> 0 = legal); outputs masked_logits "
            f"(illegal = {MASKED_LOGIT:g}) and probabilities. metadata_props values are JSON."
        ),
    )
    model.ir_version = IR_VERSION
    props = {**meta, "kind": "onnx-policy", "source_kind": meta.get("kind", "maskppo"), "format": ONNX_FORMAT,
             "format_version": ONNX_FORMAT_VERSION, "checkpoint_format": meta.get("format"), "input": OBSERVATION}
    helper.set_model_props(model, {key: json.dumps(value, sort_keys=True) for key, value in props.items()})
    onnx.checker.check_model(model, full_check=True)
    return model


def verify(model_bytes: bytes, layers, activation: str, seed: int = 0, count: int = 64) -> float:
    """Run the exported graph in onnxruntime on seeded random inputs and compare it with the
    checkpoint's numpy forward pass; return the largest logit difference (raise past 1e-4)."""
    import onnxruntime

    session = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    observation_size, action_n = layers[0][0].shape[1], layers[-1][0].shape[0]
    observations = rng.random((count, observation_size), dtype=np.float32)
    masks = (rng.random((count, action_n)) < 0.5).astype(np.float32)
    masks[np.arange(count), rng.integers(0, action_n, count)] = 1.0  # at least one legal action a row
    exported, = session.run([MASKED_LOGITS], {OBSERVATION: observations, ACTION_MASK: masks})
    expected = np.where(masks > 0, PolicyAgent(layers, activation).logits(observations), MASKED_LOGIT)
    difference = float(np.max(np.abs(exported - expected)))
    if difference > 1e-4:
        raise CheckpointError(f"the exported graph disagrees with the checkpoint's numpy policy by {difference:g}")
    return difference


def export_onnx(checkpoint: str | Path, out: str | Path | None = None, check: bool = True) -> Path:
    """Write the agent file ``checkpoint`` (a suite .zip: a policy or a policy-value network) as
    ONNX to ``out`` (default: the same name, .onnx, in the working folder); with ``check``, first
    compare the graph with the numpy agent in onnxruntime."""
    from training.agents.files import read_agent_file

    checkpoint = Path(checkpoint)
    out = Path(out) if out is not None else Path(checkpoint.with_suffix(".onnx").name)
    if out.resolve() == checkpoint.resolve():
        raise ValueError(f"the output {str(out)!r} would overwrite the checkpoint it is exported from")
    agent_file = read_agent_file(checkpoint)
    meta = dict(agent_file.meta, kind=agent_file.kind)
    if agent_file.kind == "network":  # a policy-value network from training.jobs.alphazero
        from training.agents.onnx_network import build_network_model, verify_network_model

        net = agent_file.content
        model_bytes = build_network_model(net, meta).SerializeToString()
        if check:
            verify_network_model(model_bytes, net)
    elif agent_file.kind in ("maskppo", "rllib-ppo"):
        layers = agent_file.content
        model_bytes = build_model(layers, meta).SerializeToString()
        if check:
            verify(model_bytes, layers, meta.get("activation", "tanh"))
    else:
        raise ValueError(f"{str(checkpoint)!r} is already an ONNX file (kind {agent_file.kind!r})")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(model_bytes)
    return out


def main(argv: list[str] | None = None) -> Path:
    from training.agents.kinds import read_agent_meta

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", help="a suite agent file (.zip)")
    parser.add_argument("-o", "--out", help="where to write the .onnx file (default: its name, .onnx, in the working folder)")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip comparing the graph with the numpy agent in onnxruntime")
    args = parser.parse_args(argv)
    out = export_onnx(args.checkpoint, args.out, check=args.check)
    kind, meta = read_agent_meta(out)
    checked = ", checked against the numpy " + ("network" if kind == "onnx-network" else "policy") if args.check else ""
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB): {kind} for {meta.get('game')} {json.dumps(meta.get('options', {}))}, "
          f"input {meta.get('input')} [batch, {', '.join(map(str, meta.get('observation_shape', [])))}], "
          f"action_mask/masked_logits [batch, {meta.get('action_n')}]" + checked)
    return out


if __name__ == "__main__":
    main()
