"""A calibration's games in the shipped agents' manifest: every pair the levels command played
with a shipped agent file on one side (named as ``trained``, as a search's ``net=trained``, or by
its path) becomes a score of that file in ``checkpoints/<game>/agents.json``, with the command
that played it. Those games were dealt on seeds far from any the file was trained or chosen on,
so they are the figures the manifest shows beside the trainer's own.

Imports envs and training.agents.manifest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from training.agents import manifest as manifests

LEVELS_SEEDS = "levels calibration seeds (900,000,000 and up)"


def file_of(game: str, options: dict[str, Any], spec: str) -> Path | None:
    """The shipped file a spec plays, or None (a bot, a plain search)."""
    if spec == "trained":
        return manifests.resolve(game, options, "trained")
    if re.search(r"(^|:)net=trained($|:)", spec):
        return manifests.resolve(game, options, "net")
    net = re.search(r"(?:^|:)net=([^:]+\.(?:zip|onnx))", spec)
    if net or spec.endswith((".zip", ".onnx")):
        return (manifests.ROOT / (net.group(1) if net else spec)).resolve()
    return None


def named(spec: str, path: Path) -> str:
    """The spec with ``trained`` spelled as the file's path (a score names the file it measured)."""
    shown = f"checkpoints/{path.parent.name}/{path.name}"  # as every score names a shipped file
    if spec == "trained":
        return shown
    return ":".join(f"net={shown}" if part.startswith("net=") else part for part in spec.split(":"))


def record_calibration(game: str, options: dict[str, Any], pairs: list[dict[str, Any]], command: str) -> int:
    """Write each pair's record into the manifest entries of the files its sides play (replacing
    what an earlier run of ``command`` wrote); returns how many scores were written. ``pairs``:
    ``{"upper", "lower", "games", "wins", "draws", "losses", "score", "interval95"}`` with
    ``upper``'s record."""
    manifest = manifests.game_manifest(game)
    records = [dict(entry.record) for entry in manifest.entries]
    by_path = {(manifest.folder / record["file"]).resolve(): record for record in records}
    for record in records:
        record["scores"] = [s for s in record.get("scores", []) if s.get("command") != command]
    written = 0
    for pair in pairs:
        for me, other, flip in ((pair["upper"], pair["lower"], False), (pair["lower"], pair["upper"], True)):
            path = file_of(game, options, me)
            record = by_path.get(path.resolve()) if path is not None else None
            if record is None or not pair["games"]:
                continue
            wins, losses = (pair["losses"], pair["wins"]) if flip else (pair["wins"], pair["losses"])
            low, high = pair["interval95"]
            record["scores"].append({
                "agent": named(me, path), "spec": me, "opponent": other, "games": pair["games"], "wins": wins, "draws": pair["draws"],
                "losses": losses, "score": 1 - pair["score"] if flip else pair["score"],
                "interval95": [1 - high, 1 - low] if flip else [low, high],
                "seeds": LEVELS_SEEDS, "command": command,
            })
            written += 1
    manifests.write_manifest(manifest.path, records)
    return written
