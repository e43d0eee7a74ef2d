"""Helpers for Uzor scenarios: tiles as two letters, positions drawn as text, chance played."""

from __future__ import annotations

import random

from envs.core.game import draw_outcome
from envs.uzor.rules import COPIES, TYPES, UzorGame

MOTIF_LETTERS = "CSWBX"  # cedar, sun, wave, bird, star
COLOUR_LETTERS = "raemi"  # crimson, azure, emerald, amber, ivory


def tile(code: str) -> int:
    """``"Ca"`` → cedar/azure."""
    return MOTIF_LETTERS.index(code[0]) * 5 + COLOUR_LETTERS.index(code[1])


def tiles(*codes: str) -> list[int]:
    return [tile(c) for c in codes]


def cell(name: str, size: int = 9) -> int:
    col = ord(name[0]) - ord("a")
    row = int(name[1:]) - 1
    return row * size + col


def draw(text: str, size: int = 9, top: int = 0, left: int = 0) -> dict[int, int]:
    """Rows of tokens (``.`` empty, ``Ca`` a tile) laid from row ``top``, column ``left``."""
    table = {}
    rows = [line.split() for line in text.strip("\n").splitlines() if line.strip()]
    for r, row in enumerate(rows):
        for c, token in enumerate(row):
            if token != ".":
                table[(top + r) * size + left + c] = tile(token)
    return table


def leftovers(used: list[int], count: int, avoid=()) -> list[int]:
    """``count`` tiles not in ``used`` (respecting three copies), skipping ``avoid`` types."""
    counts = [0] * TYPES
    for t in used:
        counts[t] += 1
    out = []
    for t in reversed(range(TYPES)):
        if t in avoid:
            continue
        while counts[t] < COPIES and len(out) < count:
            counts[t] += 1
            out.append(t)
    if len(out) < count:
        raise ValueError("not enough tiles left")
    return out


def position(table, hand0, hand1=None, market=None, size=9, to_move=0, goals=(13, 14), avoid=(), **options):
    """A game in ``table`` with the given hands (topped up with unrelated tiles)."""
    used = list(table.values()) + list(hand0) + list(hand1 or [])
    hand0 = list(hand0)
    if hand1 is None:
        hand1 = leftovers(used, 5, avoid)
        used += hand1
    if market is None:
        market = leftovers(used, 5, avoid)
    return UzorGame.from_position(
        {"board_size": size, **options}, table, [hand0, list(hand1)], list(market), to_move=to_move, goals=goals
    )


def first_outcomes(game: UzorGame) -> None:
    """Play the chance nodes with their first outcome: a refill draws the lowest tile type still
    face down, as if the supply were laid in type order (a scripted option offers its own)."""
    while game.is_chance_node():
        game.apply(game.chance_outcomes()[0][0])


def top_of_supply(game: UzorGame) -> int:
    """The tile the next draw gives when ``first_outcomes`` plays it."""
    return next(t for t, count in enumerate(game.facedown) if count) if any(game.facedown) else game.discards[0]


def place(game: UzorGame, t: int, where: str) -> None:
    """Place tile type ``t`` from the mover's hand at cell ``where``."""
    hand = game.hands[game.to_move]
    action = hand.index(t) * game.geo.cells + cell(where, game.geo.size)
    game.apply(action)
    first_outcomes(game)


def act(game: UzorGame, *texts: str) -> None:
    """Play actions written in the notation, each followed by its chance nodes (``first_outcomes``)."""
    for text in texts:
        game.apply(game.string_to_action(text))
        first_outcomes(game)


def resolve(game: UzorGame, rng: random.Random) -> UzorGame:
    """Play the chance nodes (outcomes drawn by their probabilities from ``rng``; scripted
    options offer one) until a player is to act or the game is over."""
    while game.is_chance_node():
        game.apply(draw_outcome(game.chance_outcomes(), rng))
    return game


def dealt(options: dict, seed: int = 0) -> UzorGame:
    """A new game with its setup (goals and tiles) dealt from ``random.Random(seed)``."""
    return resolve(UzorGame(UzorGame.resolve_options(dict(options))), random.Random(seed))


def step(game: UzorGame, action: int, rng: random.Random) -> None:
    """Apply a player's ``action``, then play the chance nodes it leads to."""
    game.apply(action)
    resolve(game, rng)
