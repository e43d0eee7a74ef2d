"""Knot: 2–4 players lay strands into ribbons woven as a Celtic knot; close yours to score, grow into another's end to capture it (PettingZoo AEC).

# Knot

{pettingzoo_table}

Players place strands (Cut, Run, Hook, Flip) in the squares of a board; strands join end to
end into ribbons; a ribbon whose two ends meet is closed and scores one point per crossing
inside the board it passes. Growing your ribbon into another player's open end captures their
whole ribbon. A turn places 1, 2, 2, then 3 strands (turns counted over all players), then
draws back up to 5 from two face-up market slots or the blind pile. The game ends when, at the
start of a turn, nobody can place; the longest closed ribbon earns 5 more.

### Options

`players` (2–4, default 2); `size` (4…10; default 6 for 2 players, 8 for 3–4); `deck` (a list
`[Cut, Run, Hook, Flip]` of totals; default 12, 9, 9, 6 per player); `pile` (scripted chance:
the exact pile order, top first, kinds as 0–3 or names; replaces `deck`).

### Chance

The deal and every draw from the pile are chance nodes of the engine (outcome = the kind
drawn, probability = its share of the pile, or the scripted `pile`'s next strand); the env
resolves them itself, so agents never see them.

### Observation Space

A dict: `"observation"`, a float32 vector in [0, 1] relative to the observer (observer first,
then the others in turn order): per square the strands (kind, turn, owner), which are in closed
ribbons, blocked crossings, open ends and whose, my growable ends; then my hand, the market,
the pile size, scores, hand sizes, the strands each opponent took face up and still holds, the
turn, the placing limit, my placements this turn, the phase, who acts and who has placed.
Other hands and the pile order never appear. `envs.knot.observer.KnotObserver.decode` names
the fields. `"action_mask"`: the legal actions of the player to act, zeros for the others.

### Action Space

With `S = size*size`: `(4*kind + turn)*S + square` places a strand (kind 0 Cut, 1 Run, 2 Hook,
3 Flip); `16*S` ENDs placing; `16*S+1`, `16*S+2` draw market slot 0, 1; `16*S+3` draws blind.
Notation: `cut/ne@c4`, `run/n@c4`, `hook/ne@c4` (open corner), `flip/w@c4`, `end`, `draw 0`,
`draw 1`, `draw pile`.

### Rewards

0 until the end; then +1 for the sole winner, −1 for every player who is not a winner, 0 for
each player tied for first. `infos[agent]["scores"]` holds every player's points (banked points
during the game, plus the longest-ribbon bonus at the end).

### Version History

* v0: Initial release.
* v0, chance nodes: the pile is no longer shuffled up front; every strand that leaves it (the
  deal, a market refill, a blind draw) is a chance node the env resolves from its seeded
  generator, so the game a given seed plays changed. Snapshots (version 2) hold the pile's
  counts per kind and the draw waiting for the pile, never an order.
"""

from envs.core import GameDescription, GameFacts, module_docstring, public_envs, TestOptions
from envs.knot.observer import KnotObserver
from envs.knot.rules import KnotGame

GAME = GameDescription.built_in(
    "knot", version=0, shipped=True, engine=KnotGame, observer=KnotObserver,
    facts=GameFacts("Knot", min_players=2, max_players=4, chance="explicit", information="imperfect"),
    test_options=TestOptions(quick={"size": 4}, search={"players": 3, "size": 4},
                             more=({"players": 4, "size": 5},), page={"size": 4, "deck": [6, 5, 6, 3]}),
    extra_methods=("ribbons", "strands", "placements", "bonus_owner"),
    jax="envs.knot.jax_engine",
    benchmark_options={"2 players": {"players": 2}, "4 players": {"players": 4}},
)


raw_env, env = public_envs(GAME)

__doc__ = module_docstring(__doc__, raw_env, actions="16*size*size + 4",
                           observation="(S*(24*P + 28) + 8*P + 17,) with S = size*size and P = players, "
                                       "or (size, size, 64 + 12*P) as planes")

__all__ = ["GAME", "env", "raw_env"]
