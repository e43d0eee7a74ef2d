"""A game, described once, as typed data the whole suite reads.

Each public game module (``envs/<game>_v0.py``) builds one :class:`GameDescription` and the
registry (:mod:`envs.registry`) lists them. The AEC adapter, the samplers' users (search bots,
the bot server), terminal play, the benchmark, the ladder and the tests all ask the description
for what they need instead of finding a game's parts by module name. A missing or misspelt part
is an error when the description is built (dataclass fields have no silent defaults for hooks),
not a fallback found later.

What a game is, as OpenSpiel declares it in a ``GameType``, lives in :class:`GameFacts`; facts
that depend on the options (the number of players, actions, the longest game) are class
methods of the engine.
"""

from __future__ import annotations

import importlib
import json
import random
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - imports for annotations only
    from envs.core.game import Game
    from envs.core.observer import Observer

ChanceMode = Literal["deterministic", "explicit"]
Information = Literal["perfect", "imperfect"]


@dataclass(frozen=True)
class GameFacts:
    """The facts of a game that do not depend on its options (OpenSpiel's ``GameType``).

    ``chance`` is ``"explicit"`` where the engine reaches chance nodes (dice, shuffles, draws),
    ``"deterministic"`` where it never does; ``information`` is ``"imperfect"`` where a seat
    may not see part of the state. Every game is sequential, rewards only at the end, and ranks
    players by points: +1 for a sole winner, −1 for every other player, 0 for players tied
    first — zero-sum with two players, general-sum with more (:meth:`utility`).
    """

    long_name: str
    min_players: int
    max_players: int
    chance: ChanceMode
    information: Information
    dynamics: str = "sequential"
    reward_model: str = "terminal"
    min_utility: float = -1.0
    max_utility: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"{self.long_name}: players must satisfy 1 <= min <= max")
        if self.chance not in ("deterministic", "explicit"):
            raise ValueError(f"{self.long_name}: chance is 'deterministic' or 'explicit', not {self.chance!r}")
        if self.information not in ("perfect", "imperfect"):
            raise ValueError(f"{self.long_name}: information is 'perfect' or 'imperfect', not {self.information!r}")

    def utility(self, players: int) -> str:
        """``"zero_sum"`` with two players (+1/−1 or 0/0), ``"general_sum"`` with more (one
        winner +1, everybody else −1)."""
        return "zero_sum" if players == 2 else "general_sum"


def env_name(short_name: str, version: int) -> str:
    """A game's env name: ``env_name("fill", 0)`` is ``"fill_v0"``."""
    return f"{short_name}_v{version}"


def _from_module(cls: type, module: Any, **settings: Any) -> Any:
    """A dataclass of hooks, each the module's attribute of the field's name (a missing one is
    an AttributeError here); fields with defaults that are settings, not hooks, come from
    ``settings``."""
    hooks = {f.name: getattr(module, f.name) for f in fields(cls) if f.name not in settings
             and f.default is MISSING and f.default_factory is MISSING}
    return cls(**hooks, **settings)


@dataclass(frozen=True)
class Renderers:
    """Pictures of a state for a viewer.

    Both take ``(game, seats, last=None)``: ``seats`` is the tuple of seats whose hidden items
    the picture may show (``()`` for a spectator, ``(i,)`` for seat ``i``, every seat for
    ``viewer="all"``); ``last``, an :class:`envs.core.render.LastMove` or ``None``, the last
    move to mark (the caller passes only a move the seats may see). ``ansi`` returns text,
    ``rgb`` an ``(H, W, 3)`` uint8 array.
    """

    ansi: Callable[..., str]
    rgb: Callable[..., np.ndarray]
    last_move_cell: Callable[[Any], int | None] | None = None
    last_move_text: Callable[[Any, int], tuple[int, int, int] | None] | None = None
    last_move_box: Callable[[Any, int], tuple[int, int, int, int]] | None = None

    LAST_MOVE_HOOKS = ("last_move_cell", "last_move_text", "last_move_box")
    """Where the pictures mark the last move, for the tests that check they do
    (``tests/core/test_last_move.py``); a game with a board declares all three, a game without
    one (a test's toy game) none:

    * ``last_move_cell(last)`` — the cell a :class:`~envs.core.render.LastMove` marks (an int
      the game chooses: a square, or Loom's ``seat * 16 + cell``), ``None`` for a move on no
      cell (a choice, a draw, a button);
    * ``last_move_text(game, cell)`` — ``(line, first, last)``: the characters of ``ansi``'s
      text board for ``game`` that bracket ``cell`` when it is the last move (``[..]`` or
      ``(..)``), ``None`` where the text board does not show that cell;
    * ``last_move_box(game, cell)`` — ``(x0, y0, x1, y1)``: the pixels of ``cell`` in ``rgb``'s
      picture of ``game``, which the picture frames in ``LAST_MOVE`` colour."""

    def __post_init__(self) -> None:
        given = [name for name in self.LAST_MOVE_HOOKS if getattr(self, name) is not None]
        if given and len(given) != len(self.LAST_MOVE_HOOKS):
            missing = [name for name in self.LAST_MOVE_HOOKS if name not in given]
            raise ValueError(f"renderers declare {', '.join(given)} but not {', '.join(missing)}: all three or none")

    @property
    def marks_last_move(self) -> bool:
        """Whether the game says where its pictures mark the last move (the three hooks)."""
        return self.last_move_cell is not None

    @classmethod
    def from_module(cls, module: Any) -> Renderers:
        """The functions of these names in a game's render module (the last-move hooks where
        it defines them)."""
        hooks = {name: getattr(module, name) for name in cls.LAST_MOVE_HOOKS if hasattr(module, name)}
        return _from_module(cls, module, **hooks)


@dataclass(frozen=True)
class BoardView:
    """The board as a front end draws it and clicks on it (the web page), from the game's
    ``svg`` module (``envs/<game>/svg.py``; :mod:`envs.core.svg` says what an element is).

    * ``svg(game, seats, preview=None)`` — the position as SVG text, showing the hidden items
      of ``seats`` only (``(i,)`` for seat ``i``'s player; buttons are drawn only when one of
      ``seats`` is to act); ``preview``, an action of a choice (``choice_actions``), is drawn
      pale and dashed on the board without being played, so nothing hidden comes out of it;
    * ``element(game, action)`` — the name of the element an action of the player to act in
      ``game`` belongs to (legal or not; ``None`` for chance outcomes);
    * ``status(game, seats)`` — whose turn and what they do now, or the result, as ``seats``
      may know it (one line of text);
    * ``can_preview(game, action)`` — whether ``preview`` can draw that action.
    """

    svg: Callable[..., str]
    element: Callable[[Any, int], str | None]
    status: Callable[[Any, tuple[int, ...]], str]
    can_preview: Callable[[Any, int], bool]

    @classmethod
    def from_module(cls, module: Any) -> BoardView:
        """The functions of these names in a game's svg module."""
        return _from_module(cls, module)


@dataclass(frozen=True)
class Sampling:
    """The one route from what a seat knows to full states (search bots, the bot server).

    * ``sampler(observation, options)`` decodes one seat's observation once and returns a
      function ``draw(rng) -> Game``: each call a fresh full state whose observation for that
      seat is the given one, the hidden items drawn from what is still possible;
    * ``complete_snapshot(partial, seat, rng)`` fills in a snapshot whose hidden items (those
      ``seat`` may not know) were left out, and returns a complete, validated snapshot;
    * ``strip_hidden(snapshot, seat)`` leaves out of a full snapshot what ``seat`` may not
      know, in the form ``complete_snapshot`` reads;
    * ``keeps_seat`` — a drawn state has the observing seat to act (``False`` where an
      observation does not say which seat it is, so a drawn state may seat the other player in
      the same position: Linecatch).
    """

    sampler: Callable[[Any, dict], Callable[[random.Random], Any]]
    complete_snapshot: Callable[[dict, int, random.Random], dict]
    strip_hidden: Callable[[dict, int], dict]
    keeps_seat: bool = True

    @classmethod
    def from_module(cls, module: Any, **settings: Any) -> Sampling:
        """The functions of these names in a game's sampling module (and ``settings``:
        ``keeps_seat``)."""
        return _from_module(cls, module, **settings)


@dataclass(frozen=True)
class PlayRules:
    """What terminal play and other front ends need to know beyond the rules.

    * ``undo_phases``: snapshot phases whose actions a person may take back within their own
      turn (empty: every move is final), and ``undo_rule``, the sentence that says so;
    * ``secret_phases``: phases whose actions the opponents must not see, not even that they
      happened (Fill's trap phase);
    * ``private_notes(observer, fields)``: lines telling a person what only their seat knows
      and the board does not show, from their observation's decoded fields (Uzor's secret
      goal);
    * ``rules_summary``: the rules and the move notation in a few lines, for ``help``;
    * ``narrate(before, action, after, viewer)``: one sentence saying what a move did (a caught
      line, a closed ribbon, a capture), as seat ``viewer`` may know it (``None``: nothing
      worth saying beyond the move itself). ``before`` and ``after`` are engine states; for a
      player's action ``after`` is the position once the chance it set off has resolved (a
      strand drawn, a slot refilled), for a chance outcome the position it led to;
    * ``group_moves(game, actions)``: the legal moves as a few readable lines (Knot: one line
      per square) where one long list would be a wall (``None``: one list, wrapped).
    """

    undo_rule: str
    undo_phases: frozenset[str] = frozenset()
    secret_phases: frozenset[str] = frozenset()
    private_notes: Callable[[Any, dict[str, Any]], list[str]] | None = None
    rules_summary: str = ""
    narrate: Callable[[Any, int, Any, int], str | None] | None = None
    group_moves: Callable[[Any, list[int]], list[str]] | None = None


@dataclass(frozen=True)
class TestOptions:
    """Option sets the suite's generic tests play a game under (``tests/core``, ``tests/training``,
    ``tests/openspiel``, ``tests/clients``), so that no test keeps a table of games:

    * ``quick`` — a small board where whole games take moments: tiny training and
      search-and-learn runs, the guided search, Shimmy's API test;
    * ``search`` — small, with the optional hidden items on where a game has them (default:
      ``quick``): the MCTS tests, the searches' hidden-information tests (which stop random
      games after up to 30 moves: long enough games), the bot server's full games, every named
      bot, terminal play;
    * ``more`` — other option sets worth a check (variants, other boards, other numbers of
      players): the sampling and symmetry tests try ``quick``, ``search`` and each of these;
      the OpenSpiel tests and the observations doc's check the defaults too; the ONNX and
      RL-library tests each number of players they reach;
    * ``page`` — the options of the whole game the browser tests click through on the web page
      (default: ``search``); their hidden-information test plays ``page`` and ``search``.

    Every set is checked against the engine's options when the description is built.
    """

    __test__ = False  # not a pytest test class

    quick: Mapping[str, Any] = field(default_factory=dict)
    search: Mapping[str, Any] | None = None
    more: tuple[Mapping[str, Any], ...] = ()
    page: Mapping[str, Any] | None = None

    def search_options(self) -> dict[str, Any]:
        return dict(self.quick if self.search is None else self.search)

    def page_options(self) -> dict[str, Any]:
        return self.search_options() if self.page is None else dict(self.page)

    def all(self) -> list[dict[str, Any]]:
        """``quick``, ``search`` and ``more``, each once, in that order."""
        found: list[dict[str, Any]] = []
        for options in (self.quick, self.search_options(), *self.more):
            if dict(options) not in found:
                found.append(dict(options))
        return found


@dataclass(frozen=True)
class Gallery:
    """How ``scripts/render_gallery.py`` draws the game's picture for the README: under
    ``options`` (those that show more of the game), ``share`` of the way through a seeded game
    of heuristic bots."""

    share: float = 0.5
    options: Mapping[str, Any] = field(default_factory=dict)
    web_move: int | None = None
    """the person's move of the browser tests' whole game (``TestOptions.page``) after which
    the web page's picture, ``docs/images/web_<short_name>.png``, is taken; ``None``: no
    picture from that game"""


@dataclass(frozen=True)
class GameDescription:
    """Everything the suite knows about one game (see the module docstring).

    * ``name`` — the env name (``"fill_v0"``): the short name and ``_v<version>``;
      ``short_name`` — the game's own name (``"fill"``), used for folders
      (``checkpoints/fill/``) and run names;
    * ``version`` — the game's version: bumped (with a line in docs/changelog.md) whenever a
      seeded game plays differently (rules, chance, observations, rewards), so that a number
      measured under one version is never read as another's. It names the env
      (``<short_name>_v<version>``), its PettingZoo id (``abstract/<short_name>-v<version>``),
      the agent files trained on it and the results tables; ``tests/core/test_trajectories.py``
      fails when seeded play changes and the version did not;
    * ``engine`` — the rules engine class (:class:`envs.core.game.Game`), ``observer`` — its
      observer class, the only place hidden information is filtered;
    * ``render``, ``sampling``, ``play``, ``board`` — see :class:`Renderers`, :class:`Sampling`,
      :class:`PlayRules`, :class:`BoardView`;
    * ``bots`` — the import path of the module holding the game's bots and search hooks
      (``"training.bots.fill"``): it defines ``KIT``, which the training stack reads
      (``training.bots.bot_kit``); envs never import it;
    * ``docs`` — the game's page (``"docs/fill.md"``), or ``None`` for a game without pages (a
      test's toy game). A game with a page is published: docs/index.md lists the page,
      docs/observations.md has a ``## <name>`` section laying out its vector, and the README
      shows its picture, ``docs/images/<short_name>.png`` (drawn as ``gallery`` says);
    * ``shipped`` — a trained agent for the default options is shipped in
      ``checkpoints/<short_name>/`` (``load_agent("trained", game)``);
    * ``module`` — the import path of the public module (``raw_env``, ``env``, ``GAME``);
      default ``"envs.<name>"``;
    * ``test_options`` — the option sets the generic tests play (:class:`TestOptions`);
    * ``gallery`` — how the README picture is drawn (:class:`Gallery`);
    * ``benchmark_options`` — labelled option sets ``scripts/benchmark.py`` times;
    * ``extra_methods`` — engine methods ``env.unwrapped`` exposes too (Loom's ``gain``);
    * ``jax`` — the import path of the game's JAX engine module (``"envs.fill.jax_engine"``,
      whose ``RULES`` is a :class:`envs.core.jax_env.JaxRules`), or ``None``: what
      ``envs.make_jax`` serves (imported only then, so the suite runs without JAX).
    """

    name: str
    short_name: str
    facts: GameFacts
    engine: type
    observer: type
    render: Renderers
    sampling: Sampling
    play: PlayRules
    bots: str
    docs: str | None
    board: BoardView | None = None  # None: no web page for this game (the tests' toy games)
    shipped: bool = False
    module: str = ""
    test_options: TestOptions = field(default_factory=TestOptions)
    gallery: Gallery = field(default_factory=Gallery)
    benchmark_options: Mapping[str, dict] = field(default_factory=lambda: {"default": {}})
    extra_methods: tuple[str, ...] = ()
    jax: str | None = None
    version: int = 0

    @classmethod
    def built_in(cls, short_name: str, *, version: int, sampling: dict | None = None, package: str = "envs",
                 **given: Any) -> GameDescription:
        """A game laid out as this suite's own are, whose parts follow from its short name and
        ``version``: the env name ``<short_name>_v<version>``, the folder ``envs/<short_name>/``
        (``<package>/<short_name>/``: the tests' toy games live in ``tests/toy/``) with
        ``render``, ``sampling``, ``svg`` and ``terminal`` modules (``terminal.PLAY`` is the
        :class:`PlayRules`), the bots module ``training.bots.<short_name>`` and the page
        ``docs/<short_name>.md``. ``sampling`` holds :class:`Sampling`'s settings
        (``keeps_seat``); every other field is given as keywords (``shipped=True`` where
        ``checkpoints/<short_name>/`` holds trained agents: like the dataclass, this says
        ``False``), and a keyword given wins."""
        folder = f"{package}.{short_name}"
        parts = {name: importlib.import_module(f"{folder}.{name}") for name in ("render", "sampling", "svg", "terminal")}
        derived = {"name": env_name(short_name, version), "short_name": short_name, "version": version,
                   "render": Renderers.from_module(parts["render"]),
                   "sampling": Sampling.from_module(parts["sampling"], **(sampling or {})),
                   "board": BoardView.from_module(parts["svg"]), "play": parts["terminal"].PLAY,
                   "bots": f"training.bots.{short_name}", "docs": f"docs/{short_name}.md"}
        return cls(**{**derived, **given})

    def __post_init__(self) -> None:
        if not isinstance(self.version, int) or isinstance(self.version, bool) or self.version < 0:
            raise ValueError(f"game {self.name!r}: version must be a whole number 0 or more, not {self.version!r}")
        if self.name != env_name(self.short_name, self.version):
            raise ValueError(f"game {self.name!r}: the env name is the short name plus '_v<version>', "
                             f"{env_name(self.short_name, self.version)!r} for version {self.version}")
        if self.engine.NAME != self.name:
            raise ValueError(f"game {self.name!r}: its engine says it is {self.engine.NAME!r} (a version bump "
                             f"changes the engine's NAME too)")
        for method in self.extra_methods:
            if not callable(getattr(self.engine, method, None)):
                raise ValueError(f"game {self.name!r}: extra method {method!r} is not an engine method")
        for option in self.runtime_options:
            if option not in self.engine.OPTIONS:
                raise ValueError(f"game {self.name!r}: runtime option {option!r} is not an option")
        if not self.module:
            object.__setattr__(self, "module", f"envs.{self.name}")
        for label, options in [("test_options", o) for o in self.test_options.all() + [self.test_options.page_options()]] + [
                ("gallery", self.gallery.options), *self.benchmark_options.items()]:
            try:
                self.engine.resolve_options(dict(options))
            except ValueError as error:
                raise ValueError(f"game {self.name!r}: {label} {dict(options)!r}: {error}") from None

    @property
    def env_id(self) -> str:
        """The PettingZoo id: ``"abstract/<short_name>-v<version>"``."""
        return f"abstract/{self.short_name}-v{self.version}"

    @property
    def runtime_options(self) -> tuple[str, ...]:
        """Options that are run-time objects, not part of a position (Fill's ``clock``):
        snapshots record them as ``null`` and a restore keeps the env's own."""
        return self.engine.RUNTIME_OPTIONS

    # ----- option-dependent facts, asked of the engine --------------------------------------
    def resolve_options(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The options with defaults filled in, checked (an ``OptionError`` names a bad one)."""
        return self.engine.resolve_options(dict(options or {}))

    def num_players(self, options: Mapping[str, Any] | None = None) -> int:
        return self.engine.num_players_for(self.resolve_options(options))

    def num_actions(self, options: Mapping[str, Any] | None = None) -> int:
        return self.engine.num_actions_for(self.resolve_options(options))

    def new_game(self, options: Mapping[str, Any] | None = None, seed: int | None = None):
        """A fresh engine state at the start of a game (chance nodes included, unresolved)."""
        return self.engine(self.resolve_options(options), random.Random(seed))

    def make_observer(self, options: Mapping[str, Any] | None = None):
        return self.observer(self.resolve_options(options))

    def portable_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Resolved options without the run-time ones: what a file (an agent file, a results
        table) or a message (the bot server's answers) records of a game's options. The run-time
        options (Fill's ``clock``, a function) are left out by name, whatever their value; tuples
        become lists; any other value JSON cannot hold is refused, naming the option, rather
        than dropped from the record unsaid."""
        from envs.core.game import json_ready, short_repr

        kept = {k: json_ready(v) for k, v in options.items() if k not in self.runtime_options}
        for key, value in kept.items():
            try:
                json.dumps(value)
            except (TypeError, ValueError):
                raise ValueError(f"game {self.name!r}: option {key!r} is {short_repr(value)}, which a file "
                                 f"cannot record (options must be JSON data)") from None
        return kept
