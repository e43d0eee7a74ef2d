"""Toy games that live only in the tests: each is what a new game is — a folder (rules, observer,
render, sampling), a public module with one ``GAME`` description and a bots module — and joins
the registry through ``tests/conftest.py``, so every generic test plays it too. Nothing outside
``tests/toy/`` names them.

* ``nim_v0`` — Nim: perfect information, no chance;
* ``highcard_v0`` — a Kuhn-poker duel over rounds: chance deals each player a secret card;
* ``tictactoe_v0`` — tic-tac-toe with a board view: laid out as a game of the suite is
  (``GameDescription.built_in(..., package="tests.toy")``: render with the last-move hooks,
  sampling, svg, terminal), so it also gets the last-move tests and the web page's tests.
"""
