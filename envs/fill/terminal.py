"""What terminal play says about Fill: the rules in a few lines, and a sentence for each move as
the viewer may know it (a trap is told only to its setter; a sprung trap to both)."""

from __future__ import annotations

from envs.core.description import PlayRules
from envs.core.bits import set_bits as bits
from envs.fill.rules import (
    CHOOSE, FILL, FILL2, KIND_TITLES, NO_TOKEN, NO_TRAP, OVER, PLAYER_PHASES, SEED, STAY, TOKEN, TRAP_PHASE,
    USE_DOUBLE, FillGame,
)

RULES_SUMMARY = """\
Fill: take turns filling empty cells; filled cells belong to nobody. A fill must touch a filled
cell (8 neighbours), must not make three filled cells in a row across or down (diagonals too with
lines=strict, never with lines=off) and must not complete a solid 2x2 block. A player whose turn
starts with no legal cell loses; there are no draws. player_0 seeds any cell, then player_1
chooses stay (moves next) or swap (the seeder moves next). Options: rocks (never filled), gems
(fill one to collect its token: Double = two fills this turn, Pass = end the turn, Trap = one
extra trap), traps (trap a cell before you fill: if the opponent fills it on their next turn
while 3 or more cells are legal, that fill and the rest of their turn are lost).
Moves: a cell such as c4 (column letter, row number; a1 is top left), trap c4 / no-trap in the
trap phase, stay, swap, no-token, double, pass, trap-token.
Board: # filled, R rock, square = legal now, x = poisoned (never legal again), D/P/T gems."""


def _cells(game: FillGame, mask: int) -> str:
    names = [game._name(c) for c in bits(mask)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def narrate(before: FillGame, action: int, after: FillGame, viewer: int) -> str | None:
    """One sentence saying what ``action`` did in ``before`` (``after`` is the position it led
    to, chance nodes resolved), as seat ``viewer`` may know it; ``None`` when there is nothing to
    say (a choice of no token, no trap; anything in the opponent's trap phase, which the viewer
    must not even know happened)."""
    phase, mover = before.phase, before.current_player()
    if mover < 0 or phase >= PLAYER_PHASES:
        return None  # chance (rocks, gems) and the end: the board shows them
    you = mover == viewer
    who = "you" if you else f"player_{mover}"
    n = before.n
    if phase == TRAP_PHASE:
        if not you or action == n + NO_TRAP:
            return None
        return f"you set a trap on {before._name(action)} (only you know it)"
    if phase == TOKEN:
        if action == n + NO_TOKEN:
            return None
        kind = action - n - USE_DOUBLE
        effect = {0: "two fills this turn", 1: "the turn ends at once", 2: "one extra trap"}[kind]
        return f"{who} used a {KIND_TITLES[kind]} token: {effect}"
    if phase == SEED:
        sentence = f"{who} seeded {before._name(action)}"
        if after.gems:
            gems = ", ".join(f"{KIND_TITLES[k]} on {after._name(c)}" for c, k in sorted(after.gems.items()))
            sentence += f"; gems appear: {gems}"
        return sentence
    if phase == CHOOSE:
        first = mover if action == n + STAY else 1 - mover
        return f"{who} chose {'stay' if action == n + STAY else 'swap'}: player_{first} fills first"
    return _fill(before, action, after, viewer, who)


def _fill(before: FillGame, cell: int, after: FillGame, viewer: int, who: str) -> str:
    name = before._name(cell)
    mover = before.current_player()
    if not after.filled >> cell & 1:  # the fill was cancelled: the opponent's trap sprang
        return f"{who} tried to fill {name}, but player_{1 - mover}'s trap was there: the fill and the rest of the turn are lost"
    parts = [f"{who} filled {name}"]
    if cell in before.gems:
        parts.append(f"collecting a {KIND_TITLES[before.gems[cell]]} token")
    poisoned = after.poison & ~before.poison & ~after.filled
    if poisoned:
        parts.append(f"poisoning {_cells(before, poisoned)}")
    shattered = sorted(c for c in before.gems if c != cell and c not in after.gems)
    if shattered:
        lost = ", ".join(f"the {KIND_TITLES[before.gems[c]]} gem on {before._name(c)}" for c in shattered)
        parts.append(f"{lost} shattered (no longer fillable)")
    if viewer == 1 - mover and before.live_trap[viewer] == cell:
        parts.append("on your trap, which does not spring with fewer than 3 cells legal")
    sentence = ", ".join(parts)
    if after.phase == OVER:
        sentence += f"; player_{after.to_move} has no legal cell: player_{after.winner} wins"
    elif before.phase == FILL and after.phase == FILL2 and after.to_move == mover:
        sentence += "; a second fill follows (Double)"
    return sentence


__all__ = ["RULES_SUMMARY", "narrate"]


PLAY = PlayRules(
    undo_rule="in Fill, a token or trap choice can be taken back until you fill a cell",
    undo_phases=frozenset({"token", "trap"}),
    secret_phases=frozenset({"trap"}),
    rules_summary=RULES_SUMMARY,
    narrate=narrate,
)
"""What terminal play and other front ends need beyond the rules (``GameDescription.play``)."""
