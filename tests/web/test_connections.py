"""The web server's connections themselves, spoken to over raw sockets: a client that never
reads its answers is dropped, the ``Host`` a request names must be one the server serves (DNS
rebinding) and a socket's ``Origin`` this server's own page over http, a request's headers must
arrive within a time limit, and HTTP connections at once are capped."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time

import pytest

from tests.web.servers import SocketClient, ThreadServer  # first: it skips these tests without the web extra
from training.serving.web.app import WebConfig


def raw_connection(server: ThreadServer, receive_buffer: int | None = None) -> socket.socket:
    connection = socket.socket()
    if receive_buffer is not None:
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    connection.connect(("127.0.0.1", server.port))
    connection.settimeout(10)
    return connection


def read_head(connection: socket.socket) -> bytes:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(1)
        if not chunk:
            break
        head += chunk
    return head


def status_of(head: bytes) -> int | None:
    line = head.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else None


def upgrade(server: ThreadServer, host: str | None = None, origin: str | None = None,
            receive_buffer: int | None = None) -> tuple[int | None, socket.socket]:
    """A WebSocket handshake by hand, naming any ``Host`` and ``Origin``: the HTTP status and
    the connection."""
    connection = raw_connection(server, receive_buffer)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = ["GET /ws HTTP/1.1", f"Host: {host or f'127.0.0.1:{server.port}'}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return status_of(read_head(connection)), connection


def http_get(server: ThreadServer, host: str | None, path: str = "/healthz") -> int | None:
    connection = raw_connection(server)
    try:
        lines = [f"GET {path} HTTP/1.1"] + ([f"Host: {host}"] if host is not None else []) + ["Connection: close"]
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return status_of(read_head(connection))
    finally:
        connection.close()


def text_frame(text: str) -> bytes:
    """A client's text frame (masked, as RFC 6455 requires of clients)."""
    payload = text.encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", 0x81, 0x80 | length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
    return header + mask + masked


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def open_connections(server: ThreadServer) -> int:
    """The connections uvicorn holds open (HTTP and WebSocket)."""
    return len(server.server.server_state.connections)


# ----- a client that never reads ----------------------------------------------------------------

def test_a_client_that_never_reads_its_answers_is_dropped_within_the_idle_timeout():
    server = ThreadServer(WebConfig(idle_timeout=2.0))
    try:
        status, connection = upgrade(server, receive_buffer=4096)
        assert status == 101
        connection.sendall(text_frame(json.dumps({"id": 0, "type": "web_new_game", "game": "uzor",
                                                  "opponent": "random", "options": {"board_size": 31}})))
        for number in range(1, 400):  # each answer is a whole 31×31 table drawn: megabytes in all
            try:
                connection.sendall(text_frame(json.dumps({"id": number, "type": "web_view", "game_id": "g1"})))
            except OSError:
                break  # dropped already
        assert wait_until(lambda: server.state.connections == 0, 20), "the server still serves the client"
        assert wait_until(lambda: open_connections(server) == 0, 10), "the server still holds the connection"
        # its game is kept for its link (a reload), held by no connection, until it expires
        assert all(game.owner is None for game in server.state.games.kept.values())
        server.state.games.expiry = 0.0
        server.state.games.expire()
        assert server.state.games.count == 0
        connection.close()
        # the server goes on serving
        status, other = upgrade(server)
        assert status == 101
        other.close()
    finally:
        server.close()


# ----- Host and Origin ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def named():
    server = ThreadServer(WebConfig(allowed_hosts=("games.example.org",)))
    yield server
    server.close()


def test_a_request_for_a_host_the_server_does_not_serve_is_refused(web):
    port = web.port
    # DNS rebinding: evil.example resolved to this machine; its page is "same origin" with itself
    status, connection = upgrade(web, host=f"evil.example:{port}", origin=f"http://evil.example:{port}")
    connection.close()
    assert status == 403
    status, connection = upgrade(web, host=f"evil.example:{port}")  # no Origin: not a browser, still refused
    connection.close()
    assert status == 403
    assert http_get(web, f"evil.example:{port}", "/") == 400
    assert http_get(web, f"evil.example:{port}") == 400
    assert http_get(web, None) == 400
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost", f"192.168.1.20:{port}"):
        assert http_get(web, host) == 200, host  # loopback names, and addresses (no name to rebind)


def test_a_socket_origin_must_be_the_servers_own_page_over_http(web):
    port = web.port
    for origin, expected in [(f"http://127.0.0.1:{port}", 101), (f"https://127.0.0.1:{port}", 403),
                             (f"ftp://127.0.0.1:{port}", 403), ("null", 403), (f"http://127.0.0.1:{port + 1}", 403),
                             (f"http://localhost:{port}", 403)]:  # localhost is another origin than 127.0.0.1
        status, connection = upgrade(web, origin=origin)
        connection.close()
        assert status == expected, origin


def test_names_given_with_allowed_host_are_served(named):
    port = named.port
    for host in (f"games.example.org:{port}", "games.example.org", "GAMES.example.org."):
        assert http_get(named, host) == 200, host
    assert http_get(named, f"other.example.org:{port}") == 400
    status, connection = upgrade(named, host=f"games.example.org:{port}", origin=f"http://games.example.org:{port}")
    connection.close()
    assert status == 101


def test_the_allowed_host_flag_is_read():
    from training.serving.web import app

    captured = {}

    class Stop(Exception):
        pass

    def fake_create_app(config):
        captured["config"] = config
        raise Stop

    original = app.create_app
    app.create_app = fake_create_app
    try:
        with pytest.raises(Stop):
            app.main(["--allowed-host", "games.example.org", "--allowed-host", "Other.Example."])
    finally:
        app.create_app = original
    assert captured["config"].allowed_hosts == ("games.example.org", "other.example")


# ----- header time-out and the connection cap ----------------------------------------------------------

def test_a_request_whose_headers_never_end_is_closed_after_the_header_timeout():
    server = ThreadServer(WebConfig(header_timeout=1.0))
    try:
        silent = raw_connection(server)
        partial = raw_connection(server)
        partial.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        started = time.monotonic()
        for connection in (silent, partial):
            while connection.recv(4096):  # an answer (408) may come first; then the end
                pass
            connection.close()
        assert time.monotonic() - started < 5
        assert wait_until(lambda: open_connections(server) == 0, 5)
        # a keep-alive connection's next request is held to the same limit
        kept = raw_connection(server)
        kept.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        assert status_of(read_head(kept)) == 200
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        while kept.recv(4096):
            pass
        assert time.monotonic() - started < 5
        kept.close()
        # a WebSocket is no request in waiting: it stays open past the header time-out
        client = SocketClient(server.ws_url)
        time.sleep(1.5)
        assert client.ok("hello")
        client.close()
    finally:
        server.close()


def test_http_connections_at_once_are_capped():
    server = ThreadServer(WebConfig(max_http_connections=5, header_timeout=3.0))
    try:
        held = [raw_connection(server) for _ in range(5)]
        assert wait_until(lambda: open_connections(server) == 5, 5)
        extra = raw_connection(server)
        started = time.monotonic()
        try:
            assert extra.recv(4096) == b""  # closed at once
        except ConnectionResetError:
            pass
        assert time.monotonic() - started < 2
        extra.close()
        for connection in held:
            connection.close()
        assert wait_until(lambda: open_connections(server) == 0, 5)
        assert http_get(server, f"127.0.0.1:{server.port}") == 200
    finally:
        server.close()
