"""Putting agents in front of people and programs: the bot protocol (``protocol``), the one
server behind every transport (``bot_server``; the agents a request may name: ``agent_specs``), the
stdin transport (``stdio``) and terminal play (``terminal``).

May import: ``envs``, ``training.common``, ``training.agents``, ``training.bots``,
``training.search``, ``training.players``. Never imports ``training.evaluation`` or ``training.jobs``.
"""
