"""Linecatch: two players blacken squares of a grid and score the lines they complete.

{pettingzoo_table}

Two players take turns blackening white squares of a grid. Whoever blackens the last white
square of a line (a row, a column, and in pro mode a diagonal of at least 3 squares) catches
it and scores its length, then must blacken another square while white squares remain. When
every square is black, more points wins. Perfect information, no chance. The whole
specification is `docs/linecatch.md`.

### Options

`rows`, `cols` (3…12, default 5 and 5), `pro` (default False; True: diagonals of 3 or more
squares in both directions are lines too). The env also takes `render_mode` ("ansi",
"rgb_array"), `viewer` and `observation_format` ("flat" or "planes").

### Observation Space

A dict: `"observation"`, a float32 vector in [0, 1] from the observer's side: black squares,
squares last caught by me, squares last caught by the opponent (each `rows*cols`, in action
order), my score and the opponent's divided by the most points a board holds, pro mode, then
per square the points blackening it would catch now and the points it would hand over.
`envs.linecatch.observer.LinecatchObserver.decode` turns the vector back into named fields.
With `observation_format="planes"` the same facts as a `(rows, cols, 8)` array (five
per-square channels, then my score, their score and pro mode as constant planes).
`"action_mask"`: 1 for each white square of the player to move, zeros for the other player.

### Action Space

Action `r*cols + c` blackens row `r`, column `c` (row 0 at the top). Notation: column letter
then row number from 1 (`a1` is action 0, `c2` is `1*cols + 2`).

### Rewards

0 until the end; then +1 for more points, -1 for fewer, 0 each for a draw. `infos[agent]
["scores"]` always holds both players' points (float32, `player_0` first).

### Version History

* v0: Initial release.
* v0 (same trajectories): the catch-now and hands-over entries are whole points divided once
  by their scale (before: a sum of divided prices), so some of them differ in the last bit;
  `observation_format="planes"`; snapshots are checked against what a game can leave behind.
"""

from envs.core import Gallery, GameDescription, GameFacts, module_docstring, public_envs, TestOptions
from envs.linecatch.observer import LinecatchObserver
from envs.linecatch.rules import LinecatchGame

GAME = GameDescription.built_in(
    "linecatch", version=0, shipped=True, engine=LinecatchGame, observer=LinecatchObserver,
    facts=GameFacts("Linecatch", min_players=2, max_players=2, chance="deterministic", information="perfect"),
    test_options=TestOptions(quick={"rows": 3, "cols": 4}, search={"rows": 4, "cols": 4},
                             more=({"rows": 4, "cols": 5, "pro": True},), page={}),
    gallery=Gallery(share=0.72, web_move=6),
    benchmark_options={"5x5": {}, "5x5 pro": {"pro": True}, "9x9": {"rows": 9, "cols": 9}},
    sampling={"keeps_seat": False}, jax="envs.linecatch.jax_engine",
)


raw_env, env = public_envs(GAME)

__doc__ = module_docstring(__doc__, raw_env, actions="rows*cols", observation="(5*rows*cols + 3,), or (rows, cols, 8) as planes")

__all__ = ["GAME", "env", "raw_env"]
