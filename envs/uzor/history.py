"""The public history an Uzor observation forgets, settled once and without chance.

An observation shows every stone only as "a stone" and the crossed-out patterns without who
closed them. A full state needs more — which cells each closed pattern turned into stones, each
stone's face, each close's owner — though none of it changes what anybody can do or see from
now on. These functions settle it among the possibilities:

* ``stone_cover`` — the stone cells split into one instance per crossed-out pattern (an exact
  cover, searched in reading order);
* ``stone_faces`` — a face for every stone, from the stones' contents (known by elimination),
  such that each instance meets its pattern's criterion: a way per instance (which motif,
  colour or type) chosen by a search pruned with a max flow of tiles to instances; after
  ``FACE_SEARCH_BUDGET`` flows without success the contents are laid in type order instead
  (which the snapshot check does not look at; once in 5,552 positions of greedy-closing 9×9
  games);
* ``split_closes`` — an owner for each crossed-out pattern such that the recount gives both
  scores under given goals.

Nothing here draws anything: hidden items (the opponent's goal, the face-down supply's order)
are drawn by ``envs.uzor.sampling``.
"""

from __future__ import annotations

from typing import Any

from envs.uzor.common import STONE, TYPES
from envs.uzor.patterns import DIFF_COLOURS, DIFF_MOTIFS, IDENTICAL, SAME_COLOUR, SAME_EITHER, SAME_MOTIF

FACE_SEARCH_BUDGET = 200  # max flows tried before laying stone faces in type order
_CACHE_LIMIT = 256  # entries per cache, cleared whole when full


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
    key = (geo_map.key, stone_bb, unused)
    if key in _COVER_CACHE:
        found = _COVER_CACHE[key]
        return None if found is None else dict(found)
    found = dict(chosen) if cover(stone_bb, unused) else None
    _remember(_COVER_CACHE, key, found)
    return None if found is None else dict(found)


def _remember(cache: dict, key, value) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


# Positions of one game share their stones and scores for many moves: the searches above and
# below are pure functions of their arguments, remembered (a compiled Map is named by its key:
# the table size and the Map's text).
_COVER_CACHE: dict[Any, dict | None] = {}
_SPLIT_CACHE: dict[Any, dict | None] = {}


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
    _remember(_FACE_CACHE, key, faces)
    return faces


_FACE_CACHE: dict[Any, dict[int, int]] = {}


def split_closes(points: list[int], crossed: list[int], goals: list[int], scores: list[int]) -> dict[int, int] | None:
    """An owner for each crossed-out pattern such that the recount (a player's own goal
    doubled) gives ``scores``, or None. Points are never negative, so a branch stops as soon
    as a player's remaining score would go below zero."""
    key = (tuple(points), tuple(crossed), tuple(goals), tuple(scores))
    if key in _SPLIT_CACHE:
        found = _SPLIT_CACHE[key]
        return None if found is None else dict(found)
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

    found = dict(zip(crossed, owners)) if split(0, scores[0], scores[1]) else None
    _remember(_SPLIT_CACHE, key, found)
    return None if found is None else dict(found)
