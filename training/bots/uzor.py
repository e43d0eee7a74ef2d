"""Uzor bots. They see only their seat's observation, rebuild the public position from it
(the face-down supply filled in by a guess consistent with its known contents, the opponent's
goal unknown) and ask the engine what placements would complete.

* ``closer``: plays at random, except that at the fork it always closes the best completed
  pattern. The yardstick of the issue (about 75 % against random).
* ``greedy``: places where it completes the most valuable pattern (else at random), closes
  the best completed pattern, takes at random.
* ``heuristic``: prices every placement by what it closes now (its secret goal doubled), what
  it prepares for its own next turn, and what it hands the opponent (whose hand is public);
  weighs CLOSE now against CONTINUE for a bigger pattern in the repeated turn; takes the
  market tile that serves it best or denies the opponent a pattern; discards its least useful
  tile in a dead end.
"""

from __future__ import annotations

import math
import random
from typing import Any

from envs.uzor.observer import UzorObserver
from envs.uzor.rules import (
    COPIES,
    DEAD_TAKE,
    DISCARD,
    EMPTY,
    FORK,
    PHASES,
    PLACE,
    STONE,
    TAKE,
    TYPES,
    UzorGame,
    bits_of,
    geometry,
)
from training.agents import legal_from_mask


def rebuild(options: dict[str, Any], seen: dict[str, Any], rng: random.Random) -> UzorGame:
    """An engine state consistent with a decoded observation (hidden parts guessed)."""
    game = object.__new__(UzorGame)
    game.options = options
    geo = game.geo = geometry(options["board_size"], options["patterns"])
    me = seen["seat"]
    board = list(seen["board"])
    game.board = board
    game.codes = bytearray(v + 1 for v in board)
    game.open_bb = game.stone_bb = 0
    game.motif_bb = [0] * 5
    game.colour_bb = [0] * 5
    for x, v in enumerate(board):
        if v == EMPTY:
            continue
        bit = 1 << x
        if v >= STONE:
            game.stone_bb |= bit
        else:
            game.open_bb |= bit
            game.motif_bb[v // 5] |= bit
            game.colour_bb[v % 5] |= bit
    game._refresh_neighbourhoods()
    hands = [None, None]
    hands[me] = list(seen["my_hand"])
    hands[1 - me] = list(seen["their_hand"])
    game.hands = hands
    game.market = list(seen["market"])
    counts = list(seen["supply_counts"])
    faceup = [t for t in seen["supply_faceup"] if t is not None]
    for t in faceup:
        counts[t] -= 1
    down = [t for t in range(TYPES) for _ in range(max(0, counts[t]))]
    rng.shuffle(down)
    game.supply = down + faceup
    game.faceup = len(faceup)
    # what is outside the table, by type: hands, market, supply
    outside = [0] * TYPES
    for t in hands[0] + hands[1] + game.supply + [x for x in game.market if x >= 0]:
        outside[t] += 1
    game.on_table = [COPIES - x for x in outside]
    game._count_outside()
    goal = seen["my_goal"]
    guess = next(k for k in range(15) if k != goal and k not in seen["crossed"]) if len(seen["crossed"]) < 14 else (goal + 1) % 15
    game.goals = [0, 0]
    game.goals[me] = goal
    game.goals[1 - me] = guess
    game.crossed = sum(1 << k for k in seen["crossed"])
    game.points = [0, 0]
    game.points[me] = seen["my_score"]
    game.points[1 - me] = seen["their_score"]
    game.closed = []
    game.last_cell = seen["last_cell"]
    game.idle = seen["idle"]
    game.phase = PHASES.index(seen["phase"])
    game.to_move = me if seen["to_move"] else 1 - me
    game.repeated = seen["repeated"]
    game.continued = seen["continued"]
    game.placed = game.phase in (FORK, TAKE) and game.last_cell >= 0
    game.fork = {}
    if game.phase == FORK:
        game.fork = game.completions(game.last_cell, board[game.last_cell])
    return game


class _Base:
    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = UzorGame.resolve_options(options)
        self.observer = UzorObserver(self.options)
        self.rng = random.Random(seed)
        self.geo = geometry(self.options["board_size"], self.options["patterns"])
        size = self.geo.size
        # cells within 4 rows and 4 columns of each cell: where a placement changes patterns
        near = []
        for x in range(self.geo.cells):
            r, c = divmod(x, size)
            mask = 0
            for rr in range(max(0, r - 4), min(size, r + 5)):
                for cc in range(max(0, c - 4), min(size, c + 5)):
                    mask |= 1 << (rr * size + cc)
            near.append(mask)
        self.near = near

    def value(self, k: int, game: UzorGame, player: int) -> float:
        points = game.geo.map.points[k]
        return points * 2 if game.goals[player] == k and player == self.me else points

    def state(self, observation) -> UzorGame:
        seen = self.observer.decode(observation)
        self.me = seen["seat"]
        return rebuild(self.options, seen, self.rng)


class CloserBot:
    """Random play, but the fork always closes the best completed pattern (no goal, no
    observation decoding: the fork's choices are in the mask, their points in the Map)."""

    name = "closer"

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = UzorGame.resolve_options(options)
        self.geo = geometry(self.options["board_size"], self.options["patterns"])
        self.rng = random.Random(seed)

    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        geo = self.geo
        closes = [a for a in legal if geo.close0 <= a < geo.cont]
        if closes:
            return max(closes, key=lambda a: (geo.map.points[a - geo.close0], -a))
        return self.rng.choice(legal)


class GreedyBot(_Base):
    """Completes and closes the most valuable pattern it can; otherwise plays at random."""

    name = "greedy"

    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        game = self.state(observation)
        geo = game.geo
        if game.phase == PLACE:
            best, choice = 0.0, []
            hand = game.hands[game.to_move]
            for a in legal:
                s, cell = divmod(a, geo.cells)
                done = game.completions(cell, hand[s])
                v = max((self.value(k, game, self.me) for k in done), default=0.0)
                if v > best:
                    best, choice = v, [a]
                elif v == best and v > 0:
                    choice.append(a)
            if choice:
                return self.rng.choice(choice)
        if game.phase == FORK:
            return max(legal[:-1], key=lambda a: (self.value(a - geo.close0, game, self.me), -a))
        return self.rng.choice(legal)


class HeuristicUzorBot(_Base):
    """See the module docstring. Weights were tuned by play against random and ``closer``."""

    name = "heuristic"
    PREPARE = 0.45  # what my own next turn could close, after the opponent has moved
    THREAT = 0.9  # what the opponent could close next turn
    DENY = 0.3  # what a market tile would let the opponent close later
    TOP = 12  # placements examined in depth

    # ----- scans ----------------------------------------------------------------------------
    def best_close(self, game: UzorGame, types, player: int, region: int = -1) -> float:
        """The most valuable pattern ``player`` could complete with one of ``types``."""
        acc = game.acceptance()
        best = 0.0
        seen = set()
        for t in types:
            if t in seen:
                continue
            seen.add(t)
            for cell in bits_of(acc[t] & region):
                for k in game.completions(cell, t):
                    v = self.value(k, game, player)
                    if v > best:
                        best = v
        return best

    def threats(self, game: UzorGame, types, player: int) -> list[tuple[float, int, int]]:
        """Every (value, pattern, cell) ``player`` could complete now with one of ``types``."""
        acc = game.acceptance()
        out = []
        for t in set(types):
            for cell in bits_of(acc[t]):
                for k in game.completions(cell, t):
                    out.append((self.value(k, game, player), k, cell))
        return out

    def opponent_threat(self, sim: UzorGame, baseline, changed: int, opp: int) -> float:
        """The opponent's best close after my move: the baseline's threats that survive (their
        pattern not crossed out, their cell far from what changed), and a fresh scan nearby."""
        region = 0
        for x in bits_of(changed):
            region |= self.near[x]
        best = 0.0
        crossed = sim.crossed
        for v, k, cell in baseline:
            if v > best and not crossed >> k & 1 and not region >> cell & 1:
                best = v
        local = self.best_close(sim, sim.hands[opp], opp, region)
        return max(best, local)

    # ----- decisions ---------------------------------------------------------------------------
    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        if len(legal) == 1:
            return legal[0]
        game = self.state(observation)
        phase = game.phase
        if phase == PLACE:
            return self.place(game, legal)
        if phase == FORK:
            return self.fork(game, legal)
        if phase in (TAKE, DEAD_TAKE):
            return self.take(game, legal)
        if phase == DISCARD:
            return self.discard(game, legal)
        return legal[0]  # PASS

    def _close_value(self, game: UzorGame) -> tuple[float, int]:
        """The best pattern in the fork and its value."""
        best_k, best_v = -1, -1.0
        for k in game.fork:
            v = self.value(k, game, self.me)
            if v > best_v:
                best_k, best_v = k, v
        return best_v, best_k

    def place(self, game: UzorGame, legal: list[int]) -> int:
        geo = game.geo
        me, opp = self.me, 1 - self.me
        hand = game.hands[me]
        baseline = self.threats(game, game.hands[opp], opp)
        quick = []
        for a in legal:
            s, cell = divmod(a, geo.cells)
            done = game.completions(cell, hand[s])
            now = max((self.value(k, game, me) for k in done), default=0.0)
            quick.append((now + self.rng.random() * 1e-3, a, done))
        quick.sort(reverse=True)
        scored = []
        for now, a, done in quick[: self.TOP]:
            sim = game.clone()
            sim.apply(a)
            s, cell = divmod(a, geo.cells)
            changed = 1 << cell
            if sim.phase == FORK:
                v, k = self._close_value(sim)
                changed |= sum(1 << x for x in sim.fork[k])
                sim.apply(geo.close0 + k)
            mine = sim.hands[me]
            prepare = self.best_close(sim, mine, me, self.near[cell])
            threat = self.opponent_threat(sim, baseline, changed, opp)
            scored.append((now + self.PREPARE * prepare - self.THREAT * threat, a))
        # placements with nothing to close: judged by preparation and threat only, sampled
        rest = quick[self.TOP:]
        if rest:
            for now, a, done in self.rng.sample(rest, min(len(rest), self.TOP)):
                sim = game.clone()
                sim.apply(a)
                s, cell = divmod(a, geo.cells)
                if sim.phase == FORK:
                    continue
                prepare = self.best_close(sim, sim.hands[me], me, self.near[cell])
                threat = self.opponent_threat(sim, baseline, 1 << cell, opp)
                scored.append((now + self.PREPARE * prepare - self.THREAT * threat, a))
        best = max(v for v, _ in scored)
        return self.rng.choice([a for v, a in scored if v >= best - 1e-9])

    def fork(self, game: UzorGame, legal: list[int]) -> int:
        geo = game.geo
        me, opp = self.me, 1 - self.me
        baseline = self.threats(game, game.hands[opp], opp)
        options = []
        for k in game.fork:
            sim = game.clone()
            sim.apply(geo.close0 + k)
            changed = sum(1 << x for x in game.fork[k]) | (1 << game.last_cell)
            threat = self.opponent_threat(sim, baseline, changed, opp)
            options.append((self.value(k, game, me) - self.THREAT * threat, geo.close0 + k))
        if not game.repeated:
            # CONTINUE: take the best market tile, then close the best pattern in the repeated turn.
            best = 0.0
            for m, t in enumerate(game.market):
                if t < 0:
                    continue
                hand = game.hands[me] + [t]
                best = max(best, self.best_close(game, hand, me))
            if not any(t >= 0 for t in game.market):
                best = self.best_close(game, game.hands[me], me)
            # the repeated turn is mine, but the tiles stay open for the opponent afterwards
            options.append((0.95 * best - self.THREAT * 0.5 * max((v for v, _, _ in baseline), default=0.0),
                            geo.cont))
        else:
            threat = max((v for v, _, _ in baseline), default=0.0)
            threat = max(threat, self.best_close(game, game.hands[opp], opp))
            options.append((-self.THREAT * threat, geo.cont))
        return max(options)[1]

    def take(self, game: UzorGame, legal: list[int]) -> int:
        geo = game.geo
        me, opp = self.me, 1 - self.me
        again = game.phase == TAKE and game.continued and not game.repeated
        scored = []
        for a in legal:
            t = game.market[a - geo.take0]
            hand = game.hands[me] + [t]
            mine = self.best_close(game, hand, me)
            theirs = self.best_close(game, [t], opp)
            fits = bin(game.acceptance()[t]).count("1")
            weight = 1.0 if again else self.PREPARE
            scored.append((weight * mine + self.DENY * theirs + 0.01 * fits + self.rng.random() * 1e-4, a))
        return max(scored)[1]

    def discard(self, game: UzorGame, legal: list[int]) -> int:
        geo = game.geo
        hand = game.hands[self.me]
        scored = []
        for a in legal:
            t = hand[a - geo.discard0]
            useful = sum(1 for x in hand if x // 5 == t // 5 or x % 5 == t % 5)
            scored.append((useful + self.rng.random() * 1e-3, a))
        return min(scored)[1]


BOTS = {"heuristic": HeuristicUzorBot, "greedy": GreedyBot, "closer": CloserBot}


# ----- search hooks (training.mcts) --------------------------------------------------------------
# MCTS calls these on the full engine states it samples (never on observations), at every step of
# every simulation, so they are built for speed. The costly part is finding the placements that
# complete a pattern: testing every legal placement with ``completions`` costs 100–200 µs on a
# mid-game table. For the standard Map a few bitboard shifts first narrow the cells where a tile
# of each motif / colour could complete anything (a necessary condition per pattern family), and
# only those cells are tested exactly; a user Map tests every acceptable cell.

_STANDARD_FAMILIES = {
    # patterns whose instances through a cell x always hold 3 collinear cells (x among them) of
    # the new tile's motif: the Lines, the Cross (centre or arm) and the orthogonal Triplets ...
    "motif_orthogonal": (0, 1, 2, 10, 14),
    # ... or on a diagonal: the Slants (by motif) and the diagonal Triplets
    "motif_diagonal": (6, 7, 14),
    "colour_orthogonal": (3, 4, 5, 8, 10),  # the Flows, the Wedge's row, the Cross by colour
    "colour_diagonal": (6, 7),  # the Slants by colour
}


def _family_mask(name: str) -> int:
    return sum(1 << k for k in _STANDARD_FAMILIES[name])


MOTIF_ORTHOGONAL = _family_mask("motif_orthogonal")
MOTIF_DIAGONAL = _family_mask("motif_diagonal")
COLOUR_ORTHOGONAL = _family_mask("colour_orthogonal")
COLOUR_DIAGONAL = _family_mask("colour_diagonal")
SQUARE, WEDGE, RING, RAINBOW_PARADE = 1 << 9, 1 << 8, 1 << 11, (1 << 12) | (1 << 13)


class _TableMasks:
    """Column masks of one table size, for shifting bitboards without wrapping round a row:
    ``columns[d]`` holds the cells whose column + d stays on the table."""

    def __init__(self, size: int):
        self.size = size
        self.full = (1 << size * size) - 1
        self.columns = {}
        for d in range(-4, 5):
            self.columns[d] = sum(1 << x for x in range(size * size) if 0 <= x % size + d < size)
        self.inner = sum(1 << x for x in range(size * size)
                         if 0 < x // size < size - 1 and 0 < x % size < size - 1)


_MASKS: dict[int, _TableMasks] = {}


def _table_masks(size: int) -> _TableMasks:
    masks = _MASKS.get(size)
    if masks is None:
        masks = _MASKS[size] = _TableMasks(size)
    return masks


def _motif_reach(x: int, masks: _TableMasks, crossed: int) -> int:
    """Cells where a tile of the motif whose open tiles are ``x`` could complete a same-motif
    (or Slant, Cross, Triplet) pattern still open: 3 in line with two of them, or a 2×2."""
    b, full, col = masks.size, masks.full, masks.columns
    p1, p2, m1, m2 = col[1], col[2], col[-1], col[-2]
    # e1: the cell to the east holds one of x; w, s, n alike; se1: south-east, and so on
    e1, w1, s1, n1 = (x >> 1) & p1, (x << 1) & m1, x >> b, (x << b) & full
    reach = 0
    if crossed & MOTIF_ORTHOGONAL != MOTIF_ORTHOGONAL:
        e2, w2, s2, n2 = (x >> 2) & p2, (x << 2) & m2, x >> 2 * b, (x << 2 * b) & full
        reach |= (e1 & (e2 | w1)) | (w1 & w2) | (s1 & (s2 | n1)) | (n1 & n2)
    se1, nw1, sw1, ne1 = (x >> b + 1) & p1, (x << b + 1) & m1, (x >> b - 1) & m1, (x << b - 1) & p1
    if crossed & MOTIF_DIAGONAL != MOTIF_DIAGONAL:
        se2, nw2 = (x >> 2 * b + 2) & p2, (x << 2 * b + 2) & m2
        sw2, ne2 = (x >> 2 * b - 2) & m2, (x << 2 * b - 2) & p2
        reach |= (se1 & (se2 | nw1)) | (nw1 & nw2) | (sw1 & (sw2 | ne1)) | (ne1 & ne2)
    if not crossed & SQUARE:
        reach |= (e1 & s1 & se1) | (w1 & s1 & sw1) | (e1 & n1 & ne1) | (w1 & n1 & nw1)
    return reach


def _colour_reach(x: int, masks: _TableMasks, crossed: int) -> int:
    """Cells where a tile of the colour whose open tiles are ``x`` could complete a same-colour
    (or Slant, Cross) pattern still open: 3 in line, or the foot of a Wedge."""
    b, full, col = masks.size, masks.full, masks.columns
    p1, p2, m1, m2 = col[1], col[2], col[-1], col[-2]
    e1, w1, s1, n1 = (x >> 1) & p1, (x << 1) & m1, x >> b, (x << b) & full
    reach = 0
    if crossed & COLOUR_ORTHOGONAL != COLOUR_ORTHOGONAL:
        e2, w2, s2, n2 = (x >> 2) & p2, (x << 2) & m2, x >> 2 * b, (x << 2 * b) & full
        reach |= (e1 & (e2 | w1)) | (w1 & w2) | (s1 & (s2 | n1)) | (n1 & n2)
    se1, nw1, sw1, ne1 = (x >> b + 1) & p1, (x << b + 1) & m1, (x >> b - 1) & m1, (x << b - 1) & p1
    if crossed & COLOUR_DIAGONAL != COLOUR_DIAGONAL:
        se2, nw2 = (x >> 2 * b + 2) & p2, (x << 2 * b + 2) & m2
        sw2, ne2 = (x >> 2 * b - 2) & m2, (x << 2 * b - 2) & p2
        reach |= (se1 & (se2 | nw1)) | (nw1 & nw2) | (sw1 & (sw2 | ne1)) | (ne1 & ne2)
    if not crossed & WEDGE:
        # the foot: a neighbour of this colour that ends a perpendicular row of three
        reach |= (
            (e1 & se1 & ((x >> 2 * b + 1) & p1)) | (e1 & ne1 & ((x << 2 * b - 1) & p1))
            | (w1 & sw1 & ((x >> 2 * b - 1) & m1)) | (w1 & nw1 & ((x << 2 * b + 1) & m1))
            | (s1 & se1 & ((x >> b + 2) & p2)) | (s1 & sw1 & ((x >> b - 2) & m2))
            | (n1 & ne1 & ((x << b - 2) & p2)) | (n1 & nw1 & ((x << b + 2) & m2))
        )
    return reach


def _open_reach(open_bb: int, masks: _TableMasks, crossed: int) -> int:
    """Cells that could complete a Ring (the last empty cell round an empty or stone centre)
    or a Rainbow / Parade (4 more open tiles in a row of 5), whatever the tile."""
    b, full, col = masks.size, masks.full, masks.columns
    reach = 0
    if not crossed & RING:
        shut = full & ~open_bb  # empty cells and stones
        one = two = 0  # cells with at least one / two shut neighbours (of the 8)
        for d in ((shut >> 1) & col[1], (shut << 1) & col[-1], shut >> b, (shut << b) & full,
                  (shut >> b + 1) & col[1], (shut << b + 1) & col[-1], (shut >> b - 1) & col[-1],
                  (shut << b - 1) & col[1]):
            two |= one & d
            one |= d
        centres = shut & masks.inner & one & ~two
        if centres:
            reach |= ((centres >> 1) & col[1]) | ((centres << 1) & col[-1]) | (centres >> b) \
                | ((centres << b) & full) | ((centres >> b + 1) & col[1]) | ((centres << b + 1) & col[-1]) \
                | ((centres >> b - 1) & col[-1]) | ((centres << b - 1) & col[1])
    if crossed & RAINBOW_PARADE != RAINBOW_PARADE:
        o = open_bb
        for step, shift_col in ((1, True), (b, False)):
            ahead, behind = [], []
            run_a = run_b = -1
            for k in range(1, 5):
                a = o >> k * step
                z = (o << k * step) & full
                if shift_col:
                    a &= col[k]
                    z &= col[-k]
                run_a &= a
                run_b &= z
                ahead.append(run_a)
                behind.append(run_b)
            reach |= ahead[3] | (behind[0] & ahead[2]) | (behind[1] & ahead[1]) | (behind[2] & ahead[0]) | behind[3]
    return reach


# Memos for the search: a search meets the same tables again and again (every sampled state
# of a move shares the table; one placement changes one motif's and one colour's tiles), and
# each value is a pure function of its key, so remembering them changes no result.
_MEMO_LIMIT = 100_000  # entries per memo; cleared whole when full
_MOTIF_REACH: dict[tuple[int, int], int] = {}
_COLOUR_REACH: dict[tuple[int, int], int] = {}
_OPEN_REACH: dict[tuple[int, int], int] = {}
_COMPLETING: dict[tuple[bytes, int, int], tuple[tuple[int, int], ...]] = {}


def _remember(memo: dict, key, value):
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def _completing_cells(state: UzorGame, t: int, table: bytes) -> tuple[tuple[int, int], ...]:
    """``(cell, patterns)`` for every empty cell where a tile of type ``t`` would complete a
    pattern not crossed out (``patterns``: the completed pattern numbers as a bitmask)."""
    crossed = state.crossed
    key = (table, crossed, t)
    found = _COMPLETING.get(key)
    if found is not None:
        return found
    where = state.cells_for(t)
    if state.options["patterns"] is None:
        masks = _table_masks(state.geo.size)
        m, c = divmod(t, 5)
        motif_bb, colour_bb, open_bb = state.motif_bb[m], state.colour_bb[c], state.open_bb
        reach = _MOTIF_REACH.get((motif_bb, crossed))
        if reach is None:
            reach = _remember(_MOTIF_REACH, (motif_bb, crossed), _motif_reach(motif_bb, masks, crossed))
        colour = _COLOUR_REACH.get((colour_bb, crossed))
        if colour is None:
            colour = _remember(_COLOUR_REACH, (colour_bb, crossed), _colour_reach(colour_bb, masks, crossed))
        common = _OPEN_REACH.get((open_bb, crossed))
        if common is None:
            common = _remember(_OPEN_REACH, (open_bb, crossed), _open_reach(open_bb, masks, crossed))
        where &= reach | colour | common
    out = []
    while where:
        low = where & -where
        cell = low.bit_length() - 1
        where ^= low
        done = state.completions(cell, t)
        if done:
            out.append((cell, sum(1 << k for k in done)))
    return _remember(_COMPLETING, key, tuple(out))


def completing_placements(state: UzorGame, hand: list[int]) -> list[tuple[int, int]]:
    """Every placement of a tile of ``hand`` (sorted, as the engine keeps hands) that would
    complete a pattern not crossed out, as ``(action, patterns)``: the PLACE action (from the
    slot of the tile's first copy) and the completed pattern numbers as a bitmask."""
    table = bytes(state.codes)
    cells = state.geo.cells
    out = []
    prev = -1
    for s, t in enumerate(hand):
        if t == prev:
            continue
        prev = t
        base = s * cells
        for cell, patterns in _completing_cells(state, t, table):
            out.append((base + cell, patterns))
    return out
    geo = state.geo
    crossed = state.crossed
    slots = {}
    for s, t in enumerate(hand):
        slots.setdefault(t, s)
    acc = state.acceptance()
    if state.options["patterns"] is None:
        masks = _table_masks(geo.size)
        common = _open_reach(state.open_bb, masks, crossed)
        by_motif, by_colour = {}, {}
        reach = {}
        for t in slots:
            m, c = divmod(t, 5)
            if m not in by_motif:
                by_motif[m] = _motif_reach(state.motif_bb[m], masks, crossed)
            if c not in by_colour:
                by_colour[c] = _colour_reach(state.colour_bb[c], masks, crossed)
            reach[t] = acc[t] & (by_motif[m] | by_colour[c] | common)
    else:
        reach = {t: acc[t] for t in slots}
    out = []
    cells = geo.cells
    for t, where in reach.items():
        base = slots[t] * cells
        while where:
            low = where & -where
            cell = low.bit_length() - 1
            where ^= low
            done = state.completions(cell, t)
            if done:
                out.append((base + cell, sum(1 << k for k in done)))
    found = tuple(out)
    if len(_COMPLETING) >= _COMPLETING_LIMIT:
        _COMPLETING.clear()
    _COMPLETING[key] = found
    return found


def _close_value(state: UzorGame, player: int, patterns: int) -> int:
    """The most points ``player`` scores by closing one of ``patterns`` (a bitmask): the
    pattern's points, doubled for the player's secret goal (drawn, in a sampled state)."""
    points, goal = state.geo.map.points, state.goals[player]
    best = 0
    for k in bits_of(patterns):
        v = points[k] * 2 if k == goal else points[k]
        if v > best:
            best = v
    return best


def best_completion(state: UzorGame, player: int, with_market: bool = False) -> int:
    """The most points ``player`` could close with one placement of a tile from their hand
    (``with_market``: or from the market, as after their next take) on the table as it is."""
    tiles = set(state.hands[player])
    if with_market:
        tiles.update(t for t in state.market if t >= 0)
    table = bytes(state.codes)
    best = 0
    for t in tiles:
        for _, patterns in _completing_cells(state, t, table):
            v = _close_value(state, player, patterns)
            if v > best:
                best = v
    return best


def _best_with(state: UzorGame, player: int, t: int, table: bytes) -> int:
    """The most points ``player`` could close by placing a tile of type ``t`` now."""
    best = 0
    for _, patterns in _completing_cells(state, t, table):
        v = _close_value(state, player, patterns)
        if v > best:
            best = v
    return best


def preferred_takes(state: UzorGame) -> list[int]:
    """The heuristic's take on an engine state: the market tile that most adds to what the
    taker could close next (their hand with it), plus some of what it would let the opponent
    close (taking it denies it), plus a little for the cells it fits (fewer dead ends)."""
    geo = state.geo
    player = state.to_move
    table = bytes(state.codes)
    weight = 1.0 if state.continued and not state.repeated else HeuristicUzorBot.PREPARE
    mine = max((_best_with(state, player, t, table) for t in set(state.hands[player])), default=0)
    scored = []
    for m, t in enumerate(state.market):
        if t < 0:
            continue
        gain = max(mine, _best_with(state, player, t, table))
        deny = _best_with(state, 1 - player, t, table)
        fits = bin(state.cells_for(t)).count("1")
        scored.append((weight * gain + HeuristicUzorBot.DENY * deny + 0.01 * fits, geo.take0 + m))
    best = max(v for v, _ in scored)
    return [a for v, a in scored if v >= best - 1e-9]


def preferred_actions(state: UzorGame) -> list[int]:
    """The moves the heuristic would consider first, cheaply, on an engine state: at a
    placement the ones that complete the most valuable pattern (its goal doubled), else every
    placement; at the fork, closing the most valuable pattern; at a take, the heuristic's
    take; otherwise every legal move."""
    phase = state.phase
    if phase == PLACE:
        player = state.to_move
        completing = completing_placements(state, state.hands[player])
        if completing:
            values = [_close_value(state, player, patterns) for _, patterns in completing]
            best = max(values)
            return [a for (a, _), v in zip(completing, values) if v == best]
    elif phase == FORK:
        player = state.to_move
        best = max(state.fork, key=lambda k: (_close_value(state, player, 1 << k), -k))
        return [state.geo.close0 + best]
    elif phase in (TAKE, DEAD_TAKE):
        return preferred_takes(state)
    return state.legal_actions()


EVALUATION_SCALE = 10.0  # points of lead that make a cut-off playout worth tanh(1) ≈ 0.76
NEXT_CLOSE = 0.9  # share of the best close of the player who places next (it is theirs to take)
LATER_CLOSE = 0.45  # share of a close a turn away (it may be blocked or taken first)
MARKET_CLOSE = 0.3  # share of the best close a market tile would give the player who takes next


def evaluate_state(state: UzorGame) -> list[float]:
    """A playout cut off before the end, as the heuristic prices a position: the points lead;
    most of the best pattern the player who places next could close (a pending fork counts
    whole); some of what the other could close a turn later; and, for the player who takes
    next, some of what the market would add (so a take that leaves the opponent a closing
    tile costs). Squashed into (−1, 1) per player."""
    mover = state.to_move
    other = 1 - mover
    lead = state.points[mover] - state.points[other]
    phase = state.phase
    if phase == PLACE:
        lead += NEXT_CLOSE * best_completion(state, mover) - LATER_CLOSE * best_completion(state, other)
        lead += MARKET_CLOSE * best_completion(state, mover, with_market=True)
    else:
        if phase == FORK:
            lead += max(_close_value(state, mover, 1 << k) for k in state.fork)
        # the mover takes next, then places again after a CONTINUE, else the other places
        again = state.continued and not state.repeated
        lead += (NEXT_CLOSE if again else LATER_CLOSE) * best_completion(state, mover, with_market=True)
        lead -= (LATER_CLOSE if again else NEXT_CLOSE) * best_completion(state, other)
    value = math.tanh(lead / EVALUATION_SCALE)
    return [value, -value] if mover == 0 else [-value, value]
