"""Knot's board-shaped observations: shape and range, batches, the env's planes format, the
policy layout, and every declared symmetry checked by replaying games with the moves mapped."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from envs import knot_v0
from envs.core.observer import Symmetry
from envs.knot.geometry import SLOT_CORNERS, SLOT_PORTS, SLOTS
from envs.knot.observer import KnotObserver
from envs.knot.planes import square_maps
from envs.core.game import CHANCE
from envs.knot.options import deck_totals
from envs.knot.rules import KnotGame
from tests.knot.helpers import new_game, random_step

OPTION_SETS = [
    {"players": 2},
    {"players": 2, "size": 4},
    {"players": 2, "size": 5},
    {"players": 3},
    {"players": 4, "size": 5},
]


def random_positions(options, seed, games=2):
    """Engine states of random games under ``options`` (chance nodes and the end included)."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        game = KnotGame(KnotGame.resolve_options(dict(options)))
        while True:
            out.append(game.clone())
            if game.is_terminal():
                break
            random_step(game, rng)
    return out


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_shape_dtype_range_and_batches(options):
    observer = KnotObserver(KnotGame.resolve_options(dict(options)))
    players = observer.players
    H, W, C = observer.planes_shape()
    assert H == W == observer.board_size and C == 64 + 12 * players
    vectors = []
    for game in random_positions(options, 1)[::7]:
        for seat in range(players):
            flat = observer.observe(game, seat)
            planes = observer.planes(flat)
            assert planes.shape == (H, W, C) and planes.dtype == np.float32
            assert planes.min() >= 0 and planes.max() <= 1
            assert np.array_equal(observer.planes({"observation": flat, "action_mask": None}), planes)
            vectors.append(flat)
    batch = np.stack(vectors)
    assert np.array_equal(observer.planes(batch), np.stack([observer.planes(v) for v in vectors]))
    with pytest.raises(ValueError, match="flat observations of"):
        observer.planes(np.zeros(observer.size + 1, np.float32))


def test_planes_say_what_the_position_holds():
    """Channels read back to the engine's own records, owners relative to the seat."""
    options = {"players": 3, "size": 6}
    observer = KnotObserver(KnotGame.resolve_options(dict(options)))
    ch = observer._board_planes.channels
    checked = 0
    for game in random_positions(options, 5)[::9]:
        for seat in range(3):
            planes = observer.planes(observer.observe(game, seat))
            strand = np.zeros((6, 6, SLOTS))
            owner = np.zeros((6, 6, 12))
            closed = np.zeros((6, 6, 4))
            for sq, k, t, o, c in game.strands():
                r, col = divmod(sq, 6)
                strand[r, col, 4 * k + t] = 1
                for corner in range(4):
                    if SLOT_CORNERS[4 * k + t] >> corner & 1:
                        owner[r, col, 4 * ((o - seat) % 3) + corner] = 1
                        closed[r, col, corner] = float(c)
            assert np.array_equal(planes[..., slice(*ch["STRAND"])], strand)
            assert np.array_equal(planes[..., slice(*ch["CORNER_OWNER"])], owner)
            assert np.array_equal(planes[..., slice(*ch["CLOSED"])], closed)
            mine = np.zeros((6, 6, 8))
            others = np.zeros((6, 6, 8))
            for p in range(3):
                for e in game.ends[p]:
                    r, col = divmod(e >> 3, 6)
                    (mine if p == seat else others)[r, col, e & 7] = 1
            assert np.array_equal(planes[..., slice(*ch["MY_ENDS"])], mine)
            assert np.array_equal(planes[..., slice(*ch["OTHER_ENDS"])], others)
            zone = planes[..., ch["ZONE"][0]]
            if not game.placed_any[seat]:
                assert zone.all()
            else:
                bb = game.geo.zone(game.own_bb[seat]) if game.own_bb[seat] else 0
                assert [bool(bb >> q & 1) for q in range(36)] == (zone.ravel() > 0).tolist()
            hand = planes[0, 0, slice(*ch["HAND"])]
            assert np.allclose(hand * 5, game.hands[seat])
            assert (planes[..., ch["HAND"][0]:] == planes[:1, :1, ch["HAND"][0]:]).all()  # constant planes
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("players", [2, 4])
def test_env_gives_the_observers_planes(players):
    flat = knot_v0.raw_env(players=players)
    planes = knot_v0.env(players=players, observation_format="planes")
    flat.reset(seed=4)
    planes.reset(seed=4)
    assert planes.observation_space("player_0")["observation"].shape == flat.observer.planes_shape()
    rng = random.Random(4)
    for _ in range(150):
        if any(flat.terminations.values()):
            break
        for agent in flat.agents:
            want = flat.observe(agent)
            got = planes.observe(agent)
            assert np.array_equal(got["observation"], flat.observer.planes(want["observation"]))
            assert np.array_equal(got["action_mask"], want["action_mask"])
            assert planes.observation_space(agent)["observation"].contains(got["observation"])
        action = int(rng.choice(np.flatnonzero(want["action_mask"] if agent == flat.agent_selection else flat.observe(flat.agent_selection)["action_mask"])))
        flat.step(action)
        planes.step(action)


@pytest.mark.parametrize("options", [{"players": 2}, {"players": 3, "size": 5}], ids=str)
def test_policy_layout_is_a_bijection_onto_the_head(options):
    resolved = KnotGame.resolve_options(dict(options))
    observer = KnotObserver(resolved)
    layout = observer.policy_layout()
    H, W, _ = observer.planes_shape()
    n = KnotGame.num_actions_for(resolved)
    assert layout.cell_channels == 16 and layout.global_actions == 4
    assert sorted(layout.index.tolist()) == list(range(H * W * 16 + 4)) and len(layout.index) == n
    game = new_game(resolved, 0)
    for action in (0, 5 * game.n + 7, 16 * game.n - 1):
        slot, sq = divmod(action, game.n)
        r, c = divmod(sq, game.size)
        assert layout.index[action] == (r * W + c) * 16 + slot
    for i, name in enumerate(("end", "draw 0", "draw 1", "draw pile")):
        assert layout.index[game.string_to_action(name)] == H * W * 16 + i


def test_square_maps_keep_the_geometry():
    """Each relabelling of a square keeps what the rules read: a port's side and corner, a
    strand's kind, ports, corners and blocked sides, and the links of a port."""
    from envs.knot.geometry import SLOT_BLOCKS, port_corner

    for transform in ("identity", "rot90", "rot180", "rot270", "flip_rows", "flip_cols", "transpose", "antitranspose"):
        port, corner, side, slot = square_maps(transform)
        assert sorted(port) == list(range(8)) and sorted(corner) == list(range(4)) and sorted(slot) == list(range(16))
        for p in range(8):
            assert port[p] // 2 == side[p // 2] and port_corner(port[p]) == corner[port_corner(p)]
            # the edge link pairs the two halves of a side; the inside link keeps the half on the
            # opposite side: both survive relabelling
            assert port[p ^ 1] == port[p] ^ 1
        for s in range(16):
            new = slot[s]
            assert new >> 2 == s >> 2  # a strand keeps its kind
            assert {port[p] for p in SLOT_PORTS[s]} == set(SLOT_PORTS[new])
            assert {corner[c] for c in range(4) if SLOT_CORNERS[s] >> c & 1} == {
                c for c in range(4) if SLOT_CORNERS[new] >> c & 1}
            assert {side[x] for x in range(4) if SLOT_BLOCKS[s] >> x & 1} == {
                x for x in range(4) if SLOT_BLOCKS[new] >> x & 1}


def symmetry_failure(options, seed, symmetries, observer) -> str | None:
    """Replay one random game next to its images under ``symmetries`` (every action mapped, the
    same scripted pile: the outcomes of chance are kinds, which no symmetry changes) and return
    the first mismatch, or None."""
    rng = random.Random(seed)
    deck = deck_totals(KnotGame.resolve_options(dict(options)))
    pile = [k for k in range(4) for _ in range(deck[k])]
    rng.shuffle(pile)
    scripted = KnotGame.resolve_options({**options, "pile": pile})
    game = KnotGame(scripted)
    images = [KnotGame(scripted) for _ in symmetries]
    players = game.n_players
    step = 0
    while True:
        chance = game.current_player() == CHANCE
        mask = np.zeros(game.num_actions, np.int8)
        if not game.is_terminal() and not chance:
            mask[game.legal_actions()] = 1
        if chance:  # the same strand comes out of the pile: no symmetry moves a kind
            for sym, image in zip(symmetries, images):
                if image.current_player() != CHANCE or image.chance_outcomes() != game.chance_outcomes():
                    return f"{sym.name}, seed {seed}, step {step}: the chance nodes differ"
            action = rng.choice(game.legal_actions())
            for state in (game, *images):
                state.apply(action)
            step += 1
            continue
        flats = [observer.observe(state, seat) for state in [game, *images] for seat in range(players)]
        planes = observer.planes(np.stack(flats)).reshape(1 + len(images), players, *observer.planes_shape())
        for i, (sym, image) in enumerate(zip(symmetries, images)):
            want_mask = sym.apply_policy(mask)
            got_mask = np.zeros_like(mask)
            if not image.is_terminal():
                got_mask[image.legal_actions()] = 1
            if not np.array_equal(got_mask, want_mask):
                return f"{sym.name}, seed {seed}, step {step}: the masks differ"
            if not np.array_equal(planes[1 + i], sym.apply_planes(planes[0])):
                seat = next(j for j in range(players) if not np.array_equal(planes[1 + i, j], sym.apply_planes(planes[0, j])))
                return f"{sym.name}, seed {seed}, step {step}: seat {seat}'s planes differ"
        if game.is_terminal():
            for sym, image in zip(symmetries, images):
                if image.scores() != game.scores() or not image.is_terminal():
                    return f"{sym.name}, seed {seed}: the mapped game ends otherwise"
            return None
        action = rng.choice(game.legal_actions())
        game.apply(action)
        for sym, image in zip(symmetries, images):
            image.apply(int(sym.actions[action]))
        step += 1


# 104 games over the option sets; every game is replayed under all eight symmetries at once.
REPLAYS = [({"players": 2, "size": 4}, 40), ({"players": 2, "size": 5}, 20), ({"players": 2}, 16),
           ({"players": 3, "size": 5}, 12), ({"players": 3}, 4), ({"players": 4, "size": 4}, 8),
           ({"players": 4, "size": 6}, 4)]


@pytest.mark.parametrize("options,games", REPLAYS, ids=[str(o) for o, _ in REPLAYS])
def test_every_symmetry_replays_games_with_the_moves_mapped(options, games):
    observer = KnotObserver(KnotGame.resolve_options(dict(options)))
    symmetries = observer.symmetries()
    assert symmetries[0].name == "identity" and len(symmetries) == 8
    assert len({s.name for s in symmetries}) == 8
    n = KnotGame.num_actions_for(observer.options)
    for sym in symmetries:
        assert sorted(sym.actions.tolist()) == list(range(n))
        assert sym.actions[16 * observer.n:].tolist() == list(range(16 * observer.n, n))  # END and draws stay
        if sym.channels is not None:
            assert sorted(sym.channels.tolist()) == list(range(observer.planes_shape()[2]))
        assert sym.chance is None  # chance outcomes are strand kinds: no symmetry moves them
    for seed in range(games):
        assert symmetry_failure(options, seed, symmetries, observer) is None


def test_the_replay_catches_a_wrong_symmetry():
    """The replay is a real check: turning the board without relabelling the strands inside
    each square, or relabelling by the inverse turn, fails."""
    options = {"players": 2, "size": 4}
    observer = KnotObserver(KnotGame.resolve_options(dict(options)))
    rot90 = observer.symmetries()[1]
    rot270 = observer.symmetries()[3]
    wrong = [
        Symmetry("rot90, channels kept", "rot90", rot90.actions),
        Symmetry("rot90 with rot270's channels", "rot90", rot90.actions, channels=rot270.channels),
    ]
    for sym in wrong:
        assert any(symmetry_failure(options, seed, [sym], observer) for seed in range(5)), sym.name


def test_symmetries_compose_as_the_square_does():
    observer = KnotObserver(KnotGame.resolve_options({"players": 2}))
    by_name = {s.name: s for s in observer.symmetries()}
    twice = by_name["rot90"].actions[by_name["rot90"].actions]
    assert np.array_equal(twice, by_name["rot180"].actions)
    for name in ("flip_rows", "flip_cols", "transpose", "antitranspose", "rot180"):
        assert np.array_equal(by_name[name].actions[by_name[name].actions], np.arange(len(twice)))


def test_docs_table_matches_the_planes():
    text = Path(__file__).resolve().parents[2].joinpath("docs", "observations.md").read_text()
    section = text.split("## knot_v0", 1)[1].split("\n## ", 1)[0]
    planes = section.split("### Planes (observation_format=\"planes\")", 1)[1]
    rows = re.findall(r"^\| `?([0-9][^|`]*)`? \|", planes, re.M)
    assert rows, "the planes table has no rows"
    # Ranges are written in P; check them at P = 2 and P = 4.
    for players in (2, 4):
        observer = KnotObserver(KnotGame.resolve_options({"players": players}))
        covered = []
        for row in rows:
            parts = [eval(re.sub(r"(\d)P", r"\1*P", x).replace("P", str(players)))  # noqa: S307
                     for x in row.strip().split("–")]
            covered.extend(range(parts[0], parts[-1] + 1))
        assert covered == list(range(observer.planes_shape()[2])), players
