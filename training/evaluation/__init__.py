"""Measuring agents: tournaments with Wilson intervals and Elo (``tournament``), the strength
ladder (``ladder``).

May import: ``envs``, ``training.agents``, ``training.common``, ``training.bots``.
"""
