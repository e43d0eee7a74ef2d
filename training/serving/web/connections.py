"""The web server's connections, below the application: who may be served, and for how long a
connection may hold the server's resources without doing its part.

* :func:`host_allowed` — the ``Host`` a request names must be a name this server serves: the
  loopback names, an address (a page reached by an address cannot be a DNS rebinding, which
  needs a name), or a name given with ``--allowed-host``. A page of ``evil.example`` whose
  name was made to resolve to this machine names ``evil.example`` and is refused.
* :func:`origin_allowed` — a browser's ``Origin`` must be this server's own page over plain
  http (the ``Host`` the request was made to), or an origin given with ``--allow-origin``.
* :func:`protocols` — uvicorn's HTTP and WebSocket protocols with three bounds added: a
  request's headers must arrive within ``header_timeout`` seconds (a connection that sends
  nothing, or half a request, is closed), HTTP connections that are not WebSockets are at most
  ``max_http_connections`` at once (more are closed as they open), and an answer that waits
  longer than ``send_timeout`` for its client to read drops the connection (a client that never
  reads would otherwise hold its connection, its games and a slot for ever).
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
ORIGIN_SCHEMES = ("http",)  # the scheme of this server's own pages (TLS is a proxy's, named with --allow-origin)


def host_name(header: str | None) -> str | None:
    """The name in a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lowercase and
    without a final dot; None when there is none or it is malformed."""
    if not header:
        return None
    header = header.strip()
    if header.startswith("["):
        end = header.find("]")
        if end < 0 or (header[end + 1:] and not header[end + 1:].startswith(":")):
            return None
        name, port = header[1:end], header[end + 2:]
    else:
        name, _, port = header.partition(":")
    if port and not port.isdigit():
        return None
    name = name.lower().rstrip(".")
    if not name or any(c in name for c in " /\\@?#"):
        return None
    return name


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(header: str | None, allowed_hosts: tuple[str, ...] = ()) -> bool:
    """Whether a request's ``Host`` is a name this server serves (see the module docstring)."""
    name = host_name(header)
    if name is None:
        return False
    return (name in LOOPBACK_NAMES or name.endswith(".localhost") or is_address(name)
            or name in {normal_host(host) for host in allowed_hosts})


def normal_host(name: str) -> str:
    return name.strip().lower().rstrip(".")


def origin_allowed(origin: str | None, host: str | None, allowed_origins: tuple[str, ...] = ()) -> bool:
    """A browser sends its page's ``Origin``: only this server's own pages (``http://`` and the
    ``Host`` the request was made to) or the origins allowed on the command line may open a
    socket. Clients that are not browsers send none."""
    if origin is None:
        return True
    if origin in allowed_origins:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return (parts.scheme in ORIGIN_SCHEMES and bool(host) and parts.netloc.lower() == host.lower()
            and not parts.path and not parts.query and not parts.fragment)


def protocols(header_timeout: float, max_http_connections: int, send_timeout: float) -> dict[str, Any]:
    """uvicorn ``Config`` keywords: the HTTP (h11) and WebSocket protocols with the bounds of
    the module docstring."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        """h11 with a time limit on a request's headers and a cap on connections at once."""

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.header_timer: asyncio.TimerHandle | None = None
            http_connections = sum(isinstance(c, H11Protocol) for c in self.connections)
            if http_connections > max_http_connections:
                transport.close()  # over the cap: closed before a byte is read
                return
            self.arm_header_timer()

        def arm_header_timer(self) -> None:
            self.cancel_header_timer()
            self.header_timer = self.loop.call_later(header_timeout, self.header_timed_out)

        def cancel_header_timer(self) -> None:
            timer = getattr(self, "header_timer", None)
            if timer is not None:
                timer.cancel()
                self.header_timer = None

        def header_timed_out(self) -> None:
            self.header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()  # no request begun, or its headers unfinished (nothing to flush)

        def handle_websocket_upgrade(self, event) -> None:
            self.cancel_header_timer()  # the connection is the WebSocket protocol's from now on
            super().handle_websocket_upgrade(event)

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:  # a request's headers arrived
                self.cancel_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self.arm_header_timer()  # the next request on a kept-alive connection

        def connection_lost(self, exc) -> None:
            self.cancel_header_timer()
            super().connection_lost(exc)

    keywords: dict[str, Any] = {"http": GuardedH11Protocol, "timeout_keep_alive": max(1, int(min(5, header_timeout))),
                                "h11_max_incomplete_event_size": 16 * 1024}
    try:
        from uvicorn.protocols.utils import ClientDisconnected
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # an older uvicorn: the application's own send time-out still frees the slot
        return keywords

    class BoundedWebSocketProtocol(WebSocketsSansIOProtocol):
        """A send that waits longer than ``send_timeout`` for the client to read drops the
        connection (its buffered bytes with it)."""

        async def send(self, message) -> None:  # type: ignore[override]
            if not self.writable.is_set():
                try:
                    await asyncio.wait_for(self.writable.wait(), send_timeout)
                except asyncio.TimeoutError:
                    self.transport.abort()
                    raise ClientDisconnected() from None
            await super().send(message)

    keywords["ws"] = BoundedWebSocketProtocol
    return keywords


__all__ = ["host_allowed", "host_name", "origin_allowed", "protocols"]
