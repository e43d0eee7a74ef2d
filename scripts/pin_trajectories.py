"""Pin each published game's seeded play: ``tests/core/trajectories.json``.

    python scripts/pin_trajectories.py            # write the pins of every published game
    python scripts/pin_trajectories.py --check    # only compare (exit 1 on a difference)

For every published game (a description with ``docs``), every option set of its
``benchmark_options`` and each of :data:`SEEDS`, the env (``raw_env``) is reset with the seed and
played to the end by a random player seeded the same way; a SHA-256 hash takes in every action
and chance outcome, every seat's observation and action mask after every step, the rewards, the
terminations and the final scores. One hash per option set is written, beside the game's
``version``. ``tests/core/test_trajectories.py`` plays the same games and fails while a hash
differs: a change of seeded play (rules, chance, observations, rewards) is a new version of the
game — bump ``version`` in its description, say what changed in docs/changelog.md, then run this
script. Run-time options (Fill's ``clock``) are time sources: the pins stop them (a clock that
always reads 0), so that no timing enters a hash.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere: import this checkout's packages
    sys.path.insert(0, str(ROOT))

import envs  # noqa: E402

PINS = ROOT / "tests" / "core" / "trajectories.json"
SEEDS = (0, 1, 2, 3, 4)
MAX_STEPS = 5000  # a guard against a game that never ends (each game's own bound is far lower)
BUMP = ("seeded play changed: if the change is meant, bump `version` in the game's description "
        "(envs/<game>_v<N>.py), say what changed in docs/changelog.md, then run python scripts/pin_trajectories.py")


def stopped_clock() -> float:
    return 0.0


def pinned_games() -> list[str]:
    """The games whose seeded play is pinned: the published ones (a docs page)."""
    return [name for name in envs.GAMES if envs.describe(name).docs is not None]


def trajectory_hash(game: str, options: dict, seed: int) -> str:
    """The SHA-256 of one seeded random game (see the module docstring)."""
    description = envs.describe(game)
    runtime = {name: stopped_clock for name in description.runtime_options}
    env = envs.load(game).raw_env(**options, **runtime)
    env.reset(seed=seed)
    rng = random.Random(seed)
    digest = hashlib.sha256()

    def take_in(*parts) -> None:
        for part in parts:
            digest.update(part if isinstance(part, bytes) else repr(part).encode())
            digest.update(b"|")

    for step in range(MAX_STEPS):
        for agent in env.possible_agents:
            seen = env.observe(agent)
            take_in(agent, seen["observation"].tobytes(), seen["action_mask"].tobytes(),
                    struct.pack("<d", float(env.rewards[agent])), env.terminations[agent], env.truncations[agent])
        if all(env.terminations[a] or env.truncations[a] for a in env.possible_agents):
            break
        agent = env.agent_selection
        action = None if env.terminations[agent] or env.truncations[agent] else rng.choice(env.legal_actions())
        take_in(step, agent, action)
        env.step(action)
    else:
        raise RuntimeError(f"{game} {options} seed {seed}: no end after {MAX_STEPS} steps")
    take_in(env.history, [float(s) for s in env.game.scores()])
    return digest.hexdigest()


def game_pins(game: str) -> dict:
    """``{"version": N, "options": {label: hash}}`` for one game: each benchmark option set's
    hash over :data:`SEEDS` (each seed's hash, hashed in order)."""
    description = envs.describe(game)
    hashes = {}
    for label, options in description.benchmark_options.items():
        combined = hashlib.sha256()
        for seed in SEEDS:
            combined.update(trajectory_hash(game, dict(options), seed).encode())
        hashes[label] = combined.hexdigest()
    return {"version": description.version, "options": hashes}


def differences(game: str, pinned: dict | None, now: dict) -> list[str]:
    """What differs between a game's pins and its play now, as sentences (none: they agree)."""
    name = envs.describe(game).name
    if pinned is None:
        return [f"{name}: no pinned trajectories in {PINS.relative_to(ROOT)}; run python scripts/pin_trajectories.py"]
    found = []
    if pinned.get("version") != now["version"]:
        found.append(f"{name}: the pins are of version {pinned.get('version')}, the description says "
                     f"{now['version']}; run python scripts/pin_trajectories.py after saying what changed in "
                     f"docs/changelog.md")
    old = pinned.get("options", {})
    for label in sorted(set(old) | set(now["options"])):
        if label not in old or label not in now["options"]:
            found.append(f"{name}: benchmark option set {label!r} is {'new' if label not in old else 'gone'}; "
                         f"run python scripts/pin_trajectories.py")
        elif old[label] != now["options"][label]:
            found.append(f"{name} {label!r}: {BUMP}")
    return found


def read_pins() -> dict:
    return json.loads(PINS.read_text()) if PINS.exists() else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the pinned hashes, write nothing")
    args = parser.parse_args(argv)
    now = {game: game_pins(game) for game in pinned_games()}
    if args.check:
        pinned = read_pins()
        found = [line for game in now for line in differences(game, pinned.get(game), now[game])]
        print("\n".join(found) or "every pinned trajectory agrees")
        return 1 if found else 0
    PINS.write_text(json.dumps(now, indent=2, sort_keys=False) + "\n")
    print(f"wrote {PINS.relative_to(ROOT)}: {', '.join(now)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
