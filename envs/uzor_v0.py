"""Uzor: lay motif/colour tiles next to matching ones and complete patterns of the Map (PettingZoo AEC).

# Uzor

{pettingzoo_table}

Tiles with a motif (cedar, sun, wave, bird, star) and a colour (crimson, azure, emerald, amber,
ivory), three of each: 75. Players hold hands of five that came through a face-up market of
five, lay a tile next to an open tile it matches by motif or colour, and complete patterns of
the Map: CLOSE one for its points (doubled for the player's secret goal; the pattern is crossed
out, its tiles become stones that match nothing) or CONTINUE for a repeated turn. Then they
take from the market. A player who cannot place discards face up to the bottom of the supply
and takes. The game ends when no tile outside the table fits, or after 20 turns without a
placement. The complete rules, the Map, the encodings and every decision: `docs/uzor.md`.

### Options

`board_size` (odd 9…31, default 21); `patterns` (None = the standard Map, or a Map of 15
patterns as data: see `envs.uzor.patterns`); `tiles` (scripted chance: the order of the 75
tiles as (motif, colour) pairs); `goals` (scripted chance: the secret goals, a pair of
different pattern numbers).

### Observation Space

A dict: `"observation"`, float32 in [0, 1] (`envs.uzor.observer.UzorObserver`: layout and
`decode`): the table (empty / stone / motif / colour per cell), both hands (public: every hand
tile came through the market), the market, the supply's size, contents by elimination and
face-up discards by place, crossed-out patterns, my secret goal, both scores, whose turn, the
phase, repeated / continued flags, the last placed cell, the fork's patterns. Never the
opponent's goal. With `observation_format="planes"`: a `(B, B, 74)` float32 array (the table
and, per hand slot and market slot, where its tile fits and what it would complete; per hand
slot what the opponent and I could complete next once it lies in a cell; then constant
planes; `docs/observations.md`). `"action_mask"`: legal actions of the agent to act,
zeros for the other.

### Action Space

With `N = board_size²`: `s*N + cell` place hand slot `s` at `cell = r*B + c`; `5N + k` close
pattern `k`; `5N + 15` continue; `5N + 16 + m` take market slot `m`; `5N + 21 + s` discard
slot `s` (dead end); `5N + 26` pass. Notation: `place cedar/azure @ h8`, `close Line-4`,
`continue`, `take 3`, `discard 1`, `pass`.

### Rewards

0 until the end; then +1 / −1 by points, 0 each for a draw. `infos[agent]["scores"]` holds the
points. `env.unwrapped.completions(cell, t)` and `acceptance()` expose the engine's pattern and
placement tests.

### Chance

The engine's chance nodes — the two secret goals, the deal of 16 tiles, every refill of the
market from the face-down supply — are resolved by the env from its seeded generator (or by
the `tiles` / `goals` scripts); searches and OpenSpiel see them (`chance_outcomes()`).

### Version History

* v0: Initial release.
* v0, chance made explicit: the secret goals, the deal and every draw from the face-down supply
  are chance nodes of the engine (the supply keeps counts, no order), resolved by the env from
  its seeded generator. The spaces, observations and rules are unchanged; the trajectory of a
  given seed is not the one it was.
"""

from envs.core import GameDescription, GameFacts, module_docstring, public_envs, TestOptions
from envs.uzor.observer import UzorObserver
from envs.uzor.rules import UzorGame

GAME = GameDescription.built_in(
    "uzor", version=0, shipped=True, engine=UzorGame, observer=UzorObserver,
    facts=GameFacts("Uzor", min_players=2, max_players=2, chance="explicit", information="imperfect"),
    test_options=TestOptions(quick={"board_size": 9}),
    extra_methods=("completions", "acceptance"),
    benchmark_options={"default 21x21": {}, "15x15": {"board_size": 15}},
    jax="envs.uzor.jax_engine",
)


raw_env, env = public_envs(GAME)

__doc__ = module_docstring(__doc__, raw_env, actions="5*board_size*board_size + 27")

__all__ = ["GAME", "env", "raw_env"]
