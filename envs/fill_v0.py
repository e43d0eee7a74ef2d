"""Fill: fill cells in turns without three in a row or a solid 2×2; whoever cannot fill loses.

{pettingzoo_table}

Players take turns filling empty cells; filled cells belong to nobody. A fill must touch a
filled cell (8 neighbours), must not make three in a row (across or down; diagonals too with
`lines="strict"`; never with `lines="off"`) and must not complete a solid 2×2 block. Whoever
has no legal cell at the start of their turn loses; there are no draws. `player_0` seeds any
cell, `player_1` then chooses STAY (moves next) or SWAP (the seeder moves next). Optional
traps (hidden: a trapped cell cancels the opponent's fill and the rest of their turn), rocks,
gems (Double, Pass, Trap tokens) and chess clocks. Rocks and gems are chance nodes of the
engine, which the env resolves from its seeded generator. The whole specification is
`docs/fill.md`.

### Options

`size` (6, 7, 8; default 6), `lines` (`"orthogonal"`, `"strict"`, `"off"`), `traps`, `rocks`,
`gems`, `time_limit` (all default False), `clocked` (agents with a clock, default all), `clock`
(time source, default `time.monotonic`), `rock_cells`, `gem_cells` (scripted chance).
`raw_env`/`env` also take `render_mode`, `observation_format` (`"flat"`, `"planes"`) and
`viewer` (render only: `None` spectator, `"player_0"`, `"player_1"` or `"all"`: whose traps
the pictures show).

### Observation Space

A dict: `"observation"`, a float32 vector in [0, 1] from the observer's seat: planes of
`size*size` for filled, rocks, empty, three gem kinds, legal cells, poisoned cells, the last
sprung trap and my live trap; then whose turn, my phase (only while I act), seeder, the choice,
both players' tokens, who owned the last sprung trap, my trap stock and recharge, the result,
the clocks and the rule switches. Never the opponent's traps or phase.
`envs.fill.observer.FillObserver.decode` gives named fields; `observation_format="planes"`
gives the same as a `(size, size, 58)` array (`docs/observations.md`). `"action_mask"`: the
legal actions of the agent to act (a trapped cell stays legal), zeros for the other agent.

### Action Space

`0 … size²−1` the cell `r*size + c` (seed, trap or fill by phase), then STAY, SWAP, NO_TOKEN,
USE_DOUBLE, USE_PASS, USE_TRAP, NO_TRAP. Notation: `c4`, `trap c4`, `stay`, `swap`,
`no-token`, `double`, `pass`, `trap-token`, `no-trap`.

### Rewards

0 until the end; then +1 for the winner and −1 for the loser. `infos[agent]["scores"]` is 1
for the winner, 0 otherwise (0 for both until the end), a float32 array in seat order.

### Version History

* v0: Initial release.
* v0, snapshot version 2: rocks (at the start) and gems (right after the seed) are chance
  nodes of the engine, which the env resolves from its seeded generator, so a given
  `reset(seed=…)` now places other rocks and gems than before; snapshots hold no random
  generator any more (future chance is never part of the state), and `rock_cells` scripts are
  placed in their own order.
"""

from envs.core import Gallery, GameDescription, GameFacts, SuiteEnv, TestOptions, module_docstring, wrapped_factory
from envs.fill.observer import FillObserver
from envs.fill.rules import FillGame

GAME = GameDescription.built_in(
    "fill", version=0, shipped=True, engine=FillGame, observer=FillObserver,
    facts=GameFacts("Fill", min_players=2, max_players=2, chance="explicit", information="imperfect"),
    test_options=TestOptions(search={"traps": True, "rocks": True, "gems": True},
                             more=({"size": 7, "lines": "strict"},)),
    gallery=Gallery(options={"traps": True, "rocks": True, "gems": True}, web_move=5),
    extra_methods=("time_left_now", "can_still_be_filled", "legal_cells", "poisoned_cells"),
    jax="envs.fill.jax_engine",
    benchmark_options={
        "default": {},
        "strict": {"lines": "strict"},
        "off": {"lines": "off"},
        "traps": {"traps": True},
        "rocks": {"rocks": True},
        "gems": {"gems": True},
        "traps+rocks+gems": {"traps": True, "rocks": True, "gems": True},
        "size7": {"size": 7},
        "size8": {"size": 8},
        "size8 strict traps+rocks+gems": {"size": 8, "lines": "strict", "traps": True, "rocks": True, "gems": True},
        "size8 off gems": {"size": 8, "lines": "off", "gems": True},
        "time_limit": {"time_limit": True},
    },
)


class raw_env(SuiteEnv, game=GAME):
    """The unwrapped fill_v0 AEC environment (raises ValueError on illegal actions).

    ``viewer`` (render only) chooses whose traps the pictures show; ``restore`` keeps this
    env's ``clock``: a snapshot does not carry the time source.
    """


env = wrapped_factory(raw_env)

__doc__ = module_docstring(__doc__, raw_env, actions="size*size + 7",
                           observation="(10*size*size + 30 + 8*slots,) with slots = 3 unless a long gem script "
                                       "needs more, or (size, size, 58) as planes")

__all__ = ["GAME", "env", "raw_env"]
