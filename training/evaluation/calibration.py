"""Calibrating strength levels: candidates played against each other, levels chosen, Elo fitted.

    python -m training.levels --game linecatch                       # 5×5, the default options
    python -m training.levels --game linecatch --options '{"rows": 4, "cols": 4}' --workers 2
    python -m training.levels --game loom --resume                   # go on from the pairs stored

The candidates of each option set are data: the ``"candidates"`` of its entry in
``checkpoints/<game>/levels.json`` (load_agent specs, listed roughly weakest first), with the
plain search the top level is compared with (``"reference"``) and, where an entry needs them,
its own numbers of games. A candidate that does not load for these options (the exact solver on
a board too big for it) is left out, with the reason printed. The calibration:

1. **quick estimate** — each candidate plays the next one in the list ``--quick-games`` games;
   the listed order (weakest first) is corrected where those games clearly contradict it
   (``quick_order``: a candidate that scores under one half at 95% against the one before it
   changes places with it);
2. **levels** — walking up that order, each candidate plays the last level chosen ``--games``
   games; it becomes the next level when it scores at least 55% (``MARGIN``), and is dropped
   otherwise — unless it is level with the last level (45–55%) and preferred to it (listed in
   the entry's ``"prefer_in_ties"`` ahead of it, or thinking less a move when neither is), when
   it takes that level's place if it too scores 55% against the level below;
3. **jumps** — each level plays the level two below it ``--jump-games`` games, so that the
   ratings rest on more than a chain;
   The top level is then the strongest candidate measured: when the ratings over every pair
   played put a candidate left out above the top level, it plays the top level; it becomes the
   next level if it scores 55%, and takes the top level's place if it scores over one half and
   55% against the level below;
4. **reference** — the top level plays the reference (plain ``mcts:1000`` with the game's
   settings) ``--reference-games`` games, unless it is the reference; and where ``trained`` and
   ``heuristic`` are both candidates, they play each other ``--games`` games wherever the chain
   put them (the shipped policy's score against the heuristic on fresh seeds, which
   docs/agents.md quotes);
5. **ratings** — Elo by maximum likelihood (Bradley–Terry on the 400-point log10 scale, Newton
   steps, level 1 anchored at 0, one virtual draw per pair so that a perfect record stays
   finite) over every pair played among the levels and the reference, with 95% intervals from
   the curvature of the likelihood; each level's think time is measured over every game it
   played, on one core (each worker process runs one thread).

It writes the option set's levels into ``checkpoints/<game>/levels.json``, its table into
``docs/agents.md`` (between the ``<!-- levels … -->`` markers of that option set), and every
pair it played with a shipped agent file on one side into that file's scores in the game's
manifest (``training.evaluation.level_manifest``).

With 3–4 players (Knot) a candidate takes one seat and the level below fills every other; a
game scores the candidate against the field (``training.evaluation.ratings.field_score``):
every other seat counts as one game against that level, 1 when the candidate placed above it,
½ level, 0 below (places: the sole winner, then players tied for first, then the rest by their
points). A candidate as strong as the level below then expects ½ whatever the number of
players, so the 55% margin and the Elo model mean what they mean for two.

A pair's games are dealt in duplicate and seeded by the pair (``--seed`` plus a number fixed by
the two specs), the game's index choosing the seats, so a pair's first 40 games are the same
whether it is played for the quick estimate or for the level. Every game is stored as it
finishes, in ``docs/levels/<game>-<key>.json`` (a pair's games in order, the points and each
side's think time); with ``--resume`` the pairs and games stored are kept and only what is
missing is played, so an interrupted calibration goes on where it stopped. Seeds start at
900,000,000, far from those the trainers evaluated their agents on (below 10,000,000).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import sys
from typing import Any, Callable

import envs
from envs.registry import canonical_name as game_name
from training.players.load import load_agent
from training.agents.levels import levels_file, option_key
from training.agents.manifest import ManifestError
from training.evaluation.level_games import ROOT, Player, ResultStore
from training.evaluation.level_manifest import record_calibration
from training.evaluation.level_tables import AGENTS_PAGE, write_agents_table, write_summary
from training.evaluation.ratings import elo_mle

RESULTS = ROOT / "docs" / "levels"
SEED_BASE = 900_000_000
MARGIN = 0.55
NAMES = ("beginner", "novice", "casual", "club", "strong", "expert", "master", "grandmaster", "champion", "legend")
DEFAULTS = {"games": 400, "quick_games": 40, "jump_games": 100, "reference_games": 400}


# ----- the calibration ----------------------------------------------------------------------------

def entry_for(game: str, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The levels file and its entry for these options; a SystemExit names the entries there."""
    path = levels_file(game)
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"game": game, "option_sets": []}
    key = option_key(game, options)
    for entry in data["option_sets"]:
        if option_key(game, entry.get("options", {})) == key:
            return data, entry
    listing = ", ".join(json.dumps(e.get("options", {})) for e in data["option_sets"]) or "none"
    raise SystemExit(f"{path.relative_to(ROOT)} has no entry for options {options}; its option sets: {listing}. "
                     "Add one with its \"candidates\" to calibrate these options.")


def loadable(game: str, options: dict[str, Any], specs: list[str], log) -> list[str]:
    kept = []
    for spec in specs:
        try:
            load_agent(spec, game, seed=0, **options)
        except (ValueError, OSError, ImportError) as error:
            log(f"  candidate {spec} left out: {error}")
            continue
        kept.append(spec)
    return kept


def quick_order(store: ResultStore, candidates: list[str], games: int) -> list[str]:
    """The candidates in the listed order, corrected where the quick games clearly contradict it:
    a candidate whose quick score against the one before it lies below one half with 95%
    confidence (Wilson's upper bound) changes places with it, again and again while such a pair
    is next to each other (a bubble sort on the pairs played; a pair not played keeps its order).
    Near-equal candidates keep the order the data gives them: 40 games cannot tell 52% from 48%,
    and the list is written weakest first from what earlier measurements showed."""
    order = list(candidates)
    changed = True
    while changed:
        changed = False
        for i in range(len(order) - 1):
            lower, upper = order[i], order[i + 1]
            found, _ = store.find(upper, lower)
            if found is None:
                continue
            result = store.score(upper, lower, games)
            if result["games"] and result["interval95"][1] < 0.5:
                order[i], order[i + 1] = upper, lower
                changed = True
    return order


def wins_tie(spec: str, level: str, prefer: list[str], store: ResultStore) -> bool:
    """Whether ``spec``, level with ``level`` (within the margin either way), should take its
    place: a spec the option set prefers in ties (``"prefer_in_ties"``: the exact solver over a
    policy that plays as well; of two listed, the one listed first) wins; otherwise the one that
    thinks less a move (equal strength for less waiting), timed over the games of this pair
    alone: those games are stored, so a resumed run decides as the first one did (the totals
    over every pair grow as later pairs are played)."""
    rank = {listed: place for place, listed in enumerate(prefer)}
    if rank.get(spec, len(prefer)) != rank.get(level, len(prefer)):
        return rank.get(spec, len(prefer)) < rank.get(level, len(prefer))
    found, reversed_ = store.find(spec, level)
    if found is None:
        return False
    mine, theirs = found["think"]["lower" if reversed_ else "upper"], found["think"]["upper" if reversed_ else "lower"]
    if not mine[1] or not theirs[1]:
        return False
    return mine[0] / mine[1] < theirs[0] / theirs[1]


def fit(store: ResultStore, players: list[str], anchor: str) -> tuple[dict[str, float], dict[str, float]]:
    """Ratings over every stored pair among ``players`` (one virtual draw a pair)."""
    chosen = set(players)
    table = []
    for entry in store.data["pairs"].values():
        if entry["upper"] in chosen and entry["lower"] in chosen and entry["outcomes"]:
            r = store.score(entry["upper"], entry["lower"])
            table.append((entry["upper"], entry["lower"], r["score"] * r["games"], r["games"]))
    return elo_mle(table, anchor, virtual_draws=1.0)


def machine() -> str:
    try:
        load = os.getloadavg()[0]
        load_text = f", load {load:.1f} at the end"
    except OSError:
        load_text = ""
    return f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores{load_text}, Python {platform.python_version()}"


def calibrate(game: str, options: dict[str, Any], games: int | None = None, workers: int = 2,
              seed: int = SEED_BASE, resume: bool = False, quick_games: int | None = None,
              jump_games: int | None = None, reference_games: int | None = None, command: str = "",
              log: Callable[[str], None] = print, write: bool = True) -> dict[str, Any]:
    """Calibrate one option set (see the module's docstring); returns its new entry."""
    name = game_name(game)
    data, entry = entry_for(name, options)
    settings = {**DEFAULTS, **entry.get("settings", {})}
    for key, value in (("games", games), ("quick_games", quick_games), ("jump_games", jump_games),
                       ("reference_games", reference_games)):
        if value is not None:
            settings[key] = value
    options = dict(entry.get("options", {}))
    key = entry["key"]
    log(f"{name} {json.dumps(options)} ({entry.get('label', key)}): calibrating")
    candidates = loadable(name, options, list(entry["candidates"]), log)
    prefer = list(entry.get("prefer_in_ties", []))
    reference = entry.get("reference")
    if len(candidates) < 2:
        raise SystemExit("fewer than two candidates load for these options")
    results_path = RESULTS / f"{envs.describe(name).short_name}-{key}.json"
    store = ResultStore.open(results_path, {"game": name, "options": options, "key": key, "seed_base": seed}, resume, log)
    store.begin_sitting(workers)
    player = Player(name, options, store, seed, workers, log)
    try:
        # 1. the quick estimate: neighbours in the listed order
        log(f"quick estimate ({settings['quick_games']} games a pair)")
        for lower, upper in zip(candidates, candidates[1:]):
            player.ensure(upper, lower, settings["quick_games"], "quick")
        order = quick_order(store, candidates, settings["quick_games"])
        log("order: " + ", ".join(order))
        # 2. the levels: each must score MARGIN against the last level chosen
        log(f"levels ({settings['games']} games a pair, {MARGIN:.0%} needed)")
        chain, dropped = _choose_levels(player, store, order, settings["games"], prefer, log)
        dropped = _place_strongest(player, store, candidates, chain, dropped, settings["games"], log)
        # 3. jumps of two levels
        log(f"jumps ({settings['jump_games']} games a pair)")
        for lower, upper in zip(chain, chain[2:]):
            player.ensure(upper, lower, settings["jump_games"], "jump")
        # 4. the top level against the reference
        top_vs_reference = None
        if reference and reference != chain[-1]:
            log(f"the top level against {reference} ({settings['reference_games']} games)")
            player.ensure(chain[-1], reference, settings["reference_games"], "reference")
            top_vs_reference = store.score(chain[-1], reference)
        if "trained" in candidates and "heuristic" in candidates:
            log(f"trained against the heuristic ({settings['games']} games)")
            player.ensure("trained", "heuristic", settings["games"], "trained")
    finally:
        player.close()
    # 5. ratings and think times
    levels, reference_entry = _rate_levels(store, chain, reference, top_vs_reference, settings["games"], log)
    pairs_played = sum(len(e["outcomes"]) for e in store.data["pairs"].values())
    where = _close_sitting(store, player.played, entry)
    wall_clock = sum(sitting["seconds"] for sitting in store.data["sittings"])
    entry.update({
        "levels": levels,
        "reference_result": reference_entry,
        "dropped": dropped,
        "calibration": {
            "command": command or f"python -m training.levels --game {envs.describe(name).short_name}"
                       + (f" --options '{json.dumps(options)}'" if options else ""),
            "settings": settings,
            "settings_workers": workers,
            "seed_base": seed,
            "games_stored": pairs_played,
            "results_file": (results_path.relative_to(ROOT).as_posix() if results_path.is_relative_to(ROOT)
                             else str(results_path)),
            "machine": where,
            "date": datetime.date.today().isoformat(),
            "wall_clock_s": wall_clock,
            "sittings": len(store.data["sittings"]),
        },
    })
    if write:
        _write_calibration(name, options, data, entry, store, log)
    for level in levels:
        log(f"  level {level['level']} {level['name']:<11} {level['spec']:<28} Elo {level['elo']:7.1f} "
            f"{level['ms_per_move'] or 0:9.1f} ms/move")
    return entry


def _close_sitting(store, played: bool, entry: dict) -> str:
    """Record this sitting's machine and save the results; the machine the record names."""
    where = machine()
    if played:
        store.sitting["machine"] = where
    else:  # every game was stored: nothing was measured now, so the record keeps its sittings and machine
        store.data["sittings"].remove(store.sitting)
        where = entry.get("calibration", {}).get("machine", where)
    store.save()
    return where


def _choose_levels(player, store, order: list[str], games: int, prefer: list[str],
                   log: Callable[[str], None]) -> tuple[list[str], list[dict]]:
    """The levels in the quick estimate's ``order``: each must score MARGIN against the last
    level chosen (a candidate level with it and preferred to it takes its place if it too
    scores MARGIN against the level below); the chain and the candidates left out."""
    chain, dropped = [order[0]], []
    for spec in order[1:]:
        result = player.ensure(spec, chain[-1], games, "level")
        if result["score"] >= MARGIN:
            chain.append(spec)
            continue
        if result["score"] > 1 - MARGIN and len(chain) >= 2 and wins_tie(spec, chain[-1], prefer, store):
            under = player.ensure(spec, chain[-2], games, "level")
            if under["score"] >= MARGIN:
                dropped.append({"spec": chain[-1], "below": chain[-2], "replaced_by": spec,
                                **store.score(chain[-1], chain[-2], games)})
                log(f"  {spec} takes the place of {chain[-1]}, level with it ({result['score']:.1%})")
                chain[-1] = spec
                continue
        dropped.append({"spec": spec, "below": chain[-1], **result})
        log(f"  dropped {spec}: {result['score']:.1%} against {chain[-1]}")
    return chain, dropped


def _place_strongest(player, store, candidates: list[str], chain: list[str], dropped: list[dict], games: int,
                     log: Callable[[str], None]) -> list[dict]:
    """The top level is the strongest candidate measured, by the ratings over every pair
    played: it joins the chain (``chain``, changed in place) on top of it or in its top
    level's place where it scores enough; the candidates left out."""
    ratings, _ = fit(store, candidates, candidates[0])
    best = max(candidates, key=lambda spec: (ratings[spec], -candidates.index(spec)))
    if best not in chain and len(chain) >= 2 and ratings[best] > ratings[chain[-1]]:
        above = player.ensure(best, chain[-1], games, "top")
        if above["score"] >= MARGIN:
            chain.append(best)
        elif above["score"] > 0.5:
            under = player.ensure(best, chain[-2], games, "top")
            if under["score"] >= MARGIN:
                dropped.append({"spec": chain[-1], "below": chain[-2], "replaced_by": best,
                                **store.score(chain[-1], chain[-2], games)})
                log(f"  {best}, the strongest measured, takes the place of {chain[-1]} ({above['score']:.1%})")
                chain[-1] = best
        if best in chain:  # a level after all: no longer among those left out
            dropped = [d for d in dropped if d["spec"] != best]
    return dropped


def _rate_levels(store, chain: list[str], reference: str | None, top_vs_reference: dict | None, games: int,
                 log: Callable[[str], None]) -> tuple[list[dict], dict | None]:
    """Each level's entry (Elo with its interval, think time, score against the level below)
    and the reference's entry (``None`` without a reference)."""
    rated = chain + ([reference] if top_vs_reference is not None and reference not in chain else [])
    ratings, errors = fit(store, rated, chain[0])
    think = store.think()
    levels = []
    for number, spec in enumerate(chain, start=1):
        seconds, moves = think.get(spec, [0.0, 0])
        below = store.score(spec, chain[number - 2], games) if number > 1 else None
        elo = ratings[spec]
        levels.append({
            "level": number,
            "name": NAMES[number - 1] if number <= len(NAMES) else f"level {number}",
            "spec": spec,
            "elo": round(elo, 1),
            "elo_interval95": [round(elo - 1.96 * errors[spec], 1), round(elo + 1.96 * errors[spec], 1)],
            "ms_per_move": round(1000 * seconds / moves, 2) if moves else None,
            "vs_below": below,
        })
    elos = [level["elo"] for level in levels]
    if any(b <= a for a, b in zip(elos, elos[1:])):
        log("warning: the fitted Elo does not increase with every level (the jumps disagree with the chain)")
    reference_entry = None
    if reference:
        if top_vs_reference is None:
            reference_entry = {"spec": reference, "is_top": True}
        else:
            seconds, moves = think.get(reference, [0.0, 0])
            reference_entry = {"spec": reference, "is_top": False, "top_vs_reference": top_vs_reference,
                               "elo": round(ratings[reference], 1),
                               "ms_per_move": round(1000 * seconds / moves, 2) if moves else None}
    return levels, reference_entry


def _write_calibration(name: str, options: dict[str, Any], data: dict, entry: dict, store,
                       log: Callable[[str], None]) -> None:
    """The levels file, its table in the agents page, the summary, and the measured scores of
    shipped agent files into their manifest."""
    path = levels_file(name)
    # the file as it is now, with this option set's entry replaced: a calibration of another
    # option set that finished meanwhile keeps what it wrote
    current = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else data
    sets = current.setdefault("option_sets", [])
    keys = [other.get("key") for other in sets]
    if entry["key"] in keys:
        sets[keys.index(entry["key"])] = entry
    else:
        sets.append(entry)
    path.write_text(json.dumps(current, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    write_agents_table(name, entry)
    write_summary()
    log(f"wrote {path.relative_to(ROOT)} and its table in {AGENTS_PAGE.relative_to(ROOT)}")
    measured = [{"upper": e["upper"], "lower": e["lower"], **store.score(e["upper"], e["lower"])}
                for e in store.data["pairs"].values()]
    try:
        written = record_calibration(name, options, measured, entry["calibration"]["command"])
        log(f"wrote {written} scores of shipped agent files into their manifest")
    except ManifestError as error:  # a game that ships no agent files
        log(f"no manifest scores written: {error}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="abstract-games levels", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, help="env name, e.g. linecatch or loom_v0")
    parser.add_argument("--options", default="{}", help="env options as JSON (default: the game's defaults)")
    parser.add_argument("--games", type=int, help="games between a candidate and the level below it (default 400)")
    parser.add_argument("--quick-games", type=int, help="games a pair for the quick estimate (default 40)")
    parser.add_argument("--jump-games", type=int, help="games between a level and the one two below (default 100)")
    parser.add_argument("--reference-games", type=int, help="games of the top level against the reference (default 400)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing games at once, one thread each")
    parser.add_argument("--seed", type=int, default=SEED_BASE, help=f"seed base (default {SEED_BASE:,})")
    parser.add_argument("--resume", action="store_true", help="keep the pairs stored and play only what is missing")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as error:
        parser.error(f"--options is not JSON ({error}): {args.options}")
    if not isinstance(options, dict):
        parser.error(f"--options must be a JSON object of env options, got {args.options}")
    words = sys.argv[1:] if argv is None else argv
    command = "python -m training.levels " + " ".join(shlex.quote(w) for w in words if w != "--resume")

    def log(text: str) -> None:
        print(text, flush=True)

    return calibrate(args.game, options, games=args.games, workers=args.workers, seed=args.seed,
                     resume=args.resume, quick_games=args.quick_games, jump_games=args.jump_games,
                     reference_games=args.reference_games, command=command, log=log)


if __name__ == "__main__":
    main()
