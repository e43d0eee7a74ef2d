"""Measuring agents: tournaments with Wilson intervals and Elo (``tournament``), the strength
ladder (``ladder``), and the strength levels' calibration (``calibration``: the algorithm and
its command; ``level_games``: the games it plays and stores; ``ratings``: Elo by maximum
likelihood; ``level_tables``: the tables it writes into the docs).

May import: ``envs``, ``training.common``, ``training.agents``, ``training.bots``,
``training.search``, ``training.players``. Never imports ``training.serving`` or ``training.jobs``.
"""
