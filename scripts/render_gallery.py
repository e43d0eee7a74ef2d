"""Draw one picture of every game for the README: ``docs/images/<game>.png``.

    python scripts/render_gallery.py                   # every game, into docs/images/
    python scripts/render_gallery.py --games loom knot --out /tmp/gallery

Each picture is the env's own ``render_mode="rgb_array"`` frame of a game in progress, as the
game's description says (``GameDescription.gallery``): its options (the defaults, or Fill with
its optional traps, rocks and gems), seed 1, the heuristic bot playing every seat, part of the
way through the game (so the board is neither empty nor finished), drawn for seat ``player_0``
(its own hidden items show, nobody else's). Every game with pages (``docs`` set) is drawn. Run
it again after a renderer changes; the pictures are committed, and ``tests/docs/test_gallery.py``
fails while one differs by a pixel from what this script draws now.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere: import this checkout's packages
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

import envs  # noqa: E402
from training.players.load import load_agent  # noqa: E402

SEED = 1


def heuristic_game(game: str, seed: int = SEED) -> list[int]:
    """The player actions of one seeded game with the heuristic bot in every seat."""
    options = dict(envs.describe(game).gallery.options)
    env = envs.load(game).raw_env(**options)
    env.reset(seed=seed)
    bots = [load_agent("heuristic", game, seed=seed + seat, **options) for seat in range(len(env.possible_agents))]
    actions = []
    while not env.game.is_terminal():
        seat = env.game.current_player()
        actions.append(bots[seat].act(env.observe(env.possible_agents[seat])))
        env.step(actions[-1])
    return actions


def position(game: str, share: float, seed: int = SEED):
    """A seeded env (``rgb_array``, drawn for ``player_0``) with the first ``share`` of the
    moves of :func:`heuristic_game` played (the env draws chance from the same seed)."""
    actions = heuristic_game(game, seed)
    env = envs.load(game).raw_env(render_mode="rgb_array", viewer=0, **envs.describe(game).gallery.options)
    env.reset(seed=seed)
    for action in actions[: int(share * len(actions))]:
        env.step(action)
    return env


def render(game: str, out: Path) -> Path:
    env = position(game, envs.describe(game).gallery.share)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3, game
    path = out / f"{envs.describe(game).short_name}.png"
    Image.fromarray(frame).save(path, optimize=True)
    return path


def main(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=None, help="games to draw (default: every game with pages)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"), help="folder for the PNG files")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for game in args.games or [d.name for d in envs.DESCRIPTIONS if d.docs is not None]:
        path = render(game, out)
        height, width = np.asarray(Image.open(path)).shape[:2]
        print(f"{path} ({width}×{height})")
        paths.append(path)
    return paths


if __name__ == "__main__":
    main()
