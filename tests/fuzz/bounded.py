"""Run untrusted work in a subprocess under a memory limit (RLIMIT_AS) and a time limit.

``run_bounded(code, *args)`` starts ``python -c code args…`` from the repository root with its
address space capped (512 MB by default, the bound the suite promises for the loader and the server)
and returns the subprocess's ``CompletedProcess``; the code reports by printing one JSON line
last. A process that goes past the cap dies with ``MemoryError`` (or is killed), so a test sees a
non-zero exit instead of the machine swapping.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT_BYTES = 512 * 1024 * 1024
TIME_LIMIT_S = 300  # generous: the machine may be shared


def limit_memory(limit: int = MEMORY_LIMIT_BYTES):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def run_bounded(code: str, *args: str, limit: int = MEMORY_LIMIT_BYTES, timeout: float = TIME_LIMIT_S,
                input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, timeout=timeout,
        preexec_fn=limit_memory(limit), input=input,
    )


def last_json(result: subprocess.CompletedProcess) -> dict:
    """The JSON report a bounded run printed last (fails with its stderr when there is none)."""
    lines = result.stdout.decode("utf-8", "replace").strip().splitlines()
    assert result.returncode == 0 and lines, (
        f"exit {result.returncode}; stderr: {result.stderr.decode('utf-8', 'replace')[-3000:]}"
    )
    return json.loads(lines[-1])


# Loads a file as an agent and reports the exception's type and message (or "loaded").
LOAD_REPORT = r"""
import json, resource, sys
import envs
from training import load_agent
from training.agents.archive import CheckpointError
path, game = sys.argv[1], sys.argv[2]
options = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
try:
    load_agent(path, game, seed=0, **options)
    report = {"type": None, "message": "loaded"}
except BaseException as error:
    report = {"type": type(error).__name__, "checkpoint_error": isinstance(error, CheckpointError),
              "message": str(error)[:2000]}
# VmHWM is this process image's own peak; ru_maxrss would carry the forking parent's peak over exec
report["max_rss_kb"] = int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
print(json.dumps(report))
"""


def load_bounded(path: str | Path, game: str, options: dict | None = None, **kwargs) -> dict:
    """``load_agent(path, game, **options)`` under the memory cap: the exception it raised."""
    return last_json(run_bounded(LOAD_REPORT, str(path), game, json.dumps(options or {}), **kwargs))


class BoundedServer:
    """``python -m training.serve`` under the memory cap, fed one line at a time; ``ask`` returns
    the raw answer line (failing when none comes within ``timeout``)."""

    def __init__(self, *args: str, limit: int = MEMORY_LIMIT_BYTES):
        import os
        import queue
        import threading

        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "training.serve", *args], cwd=ROOT, env=environment,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit_memory(limit),
        )
        self.lines: queue.Queue = queue.Queue()
        self.errors: list[bytes] = []
        # once a line went unanswered, every later ask fails at once: the answers would be out
        # of step, and a stuck server would cost every later example (and every example
        # hypothesis tries while shrinking) the whole timeout
        self.broken: str | None = None
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_errors(self) -> None:
        for line in self.process.stderr:
            self.errors.append(line)
            del self.errors[:-200]

    def ask(self, line: bytes, timeout: float = 60) -> bytes:
        import queue

        if self.broken is not None:
            raise AssertionError(f"the server stopped answering earlier: {self.broken}")
        try:
            self.process.stdin.write(line + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self.broken = f"it died; its stderr ends: {self.stderr_tail()}"
            raise AssertionError(f"the server {self.broken}") from None
        try:
            answer = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.broken = f"no answer within {timeout} s to {line[:300]!r}; its stderr ends: {self.stderr_tail()}"
            raise AssertionError(self.broken) from None
        if answer is None:
            self.broken = f"it closed its output after {line[:300]!r}; its stderr ends: {self.stderr_tail()}"
            raise AssertionError(f"the server {self.broken}")
        return answer

    def stderr_tail(self) -> str:
        return b"".join(self.errors[-30:]).decode("utf-8", "replace")

    def close(self) -> int:
        if self.process.poll() is None:
            try:
                self.process.stdin.write(b'{"type": "quit"}\n')
                self.process.stdin.flush()
            except BrokenPipeError:
                pass
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return -9
