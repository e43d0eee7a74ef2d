"""Agents and agent files: the one agent interface, ``load_agent``, and the files agents live in.

Owns: ``Agent``/``RandomAgent`` (``base``), ``load_agent`` (``load``), the agent-file formats
(``archive``: safe zip reading; ``checkpoint``: MaskablePPO/RLlib policies; ``network``:
policy-value networks run with numpy; ``onnx_*``: exported files run with onnxruntime) and the
exporter. May import: ``envs``, ``training.common``, ``training.bots``, ``training.search``
(lazily, for search specs). Never imports ``training.jobs``, ``training.evaluation`` or
``training.serving``.
"""

from training.agents.base import Agent, RandomAgent, legal_from_mask

__all__ = ["Agent", "RandomAgent", "legal_from_mask"]
