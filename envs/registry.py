"""The one list of the suite's games: their descriptions, in the order of the docs.

``describe("fill")`` (or ``"fill_v0"``) returns a game's :class:`~envs.core.description.GameDescription`;
``GAMES`` lists them all. Every game module is imported here, so a game that fails to import
fails loudly instead of silently dropping out of every test that loops over the games.

A game of the suite is one line of ``BUILT_IN``. Games that live elsewhere (a test's toy game,
an experiment) join with :func:`register`, or by naming their public modules in the environment
variable ``SUITE_GAMES`` (import paths, separated by commas or spaces), which every process that
imports ``envs`` reads — worker processes and subprocesses (the bot server, terminal play) see
the same games as their parent.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from envs.core.description import GameDescription


class UnknownGameError(ValueError):
    """A game name the suite does not know, or another version of one it does."""


BUILT_IN = (
    "envs.linecatch_v0",
    "envs.loom_v0",
    "envs.fill_v0",
    "envs.uzor_v0",
    "envs.knot_v0",
)
"""The public modules of the suite's own games, in the order of the docs: one line per game."""

EXTRA_VARIABLE = "SUITE_GAMES"

GAMES: list[GameDescription] = []
"""Every registered description, in order (updated in place by :func:`register`)."""
NAMES: list[str] = []
"""Their env names, in the same order (updated in place)."""
MODULES: dict[str, ModuleType] = {}
_BY_NAME: dict[str, GameDescription] = {}
_BY_SHORT: dict[str, GameDescription] = {}


def register(description: GameDescription) -> GameDescription:
    """Add a game to the registry (and to PettingZoo's, as ``abstract/<short_name>-v<version>``): its
    public module, ``description.module``, is imported now. Registering the same description
    again does nothing; another game under a taken name is a ``ValueError``."""
    if not isinstance(description, GameDescription):
        raise TypeError(f"register takes a GameDescription, not {type(description).__name__}")
    known = _BY_NAME.get(description.name)
    if known is description:
        return description
    if known is not None:
        raise ValueError(f"a game named {description.name!r} is registered already ({known.module})")
    other = _BY_SHORT.get(description.short_name)
    if other is not None:  # one version of a game at a time: a short name stands for it
        raise ValueError(f"{description.name}: {other.name} is registered already ({other.module}); "
                         f"one version of a game at a time")
    module = importlib.import_module(description.module)
    _BY_NAME[description.name] = description
    _BY_SHORT[description.short_name] = description
    MODULES[description.name] = module
    GAMES.append(description)
    NAMES.append(description.name)
    _register_with_pettingzoo(description)
    return description


def register_module(path: str) -> GameDescription:
    """Import a public game module by its import path and register its ``GAME``."""
    return register(importlib.import_module(path).GAME)


def _pettingzoo_has_registry() -> bool:
    """PettingZoo's registry came with 1.27; older releases (1.24.3 on; AgileRL pins one) have
    none, and the envs work the same without it."""
    try:
        from pettingzoo import aec_registry, register  # noqa: F401
    except ImportError:
        return False
    return True


PETTINGZOO_HAS_REGISTRY = _pettingzoo_has_registry()


def _register_with_pettingzoo(description: GameDescription) -> None:
    if not PETTINGZOO_HAS_REGISTRY:
        return
    from pettingzoo import aec_registry
    from pettingzoo import register as pettingzoo_register

    env_id = description.env_id
    if env_id not in aec_registry:
        pettingzoo_register("aec", env_id, entry_point=f"{description.module}:env")


def extra_modules() -> list[str]:
    """The import paths ``SUITE_GAMES`` names (none when it is unset)."""
    return os.environ.get(EXTRA_VARIABLE, "").replace(",", " ").split()


def names() -> list[str]:
    """The env names, in order: ``["linecatch_v0", "loom_v0", ...]``."""
    return list(NAMES)


def canonical_name(name: str) -> str:
    """``"loom"``, ``"loom_v0"`` or PettingZoo's ``"abstract/loom-v0"`` → ``"loom_v0"`` (the
    version is the description's, :attr:`GameDescription.version`). A ``ValueError`` lists the
    games for anything else, and says so when the name is of another version of a game here
    (a number published for ``loom_v0`` was not made on ``loom_v1``'s rules)."""
    text = name if isinstance(name, str) else ""
    if text.startswith("abstract/"):
        short, dash, version = text[len("abstract/"):].rpartition("-v")
        text = f"{short}_v{version}" if dash else ""
    if text in _BY_NAME:
        return text
    if text in _BY_SHORT:
        return _BY_SHORT[text].name
    short, underscore, version = text.rpartition("_v")
    if underscore and version.isdigit() and short in _BY_SHORT and int(version) != _BY_SHORT[short].version:
        known = _BY_SHORT[short]
        raise UnknownGameError(f"{name!r} is version {int(version)} of {short}, but this suite plays version {known.version}, "
                         f"{known.name}; what changed between versions is in docs/changelog.md")
    raise UnknownGameError(f"unknown game {name!r}; the games are: {', '.join(names())}")


def version_note(recorded: object, name: str) -> str:
    """For a file (an agent file, a results file) made for game ``recorded`` and read for game
    ``name``: ``""`` unless ``recorded`` is another version of the same game, else the words
    that say so (``"; loom_v1 is version 1 of loom, this suite plays version 0: ..."``), for
    the reader's refusal to end with."""
    here = describe(name)
    text = recorded if isinstance(recorded, str) else ""
    short, underscore, version = text.rpartition("_v")
    if not underscore or short != here.short_name or not version.isdigit() or int(version) == here.version:
        return ""
    return (f"; {text} is version {int(version)} of {short}, this suite plays version {here.version}, whose seeded play "
            f"differs (docs/changelog.md): a file is read only for the version it was made for")


def describe(name: str) -> GameDescription:
    """The description of a game, by any of the names :func:`canonical_name` accepts."""
    return _BY_NAME[canonical_name(name)]


def jax_games() -> list[str]:
    """The env names of the games with a JAX engine (``make_jax`` serves them), in order."""
    return [description.name for description in GAMES if description.jax]


def make_jax(name: str, **options):
    """A JAX env (Pgx's API, ``docs/jax.md``) for a game and option set: the options are
    checked by the Python engine first (a bad one raises as it does), then by the JAX engine,
    which refuses by name an option it cannot honour (Fill's real-time clocks). JAX is
    imported here, not before: the rest of the suite runs without it."""
    description = describe(name)
    if not description.jax:
        raise ValueError(f"{description.name} has no JAX engine; the games with one are: {', '.join(jax_games())}")
    resolved = description.resolve_options(options)
    try:
        rules_module = importlib.import_module(description.jax)
        from envs.core.jax_env import JaxEnv
    except ImportError as error:
        if error.name not in ("jax", "jaxlib"):
            raise
        raise ImportError("envs.make_jax needs JAX: pip install -e '.[jax]' (docs/jax.md)") from error
    return JaxEnv(description, rules_module.RULES(resolved))


def module(name: str):
    """The public env module of a game (``envs.loom_v0``): ``env()``, ``raw_env``."""
    return MODULES[canonical_name(name)]


for _path in (*BUILT_IN, *extra_modules()):
    register_module(_path)
