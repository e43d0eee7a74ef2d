"""What terminal play says about Knot: the rules in a few lines, a sentence for each move (as the
viewer may know it), and the legal moves grouped by square.

``narrate(before, action, after, viewer)`` reads the position before the move for what the
strand meets (nothing, an end of its own ribbon, both ends of it, two of its ribbons, an
opponent's ribbon) and the position after it for the points and sizes — after the chance the
move set off has resolved (the strand drawn from the pile, the market slot refilled), which is
how terminal play calls it; a strand drawn blind is named only to the player who drew it.
"""

from __future__ import annotations

from envs.core.description import PlayRules
from envs.core.game import CHANCE
from envs.core.notation import cell_name
from envs.knot.geometry import KINDS, SLOT_PORTS
from envs.knot.options import HAND_SIZE
from envs.knot.rules import KnotGame

RULES_SUMMARY = """\
Knot: lay strands in the squares; strands joined end to end make ribbons; close a ribbon (its two
ends meet) to bank one point per crossing inside the board it passes. Grow your ribbon into
another player's open end to capture their whole ribbon; a closed ribbon is safe. A turn places
1 strand (the game's first turn), 2 (its second and third), then up to 3, then draws back up to
5 from the two face-up market slots or the blind pile. A new ribbon starts on or next to a square
holding one of your strands (anywhere for your first). An end grows only if it was yours when
the turn began. The game ends when nobody can place; the longest closed ribbon scores 5 more.
Moves: cut/ne@c4 (a Cut turned across corner ne of square c4), run/n@c4 (bowing north),
hook/ne@c4 (corner ne left open), flip/w@c4 (entering and leaving by the west side), end,
draw 0, draw 1 (a market slot), draw pile. Squares: column letter, then row (a1 is top left).
help lists the legal moves by square."""


def _strands(count: int) -> str:
    return f"{count} strand{'s' if count != 1 else ''}"


def narrate(before: KnotGame, action: int, after: KnotGame, viewer: int) -> str | None:
    """One sentence saying what ``action`` did in ``before`` (``after`` is the position it
    led to once the chance it set off has resolved), as seat ``viewer`` may know it; None when
    the move says it all (END)."""
    n = before.n
    base = 16 * n
    mover = before.current_player()
    if mover == CHANCE:
        return None  # the deal and the pile's refills: the board and the market show them
    who = f"player_{mover}"
    if action == base:
        return None
    if action > base:
        return _draw(before, action - base - 1, after, viewer, who)
    slot, sq = divmod(action, n)
    kind = KINDS[slot >> 2]
    where = cell_name(*divmod(sq, before.size))
    met = _met_ribbons(before, slot, sq)
    strands = _ribbon_size(after, sq, slot)
    if not met:
        sentence = f"{who} starts a new ribbon with a {kind} in {where}"
    elif len(met) == 1 and met[0][1] == mover and met[0][2]:
        points = after.banked[mover] - before.banked[mover]
        sentence = (f"{who} closes a ribbon of {_strands(strands)} with a {kind} in {where}: "
                    f"+{points} point{'s' if points != 1 else ''} (now {after.banked[mover]})")
    elif all(owner == mover for _, owner, _ in met):
        if len(met) == 2:
            sentence = f"{who} joins two of its ribbons with a {kind} in {where} ({_strands(strands)})"
        else:
            sentence = f"{who} grows a ribbon with a {kind} in {where} ({_strands(strands)})"
    else:
        victims = ", ".join(f"player_{owner}'s ribbon of {_strands(size)}" for size, owner, _ in met if owner != mover)
        sentence = f"{who} captures {victims} with a {kind} in {where}: one ribbon of {_strands(strands)}"
    if after.is_terminal():
        sentence += "; nobody can place any more: the game is over"
    return sentence


def _met_ribbons(game: KnotGame, slot: int, sq: int) -> list[tuple[int, int, bool]]:
    """The ribbons a placement meets: (strands, owner, both ends met) each, one per ribbon."""
    g = game.geo
    seen: dict[int, list[int]] = {}
    for port in SLOT_PORTS[slot]:
        other = game.port_strand[g.link[sq * 8 + port]]
        if other >= 0:
            seen.setdefault(game.st_rib[other], []).append(other)
    return [(len(game.rib_strands[r]), game.rib_owner[r], len(hits) == 2) for r, hits in seen.items()]


def _ribbon_size(game: KnotGame, sq: int, slot: int) -> int:
    """Strands in the ribbon of the strand just laid at ``sq`` (the last one there of ``slot``)."""
    for s in range(len(game.st_sq) - 1, -1, -1):
        if game.st_sq[s] == sq and game.st_slot[s] == slot:
            return len(game.rib_strands[game.st_rib[s]])
    return 1


def _draw(before: KnotGame, which: int, after: KnotGame, viewer: int, who: str) -> str:
    player = before.current_player()
    if which == 2:
        gained = [k for k in range(4) if after.hands[player][k] > before.hands[player][k]]
        if viewer == player and gained:
            return f"{who} draws a {KINDS[gained[0]]} from the pile (seen by you alone)"
        return f"{who} draws a strand from the pile, unseen"
    kind = KINDS[before.market[which]]
    refill = after.market[which]
    tail = f"; the pile refills slot {which} with a {KINDS[refill]}" if refill >= 0 else "; the slot stays empty"
    full = " (hand full)" if sum(after.hands[player]) >= HAND_SIZE else ""
    return f"{who} takes the {kind} from market slot {which}{full}{tail}"


def group_moves(game: KnotGame, actions: list[int]) -> list[str]:
    """The legal moves as lines a person can read: one line per square holding placements
    (``c4: cut ne se · run n · flip w``), then the other moves. For ``help`` in terminal play,
    where 408 placements on one line are a wall."""
    n = game.n
    by_square: dict[int, dict[int, list[str]]] = {}
    others = []
    for action in actions:
        if action >= 16 * n or game.current_player() == CHANCE:
            others.append(game.action_to_string(action))
            continue
        slot, sq = divmod(action, n)
        text = game.action_to_string(action)
        way = text.split("/", 1)[1].split("@", 1)[0]
        by_square.setdefault(sq, {}).setdefault(slot >> 2, []).append(way)
    lines = []
    for sq in sorted(by_square):
        kinds = by_square[sq]
        parts = [f"{KINDS[k].lower()} {' '.join(kinds[k])}" for k in sorted(kinds)]
        lines.append(f"{cell_name(*divmod(sq, game.size))}: " + " · ".join(parts))
    if others:
        lines.append(", ".join(others))
    return lines


PLAY = PlayRules(
    undo_rule="in Knot, placements can be taken back until you draw",
    undo_phases=frozenset({"place"}),
    rules_summary=RULES_SUMMARY,
    narrate=narrate,
    group_moves=group_moves,
)
"""What terminal play and other front ends need beyond the rules (``GameDescription.play``)."""
