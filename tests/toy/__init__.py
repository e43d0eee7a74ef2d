"""Toy games that live only in the tests: each is what a new game is — a folder (rules, observer,
render, sampling), a public module with one ``GAME`` description and a bots module — and joins
the registry through ``tests/conftest.py``, so every generic test plays it too. Nothing outside
``tests/toy/`` names them.

* ``nim_v0`` — Nim: perfect information, no chance;
* ``highcard_v0`` — a Kuhn-poker duel over rounds: chance deals each player a secret card.
"""
