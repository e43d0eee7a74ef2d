"""Knot's geometry against the page: ports, links, and every row of the strand table."""

from __future__ import annotations

import pytest

from envs.knot.geometry import (
    SLOT_BLOCKS,
    SLOT_CORNERS,
    SLOT_PORTS,
    geometry,
    port_corner,
)
from tests.knot.helpers import position

# The strand table of docs/knot.md, typed out by hand: kind -> turn -> (ports, corners, blocked sides)
TABLE = {
    "cut": [({1, 2}, {0}, set()), ({3, 4}, {1}, set()), ({5, 6}, {2}, set()), ({7, 0}, {3}, set())],
    "run": [({7, 2}, {3, 0}, {0}), ({1, 4}, {0, 1}, {1}), ({3, 6}, {1, 2}, {2}), ({5, 0}, {2, 3}, {3})],
    "hook": [
        ({0, 3}, {1, 2, 3}, {2, 3}),
        ({2, 5}, {0, 2, 3}, {3, 0}),
        ({4, 7}, {0, 1, 3}, {0, 1}),
        ({6, 1}, {0, 1, 2}, {1, 2}),
    ],
    "flip": [
        ({0, 1}, {0, 1, 2, 3}, {1, 2, 3}),
        ({2, 3}, {0, 1, 2, 3}, {0, 2, 3}),
        ({4, 5}, {0, 1, 2, 3}, {0, 1, 3}),
        ({6, 7}, {0, 1, 2, 3}, {0, 1, 2}),
    ],
}
KINDS = ["cut", "run", "hook", "flip"]
TURN_NAMES = {"cut": ["ne", "se", "sw", "nw"], "hook": ["ne", "se", "sw", "nw"],
              "run": ["n", "e", "s", "w"], "flip": ["n", "e", "s", "w"]}


def bits(mask: int) -> set[int]:
    return {i for i in range(16) if mask >> i & 1}


def test_ports_are_numbered_clockwise_from_north_west_and_lie_beside_their_corner():
    # 0 N-west 1 N-east 2 E-north 3 E-south 4 S-east 5 S-west 6 W-south 7 W-north
    # corners 0 NE 1 SE 2 SW 3 NW
    assert [port_corner(p) for p in range(8)] == [3, 0, 0, 1, 1, 2, 2, 3]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("turn", range(4))
def test_strand_table_row(kind, turn):
    k = KINDS.index(kind)
    ports, corners, blocks = TABLE[kind][turn]
    slot = 4 * k + turn
    assert set(SLOT_PORTS[slot]) == ports
    assert bits(SLOT_CORNERS[slot]) == corners
    assert bits(SLOT_BLOCKS[slot]) == blocks
    # Placed alone in c3 of a 6x6 board (square 14): it uses exactly those ports, fills those
    # corners, blocks those crossings from both sides, and its two ports are the open ends.
    name = f"{kind}/{TURN_NAMES[kind][turn]}@c3"
    game = position(hands=[[1, 1, 1, 1], [1, 1, 1, 1]], placed_any=[False, False])
    assert game.action_to_string(game.string_to_action(name)) == name
    assert game.why_illegal(game.string_to_action(name)) is None
    game.apply(game.string_to_action(name))
    used = {g - 14 * 8 for g, s in enumerate(game.port_strand) if s >= 0}
    assert used == ports
    assert game.geo_w[14] & 15 == sum(1 << c for c in corners)
    assert {s for s in range(4) if game.blocked_sides(14) >> s & 1} == blocks
    neighbours = {0: 8, 1: 15, 2: 20, 3: 13}  # c2, d3, c4, b3
    for side, other in neighbours.items():
        assert bool(game.blocked_sides(other) >> ((side + 2) % 4) & 1) == (side in blocks)
    assert game.ends[0] == {14 * 8 + p for p in ports}


def test_every_kind_uses_every_port_in_exactly_one_turn():
    for k in range(4):
        seen = sorted(p for t in range(4) for p in SLOT_PORTS[4 * k + t])
        assert seen == list(range(8))


def test_every_kind_has_exactly_one_odd_port():
    for slot in range(16):
        assert sum(p % 2 for p in SLOT_PORTS[slot]) == 1


def test_inside_links_cross_the_midpoint_diagonally_keeping_the_half():
    g = geometry(6)
    c3, c2, d3, b3, c4 = 14, 8, 15, 13, 20
    assert g.link[c3 * 8 + 0] == c2 * 8 + 4  # N-west <-> S-east of the square above
    assert g.link[c3 * 8 + 1] == c2 * 8 + 5  # N-east <-> S-west
    assert g.link[c3 * 8 + 2] == d3 * 8 + 6  # E-north <-> W-south of the square to the right
    assert g.link[c3 * 8 + 3] == d3 * 8 + 7  # E-south <-> W-north
    assert g.link[c3 * 8 + 4] == c4 * 8 + 0
    assert g.link[c3 * 8 + 7] == b3 * 8 + 3
    assert all(g.inside[c3 * 8 + p] for p in range(8))


def test_edge_links_turn_back_into_the_same_square():
    g = geometry(6)
    a1, f6 = 0, 35
    assert g.link[a1 * 8 + 0] == a1 * 8 + 1  # N edge: west half <-> east half
    assert g.link[a1 * 8 + 7] == a1 * 8 + 6  # W edge
    assert g.link[f6 * 8 + 2] == f6 * 8 + 3  # E edge
    assert g.link[f6 * 8 + 4] == f6 * 8 + 5  # S edge
    assert not g.inside[a1 * 8 + 0] and not g.inside[f6 * 8 + 4]
    assert g.inside[a1 * 8 + 2]  # a1's E side is inside the board


@pytest.mark.parametrize("size", [4, 6, 10])
def test_links_are_symmetric_and_never_fixed(size):
    g = geometry(size)
    for port in range(8 * size * size):
        other = g.link[port]
        assert other != port
        assert g.link[other] == port
        assert g.inside[other] == g.inside[port]
        # inside links keep the half (port parity), edge links change it
        assert (other % 2 == port % 2) == bool(g.inside[port])
    inside_links = sum(g.inside) // 2
    assert inside_links == g.inside_links == 4 * size * (size - 1)
