"""Tic-tac-toe, the toy board game of the tests (see ``rules``)."""
