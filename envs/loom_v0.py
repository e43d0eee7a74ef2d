"""Loom: two weavers draft dice-thrown dyed threads into their own 4×4 cloths (PettingZoo AEC).

# Loom

{pettingzoo_table}

Two weavers, a 4×4 cloth each. Every round two dyed threads (dice 1…6) are thrown; the
drafter weaves one into their own cloth and the rival weaves the leftover into theirs. Sixteen
rounds, the draft alternates (`player_0` drafts rounds 0, 2, …). No dye may touch the same dye
edge to edge unless the cloth has no other room for it. Each row and column scores the sum of
its distinct dyes, plus `bounty` when it finishes with four different dyes.

### Options

`bounty` (0…100, default 8); `throws` (default None: dice from the seeded generator; or a list
of 16 pairs `(a, b)` of dyes 1…6, used in order). The full specification is `docs/loom.md`.

### Observation Space

A dict: `"observation"`, a float32 vector of 354 entries in [0, 1] (see
`envs.loom.observer.LoomObserver` for the layout and `decode`): both cloths (mine first), the
current throw and which threads are still available, the round, whether I draft, both scores,
the bounty, and the price rings (what each thread would gain in each cell of either cloth)
with where the touching law lets each thread go in the opponent's cloth. Future throws are
never shown. With `observation_format="planes"`: a `(4, 4, 44)` float32 array (both cloths on
the grid, per-cell prices, touching law and legal weaves, then constant planes; see
`docs/observations.md`). `"action_mask"`: the legal weaves of the player to act, zeros for the
other player.

### Action Space

`t*16 + cell` puts thread `t` (0 = lower dye, 1 = higher) into `cell = row*4 + col` of the
actor's own cloth. With equal dyes the drafter uses `t = 0` and the rival `t = 1`. Notation:
`5@b3` (dye 5 into column b, row 3).

### Rewards

0 until the cloths are full; then +1 / −1 by points, 0 each for a draw. `infos[agent]
["scores"]` holds both players' points at every step. `env.unwrapped.gain(player, cell, dye)`
prices a weave.

### Chance

Each round opens with a chance node in the engine (`env.unwrapped.game`): the throw, one of 21
outcomes (sorted pairs, 1/36 a double, 2/36 any other pair; `envs.loom.throws`). The env plays
it from its seeded generator (or the scripted `throws`), so agents never see it.

### Version History

* v0: Initial release.
* v0 (chance nodes): each round's throw is a chance node drawn when the round opens, instead of
  all 16 throws drawn at reset; the trajectory of a given `reset(seed)` changed. Snapshots hold
  the throws so far only.
* v0 (JAX): `envs.make_jax("loom", bounty=…, throws=…)` is the same game in JAX with Pgx's API
  (`envs.loom.jax_engine`, `docs/jax.md`), equal to the Python engine step for step, every
  option included.
"""

from envs.core import Gallery, GameDescription, GameFacts, module_docstring, public_envs, TestOptions
from envs.loom.observer import LoomObserver
from envs.loom.rules import LoomGame

GAME = GameDescription.built_in(
    "loom", version=0, shipped=True, engine=LoomGame, observer=LoomObserver,
    facts=GameFacts("Loom", min_players=2, max_players=2, chance="explicit", information="perfect"),
    test_options=TestOptions(more=({"bounty": 0},)),
    gallery=Gallery(share=0.55, web_move=9),
    extra_methods=("gain",),
    jax="envs.loom.jax_engine",
)


raw_env, env = public_envs(GAME)

__doc__ = module_docstring(__doc__, raw_env)

__all__ = ["GAME", "env", "raw_env"]
