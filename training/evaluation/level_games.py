"""The games a level calibration plays and keeps: each pair's games dealt in duplicate and seeded
by the pair, played on a pool of single-thread workers, stored in a JSON file as they finish (so
an interrupted calibration resumes), with each side's think time and the sha256 of every agent
file a side plays (so a pair played by a file since replaced is set aside, not reused).

Imports envs, training.agents, the tournament module's ``players_of`` and ``wilson_interval`` and
the level manifest's ``file_of``."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any, Callable

import envs
from training.players.load import load_agent
from training.common.progress import Progress
from training.evaluation.level_manifest import file_of
from training.evaluation.ratings import field_half_points
from training.evaluation.tournament import players_of, wilson_interval

ROOT = Path(__file__).resolve().parents[2]
OUTCOME_LETTERS = {1.0: "W", 0.5: "D", 0.0: "L"}


def pair_seed(base: int, upper: str, lower: str) -> int:
    """A pair's seed: the base plus a number fixed by the two specs (either order)."""
    first, second = sorted((upper, lower))
    return base + (zlib.crc32(f"{first}|{second}".encode()) % 100_000) * 1_000


def file_fingerprint(game: str, options: dict[str, Any], spec: str) -> str | None:
    """The sha256 of the agent file ``spec`` plays (``trained``, a search's ``net=``, a path), or
    None for a bot or a plain search, whose games cannot go stale."""
    path = file_of(game, options, spec)
    return None if path is None else hashlib.sha256(path.read_bytes()).hexdigest()


class ResultStore:
    """Every pair played for one option set, saved to a JSON file as its games come in. A pair
    keeps ``"files"``: the sha256 of the agent file behind each of its specs that plays one (a
    header without ``"game"``, as in tests, keeps none)."""

    def __init__(self, path: Path, header: dict[str, Any]):
        self.path = path
        self.data = {**header, "pairs": {}}
        self.fingerprints: dict[str, str | None] = {}
        self.last_save = 0.0
        self.sitting: dict[str, Any] | None = None  # this sitting's record, its seconds kept up to date
        self.started = time.monotonic()

    @classmethod
    def open(cls, path: Path, header: dict[str, Any], resume: bool,
             log: Callable[[str], None] = print) -> "ResultStore":
        store = cls(path, header)
        if path.is_file():
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored.get("pairs") and not resume:
                raise SystemExit(
                    f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} already holds "
                    f"{len(stored['pairs'])} pairs; pass --resume to go on from them, or delete it to start again")
            if stored.get("seed_base") != header["seed_base"] and stored.get("pairs"):
                raise SystemExit(f"{path} was played with --seed {stored.get('seed_base')}, not {header['seed_base']}")
            store.data["pairs"] = stored.get("pairs", {})
            store.data["sittings"] = stored.get("sittings", [])
            if "stale_pairs" in stored:
                store.data["stale_pairs"] = stored["stale_pairs"]
            store.set_aside_stale(log)
        return store

    def files_of(self, *specs: str) -> dict[str, str]:
        """The sha256 of the file behind each spec that plays one (computed once a sitting)."""
        if "game" not in self.data:
            return {}
        for spec in specs:
            if spec not in self.fingerprints:
                self.fingerprints[spec] = file_fingerprint(self.data["game"], self.data.get("options", {}), spec)
        return {spec: self.fingerprints[spec] for spec in specs if self.fingerprints[spec] is not None}

    def set_aside_stale(self, log: Callable[[str], None]) -> None:
        """Move every pair whose games were played by another file than the one its spec plays
        now (a shipped network replaced behind ``trained``) to ``"stale_pairs"``, kept with the
        date it was set aside, so the calibration plays that pair again. A pair stored before
        files were fingerprinted is taken to have been played by today's files, which are
        recorded for it. A pair whose spec no longer loads is left as it is (the calibration
        drops candidates that do not load)."""
        if "game" not in self.data:  # opened to read scores alone: nothing to check the files against
            return
        pairs = self.data["pairs"]
        backfilled = 0
        for key, entry in list(pairs.items()):
            try:
                now = self.files_of(entry["upper"], entry["lower"])
            except (OSError, ValueError):
                continue
            if "files" not in entry:
                entry["files"], backfilled = now, backfilled + 1
                continue
            changed = sorted(spec for spec in set(now) | set(entry["files"]) if entry["files"].get(spec) != now.get(spec))
            if changed:
                del pairs[key]
                self.data.setdefault("stale_pairs", []).append(
                    {**entry, "set_aside": datetime.datetime.now().isoformat(timespec="seconds")})
                log(f"  set aside {key} ({len(entry['outcomes'])} games): the agent file behind "
                    f"{' and '.join(changed)} has changed since they were played; the pair is played again "
                    f"(its old games are kept under 'stale_pairs' in {self.path.name})")
        if backfilled:
            log(f"  {backfilled} stored pairs had no record of the agent files that played them (stored before "
                "files were fingerprinted): the files their specs play now are recorded for them")

    def find(self, upper: str, lower: str) -> tuple[dict[str, Any] | None, bool]:
        """The stored record of a pair and whether it is stored the other way round."""
        pairs = self.data["pairs"]
        if f"{upper} vs {lower}" in pairs:
            return pairs[f"{upper} vs {lower}"], False
        if f"{lower} vs {upper}" in pairs:
            return pairs[f"{lower} vs {upper}"], True
        return None, False

    def record(self, upper: str, lower: str, seed: int) -> dict[str, Any]:
        found, _ = self.find(upper, lower)
        if found is not None:
            return found
        entry = {"upper": upper, "lower": lower, "seed": seed, "outcomes": "", "points": [0.0, 0.0],
                 "think": {"upper": [0.0, 0], "lower": [0.0, 0]}, "files": self.files_of(upper, lower)}
        self.data["pairs"][f"{upper} vs {lower}"] = entry
        return entry

    def begin_sitting(self, workers: int) -> None:
        """Record this sitting (its wall-clock is updated at every save, so an interrupted
        sitting keeps its time)."""
        self.started = time.monotonic()
        self.sitting = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "seconds": 0,
                        "workers": workers}
        self.data.setdefault("sittings", []).append(self.sitting)

    def save(self, force: bool = True) -> None:
        if not force and time.monotonic() - self.last_save < 10:
            return
        if self.sitting is not None:
            self.sitting["seconds"] = round(time.monotonic() - self.started)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.data, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)
        self.last_save = time.monotonic()

    def score(self, upper: str, lower: str, games: int | None = None) -> dict[str, Any]:
        """``upper``'s record against ``lower`` over the pair's first ``games`` games (all when None).

        W–D–L are the lone seat's results (a sole first place, a shared one, none). The score is
        the score against the field (``training.evaluation.ratings.field_score``): with two
        players a win 1, a draw ½, a loss 0; with more, the pair's ``"field"`` digits, each
        game's half-points against the other seats out of ``2 × (seats − 1)``."""
        found, reversed_ = self.find(upper, lower)
        outcomes = found["outcomes"] if found else ""
        field = found.get("field") if found else None
        if games is not None:
            outcomes = outcomes[:games]
        if reversed_:
            outcomes = outcomes.translate(str.maketrans("WL", "LW"))
        wins, draws, losses = outcomes.count("W"), outcomes.count("D"), outcomes.count("L")
        n = len(outcomes)
        if field and n:
            most = 2 * (found["seats"] - 1)
            points = sum(int(digit) for digit in field[:n]) / most
            score = (n - points if reversed_ else points) / n
        else:
            score = (wins + 0.5 * draws) / n if n else 0.0
        low, high = wilson_interval(score, n)
        return {"games": n, "wins": wins, "draws": draws, "losses": losses, "score": score, "interval95": [low, high]}

    def think(self) -> dict[str, list[float]]:
        """Seconds and moves each agent thought, summed over every stored game it played."""
        total: dict[str, list[float]] = {}
        for entry in self.data["pairs"].values():
            for side in ("upper", "lower"):
                seconds, moves = entry["think"][side]
                kept = total.setdefault(entry[side], [0.0, 0])
                kept[0] += seconds
                kept[1] += moves
        return total


# ----- playing ------------------------------------------------------------------------------------

def play_timed_game(job: tuple) -> tuple[float, int, list, int, list[float], list[float]]:
    """One game of ``upper`` against ``lower`` (which fills every other seat), duplicate-dealt as
    the tournament deals them (``training.evaluation.tournament.play_one_deal_game``); returns
    ``upper``'s outcome (1, ½, 0), its half-points against the field
    (``training.evaluation.ratings.field_half_points``), the scores, ``upper``'s seat and each
    side's seconds and moves of thought."""
    game, options, upper, lower, index, seed = job
    n = players_of(game, options)
    mine = index % n
    deal = seed + index // n
    a = load_agent(upper, game, seed=deal * 7919 + 1, **options)
    b = load_agent(lower, game, seed=deal * 7919 + 2, **options)
    env = envs.load(game).raw_env(**options)
    env.reset(seed=deal)
    names = env.possible_agents
    think = {True: [0.0, 0], False: [0.0, 0]}
    engine = env.game
    while not engine.is_terminal():
        seat = engine.current_player()
        agent = a if seat == mine else b
        observation = env.observe(names[seat])
        started = time.perf_counter()
        action = agent.act(observation)
        spent = time.perf_counter() - started
        think[seat == mine][0] += spent
        think[seat == mine][1] += 1
        env.step(action)
        engine = env.game
    returns = engine.returns()
    outcome = 1.0 if returns[mine] > 0 else 0.5 if returns[mine] == 0 else 0.0
    scores = list(engine.scores())
    return outcome, field_half_points(returns, scores, mine), scores, mine, think[True], think[False]


class Player:
    """Plays the games a pair still lacks, on a pool of single-thread workers or in this process."""

    def __init__(self, game: str, options: dict[str, Any], store: ResultStore, seed_base: int, workers: int,
                 log: Callable[[str], None]):
        self.game, self.options, self.store, self.seed_base = game, options, store, seed_base
        self.workers, self.log = workers, log
        self.pool = None
        self.played = 0  # games played in this sitting
        if workers > 1:
            from training.common.processes import single_thread_pool

            self.pool = single_thread_pool(workers)
        else:
            from training.common.processes import one_thread_per_worker

            one_thread_per_worker()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()

    def ensure(self, upper: str, lower: str, games: int, why: str) -> dict[str, Any]:
        """``upper`` against ``lower`` over at least ``games`` games (those stored kept); returns
        ``upper``'s record over the first ``games``."""
        entry = self.store.record(upper, lower, pair_seed(self.seed_base, upper, lower))
        have = len(entry["outcomes"])
        if have >= games:
            result = self.store.score(upper, lower, games)
            self.log(f"  {why}: {upper} vs {lower}: {result['score']:.1%} over {games} games (stored)")
            return result
        first, second = entry["upper"], entry["lower"]  # the stored orientation
        jobs = [(self.game, self.options, first, second, i, entry["seed"]) for i in range(have, games)]
        outcomes = (self.pool.imap(play_timed_game, jobs, chunksize=1) if self.pool is not None
                    else map(play_timed_game, jobs))
        started = time.perf_counter()
        with Progress(len(jobs), f"{why}: {upper} vs {lower}", unit="game", file=sys.stderr,
                      bar=sys.stderr.isatty(), mininterval=2.0) as progress:
            for outcome, half_points, scores, mine, think_upper, think_lower in outcomes:
                self.played += 1
                entry["outcomes"] += OUTCOME_LETTERS[outcome]
                if len(scores) > 2:  # more than two seats: the score against the field, kept per game
                    entry["seats"] = len(scores)
                    entry["field"] = entry.get("field", "") + str(half_points)
                entry["points"][0] += float(scores[mine])
                entry["points"][1] += float(max(s for i, s in enumerate(scores) if i != mine))
                for side, (seconds, moves) in (("upper", think_upper), ("lower", think_lower)):
                    entry["think"][side][0] += seconds
                    entry["think"][side][1] += moves
                self.store.save(force=False)
                running = self.store.score(upper, lower)
                progress.update(1, f"{running['score']:.1%} after {running['games']}")
        self.store.save()
        result = self.store.score(upper, lower, games)
        low, high = result["interval95"]
        self.log(f"  {why}: {upper} vs {lower}: {result['score']:.1%} ({low:.1%}–{high:.1%}) over {games} games, "
                 f"{time.perf_counter() - started:.0f} s")
        return result
