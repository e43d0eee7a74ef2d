"""What a Fill seat cannot see: the opponent's trap items, and which of them are possible.

Hidden from a seat is everything about the opponent's traps: where their live trap is, whether
they set one on their last turn, how many regular traps are ready, when each recharging one is
ready again, and how many extra traps they hold.

* :func:`trap_stocks` enumerates every trap *stock* (the two regular traps' turns until ready,
  the extra traps, what the last trap phase did) some sequence of a player's own turns can
  produce, following the engine's rules (a regular trap is ready 3 own turns after it is set;
  an extra trap is used first; one token a turn; a Trap token can be used from the player's
  turn 2 on), with at most a given number of Trap tokens used;
* :func:`unseen_tokens` counts the tokens the gems can have given that nobody sees (3 gems a
  game, or the ``gem_cells`` script's gems of each kind, minus what is accounted for);
* :func:`recent_fills` finds the filled cells the last fills can have filled (a trap set before
  them may lie there: inert, but possible);
* :class:`HiddenTraps` draws the opponent's omitted items of a snapshot
  (``complete_snapshot``) among what the rest of it allows.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from envs.core.game import SnapshotError
from envs.fill.snapshots import shown
from envs.fill.board import geometry
from envs.fill.rules import (
    CHOOSE, DOUBLE, GEM_COUNT, GEMS, KIND_NAMES, OVER, RECHARGE, ROCKS, SEED, TOKEN, TRAP, TRAP_PHASE, FILL2, FillGame,
    bits,
)

NO_SET, REGULAR_SET, EXTRA_SET = 0, 1, 2  # what a trap phase did
POINTS = ("start", "before_trap", "after_trap")
NO_LIMIT = 10**6  # a turn limit that never binds (the enumeration stops at its fixed point)

# ----- the opponent's trap stock --------------------------------------------------------------


@lru_cache(maxsize=1024)
def trap_stocks(budget: int, last_turn: int) -> dict[str, dict[tuple, int]]:
    """Every trap stock a player can hold in their turn ``u``, for ``u`` up to ``last_turn``.

    Returns, for each point of turn ``u`` (``"start"``: before its token phase;
    ``"before_trap"``: a trap phase pending, so a trap is ready; ``"after_trap"``), a dict from
    ``(pattern, extra, set_now, set_before)`` to the least ``u`` giving it. ``pattern``: the two
    regular traps' own turns still to start until ready, counted from ``u`` (0: ready), sorted;
    ``extra``: extra traps held; ``set_now``: what turn ``u``'s trap phase did (``NO_SET`` before
    it); ``set_before``: a trap was set on an earlier turn. ``budget`` caps the Trap tokens used
    over the whole game. Turn 0 (no turn played yet) gives the fresh stock under ``"after_trap"``.
    Reachable sets only grow with ``u`` (an idle first turn shifts any history by one), so the
    walk stops once a turn adds nothing.
    """
    tables: dict[str, dict[tuple, int]] = {point: {} for point in POINTS}
    tables["after_trap"][((0, 0), 0, NO_SET, False)] = 0
    states = {((0, 0), 0, 0, False)}  # (pattern, extra, Trap tokens used, set before) after a turn
    turn = 0
    while turn < last_turn:
        turn += 1
        following = set()
        for pattern, extra, used, set_before in states:
            low, high = max(0, pattern[0] - 1), max(0, pattern[1] - 1)
            tables["start"].setdefault(((low, high), extra, NO_SET, set_before), turn)
            for gain in ((0, 1) if turn >= 2 and used < budget else (0,)):
                held = extra + gain
                outcomes = [((low, high), held, NO_SET)]
                if held or low == 0:
                    tables["before_trap"].setdefault(((low, high), held, NO_SET, set_before), turn)
                    # the engine spends an extra trap first, else the regular one ready soonest
                    outcomes.append(((low, high), held - 1, EXTRA_SET) if held else ((high, RECHARGE), 0, REGULAR_SET))
                for stock, left, how in outcomes:
                    tables["after_trap"].setdefault((stock, left, how, set_before), turn)
                    following.add((stock, left, used + gain, set_before or how != NO_SET))
        if following == states:
            break
        states = following
    return tables


def stocks_at(table: dict[tuple, int], set_before: bool) -> dict[tuple, int]:
    """``(pattern, extra, set_now)`` -> least turn, keeping only stocks with an earlier trap when
    ``set_before`` is required."""
    out: dict[tuple, int] = {}
    for (pattern, extra, how, before), turn in table.items():
        if set_before and not before:
            continue
        key = (pattern, extra, how)
        if turn < out.get(key, NO_LIMIT + 1):
            out[key] = turn
    return out


def unseen_tokens(options: dict[str, Any], seen: list[int]) -> tuple[list[int], str | None]:
    """Per kind, how many more tokens the game's gems can have given beyond ``seen`` (kinds of
    the gems, tokens and spent tokens accounted for), and a sentence when ``seen`` is more than
    random gems give. (Gems and tokens beyond a gem script, or with gems off, the engine's
    snapshot check refuses before this is asked: they leave none unseen.)"""
    if not options["gems"]:
        return [0, 0, 0], None
    script = options["gem_cells"]
    if script is None:
        total = GEM_COUNT
        caps = [GEM_COUNT, GEM_COUNT, GEM_COUNT if options["traps"] else 0]
    else:
        total = len(script)
        caps = [sum(1 for _, kind in script if kind == name) for name in KIND_NAMES]
    spare = total - len(seen)
    problem = None
    if script is None and spare < 0:
        problem = (
            f"it accounts for {len(seen)} gems (on the board, as tokens, as extra traps or a Double "
            f"spent this turn), more than the {GEM_COUNT} a game has"
        )
    return [max(0, min(spare, caps[k] - seen.count(k))) for k in range(3)], problem


def recent_fills(filled: int, size: int, lines: str, seeds: list[int], count: int) -> dict[int, list[int]]:
    """Filled cells one of the last ``count`` fills can have filled, each with the seeds that allows.

    Cell ``x`` qualifies when some part of the board without ``x`` holds the seed and leaves at
    most ``count`` cells out (``x`` and what it alone connects): that part, 8-connected, was the
    board before those fills, which can then be made in order, ``x`` first.
    """
    out: dict[int, list[int]] = {}
    if count <= 0:
        return out
    dilate = geometry(size, lines).dilate
    total = filled.bit_count()
    for x in bits(filled):
        rest = filled & ~(1 << x)
        allowed: list[int] = []
        while rest:
            part = rest & -rest
            while True:
                grown = dilate(part) & rest
                if grown == part:
                    break
                part = grown
            rest &= ~part
            if total - part.bit_count() <= count:
                allowed.extend(s for s in seeds if part >> s & 1)
        if allowed:
            out[x] = sorted(allowed)
    return out


def stock_pattern(recharge: list[int], turn: int) -> tuple[int, int]:
    """Own turns until each regular trap is ready, counted from ``turn`` (0: ready), sorted."""
    return tuple(sorted(max(0, r - turn) for r in recharge))



class HiddenTraps:
    """The opponent's possible trap items in a full public state (``game``: opponent items aside)."""

    def __init__(self, game: FillGame, seat: int, options: dict[str, Any]):
        self.game, self.seat, self.options = game, seat, options
        opp = self.opp = 1 - seat
        self.turn = game.turns[opp]
        phase = game.phase
        seen = list(game.gems.values()) + [t[0] for p in (0, 1) for t in game.tokens[p]]
        seen += [TRAP] * game.extra[seat] + [DOUBLE] * int(game.double)
        spare, problem = unseen_tokens(options, seen)
        if problem:
            raise SnapshotError(f"the snapshot is inconsistent: {problem}")
        self.must_clear = False  # the opponent's trap expired although the stock may say it was set
        after_trap_fills = 0
        opp_fills = 2 if spare[DOUBLE] >= 1 else 1
        if not options["traps"] or phase in (SEED, CHOOSE, ROCKS, GEMS) or game.choice < 0:
            self.point = None
        elif phase == OVER:
            self.point = "after_trap"
            self.must_clear = game.end_reason == "no legal cell" and game.to_move == opp
            after_trap_fills = opp_fills + 2  # the phase the game ended in is not recorded
        elif game.to_move == seat:
            self.point = "after_trap"
            after_trap_fills = opp_fills + int(phase == FILL2)
        else:
            self.point = {TOKEN: "start", TRAP_PHASE: "before_trap"}.get(phase, "after_trap")
            after_trap_fills = int(phase == FILL2)
        if self.point is None:
            self.stocks = {((0, 0), 0, NO_SET): 0}
        else:
            sprung = game.last_sprung
            table = trap_stocks(spare[TRAP], self.turn)[self.point]
            self.stocks = stocks_at(table, sprung is not None and sprung[1] == opp)
        recent = recent_fills(game.filled, options["size"], options["lines"], [game.seed_cell], after_trap_fills)
        self.cells = bits(game.geo.full & ~(game.filled | game.rock)) + sorted(recent)

    def choose(self, recharge, extra, live, rng: random.Random) -> dict[str, Any]:
        """Draw the omitted items (``None``) among the stocks matching the given ones."""
        opp, turn = self.opp, self.turn
        for name, value in (("extra_traps", extra), ("live_trap", live)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise SnapshotError(f"player_{opp}'s {name!r} entry must be an integer or null, not {shown(value)}")
        pattern = None
        if recharge is not None:
            if not isinstance(recharge, list) or len(recharge) != 2:
                raise SnapshotError(f"player_{opp}'s 'recharge' entry must list their two regular traps, not {shown(recharge)}")
            if any(isinstance(r, bool) or not isinstance(r, int) for r in recharge):
                raise SnapshotError(f"player_{opp}'s 'recharge' entry must hold two turn numbers, not {shown(recharge)}")
            if any(r - turn > RECHARGE for r in recharge):
                raise SnapshotError(
                    f"player_{opp}'s 'recharge' {recharge} has a trap ready more than {RECHARGE} of their turns after "
                    f"their turn {turn}: a trap recharges in {RECHARGE}"
                )
            pattern = stock_pattern(recharge, turn)
        if live is not None and live >= 0 and live not in self.cells:
            raise SnapshotError(
                f"player_{opp}'s live trap on cell {live} is impossible: a trap lies on an empty non-rock cell, or on "
                f"one filled after it was set"
            )
        if live is not None and live >= 0 and self.must_clear:
            raise SnapshotError(f"player_{opp}'s trap expired at the end of player_{self.seat}'s last turn; 'live_trap' must be -1")
        matching = []
        for stock in self.stocks:
            stock_pattern_, stock_extra, how = stock
            if pattern is not None and pattern != stock_pattern_:
                continue
            if extra is not None and extra != stock_extra:
                continue
            if live is not None and not self.must_clear and (live >= 0) != (how != NO_SET):
                continue
            matching.append(stock)
        if not matching:
            raise SnapshotError(
                f"no trap stock of player_{opp} in their turn {turn} fits the given items (recharge {recharge}, "
                f"extra traps {extra}, live trap {live}) with the rest of the snapshot"
            )
        stock_pattern_, stock_extra, how = matching[rng.randrange(len(matching))] if len(matching) > 1 else matching[0]
        cell = -1
        if live is None and how != NO_SET and not self.must_clear:
            cell = self.cells[rng.randrange(len(self.cells))]
        return {
            "recharge": [turn + d if d else 0 for d in stock_pattern_],
            "extra_traps": stock_extra,
            "live_trap": cell,
        }


