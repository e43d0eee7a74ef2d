"""Uzor's board-shaped observation (``envs/uzor/planes.py``), its policy layout and its
symmetries (the identity only: the replays below show why the square's rotations and
reflections are not symmetries of the rules)."""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path

import numpy as np
import pytest

from envs import uzor_v0
from envs.core.bits import set_bits
from envs.core.observer import D4, Symmetry, transform_grid
from envs.uzor import planes as P
from envs.uzor.observer import UzorObserver
from envs.uzor.patterns import STANDARD_MAP, all_orientations
from envs.uzor.rules import FORK, STONE, UzorGame
from tests.uzor.test_rules import order_of, scripted_order
from tests.uzor.util import cell, dealt, draw, first_outcomes, position, resolve, tile, tiles
from training.bots.uzor_simple import pattern_reach

ROOT = Path(__file__).resolve().parents[2]

# A user Map that uses every criterion, a one-cell shape, a large shape and a wide hollow one.
ODD_MAP = copy.deepcopy(STANDARD_MAP)
ODD_MAP[0]["criterion"] = "any"
ODD_MAP[1]["criterion"] = "identical"
ODD_MAP[2] = {"name": "Hammer", "shapes": all_orientations([(0, 0), (0, 1), (0, 2), (1, 1), (2, 1), (3, 1)]),
              "criterion": "any", "points": 4}
ODD_MAP[3]["criterion"] = "different_colours"
ODD_MAP[4]["criterion"] = "different_motifs"
ODD_MAP[5] = {"name": "Frame", "shapes": [[[0, c] for c in range(5)] + [[1, 0], [1, 4]] + [[2, c] for c in range(5)]],
              "criterion": "hollow_centre", "points": 11}
ODD_MAP[8]["criterion"] = "same_motif_or_colour"
ODD_MAP[9]["criterion"] = "any"
ODD_MAP[13] = {"name": "Dot", "shapes": [[[0, 0]]], "criterion": "same_colour", "points": 1}

OPTION_SETS = {
    "default 21x21": {},
    "smallest 9x9": {"board_size": 9},
    "user Map 11x11": {"board_size": 11, "patterns": ODD_MAP},
}


def positions(options: dict, games: int, seed: int = 0):
    """(game, player) along seeded random games that close half the forks; both seats."""
    resolved = UzorGame.resolve_options(dict(options))
    rng = random.Random(seed)
    for index in range(games):
        game = resolve(UzorGame(resolved), random.Random(seed * 100 + index))
        while True:
            yield game, 0
            yield game, 1
            if game.is_terminal():
                break
            legal = game.legal_actions()
            closes = legal[:-1] if game.phase == FORK else []
            game.apply(rng.choice(closes) if closes and rng.random() < 0.5 else rng.choice(legal))
            resolve(game, rng)


def reference(game: UzorGame, player: int) -> np.ndarray:
    """The per-cell channels 0…22 from the engine itself: ``cells_for`` and ``completions``."""
    size = game.geo.size
    points = game.geo.map.points
    top = max(1, 2 * max(points))
    out = np.zeros((size, size, P.THREAT_CH), np.float32)
    for x, v in enumerate(game.board):
        r, c = divmod(x, size)
        if v >= STONE:
            out[r, c, P.STONE_CH] = 1
        elif v >= 0:
            out[r, c, P.MOTIF_CH + v // 5] = out[r, c, P.COLOUR_CH + v % 5] = 1
    if game.last_cell >= 0:
        out[game.last_cell // size, game.last_cell % size, P.LAST_CH] = 1

    def value(t: int, goal: int | None) -> np.ndarray:
        plane = np.zeros((size, size), np.float32)
        for x in set_bits(game.cells_for(t)):
            done = game.completions(x, t)
            best = max([points[k] * (2 if k == goal else 1) for k in done], default=0)
            plane[x // size, x % size] = 0.2 + 0.8 * best / top
        return plane

    goal = game.goals[player]
    for s, t in enumerate(game.hands[player]):
        out[..., P.MINE_CH + s] = value(t, goal)
    for m, t in enumerate(game.market):
        if t >= 0:
            out[..., P.MARKET_CH + m] = value(t, goal)
    theirs = [value(t, None) for t in set(game.hands[1 - player])]
    if theirs:
        out[..., P.THEIRS_CH] = np.max(theirs, axis=0)
    return out


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_the_cell_channels_equal_the_engines_own_placements_and_completions(name):
    options = UzorGame.resolve_options(dict(OPTION_SETS[name]))
    observer = UzorObserver(options)
    checked = completing = 0
    games = {"default 21x21": 3, "smallest 9x9": 8, "user Map 11x11": 8}[name]
    vectors, expected = [], []
    for game, player in positions(options, games, seed=1):
        vectors.append(observer.observe(game, player))
        expected.append(reference(game, player))
    planes = observer.planes(np.stack(vectors))
    for got, want in zip(planes, expected):
        np.testing.assert_allclose(got[..., :P.THREAT_CH], want, atol=1e-6)
        checked += 1
        completing += int((want[..., P.MINE_CH:P.THEIRS_CH + 1] > P.BASE + 1e-6).any())
    assert checked > 400 and completing > 100


def follow_up_reference(game: UzorGame, player: int) -> np.ndarray:
    """Channels 23…32 from the engine itself: per hand slot and cell where its tile fits, the
    tile laid there (and left open), then the best ``completions`` for the opponent's hand
    anywhere (plain points) and for my other slots within the Map's reach of that cell (goal
    doubled)."""
    size = game.geo.size
    points = game.geo.map.points
    top = max(1, 2 * max(points))
    reach = pattern_reach(game.options["patterns"])
    out = np.zeros((size, size, 2 * 5), np.float32)
    hand, theirs = game.hands[player], game.hands[1 - player]
    for s, t in enumerate(hand):
        for x in set_bits(game.cells_for(t)):
            after = game.clone()
            after._put(x, t)
            row, col = divmod(x, size)
            for side, (usable, goal) in enumerate(((theirs, None), (hand[:s] + hand[s + 1:], game.goals[player]))):
                best = 0
                for u in set(usable):
                    for y in set_bits(after.cells_for(u)):
                        if side == 0 or max(abs(y // size - row), abs(y % size - col)) <= reach:
                            best = max([best] + [points[k] * (2 if k == goal else 1) for k in after.completions(y, u)])
                out[row, col, 5 * side + s] = best / top
    return out


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_the_follow_up_channels_equal_the_engines_completions_after_each_placement(name):
    options = UzorGame.resolve_options(dict(OPTION_SETS[name]))
    observer = UzorObserver(options)
    games = {"default 21x21": 1, "smallest 9x9": 2, "user Map 11x11": 2}[name]
    vectors, expected = [], []
    for index, (game, player) in enumerate(positions(options, games, seed=5)):  # one game, moved on: read it now
        if index % 2 == 0 and not game.is_terminal():
            vectors.append(observer.observe(game, player))
            expected.append(follow_up_reference(game, player))
    planes = observer.planes(np.stack(vectors))
    for got, want in zip(planes, expected):
        np.testing.assert_allclose(got[..., P.THREAT_CH:P.PREPARE_CH + 5], want, atol=1e-6)
    threats = sum(int((want[..., :5] > 0).any()) for want in expected)
    prepared = sum(int((want[..., 5:] > 0).any()) for want in expected)
    assert len(expected) > 120 and threats > 50 and prepared > 50


def _short_map(shapes: list) -> list[dict]:
    """15 patterns over the given orientations, every criterion in turn."""
    criteria = ["same_motif", "same_colour", "same_motif_or_colour", "identical", "any", "different_colours",
                "different_motifs"]
    return [{"name": f"P{k}", "shapes": shapes, "criterion": criteria[k % len(criteria)], "points": k % 6}
            for k in range(15)]


@pytest.mark.parametrize("shapes, reach", [
    ([[[0, 0], [0, 1]], [[0, 0], [1, 0]], [[0, 0], [1, 1]]], 1),  # dominoes and a diagonal pair: the window is 3×3
    ([[[0, 0], [0, 2]], [[0, 0], [2, 0]], [[0, 0], [1, 2]]], 2),  # gapped pairs: 5×5
    ([[[0, 0]]], 0),  # single cells: a placement changes nothing elsewhere
], ids=["reach 1", "reach 2", "reach 0"])
def test_the_follow_ups_equal_the_engines_completions_on_maps_of_short_reach(shapes, reach):
    """The window of cells around a placement (``plane_arrays.window_best``) at its smallest
    sizes, against the engine after each placement."""
    patterns = _short_map(shapes)
    assert pattern_reach(patterns) == reach
    options = UzorGame.resolve_options({"board_size": 9, "patterns": patterns})
    observer = UzorObserver(options)
    vectors, expected = [], []
    for index, (game, player) in enumerate(positions(options, 2, seed=7)):
        if index % 3 == 0 and not game.is_terminal():
            vectors.append(observer.observe(game, player))
            expected.append(follow_up_reference(game, player))
    planes = observer.planes(np.stack(vectors))
    for got, want in zip(planes, expected):
        np.testing.assert_allclose(got[..., P.THREAT_CH:P.PREPARE_CH + 5], want, atol=1e-6)
    assert len(expected) > 20 and (reach == 0 or sum(int((want > 0).any()) for want in expected) > 5)


def test_filling_a_rings_centre_takes_the_ring_from_the_opponent():
    # A Ring one tile short around the empty c3: its eight neighbours but d4 hold open tiles.
    # The opponent's Wm fits d4 (beside Sm) and would complete the Ring (7 points), unless my
    # tile fills c3: a Ring's centre must be empty or a stone.
    table = draw("""
        Ca Sr Wi
        Be .  Ba
        Xr Sm .
    """, top=1, left=1)
    table[40] = tile("Wm")  # the centre cell, e5, holds a tile in every position
    game = position(table, tiles("Sa", "Xe", "Ce", "Ce", "Xa"), hand1=tiles("Wm", "Wm", "Xi", "Xi", "Xi"))
    observer = UzorObserver(game.options)
    planes = observer.planes(observer.observe(game, 0))
    top = 2 * max(p["points"] for p in STANDARD_MAP)
    ring, centre, outside = 11, cell("c3"), cell("b1")
    assert ring in game.completions(cell("d4"), tile("Wm"))
    slot = game.hands[0].index(tile("Sa"))  # sun/azure: fits c3 (beside Sr) and b1 (beside Ca)
    assert game.cells_for(tile("Sa")) >> centre & 1 and game.cells_for(tile("Sa")) >> outside & 1
    threat = planes[..., P.THREAT_CH + slot]
    assert threat.reshape(-1)[outside] == pytest.approx(7 / top)
    assert threat.reshape(-1)[centre] < 7 / top
    np.testing.assert_allclose(planes[..., P.THREAT_CH:P.PREPARE_CH + 5], follow_up_reference(game, 0), atol=1e-6)


def test_the_constant_planes_hold_the_global_facts():
    options = UzorGame.resolve_options({"board_size": 9})
    observer = UzorObserver(options)
    top = 2 * max(p["points"] for p in STANDARD_MAP)
    phases = set()
    for game, player in positions(options, 4, seed=2):
        planes = observer.planes(observer.observe(game, player))
        constants = planes[0, 0, P.TO_ACT_CH:]
        assert np.all(planes[..., P.TO_ACT_CH:] == constants)
        seen = observer.decode(observer.observe(game, player))
        assert constants[0] == seen["to_move"]
        phase = dict(zip(("place", "take", "discard", "pass"), constants[1:5]))
        for name, flag in phase.items():
            assert flag == (seen["phase"] == name or (name == "take" and seen["phase"] == "dead_take"))
        phases.add(seen["phase"])
        assert constants[P.REPEATED_CH - P.TO_ACT_CH] == seen["repeated"]
        assert constants[P.CONTINUED_CH - P.TO_ACT_CH] == seen["continued"]
        assert constants[P.MY_SCORE_CH - P.TO_ACT_CH] == np.float32(seen["my_score"] / observer.scale)
        assert constants[P.THEIR_SCORE_CH - P.TO_ACT_CH] == np.float32(seen["their_score"] / observer.scale)
        assert constants[P.SUPPLY_CH - P.TO_ACT_CH] == np.float32(seen["supply_size"] / 59)
        assert constants[P.IDLE_CH - P.TO_ACT_CH] == np.float32(seen["idle"] / 20)
        worth = [0 if k in seen["crossed"] else p["points"] * (2 if k == seen["my_goal"] else 1)
                 for k, p in enumerate(STANDARD_MAP)]
        np.testing.assert_allclose(constants[P.VALUE_CH - P.TO_ACT_CH:P.FORK_CH - P.TO_ACT_CH],
                                   np.array(worth) / top, rtol=1e-6)
        fork = np.zeros(15)
        fork[seen["fork"]] = 1
        assert np.array_equal(constants[P.FORK_CH - P.TO_ACT_CH:], fork)
    assert {"place", "fork", "take", "over"} <= phases


@pytest.mark.parametrize("options", [{}, {"board_size": 9}, {"board_size": 31}], ids=["21x21", "9x9", "31x31"])
def test_shape_dtype_range_and_a_batch_equals_its_singles(options):
    resolved = UzorGame.resolve_options(dict(options))
    observer = UzorObserver(resolved)
    size = resolved["board_size"]
    assert observer.planes_shape() == (size, size, P.CHANNELS) == observer.planes_space().shape
    vectors = [observer.observe(game, player) for game, player in positions(resolved, 1, seed=3)][::7]
    batch = observer.planes(np.stack(vectors))
    assert batch.shape == (len(vectors), size, size, P.CHANNELS) and batch.dtype == np.float32
    assert batch.min() >= 0.0 and batch.max() <= 1.0
    singles = np.stack([observer.planes(v) for v in vectors])
    assert np.array_equal(batch, singles)
    assert np.array_equal(observer.planes({"observation": vectors[0], "action_mask": None}), singles[0])
    with pytest.raises(ValueError, match="entries"):
        observer.planes(vectors[0][:-1])


def test_the_env_gives_planes_when_asked():
    env = uzor_v0.env(board_size=11, observation_format="planes")
    flat = uzor_v0.raw_env(board_size=11)
    env.reset(seed=4)
    flat.reset(seed=4)
    rng = random.Random(4)
    assert env.observation_space("player_0")["observation"].shape == (11, 11, P.CHANNELS)
    for _ in range(60):
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        want = flat.observer.planes(flat.observe(agent)["observation"])
        assert obs["observation"].dtype == np.float32 and np.array_equal(obs["observation"], want)
        assert np.array_equal(obs["action_mask"], flat.observe(agent)["action_mask"])
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        env.step(action)
        flat.step(action)


def test_the_policy_layout_maps_every_action_once_placements_by_cell_and_slot():
    observer = UzorObserver(UzorGame.resolve_options({"board_size": 9}))
    layout = observer.policy_layout()
    n = 81
    assert layout.cell_channels == 5 and layout.global_actions == 27
    assert sorted(layout.index.tolist()) == list(range(5 * n + 27))
    game = dealt(observer.options, 0)
    for action in range(5 * n + 27):
        where = layout.index[action]
        if action < 5 * n:
            slot, cell = divmod(action, n)
            row, col, channel = np.unravel_index(where, (9, 9, 5))
            assert (row * 9 + col, channel) == (cell, slot)
            assert game.action_to_string(action).endswith(f"@ {chr(ord('a') + col)}{row + 1}")
        else:
            assert where == action  # CLOSE, CONTINUE, TAKE, DISCARD, PASS: global logits in order


# ----- symmetries ---------------------------------------------------------------------------------

def board_symmetry(transform: str, size: int) -> Symmetry:
    """What a board transform would be as a symmetry: cells moved, slots and global actions kept."""
    n = size * size
    cells = transform_grid(np.arange(n).reshape(size, size, 1), transform).reshape(-1)
    moved = np.empty(n, np.int64)
    moved[cells] = np.arange(n)  # the cell old position x lands on
    actions = np.arange(5 * n + 27)
    actions[:5 * n] = (actions[:5 * n] // n) * n + moved[actions[:5 * n] % n]
    return Symmetry(transform, transform, actions)


def scripted_options(size: int, seed: int) -> dict:
    rng = random.Random(seed)
    goals = rng.sample(range(15), 2)
    return UzorGame.resolve_options({"board_size": size, "tiles": order_of(scripted_order(seed)), "goals": goals})


def replay(symmetry: Symmetry, options: dict, seed: int, planes: bool = True):
    """Play a seeded random game and its image under ``symmetry`` (every action mapped; the
    scripted tiles and goals give both the same chance), until the end or until a CLOSE turns
    other cells into stones than the image of the original's. Returns the step of the first
    difference in planes or mask (None: none) and the step after that CLOSE (None: none).
    With ``planes=False`` the flat vectors are compared instead (the planes are a function of
    them: equal vectors, equal planes), for the identity."""
    observer = UzorObserver(options)
    game, image = UzorGame(options), UzorGame(options)
    first_outcomes(game)  # the scripted setup
    first_outcomes(image)
    rng = random.Random(seed)
    vectors, images, masks, image_masks = [], [], [], []
    broken = None
    while True:
        player = game.current_player() if not game.is_terminal() else 0
        vectors.append(observer.observe(game, player))
        images.append(observer.observe(image, player))
        mask = np.zeros(game.num_actions, np.int8)
        mask[game.legal_actions()] = 1
        image_mask = np.zeros_like(mask)
        image_mask[image.legal_actions()] = 1
        masks.append(mask)
        image_masks.append(image_mask)
        if game.is_terminal() or broken is not None:
            break
        legal = game.legal_actions()
        action = rng.choice(legal[:-1] if game.phase == FORK and rng.random() < 0.7 else legal)
        closed = len(game.closed)
        game.apply(action)
        image.apply(int(symmetry.actions[action]))
        first_outcomes(game)  # scripted: one outcome, the same for both (tiles, not cells)
        first_outcomes(image)
        if len(game.closed) > closed:
            mapped = sorted(int(symmetry.actions[x]) for x in game.closed[-1][2])  # slot 0's place: the cell
            if mapped != sorted(image.closed[-1][2]):
                broken = len(vectors)
    if planes:
        want, got = symmetry.apply_planes(observer.planes(np.stack(vectors))), observer.planes(np.stack(images))
    else:
        assert symmetry.transform == "identity" and symmetry.channels is None
        want, got = vectors, images
    for step in range(len(vectors)):
        if not (np.array_equal(got[step], want[step]) and
                np.array_equal(image_masks[step], symmetry.apply_policy(masks[step]))):
            return step, broken
    return None, broken


def test_the_only_symmetry_is_the_identity_and_it_replays_every_game():
    symmetries = UzorObserver(UzorGame.resolve_options({})).symmetries()
    assert [s.name for s in symmetries] == ["identity"]
    assert np.array_equal(symmetries[0].actions, np.arange(5 * 441 + 27))
    for seed in range(100):
        options = scripted_options(9, seed)
        (identity,) = UzorObserver(options).symmetries()
        assert replay(identity, options, seed, planes=seed % 10 == 0) == (None, None)


# Three placements of a cedar at c3, each completing two instances of Line-3 (cedars of four
# colours around it, the centre e5 holding an unrelated wave): the gap in a row (a3 b3 _ d3),
# the gap in a column (c1 c2 _ c4) and a plus (b3 d3 c2 c4). CLOSE turns the first instance in
# reading order to stones; in the image position that is not always the image of the
# original's: every rotation and reflection of the square breaks at least one of them.
COUNTER_EXAMPLES = {"row": ("a3", "b3", "d3"), "column": ("c1", "c2", "c4"), "plus": ("b3", "d3", "c2", "c4")}


def line3_stones(transform: str, cells: tuple[str, ...]) -> tuple[list[int], list[int]]:
    """The cells the original's CLOSE Line-3 turned to stones, mapped; and the image's."""
    symmetry = board_symmetry(transform, 9)
    stones = []
    for mapped in (False, True):
        move = (lambda x: int(symmetry.actions[x])) if mapped else (lambda x: x)
        table = {move(cell(x)): tile(t) for x, t in zip(cells, ("Ca", "Cr", "Cm", "Ci"))}
        table[40] = tile("Wi")  # the centre, which every transform keeps
        game = UzorGame.from_position({"board_size": 9}, table, [tiles("Ce"), tiles("Xi")],
                                      tiles("Xm", "Xm", "Xm", "Bi", "Bi"), goals=(13, 14))
        game.apply(move(cell("c3")))  # hand slot 0: the action is the cell
        assert game.phase == FORK and 0 in game.fork
        game.apply(game.geo.close0)  # CLOSE Line-3
        stones.append(sorted(game.closed[-1][2]))
    return sorted(int(symmetry.actions[x]) for x in stones[0]), stones[1]


@pytest.mark.parametrize("transform", [t for t in D4 if t != "identity"])
def test_no_rotation_or_reflection_is_a_symmetry_the_reading_order_rule_breaks_it(transform):
    broken = []
    for name, cells in COUNTER_EXAMPLES.items():
        original, image = line3_stones(transform, cells)
        if original != image:
            broken.append(name)
    assert broken, f"{transform} keeps the reading order of every counter-example"
    # In random games the image stays the image until such a CLOSE, and no further.
    symmetry = board_symmetry(transform, 9)
    for seed in range(6):
        step, at = replay(symmetry, scripted_options(9, seed), seed)
        assert step == at


# ----- the documentation --------------------------------------------------------------------------

def test_the_planes_table_in_the_docs_covers_every_channel_once():
    text = (ROOT / "docs" / "observations.md").read_text()
    section = text.split("## uzor_v0", 1)[1].split("\n## ", 1)[0]
    planes = section.split("### Planes (observation_format=\"planes\")", 1)[1]
    rows = re.findall(r"^\| ([0-9]+)(?:[–-]([0-9]+))? \|", planes, re.M)
    covered = []
    for first, last in rows:
        covered += list(range(int(first), int(last or first) + 1))
    assert covered == list(range(UzorObserver(UzorGame.resolve_options({})).planes_shape()[2]))
