"""Real RL libraries run on the suite the way their own documentation says to."""

from tests.cases import seat_count_cases

# Every game with its default options, and at each other number of players its option sets reach.
CASES = seat_count_cases()


def is_outcome(returns) -> bool:
    """+1 for a sole winner and −1 for the rest, or 0 for those tied for first and −1 for the rest."""
    values = sorted(float(r) for r in returns)
    best = values[-1]
    if best == 1:
        return values.count(1) == 1 and all(v == -1 for v in values[:-1])
    return best == 0 and all(v in (0, -1) for v in values)
