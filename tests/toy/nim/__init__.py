"""Nim, the toy perfect-information game (see ``rules``)."""
