"""Games the bot server holds for a front end that keeps no game state: the web page.

The protocol's ``move``, ``legal`` and ``why_illegal`` take the whole position from the client,
hidden items and all; a page in a browser must never hold those (a player could read them). The
``web_*`` requests keep each game on the server instead, with its true state, and answer with
what the player's own seat may see and nothing more:

* ``web_new_game`` starts a game for a person at ``seat`` against ``opponent`` (every other seat)
  and answers its **view**, with the game's ``link``: an unguessable name the server keeps the
  game under, so that the page's address brings it back (``web_resume``) after a reload or on
  another tab, until nobody has asked about it for ``game_expiry`` seconds;
* ``web_play`` plays the person's move, ``web_bot`` the turn of the bot to act (the page
  shows "thinking…" meanwhile; ``stand_in`` lets another named bot play this one turn, after a
  bot failed), ``web_undo`` takes back a step of the person's own turn where the game allows it
  (terminal play's rule), each answering the new view;
* ``web_why`` says why a clicked board element holds no legal move (the engine's
  ``why_illegal`` sentence), ``web_preview`` draws one of several moves of an element on the
  board without playing it, ``web_hint`` asks a quick level for the person's move,
  ``web_view`` repeats the view (and ends a timed game whose clock ran out), ``web_close`` ends
  the game;
* at the end, ``web_position`` draws the position after any line of the log (every hidden
  item shown: the replay), and ``web_review`` sets each of the person's moves beside a stronger
  player's (Linecatch's exact solver: the points lost; else a quick search's preferred move).

A view holds the board as SVG from the person's seat (``GameDescription.board``), whose turn it
is, the scores, the clocks, the status line, the person's legal moves each with the board
element it belongs to, whether undo is possible, the new entries of the game's log (moves
numbered, in notation and what they did, as the seat may know it: an opponent's move in a
secret phase, such as Fill's traps, is not even mentioned), the elements of each seat's last
turn, and the result at the end. Never a snapshot, an opponent's hand, goal or trap, or the
seed of a game the client did not seed (a seed fixes every deal and draw) before the game is
over.

Each client (a WebSocket connection, or the stdin server) has its own :class:`WebGames`, held
by its ``BotServer``: a client reaches the games it started or resumed by their link, never
another's by a ``game_id``. A :class:`GameCounter` bounds the games and their memory over a
whole server, and keeps them by link while their page is away.
"""

from __future__ import annotations

import contextlib
import inspect
import secrets
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

import envs
from training.agents.levels import agent_levels
from training.players.load import bot_table, load_agent
from training.agents.levels import LevelsError, default_level, is_level_spec, levelled_option_sets
from training.serving.protocol import (
    DEFAULT_GAME_EXPIRY_S, DEFAULT_MAX_GAMES, DEFAULT_MAX_GAMES_MEMORY_MB, DEFAULT_MAX_SERVER_GAMES, RequestError, shown,
)
from training.serving.terminal import narrations, phase_of

if TYPE_CHECKING:
    from training.serving.bot_server import BotServer

MB = 1 << 20
MAX_SEED = 2**63 - 1
RANDOM_SEEDS = 2**53  # a seed the server draws stays below this: a page's JavaScript numbers hold it exactly
STAND_INS = ("heuristic",)  # the bots a person may let play one turn for a bot that failed
HINT_MS = 1000.0  # a hint comes from the strongest level that answers within this
SMALL_BOARD = 20  # Linecatch boards up to this many squares have their solver table built in a moment
TOP_MOVES = 3  # the moves of a bot's search shown beside its move (its thinking)
REVIEW_MS = 100.0  # the review at the end weighs each move with the strongest level this quick


class GameCounter:
    """The open web games of a whole server under a limit, the memory the games hold of their
    own (``Game.memory_estimate_for``: a user's Uzor Map) under a budget in bytes (the bot
    protocol's ``new_game`` game is charged too), and every web game by its link, so that a page
    that reloads finds its game again (``web_resume``) until it expires."""

    def __init__(self, limit: int = DEFAULT_MAX_SERVER_GAMES, memory_limit: int = DEFAULT_MAX_GAMES_MEMORY_MB * MB,
                 expiry: float = DEFAULT_GAME_EXPIRY_S):
        self.limit = limit
        self.count = 0
        self.memory_limit = memory_limit
        self.memory = 0
        self.expiry = expiry
        self.kept: dict[str, WebGame] = {}  # link -> game
        self.lock = threading.RLock()

    def reserve(self, cost: int) -> bool:
        """Charge ``cost`` bytes to the budget, if it fits."""
        if cost <= 0:
            return True
        with self.lock:
            if self.memory + cost > self.memory_limit:
                return False
            self.memory += cost
            return True

    def release(self, cost: int) -> None:
        if cost > 0:
            with self.lock:
                self.memory = max(0, self.memory - cost)

    def take(self) -> bool:
        """Count a new game, forgetting expired games first and, at the limit, the game no page
        holds that has waited longest."""
        with self.lock:
            self.expire()
            if self.count >= self.limit:
                idle = [game for game in self.kept.values() if game.owner is None]
                if idle:
                    self.forget(min(idle, key=lambda game: game.used))
            if self.count >= self.limit:
                return False
            self.count += 1
            return True

    def give_back(self, count: int = 1) -> None:
        with self.lock:
            self.count = max(0, self.count - count)

    def keep(self, game: WebGame) -> None:
        with self.lock:
            self.kept[game.link] = game

    def forget(self, game: WebGame) -> None:
        """The game ends: its count and memory go back, its link leads nowhere."""
        with self.lock:
            if self.kept.pop(game.link, None) is not None:
                self.give_back()
                self.release(game.cost)
            if game.owner is not None:
                game.owner.games.pop(game.game_id, None)
                game.owner = None

    def expire(self) -> None:
        now = time.monotonic()
        with self.lock:
            for game in [g for g in self.kept.values() if now - g.used > self.expiry]:
                self.forget(game)

    def find(self, link: str) -> WebGame | None:
        with self.lock:
            self.expire()
            return self.kept.get(link)

    def charge(self, name: str, resolved: dict[str, Any]) -> int:
        """Charge a new game's memory to the budget (its cost, in bytes), or refuse it naming
        the options that cost it."""
        engine = envs.describe(name).engine
        cost = int(engine.memory_estimate_for(resolved))
        if self.reserve(cost):
            return cost
        costly = [key for key in engine.MEMORY_OPTIONS if key in resolved]
        named = " and ".join(f"'{key}'" for key in costly) or "these options"
        if cost > self.memory_limit:
            where = f"more than this server's whole budget of {self.memory_limit / MB:.0f} MB for the games' own data"
        else:
            where = (f"and this server's games hold {self.memory / MB:.0f} MB of its "
                     f"{self.memory_limit / MB:.0f} MB budget for the games' own data; try again later")
        raise RequestError(
            "over_limit", f"a {name} game with these options ({named}) needs about {cost / MB:.0f} MB of its own, "
                          f"{where} (--max-games-memory); smaller values of {named} cost less",
        )


@dataclass
class Step:
    """One action of the game, as the person's seat may know it."""

    player: int | None  # None: a chance outcome, or a line of the server's (a clock ran out, a hint)
    notation: str | None  # None where the seat may not know the move
    element: str | None  # the board element the move belongs to (None: chance, or secret)
    text: str | None  # what it did, in a sentence (the game's narration for the seat)
    visible: bool  # False: a move the seat may not even know happened
    history: int = 0  # the env's history once this step was played (the replay at the end)


@dataclass
class WebGame:
    """One game a person plays on the server (see the module docstring)."""

    game_id: str
    name: str
    options: dict[str, Any]  # as the person gave them (the deep link's, for "this deal again")
    seat: int
    specs: dict[int, str]  # seat -> the agent spec playing it
    names: dict[int, str]  # seat -> the name a player reads ("casual (level 3)")
    seed: int
    seed_given: bool
    agents: dict[int, Any]
    env: Any
    cost: int = 0  # bytes charged to the server's memory budget (GameCounter.charge)
    link: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    steps: list[Step] = field(default_factory=list)
    undo_stack: list[tuple[dict, list | None, int]] = field(default_factory=list)
    sent: int = 0  # log entries the client has
    hints: int = 0
    used: float = field(default_factory=time.monotonic)  # the last request about it (expiry)
    owner: WebGames | None = None  # the client that holds it now (None: kept for its link)
    start: int = 0  # the env's history at the start (the deal: the replay's first position)
    review: list[dict[str, Any]] | None = None  # the review at the end, once reckoned

    @property
    def description(self):
        return envs.describe(self.name)

    @property
    def game(self):
        return self.env.game

    def to_move(self) -> int | None:
        return None if self.game.is_terminal() else self.game.current_player()

    # ----- moves -----------------------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Play ``action`` for the seat to act, recording it (and the chance outcomes the env
        drew after it) as the person's seat may know them."""
        env, rules, board = self.env, self.description.play, self.description.board
        player = env.game.current_player()
        secret = player != self.seat and phase_of(env) in rules.secret_phases
        before = env.game.clone()
        notation = before.action_to_string(action)
        element = board.element(before, action)
        played = len(env.history) if env.history is not None else None
        env.step(action)
        applied = env.history[played:] if played is not None else [action]
        if secret:
            self.steps.append(Step(player, None, None, None, False, len(env.history or ())))
            return
        done = played if played is not None else 0
        for index, text in enumerate(narrations(rules, before, applied, self.seat)):
            if index == 0:
                self.steps.append(Step(player, notation, element, text, True, done + 1))
            elif text:
                self.steps.append(Step(None, None, None, text, True, done + index + 1))
            else:
                self.steps[-1].history = done + index + 1  # the chance the move set off

    def log_entries(self) -> list[dict[str, Any]]:
        """The visible log, each move numbered (``ply``: 1, 2, … over the moves the seat sees;
        chance and the server's lines are not numbered)."""
        entries, ply = [], 0
        for s in self.steps:
            if not s.visible:
                continue
            if s.player is not None:
                ply += 1
            entries.append({"seat": s.player, "ply": ply if s.player is not None else None,
                            "notation": s.notation, "text": s.text})
        return entries

    def last_turns(self) -> dict[str, list[str]]:
        """Per seat, the elements of its last turn (its latest run of visible moves)."""
        last: dict[int, list[str]] = {}
        previous = None
        for step in self.steps:
            if step.player is None or not step.visible:
                continue
            if step.player != previous:
                last[step.player] = []
            if step.element:
                last[step.player].append(step.element)
            previous = step.player
        return {str(p): elements for p, elements in last.items()}

    # ----- clocks (Fill's time_limit) ----------------------------------------------------------------
    def clocks(self) -> list[dict[str, Any]] | None:
        """Per clocked seat, the seconds its clock shows and whether it runs; None without clocks.
        An opponent's clock shows its time when its turn began (a clock seen to tick through a
        turn's steps would tell its hidden phases)."""
        game = self.game
        if not getattr(game, "timed", False):
            return None
        to_move, shown_clocks = (None if game.is_chance_node() else self.to_move()), []
        for p in range(len(game.scores())):
            if not game.clocked[p]:
                continue
            if p == self.seat or p != to_move:
                left = game.time_left_now(p)
            else:
                left = game.shown_time[p]
            shown_clocks.append({"seat": p, "left": round(max(0.0, left), 1), "running": p == to_move})
        return shown_clocks

    def check_time(self) -> bool:
        """End the game if the seat to act has no time left (True when it did now): the engine
        ends a game on time at that seat's next action, which the server plays for it (the
        first legal one: the engine does not apply it), so the end comes when the time does."""
        game = self.game
        to_move = self.to_move()
        if not getattr(game, "timed", False) or to_move is None or game.is_chance_node() or not game.clocked[to_move]:
            return False  # no clock runs at a chance node
        if game.time_left_now(to_move) > 0:
            return False
        played = len(self.env.history or ())
        self.env.step(game.legal_actions()[0])
        who = "you" if to_move == self.seat else f"player_{to_move}"
        self.steps.append(Step(None, None, None, f"{who} ran out of time", True, played))
        self.undo_stack.clear()
        return True

    # ----- what the seat sees ------------------------------------------------------------------------
    def view(self, everything: bool = False) -> dict[str, Any]:
        game, description, seat = self.game, self.description, self.seat
        board = description.board
        over = game.is_terminal()
        to_move = self.to_move()
        yours = to_move == seat
        actions = []
        if yours:
            for action in game.legal_actions():
                actions.append({"action": action, "notation": game.action_to_string(action),
                                "element": board.element(game, action)})
        log = self.log_entries()
        start = 0 if everything else min(self.sent, len(log))
        self.sent = len(log)
        players = len(game.scores())
        return {
            "game_id": self.game_id, "link": self.link, "game": self.name, "short_name": description.short_name,
            "title": description.facts.long_name, "options": description.portable_options(self.env.options),
            "asked_options": {k: v for k, v in description.portable_options(self.options).items()
                              if k in self.options}, "seat": seat,
            "players": [{"seat": p, "name": "you" if p == seat else self.names[p],
                         "spec": None if p == seat else self.specs[p]} for p in range(players)],
            "opponent": next(iter(self.specs.values())),
            "seed": self.seed if self.seed_given or over else None,
            "seed_given": self.seed_given, "hidden": self.hidden(),
            "svg": board.svg(game, (seat,)), "to_move": to_move, "your_turn": yours, "over": over,
            "scores": game.scores(), "clocks": self.clocks(), "status": board.status(game, (seat,)),
            "actions": actions, "undo": self.can_undo(), "undo_rule": description.play.undo_rule,
            "log_start": start, "log": log[start:], "last": self.last_turns(), "notes": self.private_notes(),
            "hints": self.hints, "result": self.result() if over else None,
            "revealed": board.svg(game, tuple(range(players))) if over else None,
        }

    def hidden(self) -> bool:
        """Whether the game has chance or hidden items (its seed or moves would tell the future)."""
        facts = self.description.facts
        return facts.chance != "deterministic" or facts.information != "perfect"

    def private_notes(self) -> list[str]:
        rules, env = self.description.play, self.env
        if rules.private_notes is None:
            return []
        fields = env.observer.decode(env.observe(env.possible_agents[self.seat]))
        return rules.private_notes(env.observer, fields)

    def result(self) -> dict[str, Any]:
        game, seat = self.game, self.seat
        scores, returns = game.scores(), game.returns()
        outcome = "win" if returns[seat] > 0 else "draw" if returns[seat] == 0 else "loss"
        others = ", ".join(f"{self.names[p]} (player_{p}) {scores[p]:g}" for p in range(len(scores)) if p != seat)
        words = {"win": "You win", "draw": "A draw: you share first place", "loss": "You lose"}[outcome]
        helped = f" ({self.hints} hint{'s' if self.hints != 1 else ''})" if self.hints else ""
        return {"outcome": outcome, "returns": returns, "scores": scores,
                "text": f"{words}: you {scores[seat]:g}, {others}.{helped}"}

    # ----- undo (terminal play's rule: steps of your own turn, in the phases the game names) ------
    def undoable(self) -> bool:
        rules = self.description.play
        timed = bool(self.env.options.get("time_limit"))
        return bool(rules.undo_phases) and not timed and phase_of(self.env) in rules.undo_phases

    def can_undo(self) -> bool:
        return bool(self.undo_stack) and self.to_move() == self.seat

    def play(self, action: int) -> None:
        saved = (self.env.snapshot(), list(self.env.history or []), len(self.steps)) if self.undoable() else None
        self.step(action)
        if saved is None:
            self.undo_stack.clear()
        else:
            self.undo_stack.append(saved)

    def undo(self) -> str:
        snapshot, history, steps = self.undo_stack.pop()
        notation = self.steps[steps].notation or "a move"
        self.env.restore(snapshot)
        self.env.history = history
        del self.steps[steps:]
        self.sent = min(self.sent, len(self.log_entries()))
        return notation


@contextlib.contextmanager
def watched(agent: Any) -> Iterator[dict[int, int]]:
    """The root visits of a search's move (``MCTSAgent.search``: action -> visits), filled in
    while the block runs; empty for an agent that is not such a search."""
    seen: dict[int, int] = {}
    search = getattr(agent, "search", None)
    if not inspect.ismethod(search):
        yield seen
        return

    def spy(observation):
        visits = search(observation)
        seen.clear()
        seen.update(visits)
        return visits

    agent.search = spy  # the instance's attribute, over its method, for this one move
    try:
        yield seen
    finally:
        del agent.search


def top_moves(engine: Any, visits: dict[int, int], count: int = TOP_MOVES) -> list[dict[str, Any]]:
    """The most visited moves of a search with their share of the visits, most first."""
    total = sum(visits.values()) or 1
    ranked = sorted(visits.items(), key=lambda item: (-item[1], item[0]))[:count]
    return [{"notation": engine.action_to_string(a), "share": round(v / total, 3)} for a, v in ranked if v]


def person_positions(game: WebGame):
    """The position before each of the person's moves, replayed from the seed on a fresh env
    (the same seed draws the same chance): ``(ply, env, action)`` each; nothing where the
    replay parts from the game (a game ended on time)."""
    env = envs.load(game.name).raw_env(**game.env.options)
    env.reset(seed=game.seed)
    history = game.env.history or []
    ply = 0
    for step in game.steps:
        if step.player is None:
            continue
        at = len(env.history)
        if at >= len(history) or env.game.is_terminal():
            return
        ply += step.visible
        action = history[at]
        if step.player == game.seat and step.visible:
            yield ply, env, action
        env.step(action)
        if env.history != history[:len(env.history)]:
            return


def solver_review(game: WebGame) -> list[dict[str, Any]] | None:
    """Linecatch's review by the exact solver (None for other games, or a board whose table is
    not built: the search reviews it)."""
    if game.description.short_name != "linecatch":
        return None
    from envs.linecatch import solver

    options = game.env.options
    rows, cols, pro = options["rows"], options["cols"], options["pro"]
    if rows * cols > 25 or (rows * cols > SMALL_BOARD and not solver.table_ready(rows, cols, pro)):
        return None  # a large table not built yet (the server builds it in the background)
    losses = solver.move_losses(game.env.history or [], rows, cols, pro)
    engine = game.description.new_game(options)
    perfect = solver.LinecatchSolver(rows, cols, pro)
    review = []
    for ply, loss in enumerate(losses, start=1):
        if loss.seat == game.seat:
            best = perfect.best_actions(engine)
            review.append({"ply": ply, "played": engine.action_to_string(loss.action),
                           "preferred": engine.action_to_string(best[0]), "by": "the exact solver", "lost": loss.lost})
        engine.apply(loss.action)
    return review


def opponent_names(spec: str, name: str, options: dict) -> str:
    """The name a player reads for an agent spec, a level by its name ("casual (level 3)")."""
    if not is_level_spec(spec):
        return spec
    try:
        levels = agent_levels(name, **options)
        number = int(spec.split(":", 1)[1])
        return f"{levels[number - 1]['name']} (level {number})"
    except (ValueError, IndexError, LevelsError):
        return spec


def no_levels_sentence(name: str, options: dict) -> str:
    """Why ``level:K`` cannot be played with these options, in a player's words."""
    title = envs.describe(name).facts.long_name
    try:
        have = [entry["label"] or "the default options" for entry in levelled_option_sets(name)]
    except LevelsError:
        have = []
    where = f"; levels exist for {', '.join(have)}" if have else ""
    return (f"{title} has no strength levels for these options{where}. Choose another opponent "
            "(the heuristic plays any options)")


class WebGames:
    """The ``web_*`` requests of one client (see the module docstring); its ``BotServer``
    (``server``) checks the agents and bounds their moves."""

    def __init__(self, server: BotServer, max_games: int = DEFAULT_MAX_GAMES, counter: GameCounter | None = None,
                 clock: Callable[[], float] | None = None):
        self.server = server
        self.max_games = max_games
        self.counter = counter if counter is not None else GameCounter(max_games)
        self.clock = clock  # the time source of timed games (None: the game's own; tests run a fast one)
        self.games: dict[str, WebGame] = {}
        self.ids = 0

    def close(self) -> None:
        """This client is gone (its connection closed): its games stay kept by link, for a page
        that reloads, until they expire."""
        for game in list(self.games.values()):
            game.owner = None
            game.used = time.monotonic()
        self.games.clear()

    def end(self) -> None:
        """End every game of this client for good (the stdin server's end)."""
        for game in list(self.games.values()):
            self.counter.forget(game)

    def web_game(self, request: dict) -> WebGame:
        game = self.games.get(request["game_id"])
        if game is None:
            raise RequestError(
                "no_game", f"no game {shown(request['game_id'])} here: start one with 'web_new_game' "
                           f"(this client's games: {', '.join(self.games) or 'none'})",
            )
        game.used = time.monotonic()
        return game

    def attach(self, game: WebGame) -> None:
        """Hold ``game`` under a new ``game_id`` of this client (its last holder lets go)."""
        if game.owner is not None and game.owner is not self:
            game.owner.games.pop(game.game_id, None)
        if game.owner is not self:
            self.ids += 1
            game.game_id = f"g{self.ids}"
        game.owner = self
        game.used = time.monotonic()
        self.games[game.game_id] = game

    def check_room(self) -> None:
        if len(self.games) >= self.max_games:
            raise RequestError(
                "over_limit", f"this client has {len(self.games)} open games, the most this server allows "
                              f"(--max-games {self.max_games}); close one with 'web_close'",
            )

    # ----- starting a game ----------------------------------------------------------------------------
    def do_web_new_game(self, request: dict) -> dict:
        name = self.server.game_name(request["game"])
        description = envs.describe(name)
        if description.board is None:
            raise RequestError("unknown_game", f"{name} has no board view (GameDescription.board): it cannot be played on the page")
        asked = dict(request.get("options", {}))
        try:
            resolved = description.resolve_options(asked)
        except (ValueError, TypeError) as error:
            raise RequestError("bad_options", str(error)) from None
        players = description.engine.num_players_for(resolved)
        seat = request.get("seat", 0)
        if not 0 <= seat < players:
            raise RequestError("bad_request", f"field 'seat' must be 0…{players - 1} in {name} with these options, not {seat}")
        seed_given = "seed" in request
        seed = request["seed"] if seed_given else secrets.randbelow(RANDOM_SEEDS)
        if not 0 <= seed <= MAX_SEED:
            raise RequestError("bad_request", f"field 'seed' must be an integer 0…{MAX_SEED}, not {seed}")
        spec = request["opponent"]
        target = self.opponent_target(spec, name, asked)
        self.check_room()
        options = self.game_options(asked, resolved, seat)
        cost = self.counter.charge(name, resolved)  # before the game is made: making it is what costs
        if not self.counter.take():
            self.counter.release(cost)
            raise RequestError(
                "over_limit", f"this server holds {self.counter.limit} open games, the most it allows "
                              "(--max-server-games); try again later",
            )
        try:
            game = self.make_game(name, asked, options, seat, spec, target, seed, seed_given, cost)
        except BaseException:
            self.counter.give_back()
            self.counter.release(cost)
            raise
        self.counter.keep(game)
        self.attach(game)
        return game.view(everything=True)

    def opponent_target(self, spec: str, name: str, options: dict) -> str:
        """What the opponent ``spec`` plays, checked against the server's limits and prepared,
        or refused in a sentence a player understands."""
        server = self.server
        if is_level_spec(spec):
            try:
                agent_levels(name, **options)
            except LevelsError as error:  # a damaged levels file: its own message names it
                raise RequestError("bad_agent", str(error)) from None
            except ValueError:
                raise RequestError("bad_agent", no_levels_sentence(name, options)) from None
        target = server.check_agent_spec(server.level_target(spec, name, options), name)
        server.check_speed(spec, target, name, options)
        server.check_prepared(target, name, options)
        return target

    def game_options(self, asked: dict, resolved: dict, seat: int) -> dict:
        """The env's options: the person's, with a clock for the person alone in a timed game
        (a bot has no clock) and the server's time source where it has one."""
        options = dict(asked)
        if resolved.get("time_limit") and "clocked" not in options:
            options["clocked"] = [f"player_{seat}"]
        if self.clock is not None and "clock" in resolved:
            options["clock"] = self.clock
        return options

    def make_game(self, name: str, asked: dict, options: dict, seat: int, spec: str, target: str, seed: int,
                  seed_given: bool, cost: int) -> WebGame:
        try:
            env = envs.load(name).raw_env(**options)
        except (ValueError, TypeError) as error:
            raise RequestError("bad_options", str(error)) from None
        players = len(env.possible_agents)
        agents = {}
        for other in range(players):
            if other != seat:
                agents[other] = self.load_agent(target, spec, name, (seed + 1 + other) % (MAX_SEED + 1), options)
        env.reset(seed=seed)
        shown_name = opponent_names(spec, name, asked)
        return WebGame("", name, asked, seat, {p: spec for p in agents}, {p: shown_name for p in agents}, seed,
                       seed_given, agents, env, cost, start=len(env.history or ()))

    def load_agent(self, target: str, spec: str, name: str, seed: int, options: dict) -> Any:
        try:
            return load_agent(target, name, seed=seed, **options)
        except (ValueError, TypeError, ImportError, OSError) as error:
            raise RequestError("bad_agent", str(error)) from None
        except Exception as error:  # a damaged file a loader did not name
            traceback.print_exc(file=sys.stderr)
            raise RequestError("bad_agent", f"agent {shown(spec)} could not be loaded: {type(error).__name__}: {error}") from None

    # ----- the other requests ------------------------------------------------------------------------
    def do_web_view(self, request: dict) -> dict:
        game = self.web_game(request)
        game.check_time()
        return game.view(everything=True)

    def do_web_resume(self, request: dict) -> dict:
        """The game kept under ``link`` (a page's address), held by this client from now on."""
        game = self.counter.find(request["link"])
        if game is None:
            raise RequestError(
                "no_game", f"no game is kept under this link: a game is forgotten {self.counter.expiry / 60:.0f} "
                           "minutes after its last move, or when it is closed; start a new one",
            )
        if game.owner is not self:
            self.check_room()
        self.attach(game)
        game.check_time()
        return game.view(everything=True)

    def do_web_close(self, request: dict) -> dict:
        game = self.web_game(request)
        self.counter.forget(game)
        return {"game_id": game.game_id, "open_games": list(self.games)}

    def person_to_move(self, game: WebGame) -> None:
        to_move = game.to_move()
        if to_move is None:
            raise RequestError("game_over", "the game is over: " + game.result()["text"])
        if to_move != game.seat:
            raise RequestError("not_your_turn", f"it is player_{to_move}'s turn ({game.names[to_move]}), not yours")

    def person_action(self, game: WebGame, move: Any) -> int:
        """The action of a ``move`` field (a number or notation), legal for the person now."""
        self.person_to_move(game)
        if isinstance(move, str):
            try:
                action = game.game.string_to_action(move)
            except ValueError as error:
                raise RequestError("illegal_action", str(error)) from None
        else:
            action = move
        reason = game.game.why_illegal(action)
        if reason is not None:
            raise RequestError("illegal_action", reason)
        return action

    def do_web_play(self, request: dict) -> dict:
        """The person's move; a timed game whose clock ran out answers its end instead."""
        game = self.web_game(request)
        if game.check_time():
            return game.view()
        game.play(self.person_action(game, request["move"]))
        return game.view()

    def do_web_bot(self, request: dict) -> dict:
        """A bot's turn: the moves of the bot to act until another seat is to act or the game
        ends (``bot_moves``: each seat and notation; a move in a phase secret to the person
        is played but not listed, so nothing tells them it happened). Each move is bounded by
        the move time limit. ``stand_in``: a named bot plays this turn instead (the person's
        way on after the bot failed)."""
        game = self.web_game(request)
        if game.check_time():
            answer = game.view()
            answer["bot_moves"] = []
            return answer
        bot = game.to_move()
        if bot is None:
            raise RequestError("game_over", "the game is over: " + game.result()["text"])
        if bot == game.seat:
            raise RequestError("not_your_turn", "it is your turn: no bot is to move")
        agent, spec = self.turn_agent(game, bot, request.get("stand_in"))
        moves, thinking = [], []
        while game.to_move() == bot:
            env = game.env
            secret = phase_of(env) in game.description.play.secret_phases
            observation = env.observe(env.possible_agents[bot])
            with watched(agent) as visits:
                action = self.server.agent_action(agent, spec, observation, game.game)
            if not secret:  # a secret move's search would tell it
                notation = game.game.action_to_string(action)
                moves.append({"seat": bot, "notation": notation})
                if visits:
                    thinking.append({"seat": bot, "notation": notation, "top": top_moves(game.game, visits)})
            game.step(action)
        game.undo_stack.clear()  # the turn changed hands
        answer = game.view()
        answer["bot_moves"] = moves
        answer["thinking"] = thinking
        return answer

    def turn_agent(self, game: WebGame, bot: int, stand_in: str | None) -> tuple[Any, str]:
        if stand_in is None:
            return game.agents[bot], game.specs[bot]
        if stand_in not in STAND_INS or stand_in not in bot_table(game.name):
            raise RequestError("bad_agent", f"field 'stand_in' names a bot that plays one turn for a failed one: "
                                            f"{', '.join(STAND_INS)}, not {shown(stand_in)}")
        seed = (game.seed + 1 + bot + len(game.steps)) % (MAX_SEED + 1)
        return self.load_agent(stand_in, stand_in, game.name, seed, game.env.options), stand_in

    def do_web_hint(self, request: dict) -> dict:
        """The move the strongest level that answers within a second (else the heuristic) would
        play for the person now, drawn on the board; counted in the game's log and result."""
        game = self.web_game(request)
        self.person_to_move(game)
        options = game.options
        spec = default_level(game.name, HINT_MS, **options) or "heuristic"
        try:
            target = self.server.check_agent_spec(self.server.level_target(spec, game.name, options), game.name)
        except RequestError:
            spec = target = "heuristic"
        agent = self.load_agent(target, spec, game.name, (game.seed + 7 + len(game.steps)) % (MAX_SEED + 1),
                                game.env.options)
        env = game.env
        observation = env.observe(env.possible_agents[game.seat])
        action = self.server.agent_action(agent, spec, observation, game.game)
        notation = game.game.action_to_string(action)
        who = opponent_names(spec, game.name, options)
        game.hints += 1
        game.steps.append(Step(None, None, None, f"hint {game.hints}: {who} would play {notation}", True,
                               len(env.history or ())))
        board = game.description.board
        answer = game.view()
        answer.update({"hint": {"action": action, "notation": notation, "by": who,
                                "element": board.element(game.game, action)}})
        return answer

    def do_web_position(self, request: dict) -> dict:
        """The replay at the end: the board after the log's first ``step`` lines, every seat's
        hidden items shown (the game is over: nothing is secret any more)."""
        game = self.web_game(request)
        if not game.game.is_terminal():
            raise RequestError("bad_request", "the replay opens once the game is over")
        visible = [s for s in game.steps if s.visible]
        step = request["step"]
        if not 0 <= step <= len(visible):
            raise RequestError("bad_request", f"field 'step' must be 0…{len(visible)} (the log's lines), not {step}")
        description = game.description
        players = tuple(range(len(game.game.scores())))
        if step == len(visible):
            engine = game.game
        else:
            engine = description.new_game(game.env.options)
            count = visible[step - 1].history if step else game.start
            for action in (game.env.history or [])[:count]:
                engine.apply(action)
        return {"game_id": game.game_id, "step": step, "svg": description.board.svg(engine, players),
                "status": description.board.status(engine, players)}

    def do_web_review(self, request: dict) -> dict:
        """At the end, each of the person's moves beside a stronger one's: for Linecatch the
        points it lost to perfect play (the exact solver, where its table is built), for the
        other games the move a quick search (the strongest level within ``REVIEW_MS``, else the
        heuristic) prefers there. Reckoned once per game."""
        game = self.web_game(request)
        if not game.game.is_terminal():
            raise RequestError("bad_request", "the review opens once the game is over")
        if game.review is None:
            game.review = solver_review(game) or self.search_review(game)
        return {"game_id": game.game_id, "review": game.review}

    def search_review(self, game: WebGame) -> list[dict[str, Any]]:
        spec = default_level(game.name, REVIEW_MS, **game.options) or "heuristic"
        try:
            target = self.server.check_agent_spec(self.server.level_target(spec, game.name, game.options), game.name)
        except RequestError:
            spec = target = "heuristic"
        agent = self.load_agent(target, spec, game.name, game.seed, game.env.options)
        who = opponent_names(spec, game.name, game.options)
        review = []
        for ply, env, action in person_positions(game):
            observation = env.observe(env.possible_agents[game.seat])
            try:
                preferred = self.server.agent_action(agent, spec, observation, env.game)
            except RequestError:
                continue  # a move the reviewer could not weigh in time: left without a word
            review.append({"ply": ply, "played": env.game.action_to_string(action),
                           "preferred": env.game.action_to_string(preferred), "by": who, "lost": None})
        return review

    def do_web_undo(self, request: dict) -> dict:
        game = self.web_game(request)
        if not game.can_undo():
            raise RequestError("no_undo", f"nothing to take back: {game.description.play.undo_rule}, within your own turn")
        notation = game.undo()
        answer = game.view()
        answer["undone"] = notation
        return answer

    def do_web_why(self, request: dict) -> dict:
        """Why a board element holds no legal move for the person now (the engine's sentence
        for the element's moves, the most frequent one)."""
        game = self.web_game(request)
        element = request["element"]
        to_move = game.to_move()
        if to_move is None:
            return {"element": element, "legal": [], "reason": "the game is over"}
        if to_move != game.seat:
            # never ask the engine on another seat's turn: its reasons would speak of that
            # seat's hidden items (a hand, a trap)
            return {"element": element, "legal": [], "reason": f"it is player_{to_move}'s turn ({game.names[to_move]}), not yours"}
        engine, board = game.game, game.description.board
        count = int(game.env.action_space(game.env.possible_agents[0]).n)
        mine = [a for a in range(count) if board.element(engine, a) == element]
        legal = set(engine.legal_actions())
        playable = [a for a in mine if a in legal]
        if playable:
            return {"element": element, "legal": playable, "reason": None}
        if not mine:
            return {"element": element, "legal": [], "reason": "there is no move there"}
        reasons = Counter(engine.why_illegal(a) for a in mine)
        reason = max(reasons, key=lambda r: (reasons[r], -list(reasons).index(r)))
        return {"element": element, "legal": [], "reason": reason}

    def do_web_preview(self, request: dict) -> dict:
        """One of several legal moves of an element, drawn on the board (not played)."""
        game = self.web_game(request)
        action = self.person_action(game, request["move"])
        engine, board = game.game, game.description.board
        element = board.element(engine, action)
        siblings = [a for a in engine.legal_actions() if board.element(engine, a) == element]
        if len(siblings) < 2 or not board.can_preview(engine, action):
            raise RequestError(
                "bad_request", f"a preview shows one of several moves of one board element; {engine.action_to_string(action)} "
                               "is the only move of its element: play it",
            )
        return {"game_id": game.game_id, "action": action, "notation": engine.action_to_string(action),
                "element": element, "svg": board.svg(engine, (game.seat,), preview=action)}


__all__ = ["GameCounter", "MB", "Step", "WebGame", "WebGames", "narrations", "opponent_names"]
