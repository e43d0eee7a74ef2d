"""Games the bot server holds for a front end that keeps no game state: the web page.

The protocol's ``move``, ``legal`` and ``why_illegal`` take the whole position from the client,
hidden items and all; a page in a browser must never hold those (a player could read them). The
``web_*`` requests keep each game on the server instead, with its true state, and answer with
what the player's own seat may see and nothing more:

* ``web_new_game`` starts a game for a person at ``seat`` against ``opponent`` (every other seat)
  and answers its **view**;
* ``web_play`` plays the person's move, ``web_bot`` the turn of the bot to act (the page
  shows "thinking…" meanwhile), ``web_undo`` takes back a step of the person's own turn where the
  game allows it (terminal play's rule), each answering the new view;
* ``web_why`` says why a clicked board element holds no legal move (the engine's
  ``why_illegal`` sentence), ``web_preview`` draws one of several moves of an element on the
  board without playing it, ``web_view`` repeats the view, ``web_close`` ends the game.

A view holds the board as SVG from the person's seat (``GameDescription.board``), whose turn it
is, the scores, the status line, the person's legal moves each with the board element it
belongs to, whether undo is possible, the new entries of the game's log (moves in notation and
what they did, as the seat may know it: an opponent's move in a secret phase, such as Fill's
traps, is not even mentioned), the elements of each seat's last turn, and the result at the
end. Never a snapshot, an opponent's hand, goal or trap, or the seed of a game the client did
not seed (a seed fixes every deal and draw) before the game is over.

The games live in the :class:`WebGames` part of a ``BotServer``: one per client (a WebSocket
connection, or the stdin server), so one client's games are unreachable from another's; a
client holds at most ``max_games`` and a :class:`GameCounter` bounds them over a whole server.
"""

from __future__ import annotations

import secrets
import sys
import threading
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import envs
from training import load_agent
from training.agents.checkpoint import portable_options
from training.serving.protocol import RequestError, shown
from training.serving.terminal import phase_of

DEFAULT_MAX_GAMES = 4  # open web games per client (a connection; the stdin server is one client)
DEFAULT_MAX_SERVER_GAMES = 100  # open web games over a whole server (every client)
DEFAULT_MAX_GAMES_MEMORY_MB = 1024  # the games' own data over a whole server (a user's Uzor Map laid on its table)
MB = 1 << 20
MAX_SEED = 2**63 - 1
RANDOM_SEEDS = 2**53  # a seed the server draws stays below this: a page's JavaScript numbers hold it exactly


class GameCounter:
    """The open web games of a whole server, under a limit, and the memory the games hold of
    their own (``Game.memory_estimate_for``: a user's Uzor Map), under a budget in bytes
    (shared by its clients' servers; the bot protocol's ``new_game`` game is charged too)."""

    def __init__(self, limit: int = DEFAULT_MAX_SERVER_GAMES, memory_limit: int = DEFAULT_MAX_GAMES_MEMORY_MB * MB):
        self.limit = limit
        self.count = 0
        self.memory_limit = memory_limit
        self.memory = 0
        self.lock = threading.Lock()

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
        with self.lock:
            if self.count >= self.limit:
                return False
            self.count += 1
            return True

    def give_back(self, count: int = 1) -> None:
        with self.lock:
            self.count = max(0, self.count - count)


@dataclass
class Step:
    """One action of the game, as the person's seat may know it."""

    player: int | None  # None: a chance outcome
    notation: str | None  # None where the seat may not know the move
    element: str | None  # the board element the move belongs to (None: chance, or secret)
    text: str | None  # what it did, in a sentence (the game's narration for the seat)
    visible: bool  # False: a move the seat may not even know happened


@dataclass
class WebGame:
    """One game a person plays on the server (see the module docstring)."""

    game_id: str
    name: str
    options: dict[str, Any]
    seat: int
    specs: dict[int, str]  # seat -> the agent spec playing it
    seed: int
    seed_given: bool
    agents: dict[int, Any]
    env: Any
    cost: int = 0  # bytes charged to the server's memory budget (GameCounter.reserve)
    steps: list[Step] = field(default_factory=list)
    undo_stack: list[tuple[dict, list | None, int]] = field(default_factory=list)
    sent: int = 0  # log entries the client has

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
        state = before
        for index, done in enumerate(applied):
            after = state.clone()
            after.apply(done)
            text = rules.narrate(state, done, after, self.seat) if rules.narrate and not secret else None
            if index == 0:
                self.steps.append(Step(player, None if secret else notation, None if secret else element, text,
                                       not secret))
            elif text:
                self.steps.append(Step(None, None, None, text, True))
            state = after

    def log_entries(self) -> list[dict[str, Any]]:
        return [{"seat": s.player, "notation": s.notation, "text": s.text} for s in self.steps if s.visible]

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
        answer: dict[str, Any] = {
            "game_id": self.game_id,
            "game": self.name,
            "title": description.facts.long_name,
            "options": portable_options(self.env.options),
            "seat": seat,
            "players": [{"seat": p, "name": "you" if p == seat else self.specs[p]} for p in range(len(game.scores()))],
            "seed": self.seed if self.seed_given or over else None,
            "svg": board.svg(game, (seat,)),
            "to_move": to_move,
            "your_turn": yours,
            "over": over,
            "scores": game.scores(),
            "status": board.status(game, (seat,)),
            "actions": actions,
            "undo": self.can_undo(),
            "undo_rule": description.play.undo_rule,
            "log_start": start,
            "log": log[start:],
            "last": self.last_turns(),
            "notes": self.private_notes(),
            "result": self.result() if over else None,
        }
        return answer

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
        others = ", ".join(f"{self.specs[p]} (player_{p}) {scores[p]:g}" for p in range(len(scores)) if p != seat)
        words = {"win": "You win", "draw": "A draw: you share first place", "loss": "You lose"}[outcome]
        return {"outcome": outcome, "returns": returns, "scores": scores,
                "text": f"{words}: you {scores[seat]:g}, {others}."}

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
        return notation


class WebGames:
    """The ``web_*`` requests of a ``BotServer`` (see the module docstring). The server's
    ``__init__`` calls :meth:`init_web_games`."""

    def init_web_games(self, max_games: int = DEFAULT_MAX_GAMES, counter: GameCounter | None = None) -> None:
        self.max_games = max_games
        self.game_counter = counter if counter is not None else GameCounter(max_games)
        self.web_games: dict[str, WebGame] = {}
        self.web_ids = 0

    def close_web_games(self) -> None:
        """End every game of this client (its connection closed), the bot protocol's too."""
        self.game_counter.give_back(len(self.web_games))
        self.game_counter.release(sum(game.cost for game in self.web_games.values()))
        self.web_games.clear()
        self.end_session()

    def end_session(self) -> None:
        """The bot protocol's game ends (``BotServer`` overrides: its memory goes back)."""

    def memory_cost(self, name: str, resolved: dict[str, Any]) -> int:
        """What a game of these options is charged (``Game.memory_estimate_for``)."""
        return int(envs.describe(name).engine.memory_estimate_for(resolved))

    def reserve_memory(self, name: str, resolved: dict[str, Any], cost: int) -> None:
        """Charge a new game's memory to the server's budget, or refuse it naming the options
        that cost it."""
        if self.game_counter.reserve(cost):
            return
        costly = [key for key in envs.describe(name).engine.MEMORY_OPTIONS if key in resolved]
        named = " and ".join(f"'{key}'" for key in costly) or "these options"
        limit = self.game_counter.memory_limit
        if cost > limit:
            where = f"more than this server's whole budget of {limit / MB:.0f} MB for the games' own data"
        else:
            where = (f"and this server's games hold {self.game_counter.memory / MB:.0f} MB of its "
                     f"{limit / MB:.0f} MB budget for the games' own data; try again later")
        raise RequestError(
            "over_limit", f"a {name} game with these options ({named}) needs about {cost / MB:.0f} MB of its own, "
                          f"{where} (--max-games-memory); smaller values of {named} cost less",
        )

    def web_game(self, request: dict) -> WebGame:
        game = self.web_games.get(request["game_id"])
        if game is None:
            raise RequestError(
                "no_game", f"no game {shown(request['game_id'])} here: start one with 'web_new_game' "
                           f"(this client's games: {', '.join(self.web_games) or 'none'})",
            )
        return game

    # ----- requests ----------------------------------------------------------------------------------
    def do_web_new_game(self, request: dict) -> dict:
        name = self.game_name(request["game"])
        description = envs.describe(name)
        if description.board is None:
            raise RequestError("unknown_game", f"{name} has no board view (GameDescription.board): it cannot be played on the page")
        options = dict(request.get("options", {}))
        try:
            resolved = description.resolve_options(options)
        except (ValueError, TypeError) as error:
            raise RequestError("bad_options", str(error)) from None
        players = description.engine.num_players_for(resolved)
        seat = request.get("seat", 0)
        if not 0 <= seat < players:
            raise RequestError("bad_request", f"field 'seat' must be 0…{players - 1} in {name} with these options, not {seat}")
        if resolved.get("time_limit") and "clocked" not in options:
            options["clocked"] = [f"player_{seat}"]  # a bot has no clock; a person does
        seed_given = "seed" in request
        seed = request["seed"] if seed_given else secrets.randbelow(RANDOM_SEEDS)
        if not 0 <= seed <= MAX_SEED:
            raise RequestError("bad_request", f"field 'seed' must be an integer 0…{MAX_SEED}, not {seed}")
        spec = request["opponent"]
        target = self.check_agent_spec(self.level_target(spec, name, options), name)
        self.check_prepared(target, name, options)
        if len(self.web_games) >= self.max_games:
            raise RequestError(
                "over_limit", f"this client has {len(self.web_games)} open games, the most this server allows "
                              f"(--max-games {self.max_games}); close one with 'web_close'",
            )
        cost = self.memory_cost(name, resolved)
        self.reserve_memory(name, resolved, cost)  # before the game is made: making it is what costs
        if not self.game_counter.take():
            self.game_counter.release(cost)
            raise RequestError(
                "over_limit", f"this server holds {self.game_counter.limit} open games, the most it allows "
                              "(--max-server-games); try again later",
            )
        try:
            try:
                env = envs.load(name).raw_env(**options)
            except (ValueError, TypeError) as error:
                raise RequestError("bad_options", str(error)) from None
            agents = {}
            for other in range(players):
                if other != seat:
                    agents[other] = self.load_web_agent(target, spec, name, (seed + 1 + other) % (MAX_SEED + 1), options)
            self.web_ids += 1
            game_id = f"g{self.web_ids}"
            env.reset(seed=seed)
            game = WebGame(game_id, name, options, seat, {p: spec for p in agents}, seed, seed_given, agents, env, cost)
        except BaseException:
            self.game_counter.give_back()
            self.game_counter.release(cost)
            raise
        self.web_games[game_id] = game
        return game.view(everything=True)

    def load_web_agent(self, target: str, spec: str, name: str, seed: int, options: dict) -> Any:
        try:
            return load_agent(target, name, seed=seed, **options)
        except (ValueError, TypeError, ImportError, OSError) as error:
            raise RequestError("bad_agent", str(error)) from None
        except Exception as error:  # a damaged file a loader did not name
            traceback.print_exc(file=sys.stderr)
            raise RequestError("bad_agent", f"agent {shown(spec)} could not be loaded: {type(error).__name__}: {error}") from None

    def do_web_view(self, request: dict) -> dict:
        return self.web_game(request).view(everything=True)

    def do_web_close(self, request: dict) -> dict:
        game = self.web_game(request)
        del self.web_games[game.game_id]
        self.game_counter.give_back()
        self.game_counter.release(game.cost)
        return {"game_id": game.game_id, "open_games": list(self.web_games)}

    def person_to_move(self, game: WebGame) -> None:
        to_move = game.to_move()
        if to_move is None:
            raise RequestError("game_over", "the game is over: " + game.result()["text"])
        if to_move != game.seat:
            raise RequestError("not_your_turn", f"it is player_{to_move}'s turn ({game.specs[to_move]}), not yours")

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
        game = self.web_game(request)
        game.play(self.person_action(game, request["move"]))
        return game.view()

    def agent_action(self, agent: Any, spec: str, observation: dict, game: Any) -> int:
        """The agent's move in ``game`` within the move time limit, legal there: its failure
        (traceback on stderr) or an illegal choice is the request's ``agent_error``."""
        try:
            with self.time_limit("a move", spec):
                action = int(agent.act(observation))
        except RequestError:
            raise
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            raise RequestError("agent_error", f"agent {shown(spec)} failed: {error}") from None
        reason = game.why_illegal(action)
        if reason is not None:
            raise RequestError("agent_error", f"agent {spec!r} chose action {action}, which is illegal: {reason}")
        return action

    def do_web_bot(self, request: dict) -> dict:
        """A bot's turn: the moves of the bot to act until another seat is to act or the game
        ends (``bot_moves``: each seat and notation; a move in a phase secret to the person
        is played but not listed, so nothing tells them it happened). Each move is bounded by
        the move time limit."""
        game = self.web_game(request)
        bot = game.to_move()
        if bot is None:
            raise RequestError("game_over", "the game is over: " + game.result()["text"])
        if bot == game.seat:
            raise RequestError("not_your_turn", "it is your turn: no bot is to move")
        moves = []
        while game.to_move() == bot:
            env = game.env
            secret = phase_of(env) in game.description.play.secret_phases
            agent, spec = game.agents[bot], game.specs[bot]
            observation = env.observe(env.possible_agents[bot])
            action = self.agent_action(agent, spec, observation, game.game)
            if not secret:
                moves.append({"seat": bot, "notation": game.game.action_to_string(action)})
            game.step(action)
        game.undo_stack.clear()  # the turn changed hands
        answer = game.view()
        answer["bot_moves"] = moves
        return answer

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
            return {"element": element, "legal": [], "reason": f"it is player_{to_move}'s turn ({game.specs[to_move]}), not yours"}
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


__all__ = ["DEFAULT_MAX_GAMES", "DEFAULT_MAX_GAMES_MEMORY_MB", "DEFAULT_MAX_SERVER_GAMES", "GameCounter", "WebGame", "WebGames"]
