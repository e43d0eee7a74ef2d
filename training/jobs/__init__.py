"""Training jobs, one module (or package) per job, each read top to bottom: search and learn
(``alphazero``), tuning on better labels (``tuning``), MaskablePPO self-play (``ppo``), Ray RLlib
(``rllib`` + ``rllib_policy``) and the README's main job (``main``).

May import everything below it: ``envs``, ``wrappers``, ``training.common``, ``training.agents``,
``training.bots``, ``training.search``, ``training.players``, ``training.evaluation``. Nothing
imports a job: the command line (``training.cli``: ``abstract-games <command>``) runs its
``main`` by name.
"""
