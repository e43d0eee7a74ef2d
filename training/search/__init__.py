"""Tree search from one seat's observation: plain information-set MCTS (``mcts``) and the
network-guided search (``guided``).

May import: ``envs``, ``training.common``, ``training.agents``, ``training.bots``; never
``training.players`` (``load_agent``), which builds searches from specs.
"""
