"""Tree search from one seat's observation: plain information-set MCTS (``mcts``) and the
network-guided search (``guided``).

May import: ``envs``, ``training.agents``, ``training.bots``, ``training.common``.
"""
