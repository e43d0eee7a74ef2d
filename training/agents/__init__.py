"""Agents and agent files: the one agent interface, ``load_agent``, and the files agents live in.

Owns: ``Agent``/``RandomAgent`` (``base``), ``load_agent`` (``load``), the one agent-file
reader (``files``: ``read_agent_file``/``load_agent_file``, dispatching on the ``kind`` a file's
metadata declares), each kind's part of it (``archive``: regular files read with a bound, safe zip
reading; ``checkpoint``: MaskablePPO/RLlib policies; ``network`` and ``network_agent``:
policy-value networks run with numpy; ``onnx_file``: the one ONNX reader; ``onnx_agent``,
``onnx_network``: exported files run with onnxruntime), the manifests of the shipped agents
(``manifest``: ``checkpoints/<game>/agents.json``, what ``trained`` and ``net=trained`` play)
and the exporter (``export_onnx``). May import: ``envs``, ``training.common``, ``training.bots``, ``training.search``
(lazily, for search specs). Never imports ``training.jobs``, ``training.evaluation`` or
``training.serving``.
"""

from training.agents.base import Agent, RandomAgent, legal_from_mask

__all__ = ["Agent", "RandomAgent", "legal_from_mask"]
