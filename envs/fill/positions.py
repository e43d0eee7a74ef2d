"""Scripted Fill positions drawn as text: for tutorials, puzzles and tests.

A picture has one line per row, top row first (row 1), one character per cell (spaces between
cells are allowed and ignored)::

    . . # . . .
    . # # . . .
    . . . R . .

``.`` empty · ``#`` filled · ``R`` rock · ``D`` / ``P`` / ``T`` an empty cell holding a
Double / Pass / Trap gem. The first ``#`` (reading order) is the seed. The position is reached
through the engine's own setup (seed, then the choice) with the other filled cells added
between, so the game starts at a turn of ``first`` exactly as a real one would: with as many
turns played as the other filled cells need (one fill a turn), so that its snapshot restores.
"""

from __future__ import annotations

from typing import Any

from envs.core.game import SnapshotError
from envs.fill.rules import KIND_NAMES, STAY, SWAP, FillGame, bits

GEM_CHARS = {"D": 0, "P": 1, "T": 2}


def parse_picture(picture: str) -> list[str]:
    rows = [line.replace(" ", "") for line in picture.strip().splitlines() if line.strip()]
    size = len(rows)
    if size not in (6, 7, 8) or any(len(row) != size for row in rows):
        raise ValueError(f"a Fill picture is a square of 6, 7 or 8 rows of as many cells, got {[len(r) for r in rows]}")
    return rows


def position(picture: str, first: int = 1, tokens: dict | None = None, **options: Any) -> FillGame:
    """The game whose board is ``picture``, at the start of a turn of ``first``'s: ``first`` has
    started turn ``1 + ceil(k / 2)`` and the opponent one turn fewer, ``k`` being the filled
    cells besides the seed (the fewest turns that fill them; turn 1 when the seed is alone).

    ``tokens`` gives players tokens to start with: ``{1: [("pass", 2)]}`` (kind, turns left).
    ``options`` are the game's options (``size`` comes from the picture; rocks and gems are
    switched on when the picture holds any, gems also when tokens are given: a token is a
    collected gem). Unless ``gem_cells`` is given, it is set to the picture's gems followed by
    one gem per given token on a filled cell: the game's gems are exactly those it shows.
    """
    rows = parse_picture(picture)
    size = len(rows)
    cells = "".join(rows)
    rocks = [i for i, ch in enumerate(cells) if ch == "R"]
    filled = [i for i, ch in enumerate(cells) if ch == "#"]
    gems = [(i, GEM_CHARS[ch]) for i, ch in enumerate(cells) if ch in GEM_CHARS]
    if not filled:
        raise ValueError("a Fill picture needs at least one filled cell (the seed)")
    opts = dict(options, size=size)
    if rocks:
        opts.update(rocks=True, rock_cells=rocks)
    given = [(player, kind, left) for player, held in sorted((tokens or {}).items()) for kind, left in held]
    if gems or given:
        opts["gems"] = True  # tokens are collected gems
    if any(kind == 2 for _, kind in gems):
        opts["traps"] = True
    scripted = "gem_cells" in opts
    opts.setdefault("gem_cells", [])  # no random gems: the picture's gems are placed below
    game = FillGame(FillGame.resolve_options(opts))
    while game.is_chance_node():  # the scripted rocks
        game.apply(game.chance_outcomes()[0][0])
    game.apply(filled[0])
    for cell in filled[1:]:
        game._place(cell)
    for cell, kind in gems:
        witness = game.fill_witness(cell)
        if not witness:
            raise ValueError(f"the {KIND_NAMES[kind]} gem at {game._name(cell)} is on a cell that cannot still be filled")
        game.gems[cell] = kind
        game.witness[cell] = witness
    for player, kind, left in given:
        game.tokens[player].append([KIND_NAMES.index(kind), left, 0])
    game.apply(game.n + (STAY if first == 1 else SWAP))
    if not scripted and game.options["gems"]:
        # The game's gem script, now that the setup is past: the picture's gems and, on filled
        # cells, the gems the given tokens were collected from (the game has the gems it shows).
        script = [(cell, KIND_NAMES[kind]) for cell, kind in gems]
        script += [(filled[i % len(filled)], kind) for i, (_, kind, _) in enumerate(given)]
        game.options = dict(game.options, gem_cells=tuple(script))
    # As many turns played as the filled cells need (one fill a turn, alternating from the
    # choice on): ``first`` has started turn ``t``, the opponent ``t - 1`` turns.
    fills = len(filled) - 1
    game.turns[first] = 1 + (fills + 1) // 2
    game.turns[1 - first] = game.turns[first] - 1
    try:  # a position the rules cannot reach would be a game no snapshot restores
        FillGame.from_state_dict(game.options, game.state_dict())
    except SnapshotError as error:
        raise ValueError(f"no Fill game reaches this picture: {error}") from None
    return game


def picture(game: FillGame) -> str:
    """The board as a picture (the inverse of :func:`position`, seed not marked)."""
    size = game.options["size"]
    out = []
    for r in range(size):
        row = []
        for c in range(size):
            cell = r * size + c
            if game.rock >> cell & 1:
                row.append("R")
            elif game.filled >> cell & 1:
                row.append("#")
            elif cell in game.gems:
                row.append("DPT"[game.gems[cell]])
            else:
                row.append(".")
        out.append(" ".join(row))
    return "\n".join(out)


__all__ = ["position", "picture", "parse_picture", "bits"]
