"""The Knot heuristic's prices read straight from its docstring, one move at a time: the
yardstick for the fast pricing in ``training.bots.knot`` (which finds prices from the ends and
gap ports at once). Boards are seen from player 0, the player to act."""

from __future__ import annotations

from envs.knot.geometry import FIT, OTHER_PORT, SLOT_PORTS, TURN_FOR_PORT
from envs.knot.rules import KnotGame


def manhattan(size: int, a: int, b: int) -> int:
    ra, ca = divmod(a, size)
    rb, cb = divmod(b, size)
    return abs(ra - rb) + abs(ca - cb)


def gap_danger(board: KnotGame, end_link: int) -> bool:
    """Would an opponent's single strand join their end to my end linked at ``end_link``?"""
    sq, p = end_link >> 3, end_link & 7
    g = board.geo
    fit = FIT[board.geo_w[sq]] & g.static[sq]
    for other in range(1, board.n_players):
        for e in board.ends[other]:
            lk = g.link[e]
            if lk >> 3 != sq or (lk & 7) % 2 == p % 2:
                continue
            for k in range(4):
                slot = 4 * k + TURN_FOR_PORT[k][lk & 7]
                if fit >> slot & 1 and OTHER_PORT[slot * 8 + (lk & 7)] == p:
                    return True
    return False


def price(board: KnotGame, action: int) -> float:
    n, size = board.n, board.size
    slot, sq = divmod(action, n)
    g = board.geo
    pa, pb = SLOT_PORTS[slot]
    ga, gb = sq * 8 + pa, sq * 8 + pb
    la, lb = g.link[ga], g.link[gb]
    sa, sb = board.port_strand[la], board.port_strand[lb]
    if sa < 0 and sb < 0:
        value = 3.0
        for end in (ga, gb):
            if gap_danger(board, g.link[end]):
                value -= 20
        return value
    if sa >= 0 and sb >= 0:
        ra, rb = board.st_rib[sa], board.st_rib[sb]
        if ra == rb:
            return 100.0 + 10 * (board.rib_inside[ra] + g.inside[ga] + g.inside[gb])
        owners = (board.rib_owner[ra], board.rib_owner[rb])
        captured = [r for r in (ra, rb) if board.rib_owner[r] != 0]
        if captured:
            return 50.0 + 4 * len(board.rib_strands[captured[0]])
        return 25.0 if owners == (0, 0) else 0.0
    if sa < 0:
        ga, gb, la, lb, sa = gb, ga, lb, la, sb
    r = board.st_rib[sa]
    far = [e for e in board.rib_ends[r] if e != la][0]
    far_link = g.link[far]
    new_link = g.link[gb]
    value = 8.0 + 3 * (manhattan(size, la >> 3, far_link >> 3) - manhattan(size, new_link >> 3, far_link >> 3))
    if new_link >> 3 == far_link >> 3 and (new_link + far_link) % 2 == 1:
        value += 12
    if gap_danger(board, new_link):
        value -= 20 + 3 * len(board.rib_strands[r])
    elif gap_danger(board, ga):
        value += 15 + len(board.rib_strands[r])  # the end leaves the gap it sat in
    return value


def needed_kinds(board: KnotGame) -> list[float]:
    """How much each kind would help my ribbons next turn (close > grow)."""
    need = [0.0] * 4
    g = board.geo
    for e in board.ends[0]:
        lk = g.link[e]
        sq, p = lk >> 3, lk & 7
        fit = FIT[board.geo_w[sq]] & g.static[sq]
        for k in range(4):
            slot = 4 * k + TURN_FOR_PORT[k][p]
            if not fit >> slot & 1:
                continue
            other = board.port_strand[g.link[sq * 8 + OTHER_PORT[slot * 8 + p]]]
            if other >= 0 and board.st_rib[other] == board.st_rib[board.port_strand[e]]:
                need[k] += 10
            elif other >= 0 and board.rib_owner[board.st_rib[other]] != 0:
                need[k] += 5
            else:
                need[k] += 1
    return need
