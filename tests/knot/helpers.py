"""Build Knot positions for scenario tests: strands written in the game's notation."""

from __future__ import annotations

import random

from envs.core.game import CHANCE, draw_outcome
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
    turn: int | None = None,
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
    ``turn``: default the first turn of ``player``'s with a placing limit of 3 (turns go round
    from player_0 at turn 0). ``growable``: global ports (default: every open end of the player to act, as at the start
    of a turn). ``closed``: indices of strands whose ribbons closed, in closing order. The
    deck option is set to exactly what the position holds.
    """
    if turn is None:
        turn = 3 + (player - 3) % players
    probe = KnotGame.lay_out(KnotGame.resolve_options({"players": players, "size": size}), [])
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
    pile_counts = [list(pile).count(k) for k in range(4)]  # the pile holds counts; its order is chance's
    # The game holds exactly what the position holds. With at least 5 strands per player the
    # pile is scripted (the pile option: everything else first, then ``pile`` top first), so
    # draws give the strands in the order written; otherwise (a position built directly, not
    # dealt) the deck is set to those strands and draws are chance's.
    options = KnotGame.resolve_options({"players": players, "size": size})
    if sum(counts) >= 5 * players:
        rest = [k for k in range(4) for _ in range(counts[k] - pile_counts[k])]
        options = KnotGame.resolve_options({"players": players, "size": size, "pile": rest + list(pile)})
    else:
        options["deck"] = counts
    owners = {o for _, _, _, o in rows}
    state = {
        "pile": pile_counts,
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
        "pending": None,
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
    """Play moves in notation; a draw's chance node (a scripted pile gives its next strand) is
    resolved after it."""
    for move in moves:
        game.apply(game.string_to_action(move))
        resolve_chance(game)


def why(game: KnotGame, move: str):
    return game.why_illegal(game.string_to_action(move))


def port(game: KnotGame, cell: str, p: int) -> int:
    """Global port of port ``p`` of the square named ``cell``."""
    from envs.core.notation import parse_cell

    r, c = parse_cell(cell, game.size, game.size)
    return (r * game.size + c) * 8 + p


def random_step(game: KnotGame, rng: random.Random) -> None:
    """One step of a random game: a chance node by its probabilities, a player uniformly."""
    if game.current_player() == CHANCE:
        game.apply(draw_outcome(game.chance_outcomes(), rng))
    else:
        game.apply(rng.choice(game.legal_actions()))


def resolve_chance(game: KnotGame, rng: random.Random | None = None) -> KnotGame:
    """Play chance nodes (by their probabilities) until a player is to act or the game is over."""
    rng = rng or random.Random(0)
    while game.current_player() == CHANCE:
        game.apply(draw_outcome(game.chance_outcomes(), rng))
    return game


def new_game(options: dict, seed: int | None = None) -> KnotGame:
    """A game after its deal, the deal drawn with ``random.Random(seed)``."""
    return resolve_chance(KnotGame(KnotGame.resolve_options(dict(options))), random.Random(seed))


def play_randomly(game: KnotGame, rng: random.Random, steps: int | None = None) -> KnotGame:
    """Random steps (chance by probability) until the end, or ``steps`` of them."""
    while not game.is_terminal() and steps != 0:
        random_step(game, rng)
        steps = None if steps is None else steps - 1
    return game
