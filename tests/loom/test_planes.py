"""Loom's board-shaped observations: the planes, the policy head's layout and the symmetries.

Every symmetry is tested, not assumed: seeded random games are replayed with every action
mapped (the same scripted throws in both), and at every step the mapped game's planes and mask
must be the original's mapped ones."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from envs import loom_v0
from envs.core.observer import Symmetry
from envs.loom.observer import PLANES, LoomObserver
from envs.loom.cloth import CELLS, allowed_cells
from envs.loom.rules import ROUNDS, LoomGame

ROOT = Path(__file__).resolve().parents[2]


def scripted_throws(rng: random.Random) -> list[tuple[int, int]]:
    return [(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(ROUNDS)]


def random_states(games: int, seed: int, **options):
    """(game, observer) at every position (chance nodes and the end included) of seeded random
    games, the throws scripted."""
    rng = random.Random(seed)
    for _ in range(games):
        resolved = LoomGame.resolve_options({**options, "throws": scripted_throws(rng)})
        game, observer = LoomGame(resolved), LoomObserver(resolved)
        while True:
            yield game, observer
            if game.is_terminal():
                break
            game.apply(rng.choice(game.legal_actions()))


def mask_of(game: LoomGame, seat: int) -> np.ndarray:
    mask = np.zeros(2 * CELLS, np.int8)
    if game.current_player() == seat:
        mask[game.legal_actions()] = 1
    return mask


def test_planes_have_the_declared_shape_dtype_and_range():
    shapes = set()
    for game, observer in random_states(30, seed=1, bounty=30):
        for seat in (0, 1):
            planes = observer.planes(observer.observe(game, seat))
            shapes.add((planes.shape, planes.dtype))
            assert planes.min() >= 0.0 and planes.max() <= 1.0
    assert shapes == {((4, 4, PLANES), np.dtype(np.float32))}
    assert LoomObserver(LoomGame.resolve_options({})).planes_shape() == (4, 4, PLANES)
    assert PLANES <= 64


def test_a_batch_gives_the_stacked_planes_of_its_vectors():
    vectors, observer = [], None
    for game, observer in random_states(5, seed=2):
        vectors += [observer.observe(game, 0), observer.observe(game, 1)]
    batch = np.stack(vectors)
    planes = observer.planes(batch)
    assert planes.shape == (len(vectors), 4, 4, PLANES) and planes.dtype == np.float32
    assert np.array_equal(planes, np.stack([observer.planes(v) for v in vectors]))
    assert np.array_equal(observer.planes({"observation": vectors[3], "action_mask": None}), planes[3])


def test_planes_refuse_a_vector_of_another_length():
    observer = LoomObserver(LoomGame.resolve_options({}))
    for bad in (np.zeros(353), np.zeros((2, 355)), np.zeros((2, 2, 354))):
        with pytest.raises(ValueError, match="354"):
            observer.planes(bad)


def test_the_env_gives_planes_of_its_flat_observation():
    env = loom_v0.env(observation_format="planes", bounty=5)
    env.reset(seed=4)
    raw = env.unwrapped
    assert env.observation_space("player_0")["observation"].shape == (4, 4, PLANES)
    rng = random.Random(4)
    while not raw.game.is_terminal():
        for seat, agent in enumerate(raw.possible_agents):
            seen = env.observe(agent)
            flat = raw.observer.observe(raw.game, seat)
            assert np.array_equal(seen["observation"], raw.observer.planes(flat))
            assert env.observation_space(agent)["observation"].contains(seen["observation"])
        env.step(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()))


def test_the_policy_layout_is_a_bijection_onto_the_cell_head():
    observer = LoomObserver(LoomGame.resolve_options({}))
    layout = observer.policy_layout()
    assert layout.cell_channels == 2 and layout.global_actions == 0
    head = 4 * 4 * layout.cell_channels + layout.global_actions
    assert sorted(layout.index.tolist()) == list(range(head))
    # Action t*16 + row*4 + col is channel t at (row, col).
    cells = np.zeros((4, 4, 2))
    cells[2, 1, 1] = 1.0
    assert np.flatnonzero(cells.reshape(-1)[layout.index]).tolist() == [16 + 2 * 4 + 1]


def test_the_per_cell_channels_are_the_engine_arithmetic():
    """Cloths, rings (the engine's gain), the touching law on both cloths, and legal-now (the
    mask, laid out by the policy layout)."""
    checked = 0
    for game, observer in random_states(60, seed=5, bounty=8):
        layout = observer.policy_layout()
        for seat in (0, 1):
            planes = observer.planes(observer.observe(game, seat)).reshape(CELLS, PLANES)
            for who, base in ((seat, 0), (1 - seat, 7)):
                assert planes[:, base:base + 7].argmax(axis=1).tolist() == game.cloths[who]
            legal = planes[:, 22:24].reshape(-1)[layout.index]
            assert np.array_equal(legal, mask_of(game, seat))
            assert planes[0, 38] == float(game.current_player() == seat)
            if game.is_terminal():
                assert not planes[:, 14:39].any() and planes[0, 40] == 1.0
                continue
            assert planes[0, 40] == game.round / 16
            if game.is_chance_node():  # no throw on the table: nothing to price or weave
                assert not planes[:, 14:39].any()
                continue
            for t, dye in enumerate(game.throws[game.round]):
                for who, ring, room in ((seat, 14, 18), (1 - seat, 16, 20)):
                    cloth = game.cloths[who]
                    gains = [game.gain(who, c, dye) if not cloth[c] else 0 for c in range(CELLS)]
                    assert np.rint(planes[:, ring + t] * (12 + 2 * game.bounty)).astype(int).tolist() == gains
                    assert set(np.flatnonzero(planes[:, room + t])) == set(allowed_cells(cloth, dye))
            checked += 1
    assert checked > 1500


def replay_check(symmetry: Symmetry, games: int, seed: int) -> None:
    """Replay seeded random games mapped by ``symmetry``; assert the planes and masks map."""
    rng = random.Random(seed)
    for _ in range(games):
        options = LoomGame.resolve_options({"bounty": rng.choice([0, 8, 20]), "throws": scripted_throws(rng)})
        observer = LoomObserver(options)
        original, mapped = LoomGame(options), LoomGame(options)
        flats, mapped_flats, masks, mapped_masks = [], [], [], []
        while True:
            for seat in (0, 1):
                flats.append(observer.observe(original, seat))
                mapped_flats.append(observer.observe(mapped, seat))
                masks.append(mask_of(original, seat))
                mapped_masks.append(mask_of(mapped, seat))
            if original.is_terminal():
                assert mapped.is_terminal() and mapped.scores() == original.scores()
                break
            action = rng.choice(original.legal_actions())
            if original.is_chance_node():  # the throw is not board-shaped: the same in both
                original.apply(action)
                mapped.apply(action)
                continue
            image = int(symmetry.actions[action])
            assert image in mapped.legal_actions(), f"{symmetry.name}: {action} maps to illegal {image}"
            original.apply(action)
            mapped.apply(image)
        expected = symmetry.apply_planes(observer.planes(np.stack(flats)))
        assert np.array_equal(observer.planes(np.stack(mapped_flats)), expected), symmetry.name
        assert np.array_equal(np.stack(mapped_masks), symmetry.apply_policy(np.stack(masks))), symmetry.name


@pytest.mark.parametrize("index", range(8))
def test_every_symmetry_maps_planes_and_masks_along_replayed_games(index):
    symmetries = LoomObserver(LoomGame.resolve_options({})).symmetries()
    assert [s.name for s in symmetries][0] == "identity" and len(symmetries) == 8
    symmetry = symmetries[index]
    assert sorted(symmetry.actions.tolist()) == list(range(2 * CELLS))
    assert symmetry.chance is None and symmetry.channels is None
    replay_check(symmetry, games=100, seed=100 + index)


def test_the_replay_check_catches_a_relabelling_that_is_no_symmetry():
    """Shifting the rows cyclically keeps the lines but not the touching law at the edges: the
    check must refuse it (so passing it means something)."""
    shift = np.array([((cell // 4 + 1) % 4) * 4 + cell % 4 for cell in range(CELLS)])
    fake = Symmetry(name="shift", transform="identity", actions=np.concatenate([shift, CELLS + shift]))
    with pytest.raises(AssertionError):
        replay_check(fake, games=20, seed=7)


def test_the_planes_table_in_the_docs_covers_every_channel():
    text = (ROOT / "docs" / "observations.md").read_text()
    section = re.split(r"^## ", text, flags=re.M)
    loom = next(s for s in section if s.startswith("loom_v0"))
    planes = loom.split('### Planes (observation_format="planes")', 1)[1]
    channels = []
    for first in re.findall(r"^\| (\d+(?:–\d+)?) \|", planes, re.M):
        low, _, high = first.partition("–")
        channels.extend(range(int(low), int(high or low) + 1))
    assert channels == list(range(PLANES))
    assert "(4, 4, 44)" in planes
