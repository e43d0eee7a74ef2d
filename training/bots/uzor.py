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
from envs.uzor.patterns import STANDARD_MAP
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
from training.bots import BotKit, LadderSpec, SearchHooks


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




# ----- search hooks (training.mcts) --------------------------------------------------------------
# MCTS calls these on the full engine states it samples (never on observations), at every step of
# every simulation, so they are built for speed. The costly part is finding the placements that
# complete a pattern: testing every legal placement with ``completions`` costs 100–200 µs on a
# mid-game table. For the standard Map, bitboard shifts first narrow the cells where a tile of a
# given motif / colour / type could complete each pattern still open (exact for most patterns, a
# necessary condition for the rest), and only those cells are tested with ``completions``; a user
# Map tests every acceptable cell. The results are remembered per table (see _MEMO_LIMIT).

# The standard Map's pattern numbers (envs.uzor.patterns.STANDARD_MAP).
(LINE3, LINE4, LINE5, FLOW3, FLOW4, FLOW5, SLANT3, SLANT4, WEDGE, SQUARE, CROSS, RING, RAINBOW,
 PARADE, TRIPLET) = (1 << k for k in range(15))
assert [p["name"] for p in STANDARD_MAP] == [
    "Line-3", "Line-4", "Line-5", "Flow-3", "Flow-4", "Flow-5", "Slant-3", "Slant-4", "Wedge", "Square",
    "Cross", "Ring", "Rainbow", "Parade", "Triplet"]


class _TableMasks:
    """Column masks of one table size, for shifting bitboards without wrapping round a row:
    ``columns[d]`` holds the cells whose column + d stays on the table (d in −4…4)."""

    def __init__(self, size: int):
        self.size = size
        self.full = (1 << size * size) - 1
        self.columns = {d: sum(1 << x for x in range(size * size) if 0 <= x % size + d < size) for d in range(-4, 5)}
        self.inner = sum(1 << x for x in range(size * size)
                         if 0 < x // size < size - 1 and 0 < x % size < size - 1)

    def at(self, x: int, dr: int, dc: int) -> int:
        """The cells whose neighbour ``dr`` rows down and ``dc`` columns right is in ``x``."""
        offset = dr * self.size + dc
        y = x >> offset if offset >= 0 else (x << -offset) & self.full
        return y & self.columns[dc] if dc else y


_MASKS: dict[int, _TableMasks] = {}


def _table_masks(size: int) -> _TableMasks:
    masks = _MASKS.get(size)
    if masks is None:
        masks = _MASKS[size] = _TableMasks(size)
    return masks


def _in_line(ahead: list[int], behind: list[int], n: int) -> int:
    """Cells with n − 1 cells of a set in line with them, given ``ahead[k]`` / ``behind[k]``:
    the cells whose (k+1)-th neighbour ahead / behind (one direction) is in the set."""
    out = 0
    for before in range(n):  # the cell is the (before+1)-th of the n
        run = -1
        for k in range(before):
            run &= behind[k]
        for k in range(n - 1 - before):
            run &= ahead[k]
        out |= run
    return out


def _lines(masks: _TableMasks, x: int, n: int, diagonal: bool) -> int:
    """Cells that would make n in a row of ``x`` across or down (or on either diagonal)."""
    at = masks.at
    out = 0
    for dr, dc in ((1, 1), (1, -1)) if diagonal else ((0, 1), (1, 0)):
        ahead = [at(x, k * dr, k * dc) for k in range(1, n)]
        behind = [at(x, -k * dr, -k * dc) for k in range(1, n)]
        out |= _in_line(ahead, behind, n)
    return out


def _cross(masks: _TableMasks, x: int) -> int:
    """Cells that would complete a plus sign of ``x``, as its centre or as an arm."""
    at = masks.at
    e, w, s, n = at(x, 0, 1), at(x, 0, -1), at(x, 1, 0), at(x, -1, 0)
    se, sw, ne, nw = at(x, 1, 1), at(x, 1, -1), at(x, -1, 1), at(x, -1, -1)
    return (e & w & s & n) | (e & at(x, 0, 2) & se & ne) | (w & at(x, 0, -2) & sw & nw) \
        | (s & at(x, 2, 0) & se & sw) | (n & at(x, -2, 0) & ne & nw)


def _square(masks: _TableMasks, x: int) -> int:
    at = masks.at
    e, w, s, n = at(x, 0, 1), at(x, 0, -1), at(x, 1, 0), at(x, -1, 0)
    return (e & s & at(x, 1, 1)) | (w & s & at(x, 1, -1)) | (e & n & at(x, -1, 1)) | (w & n & at(x, -1, -1))


def _wedge(masks: _TableMasks, x: int) -> int:
    """Cells that would complete an L of four of ``x`` (a row of three and a foot at one end)."""
    at = masks.at
    e, w, s, n = at(x, 0, 1), at(x, 0, -1), at(x, 1, 0), at(x, -1, 0)
    e2, w2, s2, n2 = at(x, 0, 2), at(x, 0, -2), at(x, 2, 0), at(x, -2, 0)
    se, sw, ne, nw = at(x, 1, 1), at(x, 1, -1), at(x, -1, 1), at(x, -1, -1)
    knight = {(dr, dc): at(x, dr, dc) for dr, dc in
              ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1))}
    diagonals = se | sw | ne | nw
    in_row = (
        (e & e2 & (s | n | knight[1, 2] | knight[-1, 2])) | (w & e & diagonals)
        | (w & w2 & (s | n | knight[1, -2] | knight[-1, -2]))
        | (s & s2 & (e | w | knight[2, 1] | knight[2, -1])) | (n & s & diagonals)
        | (n & n2 & (e | w | knight[-2, 1] | knight[-2, -1]))
    )
    foot = (
        (e & ((se & knight[2, 1]) | (ne & knight[-2, 1]))) | (w & ((sw & knight[2, -1]) | (nw & knight[-2, -1])))
        | (s & ((se & knight[1, 2]) | (sw & knight[1, -2]))) | (n & ((ne & knight[-1, 2]) | (nw & knight[-1, -2])))
    )
    return in_row | foot


def _motif_reach(masks: _TableMasks, x: int, crossed: int) -> int:
    """Cells where a tile of the motif whose open tiles are ``x`` could complete a Line,
    Slant, Square or Cross still open (by motif)."""
    reach = 0
    if not crossed & LINE3:
        reach |= _lines(masks, x, 3, False)  # Line-4 and Line-5 hold a Line-3 through the cell
    elif crossed & (LINE4 | LINE5) != LINE4 | LINE5:
        reach |= _lines(masks, x, 4, False)
    if not crossed & SLANT3:
        reach |= _lines(masks, x, 3, True)
    elif not crossed & SLANT4:
        reach |= _lines(masks, x, 4, True)
    if not crossed & SQUARE:
        reach |= _square(masks, x)
    if not crossed & CROSS:
        reach |= _cross(masks, x)
    return reach


def _colour_reach(masks: _TableMasks, x: int, crossed: int) -> int:
    """Cells where a tile of the colour whose open tiles are ``x`` could complete a Flow,
    Slant, Wedge or Cross still open (by colour)."""
    reach = 0
    if not crossed & FLOW3:
        reach |= _lines(masks, x, 3, False)
    elif crossed & (FLOW4 | FLOW5) != FLOW4 | FLOW5:
        reach |= _lines(masks, x, 4, False)
    if not crossed & SLANT3:
        reach |= _lines(masks, x, 3, True)
    elif not crossed & SLANT4:
        reach |= _lines(masks, x, 4, True)
    if not crossed & WEDGE:
        reach |= _wedge(masks, x)
    if not crossed & CROSS:
        reach |= _cross(masks, x)
    return reach


def _open_reach(masks: _TableMasks, open_bb: int, crossed: int) -> int:
    """Cells that could complete a Ring (the last empty cell round an empty or stone centre)
    or a Rainbow / Parade (4 more open tiles in a row of 5), whatever the tile."""
    at = masks.at
    reach = 0
    if not crossed & RING:
        shut = masks.full & ~open_bb  # empty cells and stones
        around = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
        one = two = 0  # cells with at least one / two shut cells among their 8 neighbours
        for dr, dc in around:
            d = at(shut, dr, dc)
            two |= one & d
            one |= d
        centres = shut & masks.inner & one & ~two
        for dr, dc in around if centres else ():
            reach |= at(centres, -dr, -dc)
    if crossed & (RAINBOW | PARADE) != RAINBOW | PARADE:
        reach |= _lines(masks, open_bb, 5, False)
    return reach


# Memos for the search: a search meets the same tables again and again (every sampled state
# of a move shares its table; one placement changes one motif's and one colour's tiles), and
# each value is a pure function of its key, so remembering them changes no result.
_MEMO_LIMIT = 20_000  # entries per memo (a few tens of MB at most); cleared whole when full
_MOTIF_REACH: dict[tuple[int, int], int] = {}
_COLOUR_REACH: dict[tuple[int, int], int] = {}
_TYPE_REACH: dict[tuple[int, int], int] = {}
_OPEN_REACH: dict[tuple[int, int], int] = {}
_TABLES: dict[tuple[bytes, int], dict[int, tuple]] = {}


def _remember(memo: dict, key, value):
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def _completing(state: UzorGame, t: int, table: dict[int, tuple]) -> tuple:
    """``(cells, plain, patterns)`` for tile type ``t`` on this table: ``cells`` lists
    ``(cell, completed patterns as a bitmask)`` for every empty cell where a tile of type ``t``
    would complete a pattern not crossed out, ``plain`` is the most points among them (no goal
    doubled) and ``patterns`` the union of the bitmasks. ``table`` is the memo of this table."""
    crossed = state.crossed
    where = state.cells_for(t)
    if state.options["patterns"] is None and where:
        masks = _table_masks(state.geo.size)
        m, c = divmod(t, 5)
        motif_bb, colour_bb, open_bb = state.motif_bb[m], state.colour_bb[c], state.open_bb
        reach = _MOTIF_REACH.get((motif_bb, crossed))
        if reach is None:
            reach = _remember(_MOTIF_REACH, (motif_bb, crossed), _motif_reach(masks, motif_bb, crossed))
        colour = _COLOUR_REACH.get((colour_bb, crossed))
        if colour is None:
            colour = _remember(_COLOUR_REACH, (colour_bb, crossed), _colour_reach(masks, colour_bb, crossed))
        common = _OPEN_REACH.get((open_bb, crossed))
        if common is None:
            common = _remember(_OPEN_REACH, (open_bb, crossed), _open_reach(masks, open_bb, crossed))
        reach |= colour | common
        if not crossed & TRIPLET:
            same = motif_bb & colour_bb
            triplet = _TYPE_REACH.get((same, crossed))
            if triplet is None:
                triplet = _remember(_TYPE_REACH, (same, crossed),
                                    _lines(masks, same, 3, False) | _lines(masks, same, 3, True))
            reach |= triplet
        where &= reach
    cells = []
    plain = union = 0
    points = state.geo.map.points
    while where:
        low = where & -where
        cell = low.bit_length() - 1
        where ^= low
        done = state.completions(cell, t)
        if done:
            patterns = 0
            for k in done:
                patterns |= 1 << k
                if points[k] > plain:
                    plain = points[k]
            cells.append((cell, patterns))
            union |= patterns
    found = table[t] = (tuple(cells), plain, union)
    return found


_BY_VERSION: dict[int, dict[int, tuple]] = {}


def _table_memo(state: UzorGame) -> dict[int, tuple]:
    """The memo of ``_completing`` results for this table and set of crossed-out patterns:
    found by the table's version (shared by clones, new after every change, like the
    observer's cache) and else by its contents (the same table reached in another simulation)."""
    table = _BY_VERSION.get(state.table_version)
    if table is None:
        key = (bytes(state.codes), state.crossed)
        table = _TABLES.get(key)
        if table is None:
            table = _remember(_TABLES, key, {})
        _remember(_BY_VERSION, state.table_version, table)
    return table


def completing_placements(state: UzorGame, hand: list[int]) -> list[tuple[int, int]]:
    """Every placement of a tile of ``hand`` (sorted, as the engine keeps hands) that would
    complete a pattern not crossed out, as ``(action, patterns)``: the PLACE action (from the
    slot of the tile's first copy) and the completed pattern numbers as a bitmask."""
    table = _table_memo(state)
    cells = state.geo.cells
    out = []
    prev = -1
    for s, t in enumerate(hand):
        if t == prev:
            continue
        prev = t
        found = table.get(t) or _completing(state, t, table)
        base = s * cells
        out += [(base + cell, patterns) for cell, patterns in found[0]]
    return out


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


def best_completion(state: UzorGame, player: int, tiles=None) -> int:
    """The most points ``player`` could close with one placement of a tile of ``tiles``
    (types; by default their hand) on the table as it is, their secret goal doubled."""
    table = _table_memo(state)
    goal = state.goals[player]
    goal_value = 2 * state.geo.map.points[goal]
    best = 0
    for t in state.hands[player] if tiles is None else tiles:
        found = table.get(t) or _completing(state, t, table)
        value = goal_value if found[2] >> goal & 1 else found[1]
        if value > best:
            best = value
    return best


def preferred_takes(state: UzorGame) -> list[int]:
    """The heuristic's take on an engine state: the market tile that most adds to what the
    taker could close next (their hand with it), plus some of what it would let the opponent
    close (taking it denies it), plus a little for the cells it fits (fewer dead ends)."""
    table = _table_memo(state)
    player = state.to_move
    goal, their_goal = state.goals[player], state.goals[1 - player]
    weight = 1.0 if state.continued and not state.repeated else HeuristicUzorBot.PREPARE
    # remembered with this table's completions: the tree meets the same take again and again
    key = ("take", tuple(state.hands[player]), tuple(state.market), goal, their_goal, weight)
    chosen = table.get(key)
    if chosen is None:
        chosen = table[key] = _choose_takes(state, table, player, goal, their_goal, weight)
    return list(chosen)


def _choose_takes(state, table, player, goal, their_goal, weight) -> tuple[int, ...]:
    """The market slots of the best take, priced as ``HeuristicUzorBot.take`` prices them
    (here the opponent's goal, drawn in a sampled state, counts double for them too)."""
    points = state.geo.map.points
    mine = best_completion(state, player)
    take0 = state.geo.take0
    best, chosen = -1.0, []
    for m, t in enumerate(state.market):
        if t < 0:
            continue
        _, plain, patterns = table.get(t) or _completing(state, t, table)
        gain = 2 * points[goal] if patterns >> goal & 1 else plain
        deny = 2 * points[their_goal] if patterns >> their_goal & 1 else plain
        value = weight * max(mine, gain) + HeuristicUzorBot.DENY * deny + 0.01 * state.cells_for(t).bit_count()
        if value > best + 1e-9:
            best, chosen = value, [take0 + m]
        elif value > best - 1e-9:
            chosen.append(take0 + m)
    return tuple(chosen)


def preferred_actions(state: UzorGame) -> list[int]:
    """The moves the heuristic would consider, cheaply, on an engine state: at a placement
    the ones that complete the most valuable pattern (the mover's goal doubled), else every
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


ROOT_CANDIDATES = 8  # placements a search weighs at its root before widening to the rest
_PRICERS: dict[tuple, HeuristicUzorBot] = {}


def _pricer(state: UzorGame) -> HeuristicUzorBot:
    """A heuristic bot for this table size and Map, used for its pricing of placements."""
    key = (state.geo.size, repr(state.options["patterns"]))
    bot = _PRICERS.get(key)
    if bot is None:
        bot = _PRICERS[key] = HeuristicUzorBot(seed=0, board_size=state.geo.size, patterns=state.options["patterns"])
    return bot


def root_preferred_actions(state: UzorGame) -> list[int]:
    """The moves a search weighs first at its root, where it is called once per move and may
    cost a few milliseconds: at a placement, the ROOT_CANDIDATES placements the heuristic prices
    best — what they close now (the mover's goal doubled), plus some of what they prepare for
    the mover's next turn, minus most of what they leave the opponent (whose hand is public) —
    priced over every legal placement, not the heuristic's sample; elsewhere
    ``preferred_actions``. Equal prices are ordered by a fixed scramble of the action numbers,
    not by the numbers themselves (which would favour the first hand slot and the top rows)."""
    if state.phase != PLACE:
        return preferred_actions(state)
    bot = _pricer(state)
    bot.me = me = state.to_move
    opp = 1 - me
    geo = state.geo
    baseline = bot.threats(state, state.hands[opp], opp)
    priced = []
    for action in state.legal_actions():
        # as HeuristicUzorBot.place prices the placements it examines
        cell = action % geo.cells
        sim = state.clone()
        sim.apply(action)
        changed = 1 << cell
        now = 0.0
        if sim.phase == FORK:
            now, k = bot._close_value(sim)
            changed |= sum(1 << x for x in sim.fork[k])
            sim.apply(geo.close0 + k)
        prepare = bot.best_close(sim, sim.hands[me], me, bot.near[cell])
        threat = bot.opponent_threat(sim, baseline, changed, opp)
        price = now + bot.PREPARE * prepare - bot.THREAT * threat
        priced.append((-price, (action * 2654435761) % 4294967296, action))
    priced.sort()
    return [action for _, _, action in priced[:ROOT_CANDIDATES]]


EVALUATION_SCALE = 10.0  # points of lead that make a cut-off playout worth tanh(1) ≈ 0.76
NEXT_CLOSE = 0.9  # share of the best close of the player who places next (it is theirs to take)
LATER_CLOSE = 0.45  # share of a close a turn away (it may be blocked or taken first)


def evaluate_state(state: UzorGame) -> list[float]:
    """A playout cut off before the end, priced as the heuristic prices a position: the points
    lead; most of the best pattern the player who places next could close (a pending fork
    counts whole); some of what the other could close a turn later, where the player who is
    about to take counts the market tiles as theirs. Squashed into (−1, 1) per player.
    (The market is left out for the player about to place: after the take that leads there it
    holds a freshly drawn tile, and pricing it made single simulations noisy.)"""
    mover = state.to_move
    other = 1 - mover
    lead = state.points[mover] - state.points[other]
    phase = state.phase
    if phase == PLACE:
        lead += NEXT_CLOSE * best_completion(state, mover) - LATER_CLOSE * best_completion(state, other)
    else:
        with_market = state.hands[mover] + [t for t in state.market if t >= 0]
        if phase == FORK:
            lead += max(_close_value(state, mover, 1 << k) for k in state.fork)
        # the mover takes next, then places again after a CONTINUE, else the other places
        again = state.continued and not state.repeated
        lead += (NEXT_CLOSE if again else LATER_CLOSE) * best_completion(state, mover, with_market)
        lead -= (LATER_CLOSE if again else NEXT_CLOSE) * best_completion(state, other)
    value = math.tanh(lead / EVALUATION_SCALE)
    return [value, -value] if mover == 0 else [-value, value]

KIT = BotKit(
    heuristic=HeuristicUzorBot,
    others={"greedy": GreedyBot, "closer": CloserBot},
    search=SearchHooks(preferred=preferred_actions, root_preferred=root_preferred_actions, evaluate=evaluate_state),
    ladders=(
        LadderSpec({}, mcts=":depth=1:c=0.2", top_games=40,
                   note="default 21×21 table; play-outs cut after 1 move and scored by the game's evaluation"),
        LadderSpec({"board_size": 9}, mcts=":depth=1:c=0.2", trained="checkpoints/uzor/uzor_9x9__maskppo__0.zip",
                   climb=False, place_against=2, note="where the shipped 9×9 agent stands"),
    ),
)
