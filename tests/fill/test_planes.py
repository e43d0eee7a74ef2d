"""Board-shaped observations (``observation_format="planes"``): shape, range, batching, the
policy layout, and every declared symmetry checked by replaying games with every action and
every scripted chance outcome mapped."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from envs import fill_v0
from envs.core.game import draw_outcome
from envs.core.observer import D4, Symmetry
from envs.fill.observer import CELL_PLANES, FillObserver, cell_permutation
from envs.fill.rules import KIND_NAMES, FillGame

OPTION_SETS = [
    {},
    {"lines": "strict", "traps": True, "rocks": True, "gems": True},
    {"lines": "off", "traps": True, "gems": True},
    {"size": 7, "lines": "strict", "rocks": True, "time_limit": True},
    {"size": 8, "lines": "off", "traps": True, "rocks": True, "gems": True},
    {"size": 7, "gems": True, "traps": True, "gem_cells": [(0, "trap"), (5, "double"), (30, "pass"), (44, "trap")]},
]


def random_positions(options, games=4, seed=0):
    """Observations of both seats along random games."""
    resolved = FillGame.resolve_options(options)
    observer = FillObserver(resolved)
    rng = random.Random(seed)
    for index in range(games):
        game = FillGame(resolved, random.Random(seed * 1000 + index))
        while True:
            for seat in (0, 1):
                yield game, seat, observer.observe(game, seat)
            if game.is_terminal():
                break
            game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("options", OPTION_SETS)
def test_planes_shape_range_and_cell_channels(options):
    observer = FillObserver(FillGame.resolve_options(options))
    size = observer.board_size
    assert observer.planes_shape() == (size, size, 58)
    for game, seat, flat in random_positions(options):
        planes = observer.planes(flat)
        assert planes.shape == observer.planes_shape() and planes.dtype == np.float32
        assert planes.min() >= 0.0 and planes.max() <= 1.0
        # channels 0-9 are the flat vector's ten cell blocks, in (row, col) order
        for channel in range(CELL_PLANES):
            block = flat[channel * observer.n:(channel + 1) * observer.n]
            assert np.array_equal(planes[..., channel].reshape(-1), block)
        # the rest are constant planes
        assert np.all(planes[..., CELL_PLANES:] == planes[:1, :1, CELL_PLANES:])
        # the token summary: per kind held ÷ 3, soonest and latest turns left ÷ lifetime
        life = observer.life
        for offset, owner in ((21, seat), (30, 1 - seat)):
            for kind in range(3):
                left = [t[1] for t in game.tokens[owner] if t[0] == kind]
                assert planes[0, 0, offset + kind] == pytest.approx(min(len(left), 3) / 3)
                assert planes[0, 0, offset + 3 + kind] == pytest.approx(min(left, default=0) / life)
                assert planes[0, 0, offset + 6 + kind] == pytest.approx(max(left, default=0) / life)


def test_a_batch_gives_the_stacked_planes_of_its_rows():
    options = OPTION_SETS[1]
    observer = FillObserver(FillGame.resolve_options(options))
    flats = [flat for _, _, flat in random_positions(options, games=3)]
    batch = observer.planes(np.stack(flats))
    assert batch.shape == (len(flats),) + observer.planes_shape()
    assert np.array_equal(batch, np.stack([observer.planes(f) for f in flats]))
    assert np.array_equal(observer.planes({"observation": flats[5], "action_mask": None}), observer.planes(flats[5]))
    with pytest.raises(ValueError, match="entries"):
        observer.planes(np.zeros(observer.size + 1, np.float32))


def test_env_planes_format_gives_the_observer_planes_of_the_flat_vector():
    options = {"traps": True, "rocks": True, "gems": True}
    flat_env = fill_v0.env(**options)
    planes_env = fill_v0.env(observation_format="planes", **options)
    observer = planes_env.unwrapped.observer
    assert planes_env.observation_space("player_0")["observation"].shape == observer.planes_shape()
    rng = random.Random(3)
    for episode in range(3):
        flat_env.reset(seed=episode)
        planes_env.reset(seed=episode)
        for agent in planes_env.agent_iter():
            obs, *_ , term, trunc, _ = planes_env.last()
            flat_obs = flat_env.observe(agent)
            assert np.array_equal(obs["observation"], observer.planes(flat_obs["observation"]))
            assert np.array_equal(obs["action_mask"], flat_obs["action_mask"])
            assert planes_env.observation_space(agent)["observation"].contains(obs["observation"])
            action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            planes_env.step(action)
            flat_env.step(action)


@pytest.mark.parametrize("size", [6, 7, 8])
def test_the_policy_layout_is_a_bijection_onto_the_head(size):
    observer = FillObserver(FillGame.resolve_options({"size": size}))
    layout = observer.policy_layout()
    assert layout.cell_channels == 1 and layout.global_actions == 7
    head = size * size * layout.cell_channels + layout.global_actions
    assert sorted(layout.index.tolist()) == list(range(head)) == list(range(FillGame.num_actions_for({"size": size})))
    # a cell's logit is at its (row, col) in the per-cell head
    for cell in range(size * size):
        r, c = divmod(cell, size)
        assert layout.index[cell] == (r * size + c) * layout.cell_channels


# ----- symmetries, by replay ------------------------------------------------------------------

SYMMETRY_OPTIONS = [
    {"lines": "orthogonal", "traps": True, "rocks": True, "gems": True},
    {"lines": "strict", "traps": True, "rocks": True, "gems": True},
    {"lines": "off", "traps": True, "rocks": True, "gems": True},
    {"lines": "orthogonal"},
    {"size": 7, "lines": "strict", "gems": True, "time_limit": True},
    {"size": 8, "lines": "off", "traps": True, "rocks": True},
]


def scripted_chance(options, rng):
    """Rocks and gems as scripts, so the original and the mapped game see the same chance."""
    size = options.get("size", 6)
    n = size * size
    script = {}
    if options.get("rocks"):
        script["rock_cells"] = rng.sample(range(n), size - 3)
    if options.get("gems"):
        kinds = KIND_NAMES if options.get("traps") else KIND_NAMES[:2]
        script["gem_cells"] = [(rng.randrange(n), rng.choice(kinds)) for _ in range(3)]
    return script


def mapped_script(script, perm):
    out = {}
    if "rock_cells" in script:
        out["rock_cells"] = [int(perm[c]) for c in script["rock_cells"]]
    if "gem_cells" in script:
        out["gem_cells"] = [(int(perm[c]), kind) for c, kind in script["gem_cells"]]
    return out


def stepping_clock():
    ticks = itertools.count()
    return lambda: next(ticks) * 0.75


def replay_mismatch(observer, sym, options, games, seed):
    """Replay ``games`` seeded random games and their images under ``sym`` (every action
    mapped; every other game with the rock and gem scripts mapped, the others with each chance
    outcome mapped through ``sym.chance``); the first step where the mapped game does not show
    both seats the mapped planes, the player to act the mapped mask, or a chance node the mapped
    outcomes with the same probabilities, as a sentence (else None)."""
    n = observer.n
    rng = random.Random(seed)
    for game_index in range(games):
        script = scripted_chance(options, rng) if game_index % 2 else {}
        clock_options = {"clock": stepping_clock()} if options.get("time_limit") else {}
        original = FillGame(FillGame.resolve_options({**options, **script, **clock_options}), None)
        clock_options = {"clock": stepping_clock()} if options.get("time_limit") else {}
        mapped = FillGame(
            FillGame.resolve_options({**options, **mapped_script(script, sym.actions), **clock_options}), None
        )
        seen, seen_mapped = [], []
        step = 0
        while True:
            for seat in (0, 1):
                seen.append(observer.observe(original, seat))
                seen_mapped.append(observer.observe(mapped, seat))
            if original.is_terminal() or mapped.is_terminal():
                if not (original.is_terminal() and mapped.is_terminal() and mapped.returns() == original.returns()):
                    return f"game {game_index}: the games end differently at step {step}"
                break
            if original.is_chance_node():
                outcomes = original.chance_outcomes()
                expected = sorted((int(sym.chance[o]), p) for o, p in outcomes)
                if not mapped.is_chance_node() or sorted(mapped.chance_outcomes()) != expected:
                    return f"game {game_index}: the chance nodes differ at step {step}"
                outcome = draw_outcome(outcomes, rng)
                original.apply(outcome)
                mapped.apply(int(sym.chance[outcome]))
                step += 1
                continue
            legal = original.legal_actions()
            mask, mapped_mask = np.zeros(n + 7, np.int8), np.zeros(n + 7, np.int8)
            mask[legal] = 1
            mapped_mask[mapped.legal_actions()] = 1
            if not np.array_equal(mapped_mask, sym.apply_policy(mask)):
                return f"game {game_index}: the masks differ at step {step}"
            action = rng.choice(legal)
            original.apply(action)
            mapped.apply(int(sym.actions[action]))
            step += 1
        expected = sym.apply_planes(observer.planes(np.stack(seen)))
        got = observer.planes(np.stack(seen_mapped))
        if not np.array_equal(got, expected):
            first = int(np.flatnonzero((got != expected).reshape(len(seen), -1).any(axis=1))[0])
            return f"game {game_index}: the planes differ at step {first // 2} for seat {first % 2}"
    return None


@pytest.mark.parametrize("options", SYMMETRY_OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_every_symmetry_maps_planes_and_masks_along_replayed_games(options):
    """Per symmetry, 100 seeded random games with every rule on under each ``lines`` setting
    (and 25 more on the other option sets): the mapped game, fed every mapped action and the
    mapped rock and gem scripts, shows at every step both seats the mapped planes and the
    player to act the mapped mask."""
    observer = FillObserver(FillGame.resolve_options(options))
    symmetries = observer.symmetries()
    assert [s.name for s in symmetries] == list(D4) and symmetries[0].name == "identity"
    n = observer.n
    games = 100 if options in SYMMETRY_OPTIONS[:3] else 25
    for index, sym in enumerate(symmetries):
        assert sorted(sym.actions.tolist()) == list(range(n + 7))
        assert np.array_equal(sym.actions[n:], np.arange(n, n + 7))
        assert sorted(sym.chance.tolist()) == list(range(3 * n))
        assert replay_mismatch(observer, sym, options, games, seed=index) is None, sym.name


def test_the_replay_catches_a_false_symmetry():
    """The check has teeth: a rotation of the planes with the actions left unmapped, or a
    reflection whose actions follow another transform, fails within a few games."""
    options = SYMMETRY_OPTIONS[0]
    observer = FillObserver(FillGame.resolve_options(options))
    n = observer.n
    good = {s.name: s for s in observer.symmetries()}
    unmapped = Symmetry("rot90-unmapped", "rot90", np.arange(n + 7), chance=good["rot90"].chance)
    assert replay_mismatch(observer, unmapped, options, 5, seed=0) is not None
    crossed = Symmetry("transpose-as-flip", "transpose", cell_permutation(6, "flip_rows", extra=7),
                       chance=good["transpose"].chance)
    assert replay_mismatch(observer, crossed, options, 5, seed=0) is not None
    chance_unmapped = Symmetry("rot180-chance-unmapped", "rot180", good["rot180"].actions, chance=np.arange(3 * n))
    assert replay_mismatch(observer, chance_unmapped, options, 5, seed=0) is not None


def test_symmetry_arrays_follow_the_grid_transform():
    observer = FillObserver(FillGame.resolve_options({"size": 7}))
    for sym in observer.symmetries():
        grid = np.zeros((7, 7, 1), np.float32)
        grid[1, 2, 0] = 1.0  # cell c2 = 1*7 + 2
        moved = sym.apply_planes(grid)
        r, c = np.argwhere(moved[..., 0] == 1.0)[0]
        assert sym.actions[1 * 7 + 2] == r * 7 + c


def test_the_planes_table_in_the_docs_covers_every_channel():
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "observations.md").read_text()
    section = text.split("## fill_v0", 1)[1].split("\n## ", 1)[0]
    planes = section.split('### Planes (observation_format="planes")', 1)[1]
    rows = re.findall(r"^\| (\d+)(?:–(\d+))? \|", planes, re.M)
    covered = []
    for first, last in rows:
        covered.extend(range(int(first), int(last or first) + 1))
    assert covered == list(range(FillObserver(FillGame.resolve_options({})).planes_shape()[2]))
