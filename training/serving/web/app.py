"""The web server: the page at ``/`` and the bot protocol over a WebSocket at ``/ws``.

    python -m training.web [--host 127.0.0.1] [--port 8000] [limits…]

A Starlette application served by uvicorn. Each WebSocket connection gets its own
``BotServer`` (the one implementation behind ``training.serve`` too): one request per text
message, one answer per message, the same requests, answers and errors, plus the ``web_*``
requests whose games the server holds for the connection (``training.serving.web_games``).
When the connection closes, its games are kept by their links (the page's address) for
``--game-expiry`` seconds, so that a reload finds its game again.

Safe to put on a network (``docs/web.md``):

* agents are the named bots, ``trained``, searches (``mcts:N``, within ``--max-simulations``),
  the levels, and the agent files ``list_agents`` lists; never a path a client names;
* a message is at most ``--max-message-bytes`` (a longer one is answered ``line_too_long``; one
  longer than 4× that closes the connection, code 1009, unread); a connection's requests are
  answered one at a time, at most ``WS_MAX_QUEUE`` read ahead; a client holds at most
  ``--max-games`` games and the server ``--max-server-games``, whose own data (a user's Uzor
  Map laid on its table, estimated from the options before the game is made) stays within
  ``--max-games-memory``; at most ``--max-connections``
  clients at once; a bot's move is stopped after ``--move-time-limit`` seconds (``over_limit``);
  a connection idle for ``--idle-timeout`` seconds is closed, and one whose client does not
  read an answer within ``--send-timeout`` is dropped;
* connections themselves (``training.serving.web.connections``): a request's headers must
  arrive within ``--header-timeout`` seconds, and at most ``--max-http-connections`` HTTP
  connections are open at once besides the WebSockets;
* a game start never builds what an agent needs once (Linecatch's solver table): that is
  done in the background and the start answered ``preparing`` meanwhile
  (``training.serving.preparation``);
* requests run in worker threads, never on the event loop, so the server answers other clients
  while a bot searches: bot moves and game starts in one bounded pool (``--search-threads``),
  everything else in another (``--threads``), so a busy search pool never holds up a click;
* a request whose ``Host`` is not a name this server serves (the loopback names, an address,
  or one given with ``--allowed-host``) is refused: DNS rebinding; WebSocket connections from
  another site's pages are refused (the ``Origin`` must be this server's own page over http,
  or one given with ``--allow-origin``); pages are served with a strict
  Content-Security-Policy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from starlette.applications import Starlette
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from training.serving.bot_server import ROOT, BotServer
from training.serving.preparation import prepare_at_start
from training.serving.protocol import (
    DEFAULT_GAME_EXPIRY_S, DEFAULT_MAX_GAMES, DEFAULT_MAX_GAMES_MEMORY_MB, DEFAULT_MAX_SERVER_GAMES, DEFAULT_MAX_SIMULATIONS,
    DEFAULT_MOVE_TIME_LIMIT_S, encode, error_answer,
)
from training.serving.web.connections import host_allowed, host_name, normal_host, origin_allowed, protocols
from training.serving.web_games import MB, GameCounter

STATIC = Path(__file__).resolve().parent / "static"
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024
FRAME_LIMIT_FACTOR = 4  # messages up to this many times the limit are read and answered line_too_long
WS_MAX_QUEUE = 4  # messages a connection may have received and not yet had answered (uvicorn's queue)
DEFAULT_MAX_CONNECTIONS = 200
DEFAULT_SEARCH_THREADS = 2
DEFAULT_THREADS = 4
DEFAULT_IDLE_TIMEOUT_S = 1800.0
DEFAULT_SEND_TIMEOUT_S = 30.0
DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_MAX_HTTP_CONNECTIONS = 256
SEARCH_REQUESTS = frozenset({"web_bot", "web_new_game", "web_hint", "web_review", "move", "new_game"})  # may run a search or load a network
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]

# The limits on the command line, each a WebConfig field of the same name: (option, type,
# default, help, the smallest value allowed: a count from 1 or 0, None for seconds above 0).
LIMIT_OPTIONS = (
    ("--max-message-bytes", int, DEFAULT_MAX_MESSAGE_BYTES,
     f"longest request message answered (default {DEFAULT_MAX_MESSAGE_BYTES}); "
     f"{FRAME_LIMIT_FACTOR}x that closes the connection", 1),
    ("--max-games", int, DEFAULT_MAX_GAMES, f"open games per client (default {DEFAULT_MAX_GAMES})", 0),
    ("--max-server-games", int, DEFAULT_MAX_SERVER_GAMES,
     f"open games over the whole server (default {DEFAULT_MAX_SERVER_GAMES})", 0),
    ("--max-games-memory", int, DEFAULT_MAX_GAMES_MEMORY_MB,
     f"megabytes the open games may hold of their own over the whole server, as each game's options "
     f"estimate it (a user's Uzor Map laid on its table; default {DEFAULT_MAX_GAMES_MEMORY_MB})", 1),
    ("--max-connections", int, DEFAULT_MAX_CONNECTIONS, f"clients connected at once (default {DEFAULT_MAX_CONNECTIONS})", 1),
    ("--move-time-limit", float, DEFAULT_MOVE_TIME_LIMIT_S,
     f"seconds a bot may think about one move (default {DEFAULT_MOVE_TIME_LIMIT_S:g})", None),
    ("--max-simulations", int, DEFAULT_MAX_SIMULATIONS,
     f"most simulations a move an mcts:N opponent may ask for (default {DEFAULT_MAX_SIMULATIONS})", 1),
    ("--search-threads", int, DEFAULT_SEARCH_THREADS,
     f"worker threads for bot moves and game starts (default {DEFAULT_SEARCH_THREADS})", 1),
    ("--threads", int, DEFAULT_THREADS, f"worker threads for every other request (default {DEFAULT_THREADS})", 1),
    ("--idle-timeout", float, DEFAULT_IDLE_TIMEOUT_S,
     f"seconds a connection may stay silent before it is closed (default {DEFAULT_IDLE_TIMEOUT_S:g})", None),
    ("--send-timeout", float, DEFAULT_SEND_TIMEOUT_S,
     f"seconds an answer may wait for its client to read it before the connection is dropped "
     f"(default {DEFAULT_SEND_TIMEOUT_S:g}; never more than --idle-timeout)", None),
    ("--header-timeout", float, DEFAULT_HEADER_TIMEOUT_S,
     f"seconds a connection has to send a request's headers (default {DEFAULT_HEADER_TIMEOUT_S:g})", None),
    ("--max-http-connections", int, DEFAULT_MAX_HTTP_CONNECTIONS,
     f"HTTP connections open at once besides the WebSockets (default {DEFAULT_MAX_HTTP_CONNECTIONS}); "
     "more are closed as they open", 1),
    ("--game-expiry", float, DEFAULT_GAME_EXPIRY_S,
     f"seconds a game is kept for its link (a reload, a shared address) after the last request about it "
     f"(default {DEFAULT_GAME_EXPIRY_S:g})", None),
)


@dataclass
class WebConfig:
    """The server's limits (``python -m training.web --help`` names each)."""

    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    max_games: int = DEFAULT_MAX_GAMES
    max_server_games: int = DEFAULT_MAX_SERVER_GAMES
    max_games_memory: int = DEFAULT_MAX_GAMES_MEMORY_MB  # megabytes
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT_S
    max_simulations: int = DEFAULT_MAX_SIMULATIONS
    search_threads: int = DEFAULT_SEARCH_THREADS
    threads: int = DEFAULT_THREADS
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S
    send_timeout: float = DEFAULT_SEND_TIMEOUT_S
    header_timeout: float = DEFAULT_HEADER_TIMEOUT_S
    max_http_connections: int = DEFAULT_MAX_HTTP_CONNECTIONS
    game_expiry: float = DEFAULT_GAME_EXPIRY_S
    agents_dir: Path = ROOT
    allowed_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()  # names served besides the loopback names and addresses
    prepare_at_start: bool = True  # start the bots' one-time work (Linecatch's solver tables) as the server starts
    game_clock: Callable[[], float] | None = None  # timed games' time source (tests run a fast one); None: real time

    @property
    def answer_timeout(self) -> float:
        """How long an answer may wait for its client to read it."""
        return min(self.send_timeout, self.idle_timeout)

    @property
    def frame_limit(self) -> int:
        """The longest message uvicorn reads at all (longer ones close the connection, 1009)."""
        return FRAME_LIMIT_FACTOR * self.max_message_bytes


@dataclass
class WebState:
    """What the connections share: the limits, the game counter, the pools, the clients."""

    config: WebConfig
    games: GameCounter = field(init=False)
    search_pool: ThreadPoolExecutor = field(init=False)
    pool: ThreadPoolExecutor = field(init=False)
    connections: int = 0
    servers: dict[int, BotServer] = field(default_factory=dict)  # by connection, for tests and counts

    def __post_init__(self) -> None:
        self.games = GameCounter(self.config.max_server_games, self.config.max_games_memory * MB, self.config.game_expiry)
        self.search_pool = ThreadPoolExecutor(self.config.search_threads, thread_name_prefix="web-search")
        self.pool = ThreadPoolExecutor(self.config.threads, thread_name_prefix="web-request")
        if self.config.prepare_at_start:
            prepare_at_start()  # in the background: the server answers meanwhile ("preparing")

    def bot_server(self) -> BotServer:
        config = self.config
        return BotServer(
            max_line_bytes=config.max_message_bytes, max_simulations=config.max_simulations,
            move_time_limit=config.move_time_limit, agents_dir=config.agents_dir, max_games=config.max_games,
            game_counter=self.games, listed_files_only=True, prepare_in_background=True, game_clock=config.game_clock,
        )


def request_type(raw: bytes) -> str | None:
    """The ``type`` of a request, to choose its pool (None when it is not a readable request:
    ``answer_line`` will say why)."""
    try:
        request = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    kind = request.get("type") if isinstance(request, dict) else None
    return kind if isinstance(kind, str) else None


async def socket(websocket: WebSocket) -> None:
    state: WebState = websocket.app.state.web
    config = state.config
    headers = websocket.headers
    if not (host_allowed(headers.get("host"), config.allowed_hosts)
            and origin_allowed(headers.get("origin"), headers.get("host"), config.allowed_origins)):
        await websocket.close(code=1008)  # before accept: the handshake is refused (HTTP 403)
        return
    await websocket.accept()
    if state.connections >= config.max_connections:
        message = (f"this server has {config.max_connections} clients connected, the most it allows "
                   "(--max-connections); try again later")
        await websocket.send_text(encode(error_answer(None, "over_limit", message)).decode().rstrip("\n"))
        await websocket.close(code=1013)
        return
    state.connections += 1
    server = state.bot_server()
    key = id(server)
    state.servers[key] = server
    loop = asyncio.get_running_loop()
    try:
        while True:
            try:
                message = await asyncio.wait_for(websocket.receive(), config.idle_timeout)
            except asyncio.TimeoutError:
                await websocket.close(code=1001, reason="idle")
                return
            if message["type"] == "websocket.disconnect":
                return
            if message.get("bytes") is not None:
                raw = message["bytes"]
            else:
                raw = (message.get("text") or "").encode("utf-8")
            if len(raw) > config.max_message_bytes:
                answer = error_answer(None, "line_too_long", f"the message is longer than {config.max_message_bytes} "
                                                              "bytes (--max-message-bytes); it was discarded")
            elif not raw.strip():
                answer = error_answer(None, "bad_json", "the message is empty: a request is one JSON object")
            else:
                pool = state.search_pool if request_type(raw) in SEARCH_REQUESTS else state.pool
                answer = await loop.run_in_executor(pool, server.answer_line, raw)
            try:  # a client that does not read its answers is dropped (the protocol aborts it too)
                await asyncio.wait_for(websocket.send_text(encode(answer).decode("utf-8").rstrip("\n")),
                                       config.answer_timeout + 1.0)
            except asyncio.TimeoutError:
                return
            if server.quitting:
                await websocket.close(code=1000)
                return
    except WebSocketDisconnect:
        return
    finally:
        state.connections -= 1
        state.servers.pop(key, None)
        server.close()  # its games stay kept by link until they expire (a reload finds them)


async def index(request) -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


PICTURES: dict[str, str] = {}  # short name -> the board at the start, for the rules (no secrets: seat 0, seed 0)


async def picture(request) -> Response:
    """A game's board at its start, the illustration of its rules (``/picture/<game>.svg``)."""
    import envs

    short = request.path_params["game"]
    names = {envs.describe(name).short_name: name for name in envs.GAMES if envs.describe(name).board is not None}
    if short not in names:
        return PlainTextResponse(f"no picture: the games are {', '.join(sorted(names))}\n", status_code=404)
    if short not in PICTURES:
        env = envs.load(names[short]).raw_env()
        env.reset(seed=0)
        PICTURES[short] = envs.describe(names[short]).board.svg(env.game, (0,))
    return Response(PICTURES[short], media_type="image/svg+xml")


async def health(request) -> PlainTextResponse:
    state: WebState = request.app.state.web
    return PlainTextResponse(f"ok: {state.connections} clients, {state.games.count} games\n")


class SecurityHeaders:
    """Adds the security headers to every HTTP answer, and refuses a request whose ``Host`` is
    not a name this server serves (DNS rebinding: ``training.serving.web.connections``) with
    400; a WebSocket's is refused by ``socket`` (pure ASGI)."""

    def __init__(self, app, allowed_hosts: tuple[str, ...] = ()):
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hosts = [value for name, value in scope.get("headers", []) if name == b"host"]
        host = hosts[0].decode("latin-1") if len(hosts) == 1 else None
        if not host_allowed(host, self.allowed_hosts):
            response = PlainTextResponse(
                "this server does not serve the host this request names (Host); the names it serves are the "
                "loopback names, addresses and those given with --allowed-host\n", status_code=400)
            await response(scope, receive, send)
            return

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


def create_app(config: WebConfig | None = None) -> Starlette:
    config = config or WebConfig()
    app = Starlette(routes=[
        Route("/", index),
        Route("/healthz", health),
        Route("/picture/{game}.svg", picture),
        WebSocketRoute("/ws", socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.state.web = WebState(config)
    app.add_middleware(SecurityHeaders, allowed_hosts=config.allowed_hosts)
    return app


def uvicorn_config(app: Starlette, host: str, port: int, config: WebConfig, **extra):
    import uvicorn

    bounds = protocols(config.header_timeout, config.max_http_connections, config.answer_timeout)
    return uvicorn.Config(app, host=host, port=port, ws_max_size=config.frame_limit, ws_max_queue=WS_MAX_QUEUE,
                          log_level="warning", **{**bounds, **extra})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="abstract-games web",
                                     description="Play the suite's games in a browser (docs/web.md).")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    for flag, kind, default, words, _ in LIMIT_OPTIONS:
        parser.add_argument(flag, type=kind, default=default, help=words)
    parser.add_argument("--agents-dir", default=str(ROOT),
                        help="the folder whose shipped agent files list_agents lists (default: the repository)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="another site whose pages may connect (e.g. https://games.example.org); repeatable")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a name this server is reached by besides the loopback names and addresses "
                             "(e.g. games.example.org); requests naming another Host are refused; repeatable")
    args = parser.parse_args(argv)
    limits = {flag[2:].replace("-", "_"): smallest for flag, _, _, _, smallest in LIMIT_OPTIONS}
    for least in (1, 0, None):  # the order of the refusals: the counts from 1, from 0, then the seconds
        for name in (name for name, smallest in limits.items() if smallest == least):
            value = getattr(args, name)
            if least is None and not (math.isfinite(value) and value > 0):
                parser.error(f"--{name.replace('_', '-')} must be a number of seconds above 0, not {value}")
            if least is not None and value < least:
                parser.error(f"--{name.replace('_', '-')} must be at least {least}, not {value}")
    if not Path(args.agents_dir).is_dir():
        parser.error(f"--agents-dir {args.agents_dir!r} is not a folder")
    hosts = []
    for name in args.allowed_host:
        normal = normal_host(name)
        if host_name(normal) != normal or ":" in normal:
            parser.error(f"--allowed-host {name!r} is not a host name (give the name alone, without scheme or port)")
        hosts.append(normal)
    config = WebConfig(**{name: getattr(args, name) for name in limits}, agents_dir=Path(args.agents_dir),
                       allowed_origins=tuple(args.allow_origin), allowed_hosts=tuple(hosts))
    import uvicorn

    app = create_app(config)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"serving the games on http://{shown_host}:{args.port}/ (Ctrl-C stops)", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn_config(app, args.host, args.port, config)).run()


__all__ = ["WebConfig", "WebState", "create_app", "main", "uvicorn_config"]
