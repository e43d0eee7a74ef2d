"""What a game gives the training stack: its bots, its search hooks, its ladders, its agents.

Each ``training/bots/<game>.py`` ends with ``KIT = BotKit(...)``; the game's description names
that module by its import path (``GameDescription.bots``) and :func:`bot_kit` imports it and
returns the kit (envs never import the training stack: the layers point one way). Every field
is typed and has no silent default for a hook: a misspelt hook is a ``NameError`` when the
module is imported, not a fallback found later.

May import: ``envs``, ``training.common``, ``training.agents`` (the agent interface); never
``training.search`` or ``training.players``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from envs.core.game import relative_margins


def score_margins(state) -> list[float]:
    """The default evaluation of a play-out cut off before the end: each player's relative
    lead (:func:`envs.core.game.relative_margins`) in the current scores."""
    return relative_margins(state.scores())


@dataclass(frozen=True)
class SearchHooks:
    """Engine-level rules that make search strong in a game. Every hook sees only the sampled
    states a search builds from a seat's observation, so it cannot cheat.

    * ``preferred(state)`` — the moves a play-out chooses among and the tree expands first
      (``None``: every legal move);
    * ``root_preferred(state)`` — a costlier candidate rule asked once per move at the root
      (``None``: ``preferred``);
    * ``evaluate(state)`` — one value in [−1, 1] per player for a play-out cut off before the
      end (default: the relative score margins);
    * ``solved(state)`` — the final scores of perfect play from this state when the game can
      tell them exactly and cheaply (a solved endgame), else ``None``; the network-guided
      search (:mod:`training.search.guided`) scores such a leaf by them instead of the network
      (``None``: no state is solved).

    Chance needs no hook: engines reach chance nodes, and the search keeps one subtree per
    outcome it draws.
    """

    preferred: Callable[[Any], list[int]] | None = None
    root_preferred: Callable[[Any], list[int]] | None = None
    evaluate: Callable[[Any], list[float]] = score_margins
    solved: Callable[[Any], list[float] | None] | None = None


@dataclass(frozen=True)
class LadderSpec:
    """One ladder of ``training.ladder`` for a game: ``random < heuristic < mcts:100 <
    mcts:1000`` climbed under ``options``, and where a shipped agent stands on it."""

    options: dict = field(default_factory=dict)
    mcts: str = ""  # settings appended to both MCTS rungs, e.g. ":depth=20"
    trained: str | None = None  # a shipped checkpoint trained under these options
    note: str = ""
    climb: bool = True  # play the rungs against each other; False: only place the trained agent
    extra: tuple[str, ...] = ()  # rungs above MCTS(1000), e.g. the exact solver
    top_games: int | None = None  # games of the pairs with MCTS(1000) when not the command's
    place_against: int | None = None  # the trained agent meets this many rungs from the bottom


@dataclass(frozen=True)
class Preparation:
    """Work a bot needs done once before it can be made at once (Linecatch's solver: the table of
    a board): a bot class offers it with a classmethod ``preparation(**options)``, which returns
    None when there is nothing left to do. A server that answers many clients does ``build`` in
    the background and answers meanwhile that it is preparing (``training.serving.preparation``)."""

    key: tuple  # the same work has the same key, whichever bot or options asked for it
    what: str  # what is being done, for a person: "the exact solver's table of the 5×5 board"
    build: Callable[[], Any]


@dataclass(frozen=True)
class BotKit:
    """A game's bots (each built as ``Bot(game=name, seed=seed, **options)``), search hooks and
    ladders. ``random`` is every game's and is not listed."""

    heuristic: type
    search: SearchHooks
    ladders: tuple[LadderSpec, ...]
    solver: type | None = None
    others: Mapping[str, type] = field(default_factory=dict)

    def named_bots(self) -> dict[str, type]:
        """Every named bot: ``{"random": ..., "heuristic": ..., "solver": ..., ...}``."""
        from training.agents.base import RandomAgent

        table: dict[str, type] = {"random": RandomAgent, "heuristic": self.heuristic}
        if self.solver is not None:
            table["solver"] = self.solver
        table.update(self.others)
        return table


_KITS: dict[str, BotKit] = {}


def bot_kit(game) -> BotKit:
    """A game's :class:`BotKit` — ``game`` a name (``"fill"``, ``"fill_v0"``) or a description:
    the ``KIT`` of the module its description names (imported on first use)."""
    import envs

    description = envs.describe(game) if isinstance(game, str) else game
    kit = _KITS.get(description.name)
    if kit is None:
        module = importlib.import_module(description.bots)
        kit = module.KIT  # an AttributeError here means the bot module lacks its KIT
        if not isinstance(kit, BotKit):
            raise TypeError(f"{description.bots}.KIT must be a training.bots.BotKit, not {type(kit).__name__}")
        _KITS[description.name] = kit
    return kit
