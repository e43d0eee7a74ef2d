"""The games and option sets the generic tests play, read from the registry and each game's
description (``test_options``, ``facts``, ``docs``, ``shipped``): no test keeps a table or a
list of games, so a new game — or a toy game of the tests — is played by every one of them."""

from __future__ import annotations

import json

import pytest

import envs


def quick(game: str) -> dict:
    """Small options where whole games take moments (``TestOptions.quick``)."""
    return dict(envs.describe(game).test_options.quick)


def search(game: str) -> dict:
    """The search tests' options (``TestOptions.search``)."""
    return envs.describe(game).test_options.search_options()


def option_sets(game: str, defaults: bool = False) -> list[dict]:
    """``quick``, ``search`` and ``more``, each once (the defaults first with ``defaults``)."""
    found = [{}] if defaults else []
    for options in envs.describe(game).test_options.all():
        if options not in found:
            found.append(options)
    return found


def case_id(game: str, options: dict) -> str:
    """``"knot"``, ``"knot-players=3"``: the short name and the options that differ."""
    short = envs.describe(game).short_name
    return "-".join([short, *(f"{key}={json.dumps(value)}" for key, value in options.items())])


def param(game: str, options: dict):
    return pytest.param(game, options, id=case_id(game, options))


def option_cases(defaults: bool = False) -> list:
    """``(game, options)`` for every game and each of its :func:`option_sets`."""
    return [param(game, options) for game in envs.GAMES for options in option_sets(game, defaults)]


def seat_count_cases() -> list:
    """``(game, options)``: every game at its defaults, and at each other number of players its
    option sets reach (the first set that reaches it)."""
    cases = []
    for game in envs.GAMES:
        description = envs.describe(game)
        seen = set()
        for options in option_sets(game, defaults=True):
            players = description.num_players(options)
            if options == {} or players not in seen:
                cases.append(param(game, options))
            seen.add(players)
    return cases


def imperfect_games() -> list[str]:
    """Games with hidden items (``facts.information == "imperfect"``)."""
    return [game for game in envs.GAMES if envs.describe(game).facts.information == "imperfect"]


def published_games() -> list[str]:
    """Games with pages in docs/ (``docs`` set): a page, an observations section, a README picture."""
    return [game for game in envs.GAMES if envs.describe(game).docs is not None]


def shipped_games() -> list[str]:
    """Games that ship a trained agent for their default options (``shipped``)."""
    return [game for game in envs.GAMES if envs.describe(game).shipped]
