"""Every pattern of the Map, completed in every position it counts in; and the shapes and
criteria that must not count. Positions are drawn on a 9×9 table (centre e5)."""

from __future__ import annotations

import copy

import pytest

from envs.core import OptionError
from envs.uzor.patterns import STANDARD_MAP, all_orientations, check_map
from envs.uzor.rules import COPIES, FORK, PLACE, STONE, TAKE, TYPES
from tests.uzor.util import act, cell, draw, place, position, tile, tiles

SIZE = 9
CENTRE = 4 * SIZE + 4
NAMES = [p["name"] for p in STANDARD_MAP]


def criterion_tiles(criterion: str, n: int, variant: str) -> list[int]:
    """``n`` tile types meeting the criterion (at most two copies of a type)."""
    if criterion in ("same_motif", "hollow_centre", "different_colours") or (
        criterion == "same_motif_or_colour" and variant == "motif"
    ):
        return [i % 5 for i in range(n)]  # cedar, colours cycling
    if criterion in ("same_colour", "different_motifs") or criterion == "same_motif_or_colour":
        return [(i % 5) * 5 for i in range(n)]  # crimson, motifs cycling
    if criterion == "identical":
        return [7] * n  # sun/emerald
    raise AssertionError(criterion)


def cases():
    for k, pattern in enumerate(STANDARD_MAP):
        variants = ["motif", "colour"] if pattern["criterion"] == "same_motif_or_colour" else ["-"]
        for variant in variants:
            for o, shape in enumerate(pattern["shapes"]):
                for anchor in range(len(shape)):
                    yield pytest.param(k, variant, o, anchor, id=f"{pattern['name']}-{variant}-o{o}-a{anchor}")


@pytest.mark.parametrize("k, variant, o, anchor", list(cases()))
def test_every_pattern_completes_in_every_orientation_through_every_cell(k, variant, o, anchor):
    pattern = STANDARD_MAP[k]
    shape = pattern["shapes"][o]
    for top, left in ((1, 1), (2, 1), (1, 2)):  # the new tile must not be the centre tile
        cells = [(top + r) * SIZE + left + c for r, c in shape]
        if cells[anchor] != CENTRE:
            break
    kinds = criterion_tiles(pattern["criterion"], len(cells), variant)
    table = {x: t for x, t in zip(cells, kinds)}
    placed_cell, placed = cells[anchor], kinds[anchor]
    del table[placed_cell]
    hollow = None
    if pattern["criterion"] == "hollow_centre":
        hollow = (top + 1) * SIZE + left + 1
    if CENTRE not in cells:
        table[CENTRE] = tile("Xi")  # star/ivory: shares nothing with the shapes' tiles
    counts = [0] * TYPES
    for t in list(table.values()) + [placed]:
        counts[t] += 1
    # A diagonal cell has no orthogonal neighbour in its shape: give it one to match.
    r, c = divmod(placed_cell, SIZE)
    neighbours = [(r + dr) * SIZE + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    def matches(n):
        return n in table and (table[n] // 5 == placed // 5 or table[n] % 5 == placed % 5)

    if not any(matches(n) for n in neighbours):
        spot = next(n for n in neighbours if n not in cells and n != hollow and n not in table)
        support = next(
            t for t in range(TYPES)
            if t != placed and counts[t] < COPIES and (t // 5 == placed // 5 or t % 5 == placed % 5)
        )
        table[spot] = support
    game = position(table, [placed], avoid=set(table.values()) | {placed})
    assert game.phase == PLACE
    place(game, placed, f"{chr(ord('a') + placed_cell % SIZE)}{placed_cell // SIZE + 1}")
    assert game.phase == FORK
    assert k in game.fork, (NAMES[k], [NAMES[j] for j in game.fork])
    assert game.fork[k] == tuple(sorted(cells))


def test_line_three_laid_diagonally_is_a_slant_not_a_line():
    table = draw("""
        Ca .  .
        .  Cr .
        .  Se .
    """, top=3, left=3)  # d4, e5 (centre), and sun/emerald at e6 for the new tile to match
    game = position(table, [tile("Ce")])
    place(game, tile("Ce"), "f6")
    assert game.phase == FORK
    assert set(game.fork) == {6}  # Slant-3 only


@pytest.mark.parametrize("shape_text, wedge", [
    ("Ca . .\nSa Wa Ba", True),     # the corner with its leg up-left
    (". . Ca\nSa Wa Ba", True),     # its mirror image
    (". Ca .\nSa Wa Ba", False),    # a T is not a Wedge
    ("Ca Sa .\n. Wa Ba", False),    # an S is not a Wedge
])
def test_wedge_counts_in_its_positions_and_no_other_shape(shape_text, wedge):
    table = draw(shape_text, top=4, left=3)  # rows 5 and 6, columns d…f
    last = table.pop(cell("f6"))
    table.setdefault(CENTRE, tile("Xi"))
    game = position(table, [last], avoid={tile("Ba")})
    place(game, last, "f6")
    completed = game.fork if game.phase == FORK else {}
    assert (8 in completed) == wedge


def test_square_is_a_two_by_two_block_of_one_motif():
    table = draw("""
        Ca Cr
        Ce .
    """, top=4, left=4)
    game = position(table, [tile("Cm")])
    place(game, tile("Cm"), "f6")
    assert set(game.fork) == {9}


def test_cross_needs_all_five_on_the_centres_motif_or_all_five_on_its_colour():
    # centre e5 cedar/azure; arms: two cedars and two azures: a mix, not a Cross.
    mixed = draw("""
        .  Cr .
        Ce Ca Sa
        .  Wa .
    """, top=3, left=3)
    t = mixed.pop(cell("e6"))
    game = position(mixed, [t])
    place(game, t, "e6")
    assert game.phase != FORK or 10 not in game.fork
    by_colour = draw("""
        .  Sa .
        Wa Ca Ba
        .  Xa .
    """, top=3, left=3)
    t = by_colour.pop(cell("e6"))
    game = position(by_colour, [t])
    place(game, t, "e6")
    assert 10 in game.fork


RING = """
    Ca Cr Ce
    Cm .  Ci
    Sa Sr .
"""  # rows 2…4, columns b…d: the centre c3 is empty, d4 is still to come


def test_ring_needs_an_empty_centre_and_a_live_tile_there_cancels_it():
    ring = {**draw(RING, top=1, left=1), CENTRE: tile("Xi")}
    game = position(ring, [tile("Se")])
    place(game, tile("Se"), "d4")
    expected = tuple(sorted(cell(n) for n in ("b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4")))
    assert game.fork[11] == expected
    filled = {**ring, cell("c3"): tile("Wa")}
    game = position(filled, [tile("Se")])
    place(game, tile("Se"), "d4")
    assert game.phase != FORK or 11 not in game.fork


def test_ring_around_a_stone_counts():
    # A Map where pattern 12 is a single cell ("Dot") lets a lone tile turn to stone.
    patterns = copy.deepcopy(STANDARD_MAP)
    patterns[12] = {"name": "Dot", "shapes": [[[0, 0]]], "criterion": "any", "points": 1}
    ring = {**draw(RING, top=1, left=1), CENTRE: tile("Xi")}
    game = position(ring, [tile("Wr"), tile("Se")], hand1=tiles("Xi", "Xi", "Xm", "Xm", "Xe"),
                    patterns=patterns)
    place(game, tile("Wr"), "c3")  # matches cedar/crimson above it by colour
    assert 12 in game.fork and 11 not in game.fork
    act(game, "close Dot")
    assert game.board[cell("c3")] == STONE + tile("Wr")
    act(game, "take 0")
    assert game.to_move == 1
    while game.to_move == 1:  # player_1 plays anywhere but d4
        legal = game.legal_actions()
        away = [a for a in legal if a >= game.geo.close0 or a % game.geo.cells != cell("d4")]
        game.apply(away[0])
    place(game, tile("Se"), "d4")
    assert 11 in game.fork


def test_rainbow_and_parade_need_five_different():
    rainbow = draw("Ca Cr Ce Cm .", top=4, left=2)  # c5…f5, g5 empty; e5 is the centre
    game = position(rainbow, [tile("Ci"), tile("Ca")])
    place(game, tile("Ci"), "g5")
    assert {2, 12} <= set(game.fork)
    game = position(rainbow, [tile("Ca"), tile("Ci")])
    place(game, tile("Ca"), "g5")
    assert 12 not in game.fork and 2 in game.fork  # azure twice: a Line-5 but no Rainbow
    parade = draw("Ca Sa Wa Ba .", top=4, left=2)
    game = position(parade, [tile("Xa")])
    place(game, tile("Xa"), "g5")
    assert {5, 13} <= set(game.fork)  # five azures: a Flow-5 as well
    game = position(parade, [tile("Sr"), tile("Xa")])
    assert game.phase == PLACE


def test_triplet_needs_three_identical_tiles():
    game = position(draw("Ca Ca", top=4, left=4), [tile("Ca")])
    place(game, tile("Ca"), "g5")
    assert {0, 3, 14} <= set(game.fork)


def test_an_instance_must_contain_the_placed_tile():
    # Three cedars already in a row (laid by a continue earlier) do not count again.
    table = draw("Ca Cr Ce", top=4, left=4)
    game = position(table, [tile("Sa")])
    place(game, tile("Sa"), "e6")
    assert game.phase == TAKE


def test_reading_order_picks_the_first_instance():
    # A cedar laid in the middle of a row of five is in three Line-3 instances, two Line-4s.
    table = {**draw("Ca Cr . Ce Cm", top=3, left=2), CENTRE: tile("Xi")}  # row 4, c…g
    game = position(table, [tile("Ci")])
    place(game, tile("Ci"), "e4")
    assert game.fork[0] == tuple(cell(n) for n in ("c4", "d4", "e4"))
    assert game.fork[1] == tuple(cell(n) for n in ("c4", "d4", "e4", "f4"))
    assert game.fork[2] == tuple(cell(n) for n in ("c4", "d4", "e4", "f4", "g4"))
    act(game, "close Line-4")
    assert [game.board[cell(n)] >= STONE for n in ("c4", "d4", "e4", "f4", "g4")] == [True] * 4 + [False]


# ----- the Map as data ----------------------------------------------------------------------

def test_standard_map_has_the_pages_points_and_orientations():
    assert [p["points"] for p in STANDARD_MAP] == [2, 5, 9, 2, 5, 9, 3, 7, 3, 5, 8, 7, 6, 6, 8]
    assert NAMES == ["Line-3", "Line-4", "Line-5", "Flow-3", "Flow-4", "Flow-5", "Slant-3", "Slant-4",
                     "Wedge", "Square", "Cross", "Ring", "Rainbow", "Parade", "Triplet"]
    assert [len(p["shapes"]) for p in STANDARD_MAP] == [2, 2, 2, 2, 2, 2, 2, 2, 8, 1, 1, 1, 2, 2, 4]
    assert check_map(STANDARD_MAP) == STANDARD_MAP
    assert len(all_orientations([(0, 0), (0, 1), (1, 0), (1, 1)])) == 1


@pytest.mark.parametrize("mutate, fragment", [
    (lambda m: m[:14], "exactly 15"),
    (lambda m: "Line-3", "a Map is a list"),
    (lambda m: m[:14] + [{**m[0], "name": "X", "points": -1}], "points"),
    (lambda m: m[:14] + [{**m[0], "name": "X", "criterion": "pretty"}], "criterion"),
    (lambda m: m[:14] + [{**m[0], "name": "X", "shapes": []}], "shapes"),
    (lambda m: m[:14] + [{**m[0], "name": "X", "shapes": [[[0, 0], [0, 0]]]}], "twice"),
    (lambda m: m[:14] + [{**m[0], "name": "X", "shapes": [[[0, "a"]]]}], "pair of integers"),
    (lambda m: m[:14] + [{**m[0]}], "unique"),
    (lambda m: m[:14] + [{"name": "X", "shapes": [[[0, 0]]], "points": 1}], "criterion"),
    (lambda m: m[:14] + [{**m[11], "name": "X", "shapes": [[[0, 0], [0, 1]]]}], "hollow_centre"),
    (lambda m: m[:14] + [{**m[0], "name": "X", "colour": 3}], "unknown key"),
])
def test_a_malformed_map_is_refused_with_a_reason(mutate, fragment):
    with pytest.raises(OptionError, match=fragment) as caught:
        check_map(mutate(copy.deepcopy(STANDARD_MAP)))
    assert "option 'patterns'" in str(caught.value)


def test_a_user_map_replaces_the_standard_one():
    patterns = copy.deepcopy(STANDARD_MAP)
    patterns[0] = {"name": "Pair", "shapes": [[[0, 0], [0, 1]], [[0, 0], [1, 0]]],
                   "criterion": "same_motif", "points": 1}
    game = position(draw("Ca", top=4, left=4), [tile("Cr")], patterns=patterns)
    place(game, tile("Cr"), "f5")
    assert set(game.fork) == {0}
    act(game, "close Pair")
    assert game.points == [1, 0]


@pytest.mark.parametrize("size,kind", [(15, "pairs"), (15, "standard"), (21, "pairs"), (21, "blocks")])
def test_the_memory_estimate_of_a_user_map_bounds_what_laying_it_takes(size, kind):
    """``memory_estimate_for`` (what a server charges a game) is at least what the laid Map
    takes and at most four times that: for the costliest kind of Map (two-cell orientations, all
    different cells), the standard Map's shapes, and nine-cell blocks shared between patterns."""
    import tracemalloc
    import uuid

    from envs.uzor.patterns import check_map, compiled
    from envs.uzor.rules import UzorGame

    tag = uuid.uuid4().hex[:8]  # a Map no cache holds yet
    if kind == "pairs":
        offsets = [(r, c) for r in range(12) for c in range(-11, 12) if (r, c) > (0, 0)]
        patterns = [{"name": f"{tag}-{k}", "criterion": "any", "points": 1,
                     "shapes": [[[0, 0], list(offsets[8 * k + o])] for o in range(8)]} for k in range(15)]
    elif kind == "blocks":
        patterns = [{"name": f"{tag}-{k}", "criterion": "any", "points": 1,
                     "shapes": [[[r, c] for r in range(3) for c in range(3) if (3 * r + c + k + o) % 4]
                                for o in range(2)]} for k in range(15)]
    else:
        patterns = [dict(p, name=f"{tag}-{p['name']}") for p in STANDARD_MAP]
    options = UzorGame.resolve_options({"board_size": size, "patterns": patterns})
    estimate = UzorGame.memory_estimate_for(options)
    tracemalloc.start()
    try:
        laid = compiled(size, check_map(patterns))
        taken, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert laid is not None and taken <= estimate <= 4 * taken
    assert UzorGame.memory_estimate_for(UzorGame.resolve_options({"board_size": size})) == 0
