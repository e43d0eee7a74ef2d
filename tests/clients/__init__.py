"""Real RL libraries run on the suite the way their own documentation says to."""

# Every game with its default options, and Knot for three players.
CASES = [("linecatch_v0", {}), ("loom_v0", {}), ("fill_v0", {}), ("uzor_v0", {}), ("knot_v0", {}), ("knot_v0", {"players": 3})]
CASE_IDS = ["linecatch", "loom", "fill", "uzor", "knot", "knot-3p"]


def is_outcome(returns) -> bool:
    """+1 for a sole winner and −1 for the rest, or 0 for those tied for first and −1 for the rest."""
    values = sorted(float(r) for r in returns)
    best = values[-1]
    if best == 1:
        return values.count(1) == 1 and all(v == -1 for v in values[:-1])
    return best == 0 and all(v in (0, -1) for v in values)
