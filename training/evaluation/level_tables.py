"""The calibrated levels as tables: one per option set in docs/agents.md (between its
``<!-- levels <game> <key> -->`` markers) and one summary row per option set in docs/results.md.

Imports envs and training.agents.levels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import envs
from training.agents.levels import read_levels_file

ROOT = Path(__file__).resolve().parents[2]
AGENTS_PAGE = ROOT / "docs" / "agents.md"
RESULTS_PAGE = ROOT / "docs" / "results.md"
SUMMARY_MARKERS = ("<!-- levels summary -->", "<!-- end levels summary -->")


def percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def levels_table(game: str, entry: dict[str, Any]) -> str:
    """The option set's levels as markdown: the table docs/agents.md shows."""
    rows = [
        "| level | name | spec | Elo (95%) | ms per move | vs the level below | W–D–L | games |",
        "|---:|---|---|---|---:|---|---|---:|",
    ]
    for level in entry["levels"]:
        low, high = level["elo_interval95"]
        elo = f"{level['elo']:.0f} ({low:.0f} to {high:.0f})" if level["level"] > 1 else "0 (anchor)"
        below = level["vs_below"]
        if below is None:
            versus, record, games = "—", "—", "—"
        else:
            versus = f"{percent(below['score'])} ({percent(below['interval95'][0])}–{percent(below['interval95'][1])})"
            record = f"{below['wins']}–{below['draws']}–{below['losses']}"
            games = str(below["games"])
        ms = level["ms_per_move"]
        rows.append(f"| {level['level']} | {level['name']} | `{level['spec']}` | {elo} | "
                    f"{'—' if ms is None else f'{ms:.1f}' if ms < 100 else f'{ms:.0f}'} | {versus} | {record} | {games} |")
    lines = rows
    reference = entry.get("reference_result")
    if reference:
        if reference.get("is_top"):
            lines += ["", f"The top level is `{reference['spec']}` itself, the plain search the levels are compared with."]
        else:
            r = reference["top_vs_reference"]
            lines += ["", f"The top level against `{reference['spec']}` (plain search): {percent(r['score'])} "
                          f"({percent(r['interval95'][0])}–{percent(r['interval95'][1])}), "
                          f"{r['wins']}–{r['draws']}–{r['losses']} over {r['games']} games; "
                          f"`{reference['spec']}` rates {reference['elo']:.0f} "
                          f"and thinks {reference['ms_per_move']:.0f} ms a move."]
    dropped = entry.get("dropped") or []
    if dropped:
        lines += ["", "Left out: " + "; ".join(
            f"`{d['spec']}` ({percent(d['score'])} against `{d['below']}` over {d['games']} games"
            + (f"; level with `{d['replaced_by']}`, which took its place)" if d.get("replaced_by")
               else ", under 55%)") for d in dropped) + "."]
    calibration = entry["calibration"]
    lines += ["", f"Measured on `{envs.describe(game).name}` {calibration['date']}, on {calibration['machine']}; "
                  f"{calibration['games_stored']:,} games stored in `{calibration['results_file']}`, "
                  f"{calibration['wall_clock_s'] / 60:.0f} minutes of wall-clock with {calibration['settings_workers']} "
                  f"workers. Command: `{calibration['command']}`."]
    return "\n".join(lines)


def marker(game: str, key: str) -> tuple[str, str]:
    return f"<!-- levels {envs.describe(game).short_name} {key} -->", f"<!-- end levels {envs.describe(game).short_name} {key} -->"


def write_agents_table(game: str, entry: dict[str, Any], page: Path = AGENTS_PAGE) -> bool:
    """Put the option set's table between its markers in docs/agents.md; False when the page
    has no markers for it (the table is printed instead)."""
    start, end = marker(game, entry["key"])
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    if start not in text or end not in text:
        print(f"{page.name} has no {start} … {end} markers; the table:\n\n{levels_table(game, entry)}")
        return False
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    page.write_text(f"{head}{start}\n{levels_table(game, entry)}\n{end}{tail}", encoding="utf-8")
    return True


def summary_table() -> str:
    """One row per calibrated option set of every game: what docs/results.md shows."""
    rows = [
        "| game, options | levels | top level | its Elo (95%) | top vs plain `mcts:1000` | games played | wall-clock |",
        "|---|---:|---|---|---|---:|---:|",
    ]
    for game in envs.GAMES:
        for entry in read_levels_file(game)["option_sets"]:
            if not entry.get("levels"):
                continue
            top = entry["levels"][-1]
            low, high = top["elo_interval95"]
            reference = entry.get("reference_result") or {}
            if reference.get("is_top"):
                versus = "is it"
            elif reference.get("top_vs_reference"):
                r = reference["top_vs_reference"]
                versus = (f"{percent(r['score'])} ({percent(r['interval95'][0])}–{percent(r['interval95'][1])}), "
                          f"{r['games']} games")
            else:
                versus = "—"
            calibration_record = entry["calibration"]
            rows.append(
                f"| {envs.describe(game).name} {entry.get('label', '')} | {len(entry['levels'])} | `{top['spec']}` | "
                f"{top['elo']:.0f} ({low:.0f} to {high:.0f}) | {versus} | {calibration_record['games_stored']:,} | "
                f"{calibration_record['wall_clock_s'] / 60:.0f} min |")
    return "\n".join(rows)


def write_summary(page: Path = RESULTS_PAGE) -> bool:
    """Put the summary between its markers in docs/results.md (False when the page has none)."""
    start, end = SUMMARY_MARKERS
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    if start not in text or end not in text:
        return False
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    page.write_text(f"{head}{start}\n{summary_table()}\n{end}{tail}", encoding="utf-8")
    return True
