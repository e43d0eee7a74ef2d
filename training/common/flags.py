"""Command-line flags for a config dataclass: one ``--flag`` per field, its docstring as the help.

The trainers (``training.train``, ``training.train_rllib``, ``training.alphazero``) declare their
settings once, as a dataclass whose fields each carry a default and a docstring underneath.
``--help`` prints the module's docstring as written and, after each flag's help, its default.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import typing
from typing import Any


class FlagError(ValueError):
    """A command line refused: a flag's value out of range, flags that contradict each other, a
    file named by a flag that cannot be used. The message names the flag; ``abstract-games``
    prints it as ``PROG: error: MESSAGE`` and exits with status 2, as argparse does for a flag it
    cannot parse, and Python callers catch it as the ``ValueError`` it is."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The description as written (the trainer's docstring, examples and all) and every flag's
    default after its help, ``(default: 2048)``, as argparse's ``ArgumentDefaultsHelpFormatter``
    writes it."""


def field_docs(config_cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass, read from its source (and from its base
    classes' sources, a subclass's own docstring winning)."""
    docs: dict[str, str] = {}
    for cls in reversed([c for c in config_cls.__mro__ if dataclasses.is_dataclass(c)]):
        body = ast.parse(inspect.getsource(cls)).body[0].body
        for node, after in zip(body, body[1:] + [None]):
            if isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                docs[node.target.id] = after.value.value
    return docs


def _declared_type(hint: Any) -> type:
    """``str`` for ``str | None``: the type a flag's text is read as."""
    kinds = [kind for kind in typing.get_args(hint) if kind is not type(None)]
    return kinds[0] if kinds else hint


def parse_flags(config_cls: type, argv: list[str] | None = None, description: str | None = None,
                prog: str | None = None) -> Any:
    """An instance of the dataclass ``config_cls`` from command-line flags. A dict field reads
    JSON; a list field one or more values, a tuple field zero or more (of the type of the
    default's first item, else text); a bool field ``--flag`` / ``--no-flag``; a field whose
    default is None the type its annotation names."""
    parser = argparse.ArgumentParser(prog=prog, description=description, formatter_class=HelpFormatter)
    docs = field_docs(config_cls)
    hints = typing.get_type_hints(config_cls)
    tuples = []
    for f in dataclasses.fields(config_cls):
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        help_text = docs.get(f.name)
        if isinstance(default, dict):
            parser.add_argument(flag, type=json.loads, default=default, help=help_text)
        elif isinstance(default, (list, tuple)):
            kind = type(default[0]) if default else str
            if isinstance(default, tuple):
                tuples.append(f.name)
            parser.add_argument(flag, nargs="*" if isinstance(default, tuple) else "+", type=kind,
                                default=list(default), help=help_text)
        elif isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=help_text)
        else:
            kind = type(default) if default is not None else _declared_type(hints[f.name])
            parser.add_argument(flag, type=kind, default=default, help=help_text)
    values = vars(parser.parse_args(argv))
    for name in tuples:
        values[name] = tuple(values[name])
    return config_cls(**values)


def flags_given(argv: list[str]) -> set[str]:
    """The config fields a command line's flags name (``--simulations 8`` and
    ``--simulations=8`` name ``simulations``): what ``--resume`` takes over the run's own
    settings, and what ``--init-from`` checks against the agent file's."""
    return {arg.split("=")[0][2:].replace("-", "_") for arg in argv if arg.startswith("--")}
