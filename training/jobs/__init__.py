"""Training jobs, one module (or package) per job, each read top to bottom: search and learn
(``alphazero``), tuning on better labels (``tuning``), MaskablePPO self-play (``ppo``), Ray RLlib
(``rllib`` + ``rllib_policy``) and the README's main job (``main``).

May import everything below it: ``envs``, ``wrappers``, ``training.agents``, ``training.search``,
``training.evaluation``, ``training.common``, ``training.bots``. Nothing imports a job except
the command modules (``python -m training.<job>``).
"""
