"""Elo ratings from game records: the expected score of a rating difference, and ratings by
maximum likelihood over the pairs played (what the strength levels are rated with).

Imports numpy only."""

from __future__ import annotations

import math

import numpy as np

ELO_SCALE = 400.0


def field_half_points(returns, scores, seat: int) -> int:
    """The half-points ``seat`` took from the other seats of one finished game: against each,
    2 for placing above it, 1 for placing level, 0 for placing below. The places: a better
    return places higher (the sole winner, then those tied for first, then the rest); two seats
    tied for first place level; among the seats that did not win, more points place higher.
    With two players this is 2 for a win, 1 for a draw, 0 for a loss."""
    half = 0
    for other in range(len(returns)):
        if other == seat:
            continue
        mine, theirs = returns[seat], returns[other]
        if mine == theirs and mine < 0:  # neither won: the game's points place them
            mine, theirs = scores[seat], scores[other]
        half += 2 if mine > theirs else 1 if mine == theirs else 0
    return half


def field_score(returns, scores, seat: int) -> float:
    """``seat``'s score against the field in one game, in [0, 1]: its half-points
    (:func:`field_half_points`) over the most it could take. With two players: a win 1, a draw
    ½, a loss 0; with more, every other seat counts as one Elo game of the seat against it,
    so a player as strong as the field expects ½ and the Elo scale means what it means for two."""
    return field_half_points(returns, scores, seat) / (2 * (len(returns) - 1))


def expected_score(difference: float) -> float:
    """The score the Elo model expects of a player rated ``difference`` points above the other."""
    return 1.0 / (1.0 + 10.0 ** (-difference / ELO_SCALE))


def elo_mle(pairs: list[tuple[str, str, float, float]], anchor: str, virtual_draws: float = 0.0,
            iterations: int = 100) -> tuple[dict[str, float], dict[str, float]]:
    """Elo ratings by maximum likelihood (Bradley–Terry on the 400-point log10 scale).

    ``pairs``: ``(a, b, points of a, games)`` (a win 1, a draw ½); ``anchor`` is held at 0.
    ``virtual_draws`` adds that many drawn games to every pair (one keeps a perfect record
    finite). Newton's method on the log-likelihood; returns the ratings and their standard
    errors (from the inverse of the observed information, the anchor's 0). Players not
    connected to the anchor by games raise a ValueError."""
    names = sorted({a for a, _, _, _ in pairs} | {b for _, b, _, _ in pairs} | {anchor})
    free = [n for n in names if n != anchor]
    index = {n: i for i, n in enumerate(free)}
    k = math.log(10.0) / ELO_SCALE
    table = [(a, b, points + virtual_draws / 2, games + virtual_draws) for a, b, points, games in pairs]
    rating = dict.fromkeys(names, 0.0)
    size = len(free)
    information = np.zeros((size, size))
    for _ in range(iterations):
        gradient = np.zeros(size)
        information = np.zeros((size, size))
        for a, b, points, games in table:
            p = expected_score(rating[a] - rating[b])
            g = k * (points - games * p)
            w = k * k * games * p * (1 - p)
            for me, other, sign in ((a, b, 1.0), (b, a, -1.0)):
                if me in index:
                    gradient[index[me]] += sign * g
                    information[index[me], index[me]] += w
                    if other in index:
                        information[index[me], index[other]] -= w
        if size == 0:
            break
        try:
            step = np.linalg.solve(information, gradient)
        except np.linalg.LinAlgError:
            raise ValueError("the pairs do not connect every player to the anchor: no ratings") from None
        step = np.clip(step, -ELO_SCALE, ELO_SCALE)
        for name, i in index.items():
            rating[name] += float(step[i])
        if np.max(np.abs(step)) < 1e-9:
            break
    errors = dict.fromkeys(names, 0.0)
    if size:
        covariance = np.linalg.inv(information)
        for name, i in index.items():
            errors[name] = float(math.sqrt(max(0.0, covariance[i, i])))
    return rating, errors
