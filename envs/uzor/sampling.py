"""Full Uzor states from one seat's view, for search bots and the bot protocol.

A seat sees everything but the opponent's secret goal: both hands came through the face-up
market, the supply's contents follow by elimination, its face-up discards lie where the
observation shows them, and the order of its face-down tiles is not part of any state (each
draw is a chance node). :func:`read_position` is the one route from an observation to a full
state: it reads the observation through the core's :func:`~envs.core.sampling.read_observation`
(options, shape, range, mask), settles the public history the observation forgets
(``envs.uzor.history``: stone instances, faces and owners), builds the position through the
engine's own ``from_state_dict`` (which validates it) and checks with
:func:`~envs.core.sampling.check_reproduces` that it shows the seat exactly the observation and
mask it was given. Drawing what the seat cannot see is separate: :func:`draw_goal` draws the
opponent's goal uniformly among the patterns that can still be it — not my goal, and able to
explain both scores (a goal closed by its owner counts double, so a score can rule goals out).
The observation does not say who closed which pattern, so "able to explain" means that some
split of the crossed-out patterns between the players gives both scores; the owners are then
the first such split under the drawn goal. (How likely each goal made the opponent's play is
not weighed: no model of the opponent here.) With scripted ``goals`` it is the scripted one.

``sampler(observation, options)`` reads the position once and returns ``draw(rng)``: a clone
with the opponent's goal drawn from ``rng`` alone.

``complete_snapshot(partial, seat, rng)`` fills a snapshot in the engine's format
(``UzorGame.snapshot()``) from ``seat``'s point of view: in ``partial["state"]["goals"]`` (the
goals dealt so far, player_0's first) the opponent's entry may be ``null``; it is drawn as
``draw_goal`` draws it, except that the snapshot names who closed what, so only a goal that
gives the opponent exactly their score can be drawn. Every other key of the state is public:
missing or ``null`` it is a ``SnapshotError`` naming it. ``strip_hidden`` writes that form.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any, Callable

from envs.core.game import SnapshotError, require, short_repr
from envs.core.sampling import SeatView, check_reproduces, read_observation
from envs.uzor.common import COPIES, FORK, PHASES, STONE, TAKE, TYPES, tile_name
from envs.uzor.history import split_closes, stone_cover, stone_faces
from envs.uzor.observer import UzorObserver
from envs.uzor.patterns import MAP_SIZE
from envs.uzor.rules import UzorGame, geometry

# The state keys a seat can see (all but goals) that complete_snapshot requires.
PUBLIC_KEYS = (
    "board", "hands", "market", "facedown", "discards", "scores", "closed", "to_move", "phase",
    "repeated", "continued", "placed", "fork", "last_cell", "idle", "pending",
)


@dataclass(frozen=True)
class SeatPosition:
    """What one seat's observation fixes, read and checked (:func:`read_position`).

    ``state`` is a full position showing the seat its observation, the opponent's goal the
    first of ``goal_choices`` (the goals the scores allow); ``closed_by_goal`` gives the closes
    (with owners) under each possible goal."""

    view: SeatView
    seat: int
    state: UzorGame
    goal_choices: tuple[int, ...]
    closed_by_goal: dict[int, list]


def read_position(observation, options: dict[str, Any]) -> SeatPosition:
    """The one route from an observation (the env's dict or the bare vector, of the seat to
    act) to a full position; a ``ValueError`` says what does not fit (other options, a
    finished game, the other seat's turn, a vector no position shows)."""
    view = read_observation(UzorGame, UzorObserver, observation, options)
    resolved, seen = view.options, view.fields
    if seen["phase"] == "over":
        raise ValueError("the observation is of a finished game: there is no seat to act")
    if not seen["to_move"]:
        raise ValueError("the observation's seat is not the one to act now (it is the opponent's turn)")
    seat, opp = seen["seat"], 1 - seen["seat"]
    geo = geometry(resolved["board_size"], resolved["patterns"])
    hands = [None, None]
    hands[seat], hands[opp] = seen["my_hand"], seen["their_hand"]
    scores = [0, 0]
    scores[seat], scores[opp] = seen["my_score"], seen["their_score"]
    down_counts, faceup = _read_supply(seen)
    full_board, cover = _read_stones(seen, geo, hands)
    closed_by_goal = _goal_choices(seen, resolved, geo, cover, scores)
    goal_choices = tuple(sorted(closed_by_goal))

    phase = PHASES.index(seen["phase"])
    goals = [0, 0]
    goals[seat], goals[opp] = seen["my_goal"], goal_choices[0]
    state = {
        "board": full_board,
        "hands": hands,
        "market": seen["market"],
        "facedown": down_counts,
        "discards": faceup,
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
        "pending": -1,
    }
    try:
        if phase == FORK:
            state["fork"] = _fork_instances(seen, resolved, state)
        base = UzorGame.from_state_dict(resolved, state)
    except SnapshotError as error:
        raise ValueError(f"the observation is not an Uzor position under these options: {error}") from None
    check_reproduces(view, base, seat)
    return SeatPosition(view, seat, base, goal_choices, closed_by_goal)


def _read_supply(seen: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The supply: face-down places on top, then the face-up discards (they never mix); the
    face-down tiles' counts by type, and the discards."""
    supply_counts = seen["supply_counts"]
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
    return down_counts, faceup


def _read_stones(seen: dict[str, Any], geo, hands: list) -> tuple[list[int], dict]:
    """Stones: their contents by elimination, their instances and faces settled once; the
    board with the stones' faces, and the crossed-out patterns' instances."""
    board = seen["board"]
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
        stone_counts[t] -= seen["supply_counts"][t]
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
    full_board = list(board)
    for x, face in faces.items():
        full_board[x] = face
    return full_board, cover


def _goal_choices(seen: dict[str, Any], resolved: dict[str, Any], geo, cover: dict,
                  scores: list[int]) -> dict[int, list[tuple[int, int, tuple[int, ...]]]]:
    """The opponent's goal: every pattern that can explain both scores, each with the split
    of the crossed-out patterns between the seats it implies."""
    seat, opp = seen["seat"], 1 - seen["seat"]
    crossed = seen["crossed"]
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
    splits: dict[Any, list | None] = {}  # a goal not crossed out changes no close's value: one split for all
    for g in candidates:
        key = g if g in crossed else "uncrossed"
        if key not in splits:
            goals = [0, 0]
            goals[seat], goals[opp] = my_goal, g
            owners = split_closes(geo.map.points, crossed, goals, scores)
            splits[key] = None if owners is None else [(owners[k], k, cover[k]) for k in crossed]
        if splits[key] is not None:
            closed_by_goal[g] = list(splits[key])
    if not closed_by_goal:
        raise ValueError(
            f"no secret goal for player_{opp} and no split of the crossed-out patterns {crossed} gives "
            f"the scores {scores}"
        )
    return closed_by_goal


def _fork_instances(seen: dict[str, Any], resolved: dict[str, Any], state: dict[str, Any]) -> list:
    """The fork's instances follow from the table: ask a probe in the take phase."""
    probe = UzorGame.from_state_dict(resolved, dict(state, phase="take"))
    last = state["last_cell"]
    full_board = state["board"]
    fork = probe.completions(last, full_board[last]) if 0 <= last and 0 <= full_board[last] < STONE else {}
    if sorted(fork) != seen["fork"]:
        raise ValueError(
            f"the observation's fork offers patterns {seen['fork']}, but the last placement "
            f"completes {sorted(fork)}"
        )
    return [[k, list(cells)] for k, cells in sorted(fork.items())]


# ----- drawing what the seat cannot see -----------------------------------------------------------

def draw_goal(position: SeatPosition, game: UzorGame, rng: random.Random) -> None:
    """The opponent's goal in ``game`` (a clone of ``position.state``): uniform among the
    goals the scores allow, with the owners of the closes that go with it."""
    choices = position.goal_choices
    if len(choices) > 1:
        g = choices[rng.randrange(len(choices))]
        game.goals[1 - position.seat] = g
        game.closed = position.closed_by_goal[g][:]


def sampler(observation, options: dict[str, Any]) -> Callable[[random.Random], UzorGame]:
    """Read one seat's observation once (the env's dict or the bare vector; ``options`` as
    given to the env; the seat must be the one to act, else ValueError). Each call of the
    returned function builds, from the rng given alone, a fresh full state that gives the
    same observation and mask: the opponent's goal drawn among the possibilities (see the
    module docstring); the supply's face-down order is no part of it (each draw is a chance
    node)."""
    position = read_position(observation, options)

    def sample(rng: random.Random) -> UzorGame:
        game = position.state.clone()
        draw_goal(position, game, rng)
        return game

    sample.goal_choices = position.goal_choices  # for tests and bots: the possible opponent goals
    return sample


# ----- the bot protocol: complete a partial snapshot -------------------------------------------

def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """A complete snapshot from ``partial`` (the engine's format, as ``seat`` sees it), the
    opponent's goal drawn from ``rng`` if it is left out (see the module docstring);
    everything given is kept as it is. SnapshotError names a missing public key, or says why
    the partial snapshot is inconsistent."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")
    partial, options = UzorGame.read_snapshot(partial)
    completed = copy.deepcopy(partial)  # the caller's dict is left as it was
    state = completed["state"]
    for key in PUBLIC_KEYS:
        require(state.get(key) is not None,
                f"snapshot state lacks {key!r}, which player_{seat} can see; only the opponent's goal may be left out")
    opp = 1 - seat
    goals = state.get("goals")
    require(isinstance(goals, list) and len(goals) <= 2,
            f"snapshot state lacks 'goals' (those dealt so far, player_{opp}'s entry may be null)")
    require(seat >= len(goals) or goals[seat] is not None,
            f"snapshot 'goals' lacks player_{seat}'s own goal, which is not hidden from them")
    if opp < len(goals) and goals[opp] is None:
        geo = geometry(options["board_size"], options["patterns"])
        goals[opp] = _draw_goal(options, geo.map.points, state, seat, rng)
    UzorGame.from_snapshot(completed)  # validates the whole (SnapshotError says why not)
    return completed


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
    require(all(isinstance(k, int) and not isinstance(k, bool) and 0 <= k < MAP_SIZE for k in theirs),
            f"snapshot 'closed' names a pattern outside 0…{MAP_SIZE - 1}")
    mine = goals[seat] if seat < len(goals) else None
    base = sum(points[k] for k in theirs)
    choices = [g for g in range(MAP_SIZE) if g != mine and base + (points[g] if g in theirs else 0) == scores[opp]]
    require(choices, f"no secret goal for player_{opp} gives their score {short_repr(scores[opp])} from the patterns "
            f"they closed {short_repr(theirs)}")
    return choices[rng.randrange(len(choices))]


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: the
    opponent's goal left out (``null``) once it is dealt."""
    partial = copy.deepcopy(snapshot)
    goals = partial["state"]["goals"]
    if 1 - seat < len(goals):
        goals[1 - seat] = None
    return partial
