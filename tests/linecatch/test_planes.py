"""Board-shaped observations: planes, the policy head's layout, and the symmetries (tested by
replaying mapped games, not assumed)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from envs import linecatch_v0
from envs.core.observer import Symmetry
from envs.linecatch.observer import PLANE_NAMES, LinecatchObserver
from envs.linecatch.rules import LinecatchGame, geometry

ROOT = Path(__file__).resolve().parents[2]
OPTION_SETS = [
    {},
    {"pro": True},
    {"rows": 4, "cols": 7, "pro": True},
    {"rows": 3, "cols": 3, "pro": True},
    {"rows": 6, "cols": 4},
]


def setup(options):
    resolved = LinecatchGame.resolve_options(dict(options))
    return resolved, LinecatchObserver(resolved)


def mask_of(game: LinecatchGame) -> np.ndarray:
    mask = np.zeros(game.num_actions, np.int8)
    mask[game.legal_actions()] = 1
    return mask


def random_position(options, rng: random.Random) -> LinecatchGame:
    game = LinecatchGame(options)
    for _ in range(rng.randrange(game.num_actions + 1)):
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("options", OPTION_SETS)
def test_shape_dtype_and_range(options):
    resolved, observer = setup(options)
    rows, cols = resolved["rows"], resolved["cols"]
    assert observer.planes_shape() == (rows, cols, len(PLANE_NAMES)) == (rows, cols, 8)
    assert observer.planes_space().shape == observer.planes_shape()
    rng = random.Random(4)
    for _ in range(50):
        game = random_position(resolved, rng)
        for seat in (0, 1):
            planes = observer.planes(observer.observe(game, seat))
            assert planes.shape == observer.planes_shape() and planes.dtype == np.float32
            assert planes.min() >= 0 and planes.max() <= 1
            assert observer.planes_space().contains(planes)


def test_channels_hold_the_flat_blocks_on_a_scripted_position():
    resolved, observer = setup({"rows": 3, "cols": 4, "pro": True})
    game = LinecatchGame(resolved)
    for name in ("a1", "b1", "c1", "d1", "a2"):  # player_1 catches row 1 with d1, then a2 passes
        game.apply(game.string_to_action(name))
    assert game.current_player() == 0 and game.points == [0, 4]
    planes = observer.planes(observer.observe(game, 0))
    channel = {name: planes[..., i] for i, name in enumerate(PLANE_NAMES)}
    assert channel["black"].tolist() == [[1, 1, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0]]
    assert channel["their_marks"][0].tolist() == [1, 1, 1, 1] and not channel["my_marks"].any()
    assert not channel["their_marks"][1:].any()
    total = geometry(3, 4, True).total_points
    assert np.all(channel["their_score"] == np.float32(4) / np.float32(total)) and not channel["my_score"].any()
    assert np.all(channel["pro"] == 1)
    scale = 4 * 4  # 4 * max(rows, cols)
    # a3 is column a's last white square: it catches 3 now.
    assert channel["catch_now"][2, 0] * scale == 3
    # b2 is one of two white squares on column b, on the diagonal a1-b2-c3 and on c1-b2-a3:
    # blackening it leaves each of them one short (3 + 3 + 3); row 2 keeps two more.
    assert channel["hands_over"][1, 1] * scale == 9 and channel["catch_now"][1, 1] == 0
    assert np.all(channel["catch_now"][channel["black"] == 1] == 0)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_a_batch_equals_the_stacked_singles(options):
    resolved, observer = setup(options)
    rng = random.Random(8)
    vectors = [observer.observe(random_position(resolved, rng), rng.randrange(2)) for _ in range(17)]
    batch = observer.planes(np.stack(vectors))
    assert batch.shape == (17,) + observer.planes_shape() and batch.dtype == np.float32
    assert np.array_equal(batch, np.stack([observer.planes(v) for v in vectors]))
    assert observer.planes(np.stack(vectors)[:0]).shape == (0,) + observer.planes_shape()
    # The env's dict is accepted as well as the bare vector.
    assert np.array_equal(observer.planes({"observation": vectors[0], "action_mask": None}), batch[0])


def test_a_vector_of_another_size_is_refused_by_name():
    _, observer = setup({})
    with pytest.raises(ValueError, match="128 entries"):
        observer.planes(np.zeros(127, np.float32))
    with pytest.raises(ValueError, match="not shape"):
        observer.planes(np.zeros((2, 3, 128), np.float32))


@pytest.mark.parametrize("options", [{}, {"rows": 4, "cols": 6, "pro": True}])
def test_env_planes_format_gives_the_observers_planes(options):
    env = linecatch_v0.env(observation_format="planes", **options)
    flat = linecatch_v0.raw_env(**options)
    env.reset(seed=3)
    flat.reset(seed=3)
    observer = flat.observer
    assert env.observation_space("player_0")["observation"].shape == observer.planes_shape()
    rng = random.Random(3)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        for name in env.agents:
            seen = env.observe(name)
            assert np.array_equal(seen["observation"], observer.planes(flat.observe(name)["observation"]))
            assert np.array_equal(seen["action_mask"], flat.observe(name)["action_mask"])
        if terminated or truncated:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        env.step(action)
        flat.step(action)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_the_policy_layout_is_a_bijection_onto_the_head(options):
    resolved, observer = setup(options)
    layout = observer.policy_layout()
    rows, cols, _ = observer.planes_shape()
    assert layout.cell_channels == 1 and layout.global_actions == 0
    head = rows * cols * layout.cell_channels + layout.global_actions
    assert sorted(layout.index.tolist()) == list(range(head)) and len(layout.index) == resolved["rows"] * resolved["cols"]
    # Action r*cols + c reads the logit at (r, c).
    logits = np.arange(rows * cols).reshape(rows, cols, 1) * 10
    flat_head = logits.reshape(-1)
    for action in range(rows * cols):
        r, c = divmod(action, cols)
        assert flat_head[layout.index[action]] == logits[r, c, 0]


@pytest.mark.parametrize("options, names", [
    ({}, ["identity", "rot90", "rot180", "rot270", "flip_rows", "flip_cols", "transpose", "antitranspose"]),
    ({"rows": 3, "cols": 3, "pro": True}, ["identity", "rot90", "rot180", "rot270", "flip_rows", "flip_cols", "transpose", "antitranspose"]),
    ({"rows": 4, "cols": 7, "pro": True}, ["identity", "rot180", "flip_rows", "flip_cols"]),
    ({"rows": 6, "cols": 4}, ["identity", "rot180", "flip_rows", "flip_cols"]),
])
def test_the_symmetries_are_the_board_shapes_own(options, names):
    _, observer = setup(options)
    symmetries = observer.symmetries()
    assert [s.name for s in symmetries] == names
    assert np.array_equal(symmetries[0].actions, np.arange(observer.n))
    for symmetry in symmetries:
        assert sorted(symmetry.actions.tolist()) == list(range(observer.n))
        assert symmetry.chance is None


@pytest.mark.parametrize("options", OPTION_SETS + [{"rows": 12, "cols": 12, "pro": True}, {"rows": 3, "cols": 12, "pro": True}])
def test_every_symmetry_maps_the_lines_onto_lines_of_the_same_length(options):
    """Rows, columns and (pro) both diagonal directions of 3 or more squares: the mapped board's
    lines are exactly the mapped lines."""
    resolved, observer = setup(options)
    geo = observer.geo
    lines = sorted(tuple(sorted(line)) for line in geo.lines)
    if resolved["pro"]:
        falling = [line for line in geo.lines[geo.rows + geo.cols:] if len({c // geo.cols - c % geo.cols for c in line}) == 1]
        rising = [line for line in geo.lines[geo.rows + geo.cols:] if len({c // geo.cols + c % geo.cols for c in line}) == 1]
        assert falling and rising and len(falling) + len(rising) == len(geo.lines) - geo.rows - geo.cols
    for symmetry in observer.symmetries():
        mapped = sorted(tuple(sorted(int(symmetry.actions[c]) for c in line)) for line in geo.lines)
        assert mapped == lines, symmetry.name


def replay_under(options, symmetries, games: int, seed: int) -> None:
    """Replays ``games`` random games and, in lockstep, each one mapped by every symmetry;
    at every step the mapped game's planes (both seats) and mask are the mapped ones."""
    resolved, observer = setup(options)
    rng = random.Random(seed)
    for _ in range(games):
        original = LinecatchGame(resolved)
        mapped = [LinecatchGame(resolved) for _ in symmetries]
        while True:
            planes = [observer.planes(observer.observe(original, seat)) for seat in (0, 1)]
            mask = mask_of(original)
            for symmetry, game in zip(symmetries, mapped):
                assert game.current_player() == original.current_player(), symmetry.name
                for seat in (0, 1):
                    seen = observer.planes(observer.observe(game, seat))
                    assert np.array_equal(seen, symmetry.apply_planes(planes[seat])), symmetry.name
                assert np.array_equal(mask_of(game), symmetry.apply_policy(mask)), symmetry.name
            if original.is_terminal():
                break
            action = rng.choice(original.legal_actions())
            original.apply(action)
            for symmetry, game in zip(symmetries, mapped):
                game.apply(int(symmetry.actions[action]))
        for game in mapped:
            assert game.scores() == original.scores()


@pytest.mark.parametrize("options", OPTION_SETS)
def test_every_symmetry_maps_whole_games(options):
    _, observer = setup(options)
    replay_under(options, observer.symmetries(), games=100, seed=11)


def test_the_replay_check_refuses_a_false_symmetry():
    """The check above has teeth: a transform paired with the wrong action map, or a diagonal
    reflection claimed for a rectangle's geometry, fails it."""
    _, observer = setup({"pro": True})
    rot90 = next(s for s in observer.symmetries() if s.name == "rot90")
    wrong = Symmetry(name="rot90 with rot180's actions", transform="rot90",
                     actions=next(s for s in observer.symmetries() if s.name == "rot180").actions)
    with pytest.raises(AssertionError):
        replay_under({"pro": True}, (wrong,), games=3, seed=0)
    replay_under({"pro": True}, (rot90,), games=3, seed=0)
    # Cells of a 5×5 board relabelled by a shift are no symmetry either (edges differ).
    shift = Symmetry(name="shift", transform="identity", actions=(np.arange(25) + 1) % 25)
    with pytest.raises(AssertionError):
        replay_under({}, (shift,), games=3, seed=0)


def test_the_planes_table_in_the_docs_matches_the_observer():
    text = (ROOT / "docs" / "observations.md").read_text()
    section = re.split(r"^## ", text, flags=re.M)
    section = next(s for s in section if s.startswith("linecatch_v0"))
    planes = section.split('### Planes (observation_format="planes")', 1)[1]
    covered = []
    for first, last in re.findall(r"^\| (\d+)(?:[–-](\d+))? \|", planes, re.M):
        covered.extend(range(int(first), int(last or first) + 1))
    assert covered == list(range(setup({})[1].planes_shape()[2]))
