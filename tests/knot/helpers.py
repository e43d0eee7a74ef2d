"""Build Knot positions for scenario tests: strands written in the game's notation."""

from __future__ import annotations

from envs.knot.rules import KnotGame

from tests.knot.reference import Board

KIND = {"cut": 0, "run": 1, "hook": 2, "flip": 3}


def parse_strand(game: KnotGame, text: str) -> tuple[int, int, int]:
    """``"run/n@c3"`` → ``(square, kind, turn)``."""
    action = game.string_to_action(text)
    slot, sq = divmod(action, game.n)
    return sq, slot >> 2, slot & 3


def position(
    strands=(),
    hands=None,
    *,
    players: int = 2,
    size: int = 6,
    player: int = 0,
    turn: int = 5,
    placed: int = 0,
    phase: str = "place",
    growable=None,
    market=(1, 2),
    pile=(0, 1, 2, 3) * 3,
    closed=(),
    known=None,
    placed_any=None,
) -> KnotGame:
    """A game in the given position.

    ``strands``: ``[("run/n@c3", owner), ...]`` in placement order. ``hands``: per player a
    list of counts ``[Cut, Run, Hook, Flip]`` (default: 1 of each for everyone).
    ``growable``: global ports (default: every open end of the player to act, as at the start
    of a turn). ``closed``: indices of strands whose ribbons closed, in closing order. The
    deck option is set to exactly what the position holds.
    """
    probe = KnotGame(KnotGame.resolve_options({"players": players, "size": size, "pile": [0] * 5 * players}))
    rows = []
    for text, owner in strands:
        sq, k, t = parse_strand(probe, text)
        rows.append([sq, k, t, owner])
    if hands is None:
        hands = [[1, 1, 1, 1] for _ in range(players)]
    counts = [0, 0, 0, 0]
    for _, k, _, _ in rows:
        counts[k] += 1
    for h in hands:
        for k in range(4):
            counts[k] += h[k]
    for k in list(market) + list(pile):
        if k >= 0:
            counts[k] += 1
    # The deck is exactly what the position holds (it may hold fewer than 5 per player: the
    # position is built directly, not dealt).
    options = KnotGame.resolve_options({"players": players, "size": size})
    options["deck"] = counts
    owners = {o for _, _, _, o in rows}
    state = {
        "pile": list(pile),
        "hands": [list(h) for h in hands],
        "market": list(market),
        "known": known or [[0, 0, 0, 0] for _ in range(players)],
        "strands": rows,
        "closed": list(closed),
        "scores": [0] * players,
        "turn": turn,
        "player": player,
        "phase": phase,
        "placed": placed,
        "placed_any": placed_any or [p in owners for p in range(players)],
        "growable": [],
    }
    # Closed ribbons (closing order: ``closed`` or strand order) and their points, recounted
    # by the independent reference reading.
    board = Board(size, rows)
    closed_points = board.closed_points()
    comps = {board.comp[i] for i in closed}
    order = list(closed) + [
        min(i for i in range(len(rows)) if board.comp[i] == c) for c in sorted(closed_points, key=lambda c: min(i for i in range(len(rows)) if board.comp[i] == c)) if c not in comps
    ]
    state["closed"] = order
    scores = [0] * players
    for owner, pts in closed_points.values():
        scores[owner] += pts
    state["scores"] = scores
    game = KnotGame.from_state_dict(options, state)
    if phase == "place":
        game.growable = set(game.ends[player]) if growable is None else set(growable)
    game._legal = game._places = None
    return game


def act(game: KnotGame, *moves: str) -> None:
    for move in moves:
        game.apply(game.string_to_action(move))


def why(game: KnotGame, move: str):
    return game.why_illegal(game.string_to_action(move))


def port(game: KnotGame, cell: str, p: int) -> int:
    """Global port of port ``p`` of the square named ``cell``."""
    from envs.core.notation import parse_cell

    r, c = parse_cell(cell, game.size, game.size)
    return (r * game.size + c) * 8 + p
