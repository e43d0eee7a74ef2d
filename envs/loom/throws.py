"""Loom's dice: the chance outcomes of a throw, their names, and which cloth got which thread.

A throw is two fair dice kept sorted (thread 0 the lower dye, thread 1 the higher), so a chance
node has 21 outcomes, one per unordered pair, numbered in order ``(1, 1), (1, 2), …, (1, 6),
(2, 2), …, (6, 6)``: a double has probability 1/36, any other pair 2/36. The sorted pair is what
the observation shows as "thread 0 / thread 1", so the outcome needs no further convention.

Every round gives one thread of its throw to each cloth: ``assign_threads`` finds which (a
small search over the rounds, by the dye counts given so far), so snapshots can be checked
against the throws so far and samplers can rebuild past throws from the cloths alone.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

THROWS: tuple[tuple[int, int], ...] = tuple((low, high) for low in range(1, 7) for high in range(low, 7))
THROW_ID: dict[tuple[int, int], int] = {pair: index for index, pair in enumerate(THROWS)}
OUTCOMES = len(THROWS)  # 21
# (outcome, probability) of an unscripted throw; the counts are exact: 1/36 or 2/36.
PROBABILITIES: tuple[tuple[int, float], ...] = tuple(
    (index, (1 if low == high else 2) / 36) for index, (low, high) in enumerate(THROWS)
)

_THROW_TEXT = re.compile(r"\s*(?:throw\s*)?\(?\s*([1-6])\s*[, ]\s*([1-6])\s*\)?\s*")


def throw_name(outcome: int) -> str:
    """``"throw 2 5"``: the notation of a chance outcome."""
    low, high = THROWS[outcome]
    return f"throw {low} {high}"


def parse_throw(text: str) -> int | None:
    """The outcome named by ``"throw 2 5"``, ``"2 5"``, ``"5,2"`` or ``"(2, 5)"``; ``None`` if
    the text names no throw."""
    match = _THROW_TEXT.fullmatch(text)
    if not match:
        return None
    low, high = sorted((int(match.group(1)), int(match.group(2))))
    return THROW_ID[(low, high)]


def threads_fit(throws, cloths_dyes) -> bool:
    """Whether the ``throws`` (one sorted pair per round) can have given the two cloths exactly
    ``cloths_dyes`` (one dye list per cloth), each round one thread to each cloth.

    A double gives its dye to both cloths. The other rounds are the edges of a graph on the six
    dyes; giving cloth 0 the thread ``a`` of round ``{a, b}`` orients that edge towards ``a``, so
    cloth 0 must get in-degree ``need(d)`` = its count of ``d`` less the doubles of ``d``. By
    Hakimi's theorem such an orientation exists exactly when the needs sum to the edges and no
    set ``S`` of dyes has more edges inside it than its needs (64 sets to try). Cloth 1 then
    gets the rest, which is its dyes when the two cloths hold what the throws gave.
    """
    counts = [Counter(dyes) for dyes in cloths_dyes]
    if counts[0] + counts[1] != Counter(d for pair in throws for d in pair):
        return False
    need = np.array([counts[0][d] for d in range(1, 7)])
    edges = np.zeros(len(_PAIRS), np.int64)
    for low, high in throws:
        if low == high:
            need[low - 1] -= 1
        else:
            edges[_PAIR_INDEX[(low - 1, high - 1)]] += 1
    if need.min() < 0 or need.sum() != edges.sum():
        return False
    return bool(np.all(_INSIDE @ edges <= _MEMBERS @ need))


# Hakimi's check on all 63 non-empty sets of dyes at once: which pairs of dyes lie inside each
# set, and which dyes it holds.
_PAIRS = [(a, b) for a in range(6) for b in range(a + 1, 6)]
_PAIR_INDEX = {pair: index for index, pair in enumerate(_PAIRS)}
_INSIDE = np.array([[int(subset >> a & 1 and subset >> b & 1) for a, b in _PAIRS] for subset in range(1, 64)])
_MEMBERS = np.array([[subset >> d & 1 for d in range(6)] for subset in range(1, 64)])


def assign_threads(throws, cloths_dyes, complete: bool = True) -> list[int] | None:
    """Which cloth got the lower thread of each throw, or ``None`` if no assignment works.

    ``throws``: one sorted pair per round, each round having given one thread to each cloth;
    ``cloths_dyes``: the two cloths' dyes (one list each). With ``complete`` the throws are all
    the rounds that gave those dyes; without, other rounds (as many for each cloth, not listed)
    gave the dyes the throws leave over. The result holds, per round, the cloth (0 or 1) that
    got thread 0 (the lower dye). Rounds are walked in order keeping every reachable count of
    dyes given to cloth 0 (at most a few thousand, usually a handful), each with one way to
    reach it.
    """
    need = [Counter(dyes) for dyes in cloths_dyes]
    sizes = [sum(n.values()) for n in need]
    if sizes[0] != sizes[1] or sizes[0] < len(throws) or (complete and sizes[0] != len(throws)):
        return None
    if complete and need[0] + need[1] != Counter(d for pair in throws for d in pair):
        return None
    # reachable: cloth 0's dye counts (a tuple over dyes 1…6) -> the choices that reached it
    reachable: dict[tuple[int, ...], list[int]] = {(0,) * 6: []}
    given = [0] * 6  # both cloths' counts so far, per dye
    limit0 = [need[0][d] for d in range(1, 7)]
    limit1 = [need[1][d] for d in range(1, 7)]
    for low, high in throws:
        given[low - 1] += 1
        given[high - 1] += 1
        following: dict[tuple[int, ...], list[int]] = {}
        for counts, choices in reachable.items():
            for who, dye in ((0, low), (1, high)) if low != high else ((0, low),):
                mine = list(counts)
                mine[dye - 1] += 1  # cloth 0 gets ``dye``; cloth 1 the other thread
                key = tuple(mine)
                if key in following:
                    continue
                if all(m <= limit0[d] and given[d] - m <= limit1[d] for d, m in enumerate(mine)):
                    following[key] = choices + [who]
        if not following:
            return None
        reachable = following
    if complete:
        return reachable.get(tuple(limit0))
    return next(iter(reachable.values()))


def pair_up(dyes0, dyes1) -> list[tuple[int, int]]:
    """Throws that could have given these dyes (one per round) to cloth 0 and cloth 1: the two
    lists paired in sorted order. Any pairing is as good: past throws change nothing to come."""
    return [tuple(sorted(pair)) for pair in zip(sorted(dyes0), sorted(dyes1))]
