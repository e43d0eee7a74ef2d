"""Agents and agent files: the one agent interface and the files agents live in.

Owns: ``Agent``/``RandomAgent`` (``base``), the one agent-file reader (``files``:
``read_agent_file``/``load_agent_file``, dispatching on the ``kind`` a file's metadata declares),
the kinds and their formats (``kinds``), each kind's part of the reader (``archive``: regular
files read with a bound, safe zip reading, ``CheckpointError``; ``checkpoint``: MaskablePPO/RLlib
policies; ``network`` and ``network_agent``: policy-value networks run with numpy; ``onnx_file``:
the one ONNX reader; ``onnx_agent``, ``onnx_network``: exported files run with onnxruntime), the
data files beside the agents (``data_files``; ``manifest``: ``checkpoints/<game>/agents.json``,
what ``trained`` and ``net=trained`` play; ``levels``: the calibrated levels) and the exporter
(``export_onnx``). May import: ``envs``, ``training.common``. Below ``training.bots`` and
``training.search``; ``load_agent``, which resolves specs into bots and searches, lives above
them in ``training.players``.
"""
