"""The exact "can still be filled" search against a brute force straight from the definition.

The brute force knows nothing of chains or bitmasks: it explores every set of cells reachable
from the position by legal fills (anyone's, ignoring turns) and collects every cell that is
ever legal. A cell can still be filled exactly when some sequence of legal fills ends by
filling it (the chain of the rules page, filled from its far end, is such a sequence; and any
such sequence contains a chain back from the cell to the original filled cells).
"""

from __future__ import annotations

import random

import pytest

from tests.fill.helpers import settle
from envs.fill.rules import FILL, FillGame

STEPS = {"orthogonal": ((0, 1), (1, 0)), "strict": ((0, 1), (1, 0), (1, 1), (1, -1)), "off": ()}


def naive_legal(size, lines, rocks, filled, cell):
    r, c = divmod(cell, size)
    if cell in filled or cell in rocks:
        return False
    if not any((r + dr, c + dc) in filled for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc):
        return False
    # every line of three through the cell
    for dr, dc in STEPS[lines]:
        for k in (0, 1, 2):
            trio = [(r + (i - k) * dr, c + (i - k) * dc) for i in range(3)]
            if all(0 <= a < size and 0 <= b < size for a, b in trio):
                if all((a, b) == (r, c) or (a, b) in filled for a, b in trio):
                    return False
    for r0 in (r - 1, r):
        for c0 in (c - 1, c):
            block = [(r0, c0), (r0 + 1, c0), (r0, c0 + 1), (r0 + 1, c0 + 1)]
            if all(0 <= a < size and 0 <= b < size for a, b in block):
                if all((a, b) == (r, c) or (a, b) in filled for a, b in block):
                    return False
    return True


def brute_force_fillable(game: FillGame) -> set[int]:
    size, lines = game.options["size"], game.options["lines"]
    rocks = {divmod(c, size) for c in range(size * size) if game.rock >> c & 1}
    start = frozenset(divmod(c, size) for c in range(size * size) if game.filled >> c & 1)
    empties = [c for c in range(size * size) if not (game.rock | game.filled) >> c & 1]
    seen, stack, ever = {start}, [start], set()
    while stack:
        filled = stack.pop()
        for cell in empties:
            rc = divmod(cell, size)
            if rc not in filled and naive_legal(size, lines, rocks, filled, cell):
                ever.add(cell)
                nxt = filled | {rc}
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return ever


def positions(lines: str, count: int, seed: int, max_free: int):
    """Random-play positions whose not-yet-poisoned empty cells are few enough to brute force."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        options = {"lines": lines, "rocks": rng.random() < 0.5, "size": 6}
        game = FillGame(FillGame.resolve_options(options), random.Random(rng.random()))
        while not game.is_terminal():
            if game.phase == FILL:
                open_cells = (game.geo.full & ~(game.filled | game.rock | game.poison)).bit_count()
                if open_cells <= max_free and rng.random() < 0.5:
                    made += 1
                    yield game.clone()
                    if made >= count:
                        return
            game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("prune_after", [None, 0])
@pytest.mark.parametrize("lines", ["orthogonal", "strict", "off"])
def test_search_agrees_with_brute_force(lines, prune_after, monkeypatch):
    if prune_after is not None:  # the reachability pruning from the very first node
        monkeypatch.setattr("envs.fill.board.PRUNE_AFTER", prune_after)
    checked = dead_without_cross = 0
    interesting = 0
    for game in positions(lines, 40, seed=5, max_free=13):
        truth = brute_force_fillable(game)
        for cell in range(game.n):
            witness = game.fill_witness(cell)
            assert bool(witness) == (cell in truth), (lines, cell, game.filled, game.rock)
            checked += 1
            if cell in truth and not game.legal_mask() >> cell & 1:
                interesting += 1
                # the witness is a real chain: filling it from the far end is legal
                assert witness >> cell & 1
            if not (game.filled | game.rock | game.poison) >> cell & 1 and cell not in truth:
                dead_without_cross += 1  # walled off or every route poisons: no cross, not fillable
    assert checked > 1000 and interesting > 20
    if lines != "off":
        assert dead_without_cross > 0  # the positions do exercise the hard case


def test_witness_chain_can_be_filled_from_its_far_end():
    rng = random.Random(7)
    for game in positions("orthogonal", 30, seed=11, max_free=30):
        for cell in range(game.n):
            witness = game.fill_witness(cell)
            if not witness or game.legal_mask() >> cell & 1:
                continue
            board = game.clone()
            chain = [c for c in range(game.n) if witness >> c & 1]
            # fill the chain: repeatedly fill a legal chain cell; the gem cell must come last
            while chain:
                legal = [c for c in chain if board.legal_mask() >> c & 1 and (c != cell or len(chain) == 1)]
                assert legal, "the witness chain got stuck"
                pick = rng.choice(legal)
                board._place(pick)
                chain.remove(pick)


def test_before_the_seed_every_non_rock_cell_can_still_be_filled():
    game = settle(FillGame(FillGame.resolve_options({"rocks": True, "rock_cells": [0, 1]})))
    assert [game.can_still_be_filled(c) for c in range(4)] == [False, False, True, True]


def chain_fills(game: FillGame, cell: int, chain: int) -> bool:
    """Whether ``chain`` (a mask holding ``cell``) can be filled cell by cell with legal fills
    from the game's board: the check every witness chain must pass."""
    board = game.clone()
    left = chain
    while left:
        legal = board.legal_mask() & left
        if not legal:
            return False
        pick = (legal & -legal).bit_length() - 1
        board._place(pick)
        left &= ~(1 << pick)
    return bool(chain >> cell & 1)


@pytest.mark.parametrize("lines", ["orthogonal", "strict", "off"])
def test_all_witnesses_at_once_agree_with_the_search_cell_by_cell(lines):
    from envs.fill.board import fill_witnesses, settle_chains

    rng = random.Random(7)
    checked = 0
    for seed in range(40):
        options = FillGame.resolve_options({"lines": lines, "rocks": seed % 2 == 0, "size": (6, 7, 8)[seed % 3]})
        game = settle(FillGame(options), random.Random(seed))
        while not game.is_terminal() and checked < 400 * (seed + 1):
            if game.phase == FILL and rng.random() < 0.3:
                args = (game.geo, game.rock, game.filled, game.touch, game.poison)
                chains = fill_witnesses(*args)
                truth = {c for c in range(game.n) if game.fill_witness(c)}
                assert set(chains) == truth
                for cell, chain in chains.items():
                    assert chain_fills(game, cell, chain)
                known = {c: chains[c] for c in list(chains)[::2]}
                settle_chains(*args, known, [c for c in range(game.n) if c not in known])
                assert set(known) == truth and all(chain_fills(game, c, ch) for c, ch in known.items())
                checked += 1
            settle(game, rng) if game.is_chance_node() else game.apply(rng.choice(game.legal_actions()))
            settle(game, rng)
    assert checked > 100
