"""Full Fill states from one seat's point of view, for search bots and the bot protocol.

Hidden from a seat is everything about the opponent's traps: where their live trap is, whether
they set one on their last turn, how many regular traps are ready, when each recharging one is
ready again, and how many extra traps they hold. Everything else a seat sees (board, rocks,
gems, tokens, the last sprung trap, clocks) stays exactly as observed.

The one route from a seat's view to full states: :func:`sampler` reads the observation with
the core's :func:`~envs.core.sampling.read_observation`, rebuilds the public history the
vector does not spell out (:mod:`envs.fill.history`), draws the hidden trap items
(:mod:`envs.fill.hidden`) and checks every rebuilt state with
:func:`~envs.core.sampling.check_reproduces`; :func:`complete_snapshot` does the same for a
snapshot whose hidden entries were left out (:func:`strip_hidden`).

**What is possible.** The opponent's *trap stock* (the two regular traps' turns until ready,
the extra traps, what their last trap phase did) is enumerated by
:func:`envs.fill.hidden.trap_stocks`: every
stock some sequence of their own turns can produce, following the engine's rules (a regular
trap is ready 3 own turns after it is set; an extra trap is used first; one token a turn; a
Trap token can be used from the player's turn 2 on), with at most as many Trap tokens used as
the gems not accounted for by what the seat sees (3 gems per game, or the ``gem_cells``
script's gems of each kind, minus the gems on the board, both players' tokens, the seat's own
extra traps and a Double spent this turn). When the last sprung trap is the opponent's, they
set a trap on an earlier turn. When no trap
ever sprang, every finished turn filled at least one cell unless it was a Pass, so the fills
and the Pass tokens unaccounted for cap the opponent's turn count (stocks that need more turns
are left out).
A live opponent trap exists exactly when their last trap phase set one; it lies on any empty
non-rock cell, or on a filled cell that the fills since their trap phase can have filled (their
own one or two fills, the seat's first fill of a Double): a cell ``x`` such that removing ``x``
and what it alone connects, at most that many cells, leaves a connected board holding the
seed. Such a trap is inert (a filled cell is never filled again), but it is possible, and it
used up a trap. (This test looks at the board only, so it may admit a few filled cells no
history allows, e.g. the seat's own first fill made with 3 or more cells legal; being inert,
they change nothing in play.)

**How it is drawn** (only with the rng given): uniformly among the seat's own possibilities
below, then uniformly among the opponent's possible trap stocks, then, when the stock says a
trap was set, its cell uniformly among the possible cells; then the seed cell.

**Public facts the observation does not record**, for :func:`sampler` (they change nothing in
the seat's observation; the first two change nothing in the rest of the game):

* the seed cell: drawn uniformly among the filled cells no gem touches (gems never appear next
  to the seed; all filled cells when none qualifies, as in puzzle positions);
* both turn counters: as if every finished turn filled one cell (exact when no gem and no
  sprung trap ever changed that), raised to the least count the seat's tokens (their
  collection turn), both trap stocks and the choices below need; token collection turns
  follow from them. Only differences of turn numbers matter to the rules;
* whether the seat used a Double this turn, in its trap or first fill phase (the phase one-hot
  is the same either way): drawn uniformly between no and yes when a Double can have been
  held (gems on, one unaccounted gem left, a fill made before);
* in a second fill, which of the seat's tokens showing a full lifetime (if any) was collected
  by this turn's first fill rather than on the previous turn: drawn uniformly;
* the seat's extra traps beyond 3, which the observation clips (long ``gem_cells`` scripts
  only): drawn uniformly up to what the gems allow.

Only the past is drawn: rocks and gems still to come are chance nodes of the game (the state
holds no generator), so before the seed a sampled state simply reaches the gem chance nodes
after its seed. Clocks (``time_limit``): both players' times are set to the
whole seconds the observation shows (the hidden fraction of a second is taken as 0, so the
state has the most time the display allows), the opponent's view of the seat's clock to the
same value, and the acting clock starts when the state is drawn, on the options' ``clock``.

``sampler`` raises ``ValueError`` when the vector cannot come from a game with these options
(length, rule switches, a board the rules forbid, more gems and tokens than random gems give,
any field a state rebuilt from it does not reproduce) or when the seat is not to act.
Puzzle positions (:mod:`envs.fill.positions`: tokens handed out with gems off, gems placed
outside the ``gem_cells`` script) are accepted, as the engine accepts them: tokens beyond
what the gems allow just leave no unseen token.

``complete_snapshot(partial, seat, rng)`` takes a snapshot in the engine's format in which only
these may be left out; every other field of ``state`` is public and must be given (a missing
one, or ``null`` where ``null`` has no meaning, raises :class:`SnapshotError` naming it):

* ``state["recharge"][opp]``, ``state["extra_traps"][opp]``, ``state["live_trap"][opp]``,
  where ``opp`` is the seat's opponent: ``null`` (the seat's own entries must be given);
  each omitted one is drawn among what the given ones and the public state allow (the
  opponent's turn count is ``state["turns"][opp]``, exactly as given).

Clocks are given (a front end knows both exactly) and kept. Given entries are kept exactly;
the result passes ``FillGame.from_snapshot``. Given opponent items no game can produce with the
rest (e.g. a trap recharging for more than 3 turns, more extra traps than unseen gems), or
more gems and tokens than random gems give, raise :class:`SnapshotError` saying why.
"""


from __future__ import annotations

import copy
import random
from bisect import bisect_right
from typing import Callable

import numpy as np

from envs.core.game import SnapshotError
from envs.core.sampling import check_reproduces, read_observation
from envs.fill.hidden import HiddenTraps, stock_pattern
from envs.fill.history import ObservedPosition
from envs.fill.observer import FillObserver
from envs.fill.rules import FillGame
from envs.fill.snapshots import STATE_KEYS

# ----- sampler --------------------------------------------------------------------------------


def sampler(observation, options: dict) -> Callable[[random.Random], FillGame]:
    """Decode one seat's observation once; each call of the result draws a fresh full state.

    ``observation`` is the env's dict (its mask is checked too) or the bare vector; ``options``
    the env options as given. See the module docstring for what is drawn and how.
    """
    seen = read_observation(FillGame, FillObserver, observation, options, needs_mask=False)
    resolved, fields = seen.options, seen.fields
    seen.observer.check_fits(seen.vector, "a sampler with these options")
    if fields["to_act"] != "me" or fields["phase"] is None:
        raise ValueError("the observation is not of the seat to act now (a sampler needs the seat to act)")
    view = ObservedPosition(resolved, fields)
    prepared, weights = view.prepare()
    for game in {id(g): g for g, _ in prepared}.values():
        check_reproduces(seen, game, view.seat)

    total = sum(weights)
    cumulative = list(np.cumsum(weights))
    opp, seeds, trap_cells, seeds_for = 1 - view.seat, view.seeds, view.trap_cells, view.seeds_for
    timed = resolved["time_limit"]
    count, cells = len(prepared), len(view.trap_cells)

    def sample(rng: random.Random) -> FillGame:
        index = 0 if count == 1 else min(bisect_right(cumulative, rng.random() * total), count - 1)
        template, sets_trap = prepared[index]
        game = template.clone()
        choices = seeds
        if sets_trap:
            cell = trap_cells[rng.randrange(cells)]
            game.live_trap[opp] = cell
            choices = seeds_for.get(cell, seeds)
        game.seed_cell = choices[rng.randrange(len(choices))] if len(choices) > 1 else choices[0]
        if timed:
            game.stint_start = game.clock()
        return game

    sample.view, sample.prepared = view, prepared  # for hidden_possibilities and tests
    return sample


def hidden_possibilities(draw: Callable[[random.Random], FillGame]) -> set[tuple]:
    """Everything a :func:`sampler` result can draw for what the seat does not see: the set of
    ``(opponent's trap pattern, their extra traps, their live trap cell or -1, the seat's
    double flag)``, the pattern as in :func:`stock_pattern` from the opponent's turn count."""
    view = draw.view
    opp = 1 - view.seat
    out = set()
    for game, sets_trap in draw.prepared:
        pattern = stock_pattern(game.recharge[opp], game.turns[opp])
        for cell in (view.trap_cells if sets_trap else [-1]):
            out.add((pattern, game.extra[opp], cell, game.double))
    return out



# ----- complete_snapshot ----------------------------------------------------------------------

HIDDEN_ENTRIES = ("recharge", "extra_traps", "live_trap")  # the opponent's entry may be null


def complete_snapshot(partial: dict, seat: int, rng: random.Random) -> dict:
    """A complete snapshot from ``partial``, with the items hidden from ``seat`` drawn (see the
    module docstring for which keys may be left out)."""
    partial, options = FillGame.read_snapshot(partial)
    if isinstance(seat, bool) or seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")
    state = partial["state"]
    opp = 1 - seat
    for key in STATE_KEYS:
        if key not in state:
            raise SnapshotError(f"snapshot field {key!r} is missing; player_{seat} sees it, so it must be given")
        if state[key] is None and key != "last_sprung":
            raise SnapshotError(f"snapshot field {key!r} is null; player_{seat} sees it, so it must be given")
    omitted = {}
    for key in HIDDEN_ENTRIES:
        value = state[key]
        if not isinstance(value, list) or len(value) != 2:
            raise SnapshotError(f"snapshot field {key!r} must hold one entry per player, not {value!r}")
        if value[seat] is None:
            raise SnapshotError(
                f"snapshot field {key!r} lacks player_{seat}'s own entry, which player_{seat} knows: only the opponent's may be null"
            )
        omitted[key] = value[opp] is None
    completed_state = dict(state)

    # Validate the public part with neutral stand-ins for the omitted items.
    provisional = dict(completed_state)
    opp_in_trap_phase = state["phase"] == "trap" and state["to_move"] == opp
    stand_ins = {"recharge": [0, 0], "extra_traps": 1 if opp_in_trap_phase else 0, "live_trap": -1}
    for key in HIDDEN_ENTRIES:
        entries = list(state[key])
        if omitted[key]:
            entries[opp] = stand_ins[key]
        provisional[key] = entries
    game = FillGame.from_snapshot(dict(partial, state=provisional))

    choice = HiddenTraps(game, seat, options).choose(
        None if omitted["recharge"] else state["recharge"][opp],
        None if omitted["extra_traps"] else state["extra_traps"][opp],
        None if omitted["live_trap"] else state["live_trap"][opp],
        rng,
    )
    for key in HIDDEN_ENTRIES:
        entries = copy.deepcopy(state[key])
        if omitted[key]:
            entries[opp] = choice[key]
        completed_state[key] = entries
    completed = copy.deepcopy(dict(partial, state=completed_state))
    FillGame.from_snapshot(completed)  # raises SnapshotError if the completion is inconsistent
    return completed



def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: the
    opponent's live trap, recharge turns and extra traps left out (``null``)."""
    partial = copy.deepcopy(snapshot)
    state, other = partial["state"], 1 - seat
    for key in ("live_trap", "recharge", "extra_traps"):
        state[key][other] = None
    return partial

