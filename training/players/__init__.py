"""Players: every agent spec turned into an agent, the layer above ``training.bots`` and
``training.search``.

Owns: ``load_agent`` and ``bot_table`` (``load``: a bot, a search, a calibrated level, an agent
file, by its spec), the self-play env whose opponents are specs (``self_play``) and suite agents
as OpenSpiel bots (``openspiel``). May import: ``envs``, ``wrappers``, ``training.common``,
``training.agents``, ``training.bots``, ``training.search``.
"""
