"""Full Uzor states from one seat's observation, for search bots (determinization).

A seat sees everything but two things: the opponent's secret goal and the order of the
supply's face-down tiles (their contents follow by elimination; face-up discards lie where the
observation shows them). ``sampler(observation, options)`` decodes the observation once and
returns a function that, per call, clones a prepared state and draws only those two:

* the face-down tiles: a uniform shuffle of their known contents (with scripted ``tiles`` the
  order is part of the options everyone was given: the face-down part of the supply is always
  the last tiles of the dealt order, so there is nothing to draw);
* the opponent's goal: uniform among the patterns that can still be it — not my goal, and able
  to explain both scores (a goal closed by its owner counts double, so a score can rule goals
  out). The observation does not say who closed which pattern, so "able to explain" means
  that some split of the crossed-out patterns between the players gives both scores. (How
  likely each goal made the opponent's play is not weighed: no model of the opponent here.)
  With scripted ``goals`` it is the scripted one.

The observation also forgets some public history that a snapshot must hold: which cells each
closed pattern turned to stones, who closed it, and the face of each stone. None of it changes
what anybody can do or see from now on, so ``sampler`` settles it once, without chance, among
the possibilities: stone cells are split into instances of the crossed-out patterns (an exact
cover, searched in reading order); each instance gets faces from the stones' known contents
that meet its pattern's criterion (a way per instance — which motif, colour or type — by a
search pruned with a max flow of tiles to instances; after FACE_SEARCH_BUDGET flows it gives
up and lays the faces in type order, which the snapshot check does not look at; that is rare:
once in 5,552 positions of greedy-closing 9×9 games); the owners are the first split of
the crossed-out patterns that gives both scores under the drawn goal. ``placed`` follows from
the phase, ``faceup`` from the supply places, the fork's instances from the table.

``complete_snapshot(partial, seat, rng)`` fills a snapshot in the engine's format
(``UzorGame.snapshot()``) from ``seat``'s point of view. In ``partial["state"]`` exactly these
may be left out:

* ``goals``: the opponent's entry may be ``null`` (``goals[1 - seat]``); the key itself and
  ``seat``'s own entry must be there;
* ``supply``: any face-down place (the first ``len(supply) - faceup`` entries) may be ``null``,
  or the whole key may be missing or ``null`` when ``faceup`` is 0 (every tile that is on no
  table, in no hand and in no market is then in the supply, face down).

The unknown places get the tiles left over by elimination, shuffled (scripted ``tiles``: the
ones the dealt order puts there); a ``null`` goal is drawn as ``sampler`` draws it, except that
the snapshot names who closed what, so only a goal that gives the opponent exactly their score
can be drawn. Every other key of the state is public: missing or ``null`` it is a
``SnapshotError`` naming it.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

import numpy as np

from envs.core.game import SnapshotError, int_list, require
from envs.core.observer import as_vector
from envs.uzor.observer import UzorObserver
from envs.uzor.patterns import (
    DIFF_COLOURS,
    DIFF_MOTIFS,
    IDENTICAL,
    MAP_SIZE,
    SAME_COLOUR,
    SAME_EITHER,
    SAME_MOTIF,
)
from envs.uzor.rules import COPIES, EMPTY, FORK, PHASES, STONE, TAKE, TILES, TYPES, UzorGame, geometry, tile_name

# The state keys a seat can see (all but goals and supply) that complete_snapshot requires.
PUBLIC_KEYS = (
    "board", "hands", "market", "faceup", "scores", "closed", "to_move", "phase",
    "repeated", "continued", "placed", "fork", "last_cell", "idle",
)
FACE_SEARCH_BUDGET = 200  # max flows tried before laying stone faces in type order


# ----- the sampler ------------------------------------------------------------------------------

def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], UzorGame]:
    """Decode one seat's observation once (the env's dict or the bare vector; ``options`` as
    given to the env). That seat must be the one to act now, else ValueError. Each call of
    the returned function builds, from the rng given alone, a fresh full state that gives the
    same observation and mask: the opponent's goal and the face-down supply's order drawn
    among the possibilities (see the module docstring). A vector that cannot come from these
    options raises ValueError saying what does not fit."""
    resolved = UzorGame.resolve_options(dict(options))
    observer = UzorObserver(resolved)
    vector = as_vector(observation)
    if vector.shape != (observer.size,):
        raise ValueError(
            f"an Uzor observation for board_size {resolved['board_size']} has {observer.size} entries, "
            f"not shape {vector.shape}"
        )
    mask = None
    if isinstance(observation, dict) and "action_mask" in observation:
        mask = np.asarray(observation["action_mask"])
        if not mask.any():
            raise ValueError("the observation's action mask is empty: this seat is not to act now")
    seen = observer.decode(vector)
    if seen["phase"] == "over":
        raise ValueError("the observation is of a finished game: there is no seat to act")
    if not seen["to_move"]:
        raise ValueError("the observation's seat is not the one to act now (it is the opponent's turn)")
    seat, opp = seen["seat"], 1 - seen["seat"]
    geo = geometry(resolved["board_size"], resolved["patterns"])
    points = geo.map.points

    hands = [None, None]
    hands[seat], hands[opp] = seen["my_hand"], seen["their_hand"]
    scores = [0, 0]
    scores[seat], scores[opp] = seen["my_score"], seen["their_score"]
    board = seen["board"]
    supply_counts = seen["supply_counts"]

    # The supply: face-down places on top, then the face-up discards (they never mix).
    places = seen["supply_faceup"]
    down_places = places.count(None)
    if any(t is not None for t in places[:down_places]):
        raise ValueError("the observation's supply shows a face-up discard above a face-down tile")
    faceup = places[down_places:]
    down_counts = list(supply_counts)
    for t in faceup:
        down_counts[t] -= 1
    if min(down_counts) < 0 or sum(down_counts) != down_places:
        raise ValueError(
            f"the observation's supply contents ({sum(supply_counts)} tiles) do not match its "
            f"{down_places} face-down places and face-up discards {[tile_name(t) for t in faceup]}"
        )
    down = [t for t in range(TYPES) for _ in range(down_counts[t])]
    scripted_tiles = resolved["tiles"]
    if scripted_tiles is not None:
        dealt = [m * 5 + c for m, c in scripted_tiles]
        down = dealt[TILES - down_places:]
        if sorted(down) != [t for t in range(TYPES) for _ in range(down_counts[t])]:
            raise ValueError(
                "the observation's face-down supply is not the last tiles of the scripted 'tiles' order"
            )

    # Stones: their contents by elimination, their instances and faces settled once.
    stone_counts = [COPIES] * TYPES
    stone_bb = 0
    for x, v in enumerate(board):
        if v == STONE:
            stone_bb |= 1 << x
        elif v >= 0:
            stone_counts[v] -= 1
    for t in hands[0] + hands[1] + [x for x in seen["market"] if x >= 0]:
        stone_counts[t] -= 1
    for t in range(TYPES):
        stone_counts[t] -= supply_counts[t]
    if min(stone_counts) < 0:
        t = min(range(TYPES), key=lambda i: stone_counts[i])
        raise ValueError(
            f"the observation shows {COPIES - stone_counts[t]} tiles {tile_name(t)} outside the stones; "
            f"there are only {COPIES}"
        )
    if sum(stone_counts) != bin(stone_bb).count("1"):
        raise ValueError(
            f"the observation has {bin(stone_bb).count('1')} stones but {sum(stone_counts)} tiles unaccounted "
            "for by table, hands, market and supply"
        )
    crossed = seen["crossed"]
    cover = stone_cover(geo.map, stone_bb, crossed)
    if cover is None:
        raise ValueError(
            f"the observation's stones cannot be split into one instance of each crossed-out pattern {crossed}"
        )
    faces = stone_faces(geo.map, cover, stone_counts)
    full_board = [faces.get(x, v) for x, v in enumerate(board)]

    # The opponent's goal: every pattern that can explain both scores.
    my_goal = seen["my_goal"]
    scripted_goals = resolved["goals"]
    if scripted_goals is not None:
        if scripted_goals[seat] != my_goal:
            raise ValueError(
                f"the observation's goal is pattern {my_goal}; the scripted 'goals' give player_{seat} {scripted_goals[seat]}"
            )
        candidates = [scripted_goals[opp]]
    else:
        candidates = [g for g in range(MAP_SIZE) if g != my_goal]
    closed_by_goal: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
    for g in candidates:
        goals = [0, 0]
        goals[seat], goals[opp] = my_goal, g
        owners = split_closes(points, crossed, goals, scores)
        if owners is not None:
            closed_by_goal[g] = [(owners[k], k, cover[k]) for k in crossed]
    if not closed_by_goal:
        raise ValueError(
            f"no secret goal for player_{opp} and no split of the crossed-out patterns {crossed} gives "
            f"the scores {scores}"
        )
    goal_choices = sorted(closed_by_goal)

    phase = PHASES.index(seen["phase"])
    goals = [0, 0]
    goals[seat], goals[opp] = my_goal, goal_choices[0]
    state = {
        "board": full_board,
        "hands": hands,
        "market": seen["market"],
        "supply": down + faceup,
        "faceup": len(faceup),
        "goals": goals,
        "scores": scores,
        "closed": [[p, k, list(cells)] for p, k, cells in closed_by_goal[goal_choices[0]]],
        "to_move": seat,
        "phase": seen["phase"],
        "repeated": seen["repeated"],
        "continued": seen["continued"],
        "placed": phase in (FORK, TAKE),  # a fork or a take follows a placement; nothing else does
        "fork": [],
        "last_cell": seen["last_cell"],
        "idle": seen["idle"],
    }
    try:
        if phase == FORK:
            # The fork's instances follow from the table: ask a probe in the take phase.
            probe = UzorGame.from_state_dict(resolved, dict(state, phase="take"))
            last = state["last_cell"]
            fork = probe.completions(last, full_board[last]) if 0 <= last and 0 <= full_board[last] < STONE else {}
            if sorted(fork) != seen["fork"]:
                raise ValueError(
                    f"the observation's fork offers patterns {seen['fork']}, but the last placement "
                    f"completes {sorted(fork)}"
                )
            state["fork"] = [[k, list(cells)] for k, cells in sorted(fork.items())]
        base = UzorGame.from_state_dict(resolved, state)
    except SnapshotError as error:
        raise ValueError(f"the observation is not an Uzor position under these options: {error}") from None
    rebuilt = observer.observe(base, seat)
    if not np.array_equal(rebuilt, vector.astype(np.float32, copy=False)):
        raise ValueError(
            f"the observation cannot come from these options: its {_first_difference(observer, rebuilt, vector)} "
            "block is not what the position it describes shows"
        )
    if mask is not None:
        if np.flatnonzero(mask).tolist() != sorted(base.legal_actions()):
            raise ValueError("the observation's action mask is not the legal actions of the position it describes")

    if scripted_tiles is not None or not down:
        down = []  # nothing to shuffle: the face-down order is known (or there is none)
    many_goals = len(goal_choices) > 1

    def sample(rng: random.Random) -> UzorGame:
        game = base.clone()
        if many_goals:
            g = goal_choices[rng.randrange(len(goal_choices))]
            game.goals[opp] = g
            game.closed = closed_by_goal[g][:]
        if down:
            order = down[:]
            rng.shuffle(order)
            game.supply[:len(order)] = order
        return game

    sample.goal_choices = tuple(goal_choices)  # for tests and bots: the possible opponent goals
    return sample


def _first_difference(observer: UzorObserver, a: np.ndarray, b: np.ndarray) -> str:
    """The name of the observer block holding the first entry where ``a`` and ``b`` differ."""
    index = int(np.flatnonzero(a != b)[0])
    blocks = sorted((v, k) for k, v in vars(observer).items() if k.isupper() and isinstance(v, int))
    name = blocks[0][1]
    for start, key in blocks:
        if start <= index:
            name = key
    return name


# ----- what the observation forgets: stone instances, faces and owners --------------------------

def stone_cover(geo_map, stone_bb: int, crossed: list[int]) -> dict[int, tuple[int, ...]] | None:
    """One instance per crossed-out pattern, together covering exactly the stone cells (closed
    instances never overlap, and only closing makes stones), or None if there is none. The
    lowest uncovered stone must be the first cell of some instance: that bounds the search."""
    failed: set[tuple[int, int]] = set()
    chosen: dict[int, tuple[int, ...]] = {}

    def cover(left: int, unused: int) -> bool:
        if not left or not unused:
            return not left and not unused
        if (left, unused) in failed:
            return False
        x = (left & -left).bit_length() - 1
        for mask, members in geo_map.grouped[x]:
            if mask & left != mask:
                continue
            for k, _, cells, _ in members:
                if unused >> k & 1:
                    chosen[k] = cells
                    if cover(left & ~mask, unused & ~(1 << k)):
                        return True
                    del chosen[k]
        failed.add((left, unused))
        return False

    unused = sum(1 << k for k in crossed)
    return dict(chosen) if cover(stone_bb, unused) else None


_MOTIF_TYPES = [tuple(m * 5 + c for c in range(5)) for m in range(5)]
_COLOUR_TYPES = [tuple(m * 5 + c for m in range(5)) for c in range(5)]


def _ways(criterion: int) -> list[tuple[list[tuple[int, ...]], bool]]:
    """The ways an instance can meet ``criterion``: (groups of tile types, whether each group
    gives at most one tile). One motif, one colour, one type, or one tile from each of
    different colours (motifs); "any" and the Ring take any tiles."""
    if criterion == IDENTICAL:
        return [([(t,)], False) for t in range(TYPES)]
    if criterion == SAME_MOTIF:
        return [([g], False) for g in _MOTIF_TYPES]
    if criterion == SAME_COLOUR:
        return [([g], False) for g in _COLOUR_TYPES]
    if criterion == SAME_EITHER:
        return [([g], False) for g in _MOTIF_TYPES + _COLOUR_TYPES]
    if criterion == DIFF_COLOURS:
        return [(_COLOUR_TYPES, True)]
    if criterion == DIFF_MOTIFS:
        return [(_MOTIF_TYPES, True)]
    return [([tuple(range(TYPES))], False)]


def _transport(demands: list[tuple[int, list[tuple[int, ...]], bool]], counts: list[int]) -> list[list[int]] | None:
    """Tiles for each demand ``(need, groups, one per group)`` from ``counts``, or None: a max
    flow source -> demand -> group -> type -> sink (a group's edge carries 1 when it gives one
    tile at most)."""
    graph: dict[int, dict[int, int]] = {}

    def edge(u: int, v: int, capacity: int) -> None:
        graph.setdefault(u, {})[v] = graph.get(u, {}).get(v, 0) + capacity
        graph.setdefault(v, {}).setdefault(u, 0)

    source, sink, type0 = 0, 1, 2
    node = type0 + TYPES
    group_nodes: list[list[int]] = []
    for need, groups, single in demands:
        demand = node
        node += 1
        edge(source, demand, need)
        mine = []
        for group in groups:
            edge(demand, node, 1 if single else need)
            for t in group:
                if counts[t]:
                    edge(node, type0 + t, need)
            mine.append(node)
            node += 1
        group_nodes.append(mine)
    for t in range(TYPES):
        if counts[t]:
            edge(type0 + t, sink, counts[t])
    wanted = sum(need for need, _, _ in demands)
    total = 0
    while total < wanted:
        parent = {source: source}
        stack = [source]
        while stack and sink not in parent:
            u = stack.pop()
            for v, capacity in graph.get(u, {}).items():
                if capacity > 0 and v not in parent:
                    parent[v] = u
                    stack.append(v)
        if sink not in parent:
            return None
        path = []
        v = sink
        while v != source:
            path.append((parent[v], v))
            v = parent[v]
        push = min(graph[u][v] for u, v in path)
        for u, v in path:
            graph[u][v] -= push
            graph[v][u] += push
        total += push
    out = []
    for mine in group_nodes:
        tiles = []
        for g in mine:
            for t in range(TYPES):
                tiles += [t] * graph.get(type0 + t, {}).get(g, 0)  # the reverse edge holds the flow
        out.append(tiles)
    return out


def stone_faces(geo_map, cover: dict[int, tuple[int, ...]], counts: list[int]) -> dict[int, int]:
    """A face (``STONE + type``) for every stone cell, from the stones' contents ``counts``,
    such that each closed instance met its pattern's criterion. The search picks a way (which
    motif, colour or type) per instance, pruned by each group's supply, and asks a max flow
    for the tiles once every instance has one; after FACE_SEARCH_BUDGET flows without success
    the contents are laid in type order on the cells in reading order instead."""
    key = (tuple(sorted(cover.items())), tuple(geo_map.criteria[k] for k in sorted(cover)), tuple(counts))
    found = _FACE_CACHE.get(key)
    if found is not None:
        return found
    def feasible_ways(k: int) -> int:
        need = len(cover[k])
        return sum(1 for groups, single in _ways(geo_map.criteria[k])
                   if sum(1 if single else counts[t] for g in groups for t in g if counts[t]) >= need)

    # fail first: the instances with the fewest ways open (a Triplet's type) choose first
    order = sorted(cover, key=lambda k: (feasible_ways(k), k))
    chosen: list[tuple[int, list[tuple[int, ...]], bool]] = []
    demand: dict[tuple[int, ...], int] = {}  # tiles asked of each one-way group so far
    budget = [FACE_SEARCH_BUDGET]
    tiles: list[list[int]] = []

    def search(i: int) -> bool:
        if i == len(order):
            return True
        k = order[i]
        need = len(cover[k])
        ways = _ways(geo_map.criteria[k])
        # the group with the most tiles not yet asked for first
        ways.sort(key=lambda way: demand.get(way[0][0], 0) - sum(counts[t] for g in way[0] for t in g))
        for groups, single in ways:
            if not single:
                group = groups[0]
                if demand.get(group, 0) + need > sum(counts[t] for t in group):
                    continue
                demand[group] = demand.get(group, 0) + need
            chosen.append((need, groups, single))
            # the instances given a way so far must be able to get their tiles together
            budget[0] -= 1
            found = _transport(chosen, counts)
            if found is not None and search(i + 1):
                if not tiles:
                    tiles.extend(found)
                return True
            chosen.pop()
            if not single:
                demand[groups[0]] -= need
            if budget[0] <= 0:
                return False
        return False

    if search(0):
        faces = {x: STONE + t for k, picked in zip(order, tiles) for x, t in zip(cover[k], picked)}
    else:
        cells = sorted(x for k in cover for x in cover[k])
        types = [t for t in range(TYPES) for _ in range(counts[t])]
        faces = {x: STONE + t for x, t in zip(cells, types)}
    if len(_FACE_CACHE) > 256:
        _FACE_CACHE.clear()
    _FACE_CACHE[key] = faces
    return faces


_FACE_CACHE: dict[Any, dict[int, int]] = {}  # positions of one game share their stones for many moves


def split_closes(points: list[int], crossed: list[int], goals: list[int], scores: list[int]) -> dict[int, int] | None:
    """An owner for each crossed-out pattern such that the recount (a player's own goal
    doubled) gives ``scores``, or None. Points are never negative, so a branch stops as soon
    as a player's remaining score would go below zero."""
    values = [(points[k] * (2 if goals[0] == k else 1), points[k] * (2 if goals[1] == k else 1)) for k in crossed]
    failed: set[tuple[int, int, int]] = set()
    owners: list[int] = []

    def split(i: int, left0: int, left1: int) -> bool:
        if left0 < 0 or left1 < 0:
            return False
        if i == len(values):
            return left0 == 0 and left1 == 0
        if (i, left0, left1) in failed:
            return False
        for p in (0, 1):
            owners.append(p)
            if split(i + 1, left0 - values[i][0] * (p == 0), left1 - values[i][1] * (p == 1)):
                return True
            owners.pop()
        failed.add((i, left0, left1))
        return False

    return dict(zip(crossed, owners)) if split(0, scores[0], scores[1]) else None


# ----- the bot protocol: complete a partial snapshot -------------------------------------------

def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """A complete snapshot from ``partial`` (the engine's format, as ``seat`` sees it), the
    items hidden from ``seat`` that are left out drawn from ``rng`` (see the module docstring
    for which); everything given is kept as it is. SnapshotError names a missing public key,
    or says why the partial snapshot is inconsistent."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")
    partial, options = UzorGame.read_snapshot(partial)
    completed = copy.deepcopy(partial)  # the caller's dict is left as it was
    state = completed["state"]
    for key in PUBLIC_KEYS:
        require(state.get(key) is not None,
                f"snapshot state lacks {key!r}, which player_{seat} can see; only the opponent's goal and "
                "the face-down supply may be left out")
    opp = 1 - seat
    geo = geometry(options["board_size"], options["patterns"])

    goals = state.get("goals")
    require(isinstance(goals, list) and len(goals) == 2,
            f"snapshot state lacks 'goals' (a pair, player_{opp}'s entry may be null): player_{seat}'s own goal is not hidden")
    require(goals[seat] is not None, f"snapshot 'goals' lacks player_{seat}'s own goal, which is not hidden from them")
    if goals[opp] is None:
        goals[opp] = _draw_goal(options, geo.map.points, state, seat, rng)

    faceup = state["faceup"]
    require(isinstance(faceup, int) and not isinstance(faceup, bool) and faceup >= 0,
            f"snapshot field 'faceup' is {faceup!r}; it must be an integer >= 0")
    supply = state.get("supply")
    if supply is None:
        require(faceup == 0, f"snapshot state lacks 'supply' but has {faceup} face-up discards in it, which are "
                "public: give the supply with null for each face-down place")
        supply = []
        unknown_tail = True  # every tile not accounted for is in the supply, face down
    else:
        require(isinstance(supply, list), "snapshot field 'supply' must be a list")
        require(faceup <= len(supply), f"snapshot 'faceup' is {faceup} but the supply holds {len(supply)} places")
        for i, t in enumerate(supply[len(supply) - faceup:]):
            require(t is not None, f"snapshot supply place {len(supply) - faceup + i} is a face-up discard, "
                    "which is public: it may not be null")
        unknown_tail = False
    state["supply"] = _fill_supply(options, geo, state, supply, faceup, unknown_tail, rng)
    UzorGame.from_snapshot(completed)  # validates the whole (SnapshotError says why not)
    return completed


def _tile_counts(state: dict, geo) -> list[int]:
    """Tiles per type on the table (stones by face), in the hands and in the market."""
    board = int_list(state, "board", geo.cells, EMPTY, STONE + TYPES - 1)
    hands = state["hands"]
    require(isinstance(hands, list) and len(hands) == 2, "snapshot field 'hands' must hold two hands")
    tiles = [v % STONE for v in board if v >= 0]
    for p, hand in enumerate(hands):
        require(isinstance(hand, list), f"snapshot hand of player_{p} must be a list")
        tiles += int_list({"hand": hand}, "hand", len(hand), 0, TYPES - 1)
    tiles += [t for t in int_list(state, "market", len(state["market"]) if isinstance(state["market"], list) else -1,
                                  EMPTY, TYPES - 1) if t >= 0]
    counts = [0] * TYPES
    for t in tiles:
        counts[t] += 1
    return counts


def _fill_supply(options, geo, state: dict, supply: list, faceup: int, unknown_tail: bool,
                 rng: random.Random) -> list[int]:
    """The supply with its unknown (null) places filled: leftovers shuffled, or the script's."""
    counts = _tile_counts(state, geo)
    known = [t for t in supply if t is not None]
    int_list({"supply": known}, "supply", len(known), 0, TYPES - 1)
    for t in known:
        counts[t] += 1
    for t in range(TYPES):
        require(counts[t] <= COPIES, f"snapshot holds {counts[t]} tiles {tile_name(t)} across table, hands, market "
                f"and supply; there are exactly {COPIES}")
    left = [t for t in range(TYPES) for _ in range(COPIES - counts[t])]
    if unknown_tail:
        supply = [None] * len(left)
    holes = [i for i, t in enumerate(supply) if t is None]
    require(len(holes) == len(left),
            f"snapshot leaves {len(left)} tiles unaccounted for by table, hands, market and known supply places, "
            f"but has {len(holes)} unknown supply places")
    if options["tiles"] is not None:
        # scripted: the face-down places hold the last tiles of the dealt order, in that order
        dealt = [m * 5 + c for m, c in options["tiles"]]
        down = len(supply) - faceup
        script = dealt[TILES - down:] if down else []
        for i in range(down):
            if supply[i] is not None and supply[i] != script[i]:
                raise SnapshotError(f"snapshot supply place {i} holds {tile_name(supply[i])}, but the scripted "
                                    f"'tiles' put {tile_name(script[i])} there")
        left = [script[i] for i in holes]
    else:
        rng.shuffle(left)
    filled = list(supply)
    for i, t in zip(holes, left):
        filled[i] = t
    return filled


def _draw_goal(options, points: list[int], state: dict, seat: int, rng: random.Random) -> int:
    """The opponent's goal: scripted, or uniform among those that give their recorded score."""
    opp = 1 - seat
    goals = state["goals"]
    if options["goals"] is not None:
        return options["goals"][opp]
    closed, scores = state["closed"], state["scores"]
    require(isinstance(closed, list) and all(isinstance(e, list) and len(e) == 3 for e in closed),
            "snapshot 'closed' entries must be [player, pattern, cells]")
    require(isinstance(scores, list) and len(scores) == 2, "snapshot field 'scores' must hold two scores")
    theirs = [e[1] for e in closed if e[0] == opp]
    require(all(isinstance(k, int) and 0 <= k < MAP_SIZE for k in theirs),
            f"snapshot 'closed' names a pattern outside 0…{MAP_SIZE - 1}")
    base = sum(points[k] for k in theirs)
    choices = [g for g in range(MAP_SIZE) if g != goals[seat]
               and base + (points[g] if g in theirs else 0) == scores[opp]]
    require(choices, f"no secret goal for player_{opp} gives their score {scores[opp]!r} from the patterns "
            f"they closed {theirs}")
    return choices[rng.randrange(len(choices))]


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: the
    opponent's goal and the supply's face-down tiles left out (``null``)."""
    partial = copy.deepcopy(snapshot)
    state = partial["state"]
    state["goals"][1 - seat] = None
    face_down = len(state["supply"]) - state["faceup"]
    state["supply"][:face_down] = [None] * face_down
    return partial
