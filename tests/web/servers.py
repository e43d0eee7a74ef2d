"""The web server for tests: in this process (uvicorn in a thread, so a test can read the games
the server holds) or as ``python -m training.web`` in a subprocess (the load test measures its
memory), and a browser (Debian's Chromium driven by Playwright)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

for _module in ("starlette", "uvicorn", "websockets"):  # the web extra (scripts/setup.sh installs it)
    pytest.importorskip(_module)

from training.serving.web.app import WebConfig, create_app, uvicorn_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ThreadServer:
    """``create_app(config)`` served by uvicorn in a daemon thread on a free port."""

    def __init__(self, config: WebConfig | None = None):
        import uvicorn

        self.config = config or WebConfig()
        self.app = create_app(self.config)
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn_config(self.app, "127.0.0.1", self.port, self.config))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the web server did not start")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def state(self):
        return self.app.state.web

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


class ProcessServer:
    """``python -m training.web`` in a subprocess on a free port (extra command-line flags)."""

    def __init__(self, *flags: str):
        self.port = free_port()
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "training.web", "--port", str(self.port), *flags],
            cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"python -m training.web did not start: {self.process.stderr.read()!r}")
                time.sleep(0.1)

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def peak_rss_mb(self) -> float:
        """The process's peak resident memory so far (VmHWM), in MB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmHWM in /proc: not Linux?")

    def close(self) -> int:
        self.process.terminate()
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def browser_or_skip():
    """Playwright driving Debian's Chromium (never a browser Playwright downloads)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (bash scripts/test.sh installs it)")
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (bash scripts/test.sh installs Debian's chromium)")
    return sync_playwright, CHROMIUM


class SocketClient:
    """A WebSocket client of ``/ws`` (the ``websockets`` package): ``ask`` sends one request and
    returns its answer; every message received is kept in ``received`` (the traffic)."""

    def __init__(self, url: str, timeout: float = 60.0, **options):
        from websockets.sync.client import connect

        self.socket = connect(url, max_size=None, open_timeout=timeout, **options)
        self.timeout = timeout
        self.received: list[str] = []
        self.next_id = 1

    def send_raw(self, data) -> dict:
        self.socket.send(data)
        text = self.socket.recv(timeout=self.timeout)
        self.received.append(text)
        return json.loads(text)

    def ask(self, kind: str, **fields) -> dict:
        request = {"id": self.next_id, "type": kind, **fields}
        self.next_id += 1
        answer = self.send_raw(json.dumps(request))
        assert answer.get("id") == request["id"], (request, answer)
        return answer

    def ok(self, kind: str, **fields) -> dict:
        answer = self.ask(kind, **fields)
        assert answer["ok"], answer
        return answer

    def close(self) -> None:
        self.socket.close()
