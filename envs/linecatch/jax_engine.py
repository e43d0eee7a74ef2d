"""Linecatch in JAX: the rules of ``envs.linecatch.rules`` over fixed-shape arrays.

Every board of up to 12×12, classic and pro (``envs.make_jax("linecatch", rows=.., cols=..,
pro=..)``). The position is the black squares, the marks, both scores and the seat to move;
the lines are one cell × line incidence table, so a move is a few vector operations and no loop
over squares: the lines the move completes are those whose black count reaches their length.
Equal to the Python engine step for step (``tests/jax/test_linecatch.py``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.core.jax_env import JaxRules, Turn
from envs.linecatch.geometry import NO_MARK, geometry
from envs.linecatch.observer import LinecatchObserver
from envs.linecatch.rules import LinecatchGame


class Position(NamedTuple):
    black: jax.Array      # bool (n,)
    marks: jax.Array      # int8 (n,): the seat that last caught a line across the square, -1 none
    points: jax.Array     # int32 (2,)
    to_move: jax.Array    # int32 ()
    remaining: jax.Array  # int32 (lines,): white squares left on each line (follows from black; kept for speed)


class LinecatchRules(JaxRules):
    python_engine = LinecatchGame

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        geo = self.geo = geometry(options["rows"], options["cols"], options["pro"])
        self.n = geo.size
        incidence = np.zeros((geo.size, len(geo.lines)), np.bool_)
        for line, cells in enumerate(geo.lines):
            incidence[list(cells), line] = True
        self.incidence = jnp.asarray(incidence)
        self.incidence_f = jnp.asarray(incidence, jnp.float32)
        self.length = jnp.asarray(geo.line_length, jnp.int32)
        self.length_f = jnp.asarray(geo.line_length, jnp.float32)
        observer = LinecatchObserver(options)
        self.obs = observer
        blocks = ("BLACK", "MY_MARKS", "THEIR_MARKS", "MY_SCORE", "THEIR_SCORE", "PRO", "CATCH_NOW", "HANDS_OVER")
        starts = [getattr(observer, block) for block in blocks]
        assert starts == sorted(starts) and observer.HANDS_OVER + self.n == observer.size  # concatenated in this order
        self.scale = np.float32(geo.total_points)
        self.square_scale = np.float32(observer.square_scale)

    # ----- the rules --------------------------------------------------------------------------
    def start(self) -> Position:
        return Position(black=jnp.zeros(self.n, jnp.bool_), marks=jnp.full(self.n, NO_MARK, jnp.int8),
                        points=jnp.zeros(2, jnp.int32), to_move=jnp.int32(0), remaining=self.length)

    def turn(self, g: Position) -> Turn:
        return Turn(player=g.to_move, is_chance=jnp.bool_(False), terminated=jnp.all(g.black))

    def legal_mask(self, g: Position) -> jax.Array:
        return ~g.black

    def apply(self, g: Position, action: jax.Array) -> Position:
        """Blacken the square: every line it completes is caught by the mover (its length
        scored, its squares marked); a move that caught nothing passes the turn."""
        through = self.incidence[action]
        remaining = g.remaining - through
        caught = through & (remaining == 0)  # the lines through the square, now all black
        gained = jnp.sum(jnp.where(caught, self.length, 0))
        marked = jnp.dot(self.incidence_f, caught.astype(jnp.float32)) > 0
        player = g.to_move
        return Position(black=g.black | (jnp.arange(self.n) == action),
                        marks=jnp.where(marked, player.astype(jnp.int8), g.marks),
                        points=g.points + jnp.where(jnp.arange(2) == player, gained, 0),
                        to_move=jnp.where(gained > 0, player, 1 - player).astype(jnp.int32), remaining=remaining)

    def scores(self, g: Position) -> jax.Array:
        return g.points.astype(jnp.float32)

    def observe(self, g: Position, player: jax.Array) -> jax.Array:
        """The flat layout of :class:`LinecatchObserver` (its offsets), from ``player``'s side."""
        o = self.obs
        black = g.black.astype(jnp.float32)
        marks = g.marks.astype(jnp.int32)
        # per square, the lengths of its lines with one and with two white squares left
        left = jnp.stack([g.remaining == 1, g.remaining == 2], axis=-1) * self.length_f[:, None]
        prices = jnp.dot(self.incidence_f, left) / self.square_scale * (1.0 - black)[:, None]
        mine = jnp.where(player == 0, g.points[0], g.points[1]).astype(jnp.float32)
        theirs = jnp.where(player == 0, g.points[1], g.points[0]).astype(jnp.float32)
        scores = jnp.stack([mine / self.scale, theirs / self.scale, jnp.float32(self.options["pro"])])
        return jnp.concatenate([black, (marks == player).astype(jnp.float32),
                                ((marks != NO_MARK) & (marks != player)).astype(jnp.float32), scores,
                                prices[:, 0], prices[:, 1]])

    # ----- host-side bridges ------------------------------------------------------------------
    def from_python(self, game: LinecatchGame) -> Position:
        return Position(black=np.asarray(game.black, np.bool_), marks=np.asarray(game.marks, np.int8),
                        points=np.asarray(game.points, np.int32), to_move=np.int32(game.to_move),
                        remaining=np.asarray(game.remaining, np.int32))

    def state_dict(self, g: Position) -> dict[str, Any]:
        return {"black": [int(b) for b in g.black], "marks": [int(m) for m in g.marks],
                "scores": [int(p) for p in g.points], "to_move": int(g.to_move)}


RULES = LinecatchRules
