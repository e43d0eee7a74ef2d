"""Which agents a request may name, checked before anything is loaded: the work a search spec
asks for (``mcts:N``, at most ``--max-simulations``) and the agent files a server reads (a suite
file type, a relative path under its agents folder, and with ``listed_files_only`` only the
shipped files ``list_agents`` lists). ``BotServer`` takes :class:`AgentSpecChecks` in.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from training.players.load import bot_table
from training.serving.protocol import RequestError, shown

MCTS_DEFAULT_SIMULATIONS = 200  # what "mcts" alone asks for (training.search.mcts.DEFAULT_SIMULATIONS)
AGENT_FILE_SUFFIXES = (".zip", ".onnx")


def shipped_checkpoints(name: str, agents_dir: Path) -> list[str]:
    """The agent files shipped for a game that a request can name: those its manifest lists
    (``checkpoints/<game>/agents.json``; nothing else in the folder is looked at) that lie under
    the agents folder, as paths relative to it."""
    from training.agents.manifest import ManifestError, entries

    try:
        found = [Path(entry["path"]) for entry in entries(name)]
    except ManifestError:
        return []
    base = agents_dir.resolve()
    shown_paths = []
    for path in found:
        try:
            shown_paths.append(path.resolve().relative_to(base).as_posix())
        except ValueError:
            continue  # outside the agents folder: a request could not load it
    return shown_paths


def mcts_simulations(spec: str) -> int | None:
    """The simulations a move an ``mcts`` spec asks for (``mcts``, ``mcts:N``, ``mcts:N:…``, and
    later settings such as ``net=`` alike), or None when N is not a number (load_agent says so)."""
    parts = spec.split(":")
    if len(parts) == 1:
        return MCTS_DEFAULT_SIMULATIONS
    try:
        return int(parts[1])
    except ValueError:
        return None


class AgentSpecChecks:
    """The agent checks of a ``BotServer``, from its limits: ``max_simulations``,
    ``agents_dir`` and ``listed_files_only``."""

    max_simulations: int
    agents_dir: Path
    listed_files_only: bool

    def check_agent_spec(self, spec: str, name: str) -> str:
        """Refuse, before loading anything, a spec over the work limits or a file that is not a
        suite agent file under the agents folder; returns the spec to load (files' paths put
        under the agents folder, ``net=PATH`` of a guided search included)."""
        if spec.split(":")[0] == "mcts":
            simulations = mcts_simulations(spec)
            if simulations is not None and simulations > self.max_simulations:
                raise RequestError(
                    "over_limit",
                    f"agent {shown(spec)} asks for {simulations} simulations a move; this server allows at most "
                    f"{self.max_simulations} (--max-simulations)",
                )
            parts = spec.split(":")
            for index, part in enumerate(parts[2:], start=2):
                key, _, value = part.partition("=")
                if key == "net" and value and value != "trained":
                    self.listed_file(value, name)
                    parts[index] = "net=" + self.agent_file(value, ".zip")
            return ":".join(parts)
        if spec in bot_table(name) or spec == "trained" or spec in getattr(self, "trusted_files", ()):
            return spec
        looks_like_file = "/" in spec or "\\" in spec or "." in spec
        if not looks_like_file:
            return spec
        self.listed_file(spec, name)
        return self.agent_file(spec, AGENT_FILE_SUFFIXES)

    def listed_file(self, spec: str, name: str) -> None:
        """With ``listed_files_only``, refuse an agent file that ``list_agents`` does not list."""
        if self.listed_files_only and spec not in shipped_checkpoints(name, self.agents_dir):
            raise RequestError(
                "bad_agent",
                f"agent file {shown(spec)} is refused: this server loads only the agent files list_agents lists "
                "for the game (the shipped ones), and named bots",
            )

    def agent_file(self, spec: str, suffixes: tuple[str, ...] | str) -> str:
        """The path to load for an agent file named in a request: a suite file type, a relative
        path under the agents folder (no absolute path, no '..', no link out of it); refused
        before the disk is looked at, so that no answer tells what exists elsewhere."""
        if not spec.lower().endswith(suffixes):
            raise RequestError(
                "bad_agent",
                f"agent file {shown(spec)} is neither a suite checkpoint or network file (.zip) nor an exported policy (.onnx); "
                "the server loads no other files (no torch or pickle files)",
            )
        outside = (
            f"agent file {shown(spec)} is refused: agent files are named by a relative path under this server's "
            "agents folder (its working folder, or --agents-dir), with '/' between folders and no '..'"
        )
        if "\\" in spec or any(ord(c) < 32 for c in spec):
            raise RequestError("bad_agent", outside)
        relative = PurePosixPath(spec)
        if relative.is_absolute() or spec.startswith("~") or ".." in relative.parts:
            raise RequestError("bad_agent", outside)
        path = self.agents_dir / relative
        try:
            inside = path.resolve().is_relative_to(self.agents_dir.resolve())
        except (OSError, RuntimeError, ValueError):
            inside = False
        if not inside:  # a symbolic link out of the folder: refused without looking further
            raise RequestError("bad_agent", outside)
        # What the file is and whether it may be read (a regular file, its size, its zip directory
        # before zipfile reads it) is the one agent-file reader's to say (training.agents.files).
        return str(path)


__all__ = ["AGENT_FILE_SUFFIXES", "MCTS_DEFAULT_SIMULATIONS", "AgentSpecChecks", "mcts_simulations", "shipped_checkpoints"]
