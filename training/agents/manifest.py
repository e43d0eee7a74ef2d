"""The manifest of a folder of agent files: ``checkpoints/<game>/agents.json``.

One manifest per game lists every agent file its folder holds::

    {"agents": [
      {"file": "loom__dagger__2.zip",          # a name in the folder
       "kind": "network",                      # what the file says it is (training.agents.files)
       "options": {},                          # the options it plays, only those not at their default
       "roles": ["trained"],                   # "trained", "net", both, or none
       "sha256": "…",                          # of the file's bytes
       "command": "python -m training.alphazero …",   # what made it
       "scores": [{"agent": "checkpoints/loom/loom__dagger__2.zip", "opponent": "heuristic",
                   "games": 400, "wins": 218, "draws": 9, "losses": 173, "score": 0.55625,
                   "interval95": [0.507, 0.604], "command": "python -m training.evaluate …"}, …]},
      …]}

* ``load_agent("trained", game, **options)`` plays the entry whose ``roles`` hold ``"trained"``
  for those options (defaults filled in before comparing); ``"mcts:N:net=trained"`` searches
  with the entry whose ``roles`` hold ``"net"``. Each role belongs to at most one entry per
  option set.
* Every agent file (``*.zip``, ``*.onnx``) in a folder that holds a manifest must be listed in
  it: loading an unlisted one — by its path, or by resolving ``trained`` — is an error, and so
  is a file whose sha256 is not the one listed, or an entry whose file is missing; each message
  names the file and the manifest.
* ``scores`` are measured games, each with the command that played them (an entry's file
  named as ``agent``, alone or as a search's ``net=``).

``abstract-games manifest --check`` checks every game's manifest against its folder
(files listed, sha256s, kinds, options, roles); ``--update`` writes the sha256s of the files as
they are now (after a file was deliberately replaced); ``--add FILE [--roles trained net]`` lists
a new file, its command and scores taken from its metadata and its ``.evaluation.json`` (a role
given to it is taken from the file that had it for the same options).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.agents.archive import CheckpointError, open_agent_file
from training.agents.data_files import DataFileError, Fields, read_json_file
from training.agents.kinds import read_agent_meta, sha256_of

MANIFEST = "agents.json"
ROLES = ("trained", "net")
AGENT_SUFFIXES = (".zip", ".onnx")
MAX_MANIFEST_BYTES = 1 << 20
ROOT = Path(__file__).resolve().parents[2]
CHECKPOINTS = ROOT / "checkpoints"
SHA256 = re.compile(r"[0-9a-f]{64}")
ENTRY_FIELDS = ("file", "options", "roles", "sha256", "command", "scores")


class ManifestError(DataFileError):
    """A manifest that is damaged, or that does not match the files of its folder."""


@dataclass(frozen=True)
class Entry:
    file: str
    options: dict[str, Any]
    roles: tuple[str, ...]
    sha256: str
    command: str
    scores: list[dict[str, Any]]
    kind: str | None
    record: dict[str, Any]


@dataclass(frozen=True)
class Manifest:
    path: Path
    entries: list[Entry]

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def shown(self) -> str:
        return shown_path(self.path)

    def entry(self, name: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.file == name), None)

    def unlisted(self) -> list[str]:
        """The agent files of the folder the manifest does not list (by name: nothing is opened)."""
        listed = {entry.file for entry in self.entries}
        return sorted(path.name for path in self.folder.iterdir()
                      if path.suffix.lower() in AGENT_SUFFIXES and path.name not in listed)


def shown_path(path: Path) -> str:
    """A path as messages show it: relative to the repository where it lies inside it."""
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def _fault(path: Path, message: str) -> ManifestError:
    return ManifestError(f"manifest {shown_path(path)} is damaged: {message}")


def read_manifest(path: str | Path) -> Manifest:
    """A manifest, read by the data files' one reader (``training.agents.data_files``: a regular
    file, at most 1 MB, strict JSON) and checked: its entries' fields and their types, file
    names (plain names of agent files, each once), roles, each role at most once per option
    set (``game_manifest`` checks the options too: the game's own)."""
    path = Path(path)
    document = read_json_file(path, "manifest", ManifestError, MAX_MANIFEST_BYTES)
    if not isinstance(document, dict) or not isinstance(document.get("agents"), list):
        raise _fault(path, 'it is not an object {"agents": [...]}')
    entries: list[Entry] = []
    taken: dict[tuple[str, str], str] = {}
    for index, record in enumerate(document["agents"]):
        where = f"entry {index}"
        if not isinstance(record, dict):
            raise _fault(path, f"{where} is not an object")
        missing = [field for field in ENTRY_FIELDS if field not in record]
        if missing:
            raise _fault(path, f"{where} has no {missing[0]!r}")
        name = record["file"]
        if (not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith(".")
                or Path(name).suffix.lower() not in AGENT_SUFFIXES):
            raise _fault(path, f"{where}: 'file' must be the name of an agent file in the folder (.zip or .onnx), not {str(name)[:80]!r}")
        where = f"the entry of {name}"
        if any(entry.file == name for entry in entries):
            raise _fault(path, f"{name} is listed twice")
        options, roles, digest = record["options"], record["roles"], record["sha256"]
        if not isinstance(options, dict):
            raise _fault(path, f"{where}: 'options' must be an object")
        if not (isinstance(roles, list) and all(role in ROLES for role in roles) and len(set(roles)) == len(roles)):
            raise _fault(path, f"{where}: 'roles' must be a list of distinct roles out of {', '.join(ROLES)}, not {str(roles)[:80]}")
        if not (isinstance(digest, str) and SHA256.fullmatch(digest)):
            raise _fault(path, f"{where}: 'sha256' must be 64 lowercase hexadecimal digits")
        if not isinstance(record["command"], str) or not isinstance(record["scores"], list):
            raise _fault(path, f"{where}: 'command' must be a string and 'scores' a list")
        if not all(isinstance(score, dict) for score in record["scores"]):
            raise _fault(path, f"{where}: every score must be an object")
        kind = record.get("kind")
        if kind is not None and not isinstance(kind, str):
            raise _fault(path, f"{where}: 'kind' must be a string")
        option_set = json.dumps(options, sort_keys=True)
        for role in roles:
            if (role, option_set) in taken:
                raise _fault(path, f"role {role!r} for options {option_set} is given to both {taken[(role, option_set)]} and {name}")
            taken[(role, option_set)] = name
        entries.append(Entry(name, options, tuple(roles), digest, record["command"], record["scores"], kind, record))
    return Manifest(path, entries)


def folder_manifest(folder: Path) -> Manifest | None:
    """The manifest of a folder, None when it has none."""
    path = folder / MANIFEST
    return read_manifest(path) if path.exists() or path.is_symlink() else None


def check_listed(path: str | Path, digest: str) -> None:
    """An agent file about to be read: where its folder holds a manifest, the manifest must list
    it with this sha256 (``digest``, of the bytes being read). Links are followed: the file's
    own folder decides."""
    resolved = Path(path).resolve()
    manifest = folder_manifest(resolved.parent)
    if manifest is None:
        return
    entry = manifest.entry(resolved.name)
    shown = repr(str(path))
    if entry is None:
        raise ManifestError(
            f"agent file {shown} lies in {shown_path(manifest.folder)}/, whose manifest {manifest.shown} does not list it: "
            f"list it (abstract-games manifest --add {shown_path(resolved)}) or move it out of the folder"
        )
    if entry.sha256 != digest:
        raise ManifestError(
            f"agent file {shown} is not the file its manifest {manifest.shown} lists: its sha256 is {digest}, the manifest's "
            f"{entry.sha256} (a replaced or damaged file; abstract-games manifest --update records a deliberate change)"
        )


# ----- roles: what "trained" and "net=trained" play --------------------------------------------------

def option_set(game: str, options: dict[str, Any]) -> str:
    """Options as compared: resolved (defaults filled in), as JSON text."""
    import envs
    from envs.core.game import json_ready

    description = envs.describe(game)
    return json.dumps(json_ready(description.portable_options(description.resolve_options(dict(options)))), sort_keys=True)


def non_default_options(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options a manifest records: those of ``options`` (resolved) not at their default."""
    import envs
    from envs.core.game import json_ready

    description = envs.describe(game)
    full = json_ready(description.portable_options(description.resolve_options(dict(options))))
    default = json_ready(description.portable_options(description.resolve_options({})))
    return {key: value for key, value in full.items() if default.get(key) != value}


def game_manifest(game: str) -> Manifest:
    """The manifest of a game's folder of shipped agents (``checkpoints/<game>/agents.json``)."""
    import envs

    path = CHECKPOINTS / envs.describe(game).short_name / MANIFEST
    if not (path.exists() or path.is_symlink()):
        raise ManifestError(f"no agent is shipped for {envs.describe(game).name}: {shown_path(path)} does not exist")
    manifest = read_manifest(path)
    fields = Fields("manifest", path, ManifestError)
    for entry in manifest.entries:
        fields.options(entry.options, f"the entry of {entry.file}: 'options'", game)
    return manifest


def entries(game: str) -> list[dict[str, Any]]:
    """The entries of a game's manifest, as written, each with ``"path"`` (the file's path) added."""
    manifest = game_manifest(game)
    return [dict(entry.record, path=str(manifest.folder / entry.file)) for entry in manifest.entries]


def resolve(game: str, options: dict[str, Any], role: str) -> Path:
    """The file a game's manifest gives ``role`` (``"trained"`` or ``"net"``) for ``options``.
    The folder must hold no unlisted agent file, and the file must be there (its sha256 is
    checked when it is read)."""
    import envs

    name = envs.describe(game).name
    manifest = game_manifest(game)
    unlisted = manifest.unlisted()
    if unlisted:
        raise ManifestError(
            f"{shown_path(manifest.folder)}/ holds agent files its manifest {manifest.shown} does not list: "
            f"{', '.join(unlisted[:5])}{' …' if len(unlisted) > 5 else ''}; list them (abstract-games manifest --add) "
            "or move them out of the folder"
        )
    wanted = option_set(game, options)
    for entry in manifest.entries:
        if role in entry.roles and option_set(game, entry.options) == wanted:
            path = manifest.folder / entry.file
            if not (path.exists() or path.is_symlink()):
                raise ManifestError(f"{entry.file}, {role!r} for options {entry.options or 'default'} in the manifest "
                                    f"{manifest.shown}, is missing from {shown_path(manifest.folder)}/")
            return path
    listing = "; ".join(f"options {entry.options or 'default'} ({entry.file})" for entry in manifest.entries if role in entry.roles)
    what = "network" if role == "net" else "agent"
    raise ManifestError(
        f"no trained {name} {what} is shipped for options {json.loads(wanted)}; the manifest {manifest.shown} gives role "
        f"{role!r} for: {listing or 'no options'}; shipped: {', '.join(entry.file for entry in manifest.entries) or 'none'}"
    )


# ----- checking and writing ----------------------------------------------------------------------------

def check_manifest(manifest: Manifest, game: str | None = None) -> list[str]:
    """What does not match between a manifest and its folder: unlisted or missing files, files
    that are not regular files, sha256s, kinds, options that are not the file's or not written
    as only their non-default ones, another game's files."""
    import envs.registry

    problems = [f"{manifest.shown}: {name} is in the folder but not listed" for name in manifest.unlisted()]
    for entry in manifest.entries:
        path = manifest.folder / entry.file
        label = f"{manifest.shown}: {entry.file}"
        try:
            with open_agent_file(path) as (stream, size):
                digest = sha256_of(stream, size)
            kind, meta = read_agent_meta(path)
        except CheckpointError as error:
            problems.append(f"{label}: {error}")
            continue
        if digest != entry.sha256:
            problems.append(f"{label}: sha256 {digest}, the manifest lists {entry.sha256}")
        if entry.kind is not None and entry.kind != kind:
            problems.append(f"{label}: the file is of kind {kind!r}, the manifest says {entry.kind!r}")
        file_game = meta.get("game")
        if game is not None and file_game != game:
            problems.append(f"{label}: the file is a {file_game} agent, the folder is {game}'s"
                            f"{envs.registry.version_note(file_game, game)}")
            continue
        try:
            recorded = non_default_options(file_game, meta.get("options", {}))
            if entry.options != recorded:
                problems.append(f"{label}: options {entry.options}, the file's are {recorded} (only those not at their default)")
        except (ValueError, TypeError, KeyError) as error:
            problems.append(f"{label}: its options cannot be compared: {error}")
    return problems


def scores_from_evaluation(path: Path) -> list[dict[str, Any]]:
    """The measured scores an agent file's ``.evaluation.json`` records, each with the command
    that played it: the final evaluation of the run that made the file (by the run's own command
    unless the record names an evaluation command), and every independent check whose agent is
    the file (alone, or as a search's ``net=``)."""
    report = path.with_suffix(".evaluation.json")
    try:
        document = json.loads(report.read_text())
    except (OSError, ValueError):
        return []
    relative = shown_path(path)
    kept = ("games", "wins", "draws", "losses", "score", "interval95")
    scores = []
    final = document.get("final_evaluation")
    commands = document.get("evaluation_commands") if isinstance(document.get("evaluation_commands"), dict) else {}
    for opponent, result in (final.items() if isinstance(final, dict) else []):
        if not isinstance(result, dict) or "score" not in result:
            continue
        command = commands.get(opponent) or document.get("evaluation_command") or document.get("command")
        scores.append({"agent": relative, "opponent": opponent, **{k: result[k] for k in kept if k in result},
                       "command": command})
    for check in document.get("independent_checks") or []:
        for pair in (check.get("pairs") or []) if isinstance(check, dict) else []:
            agent = pair.get("agent") if isinstance(pair, dict) else None
            if not isinstance(agent, str) or not names_file(agent, path.name):
                continue
            scores.append({"agent": agent, "opponent": pair.get("opponent"), **{k: pair[k] for k in kept if k in pair},
                           "command": check.get("command")})
    return scores


def names_file(spec: str, name: str) -> bool:
    """Whether an agent spec plays the file ``name``: its path, or a search's ``net=`` path."""
    if ":" not in spec:
        return Path(spec).name == name
    return any(part.startswith("net=") and Path(part[4:]).name == name for part in spec.split(":"))


def entry_for(path: Path, roles: list[str]) -> dict[str, Any]:
    """A new manifest entry for an agent file: its kind, options, sha256 and command from the
    file, its scores from its ``.evaluation.json``."""

    kind, meta = read_agent_meta(path)
    with open_agent_file(path) as (stream, size):
        digest = sha256_of(stream, size)
    command = meta.get("command")
    if not isinstance(command, str):
        try:
            command = json.loads(path.with_suffix(".evaluation.json").read_text()).get("command")
        except (OSError, ValueError, AttributeError):
            command = None
    return {"file": path.name, "kind": kind, "options": non_default_options(meta["game"], meta.get("options", {})),
            "roles": list(roles), "sha256": digest, "command": command or "", "scores": scores_from_evaluation(path)}


def manifest_text(records: list[dict[str, Any]]) -> str:
    """A manifest as written: one field a line, each role list and each score on one line."""
    def one_line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    blocks = []
    for record in records:
        lines = []
        for key, value in record.items():
            if key == "scores" and value:
                inner = ",\n".join(f"        {one_line(score)}" for score in value)
                lines.append(f'      "scores": [\n{inner}\n      ]')
            else:
                lines.append(f"      {one_line(key)}: {one_line(value)}")
        blocks.append("    {\n" + ",\n".join(lines) + "\n    }")
    return '{\n  "agents": [\n' + ",\n".join(blocks) + "\n  ]\n}\n"


def read_agent_meta_game(path: Path) -> str:
    return read_agent_meta(path)[1]["game"]


def write_manifest(path: Path, records: list[dict[str, Any]]) -> None:
    text = manifest_text(records)
    assert json.loads(text) == {"agents": records}
    temporary = path.with_suffix(".json.part")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def game_folders() -> list[Path]:
    return sorted(folder for folder in CHECKPOINTS.iterdir() if folder.is_dir()) if CHECKPOINTS.is_dir() else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="abstract-games manifest",
        description="Check (or update) the manifests of the shipped agent files, checkpoints/<game>/agents.json.",
    )
    parser.add_argument("--check", action="store_true", help="check every manifest against its folder (the default)")
    parser.add_argument("--update", action="store_true",
                        help="write the sha256 of every listed file as it is now (after a deliberate replacement)")
    parser.add_argument("--add", metavar="FILE", help="list an agent file of a game's folder in its manifest")
    parser.add_argument("--roles", nargs="*", default=[], choices=ROLES, help="the roles of the file --add lists")
    parser.add_argument("--game", help="only this game's folder (--check, --update)")
    args = parser.parse_args(argv)
    import envs

    if args.add:
        path = Path(args.add)
        manifest_path = path.resolve().parent / MANIFEST
        records = [dict(entry.record) for entry in read_manifest(manifest_path).entries] if manifest_path.exists() else []
        if any(record["file"] == path.name for record in records):
            parser.error(f"{path.name} is already listed in {shown_path(manifest_path)}")
        added = entry_for(path, args.roles)
        game = read_agent_meta_game(path)
        for record in records:  # a role given to the new file is taken from the file that had it
            if option_set(game, record["options"]) == option_set(game, added["options"]):
                record["roles"] = [role for role in record["roles"] if role not in args.roles]
        records.append(added)
        write_manifest(manifest_path, records)
        print(f"{shown_path(manifest_path)}: listed {path.name}")
        return 0
    folders = [CHECKPOINTS / envs.describe(args.game).short_name] if args.game else game_folders()
    problems = []
    for folder in folders:
        manifest = folder_manifest(folder)
        if manifest is None:
            problems.append(f"{shown_path(folder)}/ has no {MANIFEST}")
            continue
        game = envs.describe(folder.name).name
        if args.update:
            records = []
            for entry in manifest.entries:
                with open_agent_file(manifest.folder / entry.file) as (stream, size):
                    records.append(dict(entry.record, sha256=sha256_of(stream, size)))
            write_manifest(manifest.path, records)
            manifest = read_manifest(manifest.path)
        found = check_manifest(manifest, game)
        problems += found
        print(f"{manifest.shown}: {len(manifest.entries)} files, " + ("all match" if not found else f"{len(found)} problems"))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
