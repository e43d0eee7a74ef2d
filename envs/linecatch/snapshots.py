"""Reading a Linecatch snapshot's state: each field checked by name, then the position checked
against what a game could have left behind.

A snapshot's state holds ``black`` (1 per black square), ``marks`` (per square: the seat that
last caught a line across it, −1 for none), ``scores`` (both seats' points) and ``to_move``.
Every check here is a necessary condition on a position some game reaches, so a real position
is never refused; what passes is a position the engine plays on consistently (the future
depends only on the black squares and who is to move):

* a square is marked exactly when a caught (all-black) line crosses it, and the scores add up
  to the caught lines' lengths;
* some order of the catches explains the marks: each mark is the catcher of the latest caught
  line across its square (checked exactly, by peeling lines off from the latest);
* the scores split the caught lines between the seats: a line with a square no other caught
  line crosses was caught by that square's mark; the other lines' lengths must make up the
  rest of each seat's points, and a seat with a mark caught something;
* when no two caught lines share a square, every catch was its own move and every other move
  passed the turn, so ``to_move`` is fixed by the number of moves (the empty board: player_0).
"""

from __future__ import annotations

from typing import Any

from envs.core.game import SnapshotError, int_field, int_list, require
from envs.core.notation import cell_name
from envs.linecatch.geometry import NO_MARK, Geometry

STATE_FIELDS = ("black", "marks", "scores", "to_move")


def read_state(geo: Geometry, state: dict[str, Any]) -> tuple[list[int], list[int], list[int], int]:
    """``black, marks, points, to_move`` of a snapshot's state, checked; else SnapshotError.
    (Its keys, ``STATE_FIELDS``, are checked where every game's are: ``Game.read_snapshot``.)"""
    black = int_list(state, "black", geo.size, 0, 1)
    marks = int_list(state, "marks", geo.size, NO_MARK, 1)
    points = int_list(state, "scores", 2, 0, geo.total_points)
    to_move = int_field(state, "to_move", 0, 1)
    check_position(geo, black, marks, points, to_move)
    return black, marks, points, to_move


def _square(geo: Geometry, cell: int) -> str:
    return cell_name(*divmod(cell, geo.cols))


def check_position(geo: Geometry, black: list[int], marks: list[int], points: list[int], to_move: int) -> None:
    caught = [line for line, cells in enumerate(geo.lines) if all(black[c] for c in cells)]
    crossing = [0] * geo.size  # caught lines across each square
    for line in caught:
        for cell in geo.lines[line]:
            crossing[cell] += 1
    require(
        sum(points) == sum(geo.line_length[line] for line in caught),
        f"snapshot field 'scores' {points} does not add up to {sum(geo.line_length[line] for line in caught)}, "
        "the lengths of the caught (all-black) lines",
    )
    for cell in range(geo.size):
        if (crossing[cell] > 0) != (marks[cell] != NO_MARK):
            raise SnapshotError(
                f"snapshot field 'marks': square {_square(geo, cell)} is "
                f"{'unmarked' if crossing[cell] else 'marked'}, but a square is marked exactly when a caught line crosses it"
            )
    _check_order_of_catches(geo, caught, marks)
    _check_scores_split(geo, caught, crossing, marks, points)
    _check_turn(geo, caught, crossing, black, to_move)


def _check_order_of_catches(geo: Geometry, caught: list[int], marks: list[int]) -> None:
    """Peels caught lines off from the latest catch: a line can be the latest of those left
    when its squares not yet explained by a later line all carry one mark (its catcher's).
    Peeling a line only frees squares, so if any order explains the marks this finds one."""
    explained = [False] * geo.size
    left = list(caught)
    while left:
        keep = []
        for line in left:
            if len({marks[c] for c in geo.lines[line] if not explained[c]}) > 1:
                keep.append(line)
        if len(keep) == len(left):
            cells = geo.lines[keep[0]]
            raise SnapshotError(
                f"snapshot field 'marks': no order of catches explains them (the line "
                f"{_square(geo, cells[0])}–{_square(geo, cells[-1])} carries marks of both seats that no later catch explains)"
            )
        stuck = set(keep)
        for line in left:
            if line not in stuck:
                for cell in geo.lines[line]:
                    explained[cell] = True
        left = keep


def _check_scores_split(geo: Geometry, caught: list[int], crossing: list[int], marks: list[int],
                        points: list[int]) -> None:
    forced = [0, 0]
    free_lengths = []
    for line in caught:
        own = {marks[c] for c in geo.lines[line] if crossing[c] == 1}  # squares only this line crosses
        if own:
            forced[own.pop()] += geo.line_length[line]  # one mark: the order check saw to that
        else:
            free_lengths.append(geo.line_length[line])
    sums = 1  # bit s set: the free lines can make s points
    for length in free_lengths:
        sums |= sums << length
    need = points[0] - forced[0]
    require(
        need >= 0 and points[1] >= forced[1] and (sums >> need) & 1,
        f"snapshot field 'scores' {points} cannot be split from the caught lines: the lines only one seat "
        f"can have caught give player_0 {forced[0]} and player_1 {forced[1]} points, and the others' lengths "
        f"{sorted(free_lengths)} cannot make up the rest",
    )
    for seat in (0, 1):
        require(
            points[seat] > 0 or seat not in marks,
            f"snapshot field 'scores': player_{seat} has no points, yet field 'marks' shows a line they caught",
        )


def _check_turn(geo: Geometry, caught: list[int], crossing: list[int], black: list[int], to_move: int) -> None:
    if any(count > 1 for count in crossing):
        return  # two catches may have been one move: the number of turn changes is open
    moves = sum(black)
    passes = moves - len(caught)  # each catch its own move; every other move passed the turn
    expected = passes % 2
    require(
        to_move == expected,
        f"snapshot field 'to_move' is {to_move}, but after {moves} moves of which {len(caught)} caught a line "
        f"(no two caught lines share a square, so each catch was one move and every other move passed the turn) "
        f"player_{expected} is to move",
    )
