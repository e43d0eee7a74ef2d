"""The bot server's answers: ``BotServer`` answers one parsed request line at a time, within its
limits (simulations, time a move, agent files under one folder), for the game the last
``new_game`` started. ``training.serve`` feeds it lines; ``training.serving.protocol`` holds the
request shapes and the answer encoding.
"""

from __future__ import annotations

import contextlib
import json
import random
import signal
import sys
import threading
import time
import traceback
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

import envs
from envs.core.game import SnapshotError, is_int
from envs.registry import canonical_name as game_name
from training.agents.levels import agent_levels
from training.players.load import bot_table, load_agent
from training.agents.levels import LevelsError, is_level_spec, level_spec, levelled_option_sets
from training.serving.agent_specs import AgentSpecChecks, shipped_checkpoints
from training.common.time_budget import time_budget
from training.serving.deadline import BACKSTOP_S, thread_deadline
from training.serving.preparation import preparing
from training.serving.protocol import (
    DEFAULT_MAX_GAMES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_SIMULATIONS, DEFAULT_MOVE_TIME_LIMIT_S, PROTOCOL, PROTOCOL_VERSION, REQUESTS, SURROGATE, RequestError, _finite_float,
    _no_constant, _NumberOutOfRange, check_fields, cut, error_answer, json_type, request_problem, shown,
)
from training.serving.web_games import GameCounter, WebGames

MAX_SEED = 2**63 - 1
ROOT = Path(__file__).resolve().parents[2]
PROBABILITY_TOLERANCE = 1e-6
LEVEL_FIELDS = ("level", "name", "spec", "elo", "ms_per_move")  # what list_agents tells of each level
# (game, options, search settings, trial simulations) -> seconds a simulation, measured once per
# process by BotServer.search_seconds (every client's server shares it)
SEARCH_SPEEDS: dict[tuple, float] = {}


class MoveTimeout(BaseException):
    """Raised by the alarm inside an agent that is over the move time limit (a BaseException,
    so that no ``except Exception`` in an agent swallows it)."""


# ----- the game a front end plays -----------------------------------------------------------------
@dataclass
class Session:
    """The game of the last successful ``new_game``."""

    name: str
    options: dict[str, Any]
    agent_spec: str
    seed: int
    agent: Any
    env: Any  # the game's raw_env: its engine, observer and notation
    completion_rng: random.Random  # draws omitted hidden items, seeded by the game's seed
    complete_snapshot: Callable

    @property
    def players(self) -> int:
        return len(self.env.possible_agents)


class BotServer(AgentSpecChecks):
    """Answers one parsed request at a time; ``serve`` does the line reading and writing (one
    server per client). The ``web_*`` requests go to its :class:`WebGames` (``web``), which
    holds this client's games (``training.serving.web_games``).

    ``listed_files_only``: agent files only as ``list_agents`` lists them (the shipped ones),
    never another path a client names (the web server, open to anyone who reaches it;
    ``training.serving.agent_specs`` checks every agent a request names).

    ``prepare_in_background``: work an agent needs done once before it can be made (Linecatch's
    solver table) is done in the background, and a game start meanwhile answered ``preparing``
    (the web server: a worker thread is not held, outside the move time limit, while it is
    done; ``training.serving.preparation``). Otherwise the game start does it."""

    def __init__(
        self,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_simulations: int = DEFAULT_MAX_SIMULATIONS,
        move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT_S,
        agents_dir: str | Path = ".",
        max_games: int = DEFAULT_MAX_GAMES,
        game_counter: GameCounter | None = None,
        listed_files_only: bool = False,
        prepare_in_background: bool = False,
        game_clock: Callable[[], float] | None = None,
    ):
        self.max_line_bytes = max_line_bytes
        self.max_simulations = max_simulations
        self.move_time_limit = move_time_limit
        self.agents_dir = Path(agents_dir)
        self.listed_files_only = listed_files_only
        self.prepare_in_background = prepare_in_background
        self.session: Session | None = None
        self.quitting = False
        self.game_counter = game_counter if game_counter is not None else GameCounter(max_games)
        self.web = WebGames(self, max_games, self.game_counter, game_clock)
        self.session_cost = 0  # the session's game's memory, charged to the game counter's budget
        self.trusted_files: set[str] = set()  # the shipped files levels name (``level_target``)

    def level_target(self, spec: str, name: str, options: dict) -> str:
        """What a ``level:K`` agent plays (its spec from the game's levels); other specs as given.
        A level's search is held to the same limits as the search named outright; a level's
        agent file is loaded wherever the agents folder is only when it is a shipped file: in
        the game's folder of shipped agents (``checkpoints/<game>/``) and, with
        ``listed_files_only``, listed in its manifest. Any other file a level names is held to
        the rules of a file a request names (so an absolute path is refused)."""
        if not is_level_spec(spec):
            return spec
        try:
            target = level_spec(spec, name, **options)
        except ValueError as error:
            raise RequestError("bad_agent", str(error)) from None
        if target.split(":")[0] != "mcts" and target not in bot_table(name) and target != "trained":
            if self.shipped_level_file(target, name):
                self.trusted_files.add(target)
            elif Path(target).is_absolute() or self.listed_files_only:
                raise RequestError(
                    "bad_agent", f"{spec} of {name} plays the agent file {shown(target)}, which is not a shipped agent file "
                                 f"of the game (one its manifest lists in checkpoints/{envs.describe(name).short_name}/): refused",
                )
        return target

    def shipped_level_file(self, target: str, name: str) -> bool:
        """Whether a level's agent file lies in the game's folder of shipped agents (links
        followed) and, with ``listed_files_only``, its manifest lists it."""
        from training.agents.levels import CHECKPOINTS
        from training.agents.manifest import ManifestError, game_manifest

        folder = CHECKPOINTS / envs.describe(name).short_name
        try:
            path = Path(target)
            if not path.resolve().is_relative_to(folder.resolve()) or path.resolve().parent != folder.resolve():
                return False
        except (OSError, RuntimeError, ValueError):
            return False
        if not self.listed_files_only:
            return True
        try:
            return game_manifest(name).entry(path.name) is not None
        except ManifestError:
            return False

    def check_prepared(self, target: str, name: str, options: dict) -> None:
        """With ``prepare_in_background``, refuse (``preparing``) an agent whose one-time work is
        not done yet, having started it."""
        if not self.prepare_in_background:
            return
        what = preparing(target, name, options)
        if what is not None:
            raise RequestError(
                "preparing", f"this server is preparing {what}, which this agent needs (a few seconds, once); "
                             "ask again in a moment",
            )

    # ----- limits ----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def time_limit(self, what: str, spec: str | None = None) -> Iterator[None]:
        """Interrupt the agent's work past ``move_time_limit`` seconds with ``over_limit`` (an
        interval timer in the main thread, where the stdin server runs; in a worker thread,
        where the web server runs requests, ``training.serving.deadline``)."""
        if self.move_time_limit <= 0:
            yield
            return
        spec = spec if spec is not None else self.session.agent_spec
        over = RequestError(
            "over_limit",
            f"agent {shown(spec)} took longer than {self.move_time_limit:g} s for {what}, "
            "this server's limit (--move-time-limit); ask for less work (fewer simulations)",
        )
        if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
            try:
                with thread_deadline(self.move_time_limit, MoveTimeout):
                    yield
            except MoveTimeout:
                raise over from None
            return

        def alarm(signum, frame):
            raise MoveTimeout()

        # The searches check the budget (what a finalizer swallows, they still see); the timer is
        # a backstop a little later for code that does not check, disarmed inside the budget's
        # block so that it never fires while the budget's own exception unwinds.
        previous = signal.signal(signal.SIGALRM, alarm)
        try:
            with time_budget(self.move_time_limit, MoveTimeout):
                signal.setitimer(signal.ITIMER_REAL, self.move_time_limit + BACKSTOP_S)
                try:
                    yield
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except MoveTimeout:
            raise over from None
        finally:
            signal.signal(signal.SIGALRM, previous)

    # ----- framing ---------------------------------------------------------------------------------
    def answer_line(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line (never raises)."""
        try:
            request = json.loads(line.decode("utf-8"), parse_float=_finite_float, parse_constant=_no_constant)
        except UnicodeDecodeError as error:
            return error_answer(None, "bad_json", f"the request is not UTF-8 text: {error}")
        except _NumberOutOfRange as error:
            return error_answer(None, "bad_request", f"{error}; numbers in requests are finite")
        except (ValueError, RecursionError) as error:
            return error_answer(None, "bad_json", f"the request is not valid JSON: {error}")
        if not isinstance(request, dict):
            return error_answer(None, "bad_request", f"a request is a JSON object, not {json_type(request)}")
        request_id = request.get("id")
        if isinstance(request_id, (dict, list)):
            return error_answer(None, "bad_request", "field 'id' must be a string, a number or null")
        problem = request_problem(request)
        if problem is not None:
            echo = request_id if not (isinstance(request_id, str) and SURROGATE.search(request_id)) else None
            return error_answer(echo, "bad_request", problem)
        try:
            kind = request.get("type")
            if kind is None:
                raise RequestError("bad_request", f"a request needs a 'type', one of: {', '.join(REQUESTS)}")
            if not isinstance(kind, str):
                raise RequestError("bad_request", f"field 'type' must be a string, not {json_type(kind)}")
            if kind not in REQUESTS:
                raise RequestError("unknown_type", f"unknown request type {kind!r}; the types are: {', '.join(REQUESTS)}")
            check_fields(kind, request)
            body = getattr(self.web if kind.startswith("web_") else self, f"do_{kind}")(request)
        except RequestError as error:
            return error_answer(request_id, error.code, error.message)
        except Exception as error:  # a bug, not the client's fault: say so and keep serving
            traceback.print_exc(file=sys.stderr)
            return error_answer(request_id, "internal", f"the server failed on this request: {cut(repr(error), 300)}")
        return {"id": request_id, "ok": True, "type": kind, **body}

    # ----- requests --------------------------------------------------------------------------------
    def do_hello(self, request: dict) -> dict:
        return {
            "protocol": PROTOCOL,
            "version": PROTOCOL_VERSION,
            "max_line_bytes": self.max_line_bytes,
            "max_simulations": self.max_simulations,
            "move_time_limit_s": self.move_time_limit,
            "max_games": self.web.max_games,
            "requests": list(REQUESTS),
        }

    def do_list_games(self, request: dict) -> dict:
        games = []
        for game in envs.DESCRIPTIONS:
            games.append({
                "game": game.name,
                "default_options": game.portable_options(game.engine.OPTIONS),
                "completes_hidden_items": True,
            })
        return {"games": games}

    def do_list_agents(self, request: dict) -> dict:
        name = self.game_name(request["game"])
        options = request.get("options", {})
        try:
            envs.describe(name).resolve_options(options)
        except (ValueError, TypeError) as error:
            raise RequestError("bad_options", str(error)) from None
        answer: dict[str, Any] = {"game": name, "agents": list(bot_table(name)),
                                  "checkpoints": shipped_checkpoints(name, self.agents_dir)}
        try:
            levels_for = levelled_option_sets(name)
            try:
                levels = [{key: level[key] for key in LEVEL_FIELDS} for level in agent_levels(name, **options)]
            except LevelsError:
                raise
            except ValueError:  # no levels for these options: levels_for names the option sets that have them
                levels = []
        except LevelsError as error:  # a damaged levels file: the agents are still listed, and why no level is
            return {**answer, "levels": [], "levels_for": [], "levels_error": str(error)}
        return {**answer, "levels": levels, "levels_for": levels_for}

    def do_new_game(self, request: dict) -> dict:
        name = self.game_name(request["game"])
        description = envs.describe(name)
        options = request.get("options", {})
        seed = request.get("seed", 0)
        if not 0 <= seed <= MAX_SEED:
            raise RequestError("bad_request", f"field 'seed' must be an integer 0…{MAX_SEED}, not {seed}")
        try:
            # resolve first: it refuses names that are not game options (render_mode among them)
            resolved = description.resolve_options(options)
        except (ValueError, TypeError) as error:
            raise RequestError("bad_options", str(error)) from None
        spec = request["agent"]
        target = self.check_agent_spec(self.level_target(spec, name, options), name)
        self.check_prepared(target, name, options)
        cost = self.game_counter.charge(name, resolved)  # before the game is made: making it is what costs
        try:
            try:
                env = envs.load(name).raw_env(**options)
            except (ValueError, TypeError) as error:
                raise RequestError("bad_options", str(error)) from None
            try:
                agent = load_agent(target, name, seed=seed, **options)
            except (ValueError, TypeError, ImportError, OSError) as error:
                raise RequestError("bad_agent", str(error)) from None
            except (zipfile.BadZipFile, zlib.error, EOFError) as error:  # a damaged file a loader did not name
                traceback.print_exc(file=sys.stderr)
                raise RequestError("bad_agent", f"agent file {shown(spec)} is damaged: {type(error).__name__}: {error}") from None
        except BaseException:
            self.game_counter.release(cost)
            raise
        completer = description.sampling.complete_snapshot
        self.end_session()
        self.session = Session(name, dict(options), spec, seed, agent, env, random.Random(seed), completer)
        self.session_cost = cost
        return {
            "game": name,
            "options": description.portable_options(resolved),
            "seats": list(env.possible_agents),
            "num_actions": int(env.action_space(env.possible_agents[0]).n),
            "agent": spec,
            "seed": seed,
            "probabilities": callable(getattr(agent, "action_probabilities", None)),
            "completes_hidden_items": True,
        }

    def do_move(self, request: dict) -> dict:
        session = self.require_session()
        env, seat = self.position(request)
        game = env.game
        if game.is_terminal():
            raise RequestError("game_over", f"the game is over in this position (scores {game.scores()}): there is no move to make")
        to_move = game.current_player()
        if seat is None:
            seat = to_move
        elif seat != to_move:
            raise RequestError(
                "not_your_turn", f"it is player_{to_move}'s turn in this position, not player_{seat}'s"
            )
        observation = env.observe(env.possible_agents[seat])
        agent = session.agent
        answer: dict[str, Any] = {"seat": seat}
        if request.get("probabilities", False):
            if not callable(getattr(agent, "action_probabilities", None)):
                raise RequestError(
                    "no_probabilities",
                    f"agent {session.agent_spec!r} has no probabilities (no action_probabilities method); "
                    "ask without \"probabilities\": true",
                )
            with self.time_limit("its probabilities"):
                answer["probabilities"] = self.probabilities(game, observation)
        action = self.agent_action(agent, session.agent_spec, observation, game)
        answer.update(action=action, notation=game.action_to_string(action))
        return answer

    def do_legal(self, request: dict) -> dict:
        env, seat = self.position(request)
        game = env.game
        over = game.is_terminal()
        to_move = None if over else game.current_player()
        if seat is not None and not over and seat != to_move:
            raise RequestError("not_your_turn", f"it is player_{to_move}'s turn in this position, not player_{seat}'s")
        answer = {
            "seat": to_move,
            "over": over,
            "scores": game.scores(),
            "legal": [{"action": a, "notation": game.action_to_string(a)} for a in game.legal_actions()],
        }
        if over:
            answer["returns"] = game.returns()
        return answer

    def do_why_illegal(self, request: dict) -> dict:
        env, _ = self.position(request)
        game = env.game
        move = request["move"]
        if isinstance(move, str):
            try:
                action = game.string_to_action(move)
            except ValueError as error:
                return {"move": move, "action": None, "legal": False, "reason": str(error)}
        else:
            action = move
        reason = game.why_illegal(action)
        return {"move": move, "action": action, "legal": reason is None, "reason": reason}

    def do_quit(self, request: dict) -> dict:
        self.quitting = True
        return {}

    # ----- helpers ---------------------------------------------------------------------------------
    def game_name(self, text: str) -> str:
        try:
            return game_name(text)
        except ValueError as error:
            raise RequestError("unknown_game", str(error)) from None

    def end_session(self) -> None:
        """The bot protocol's game ends: its memory goes back to the server's budget."""
        self.game_counter.release(self.session_cost)
        self.session_cost = 0
        self.session = None

    def close(self, keep_web_games: bool = True) -> None:
        """This client is gone: the bot protocol's game ends; its web games stay kept by link
        for a page that reloads (``keep_web_games``), or end too."""
        if keep_web_games:
            self.web.close()
        else:
            self.web.end()
        self.end_session()

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

    def check_speed(self, spec: str, target: str, name: str, options: dict) -> None:
        """Refuse, at a game's start, an opponent that cannot answer within the move time limit:
        a level by its measured time a move, a search by a trial of a tenth of its simulations
        on the game's first position (measured once per game, options and spec)."""
        limit = self.move_time_limit
        if limit <= 0:
            return
        seconds = None
        if is_level_spec(spec):
            try:
                level = agent_levels(name, **options)[int(spec.split(":", 1)[1]) - 1]
                seconds = (level.get("ms_per_move") or 0.0) / 1000.0
            except (ValueError, IndexError, LevelsError):
                return
        elif target.split(":")[0] == "mcts":
            seconds = self.search_seconds(target, name, options)
        if seconds is not None and seconds > limit:
            raise RequestError(
                "too_slow", f"{spec} thinks about {seconds:.0f} s a move in {envs.describe(name).facts.long_name}, "
                            f"longer than the {limit:g} s this server allows a move: choose a weaker level or fewer "
                            "simulations",
            )

    def search_seconds(self, target: str, name: str, options: dict) -> float | None:
        """Seconds a move of an ``mcts:N`` search, from a trial of N/10 simulations (at least
        10) on the first position, scaled; None when the trial cannot run."""
        parts = target.split(":")
        try:
            simulations = int(parts[1]) if len(parts) > 1 else 200
        except ValueError:
            return None
        trial = max(10, simulations // 10)
        if simulations <= trial:
            return None
        description = envs.describe(name)
        shown_options = json.dumps(description.portable_options(description.resolve_options(options)), sort_keys=True)
        key = (name, shown_options, ":".join(parts[2:]), trial)
        if key not in SEARCH_SPEEDS:
            try:
                env = envs.load(name).raw_env(**options)
                env.reset(seed=0)
                while env.game.is_chance_node():
                    env.step(env.game.legal_actions()[0])
                agent = load_agent(":".join(["mcts", str(trial), *parts[2:]]), name, seed=0, **options)
                observation = env.observe(env.possible_agents[env.game.current_player()])
                started = time.perf_counter()
                with self.time_limit("a trial move", target):
                    agent.act(observation)
                SEARCH_SPEEDS[key] = (time.perf_counter() - started) / trial
            except RequestError:
                SEARCH_SPEEDS[key] = self.move_time_limit / trial  # the trial alone ran out of time
            except Exception:  # the game or agent says why at load time
                return None
        return SEARCH_SPEEDS[key] * simulations

    def require_session(self) -> Session:
        if self.session is None:
            raise RequestError("no_game", "no game yet: send a 'new_game' request first")
        return self.session

    def position(self, request: dict) -> tuple[Any, int | None]:
        """Set the session's env to the request's position; returns it and the seat asked for."""
        session = self.require_session()
        has_actions, has_snapshot = "actions" in request, "snapshot" in request
        if has_actions == has_snapshot:
            raise RequestError(
                "bad_request",
                "give the position either as 'actions' (every action since the start) or as 'snapshot' "
                "(with 'seat'), " + ("not both" if has_actions else "one of them is missing"),
            )
        seat = request.get("seat")
        if seat is not None and not 0 <= seat < session.players:
            raise RequestError("bad_request", f"field 'seat' must be 0…{session.players - 1} in this game, not {seat}")
        if has_snapshot:
            if seat is None:
                raise RequestError(
                    "bad_request", "a 'snapshot' position needs 'seat': the bot's seat, whose view the snapshot shows"
                )
            self.restore(session, request["snapshot"], seat)
        else:
            self.replay(session, request["actions"])
        return session.env, seat

    def restore(self, session: Session, snapshot: dict, seat: int) -> None:
        if snapshot.get("game") != session.name:
            # checked here so that every game's completer is spared a foreign snapshot
            raise RequestError(
                "bad_snapshot", f"the snapshot is of game {shown(snapshot.get('game'))}, but this game is {session.name!r}"
            )
        try:
            full = session.complete_snapshot(snapshot, seat, session.completion_rng)
        except SnapshotError as error:
            raise RequestError("bad_snapshot", str(error)) from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            # a partial snapshot malformed in a way the completer does not name
            raise RequestError("bad_snapshot", f"the snapshot is malformed: {error!r}") from None
        try:
            session.env.restore(full)
        except SnapshotError as error:
            raise RequestError("bad_snapshot", str(error)) from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError) as error:
            # a snapshot the game's validator let through and its restore tripped on: the
            # client's mistake, though the game should have named it (traceback on stderr)
            traceback.print_exc(file=sys.stderr)
            raise RequestError("bad_snapshot", f"the snapshot is malformed: {cut(repr(error), 300)}") from None

    def replay(self, session: Session, actions: list) -> None:
        env = session.env
        env.reset(seed=session.seed)
        game = env.game
        for index, move in enumerate(actions):
            where = f"actions[{index}] = {cut(json.dumps(move, ensure_ascii=False), 80)}"
            if not (is_int(move) or isinstance(move, str)):
                raise RequestError("bad_request", f"{where}: an action is a number or its notation, not {json_type(move)}")
            if game.is_terminal():
                raise RequestError("illegal_action", f"{where}: the game is already over after {index} actions")
            if isinstance(move, str):
                try:
                    action = game.string_to_action(move)
                except ValueError as error:
                    raise RequestError("illegal_action", f"{where}: {error}") from None
            else:
                action = move
            reason = game.why_illegal(action)
            if reason is not None:
                raise RequestError("illegal_action", f"{where} is illegal: {reason}")
            env.step(action)
            game = env.game

    def probabilities(self, game, observation) -> list[dict[str, Any]]:
        """The agent's policy over the legal actions, checked before it goes out."""
        spec = self.session.agent_spec
        try:
            values = np.asarray(self.session.agent.action_probabilities(observation), np.float64)
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            raise RequestError("agent_error", f"agent {spec!r} failed to give probabilities: {error}") from None
        mask = np.asarray(observation["action_mask"]) > 0
        problem = None
        if values.shape != mask.shape:
            problem = f"shape {values.shape}, expected {mask.shape}"
        elif not np.isfinite(values).all() or (values < 0).any():
            problem = "negative or non-finite entries"
        elif values[~mask].any():
            problem = "weight on illegal actions"
        elif abs(values.sum() - 1.0) > PROBABILITY_TOLERANCE:
            problem = f"a sum of {values.sum()!r}, not 1"
        if problem:
            raise RequestError("agent_error", f"agent {spec!r} gave invalid probabilities: {problem}")
        return [
            {"action": int(a), "notation": game.action_to_string(int(a)), "p": float(values[a])}
            for a in np.flatnonzero(mask)
        ]
