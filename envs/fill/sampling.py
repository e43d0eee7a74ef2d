"""Full Fill states from one seat's point of view, for search bots and the bot protocol.

Hidden from a seat is everything about the opponent's traps: where their live trap is, whether
they set one on their last turn, how many regular traps are ready, when each recharging one is
ready again, and how many extra traps they hold. Everything else a seat sees (board, rocks,
gems, tokens, the last sprung trap, clocks) stays exactly as observed.

**What is possible.** The opponent's *trap stock* (the two regular traps' turns until ready,
the extra traps, what their last trap phase did) is enumerated by :func:`trap_stocks`: every
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

Before the seed with random gems, the gems are chance to come: every state gets a fresh
generator drawn from the rng. Clocks (``time_limit``): both players' times are set to the
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
  opponent's turn count is ``state["turns"][opp]``, exactly as given);
* ``state["rng"]``: missing or ``null`` before the seed with random gems (future chance):
  a fresh generator state is drawn.

Clocks are given (a front end knows both exactly) and kept. Given entries are kept exactly;
the result passes ``FillGame.from_snapshot``. Given opponent items no game can produce with the
rest (e.g. a trap recharging for more than 3 turns, more extra traps than unseen gems), or
more gems and tokens than random gems give, raise :class:`SnapshotError` saying why.
"""

from __future__ import annotations

import copy
import random
from bisect import bisect_right
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from envs.core.game import SnapshotError
from envs.core.observer import as_vector
from envs.fill.observer import MAX_EXTRA, FillObserver
from envs.fill.rules import (
    CHOOSE, DOUBLE, FILL, FILL2, GEM_COUNT, KIND_NAMES, OVER, PASS, PHASE_NAMES, RECHARGE, SEED,
    STAY, SWAP, TIME_LIMIT, TOKEN, TOKEN_LIFE, TRAP, TRAP_PHASE, FillGame, bits, geometry,
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
    random gems give. Tokens with gems off or beyond a gem script only come from puzzle
    positions (:mod:`envs.fill.positions`), which the engine accepts: they leave none unseen."""
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


def seed_cells(filled: list[int], gems: dict[int, int], size: int, lines: str) -> list[int]:
    """Filled cells the seed can be: gems never appear next to it (every filled cell when no cell
    qualifies: puzzle positions place gems freely)."""
    nbr = geometry(size, lines).nbr
    near_gems = 0
    for cell in gems:
        near_gems |= nbr[cell]
    return [c for c in filled if not near_gems >> c & 1] or list(filled)


def stock_pattern(recharge: list[int], turn: int) -> tuple[int, int]:
    """Own turns until each regular trap is ready, counted from ``turn`` (0: ready), sorted."""
    return tuple(sorted(max(0, r - turn) for r in recharge))


def rng_state_json(generator: random.Random) -> list:
    version, internal, gauss = generator.getstate()
    return [version, list(internal), gauss]


# ----- sampler --------------------------------------------------------------------------------


def sampler(observation, options: dict) -> Callable[[random.Random], FillGame]:
    """Decode one seat's observation once; each call of the result draws a fresh full state.

    ``observation`` is the env's dict (its mask is checked too) or the bare vector; ``options``
    the env options as given. See the module docstring for what is drawn and how.
    """
    resolved = FillGame.resolve_options(dict(options))
    observer = FillObserver(resolved)
    vector = as_vector(observation)
    if vector.shape != (observer.size,):
        raise ValueError(f"a fill_v0 observation with these options has {observer.size} entries, not shape {vector.shape}")
    vector = np.asarray(vector, dtype=np.float32)
    n = resolved["size"] ** 2
    mask = None
    if isinstance(observation, dict):
        mask = np.asarray(observation.get("action_mask"))
        if mask.shape != (n + 7,):
            raise ValueError(f"the action mask must hold {n + 7} entries for these options, not shape {mask.shape}")
        if not mask.any():
            raise ValueError("the action mask is empty: the observing seat is not the one to act now")
    fields = observer.decode(vector)
    check_rule_switches(fields, resolved)
    if fields["to_act"] != "me" or fields["phase"] is None:
        raise ValueError("the observation is not of the seat to act now (a sampler needs the seat to act)")
    view = ObservedPosition(resolved, fields)
    prepared, weights = view.prepare()
    for game in {id(g): g for g, _ in prepared}.values():
        check_reproduces(observer, game, view.seat, vector, mask)

    total = sum(weights)
    cumulative = list(np.cumsum(weights))
    opp, seeds, trap_cells, seeds_for = 1 - view.seat, view.seeds, view.trap_cells, view.seeds_for
    fresh_chance = view.fresh_chance
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
        if fresh_chance:
            game.rng = random.Random(rng.getrandbits(64))
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


def check_rule_switches(fields: dict[str, Any], options: dict[str, Any]) -> None:
    pairs = [("lines", "lines"), ("traps", "traps"), ("rocks_on", "rocks"), ("gems_on", "gems"), ("time_limit", "time_limit")]
    for field, option in pairs:
        if fields[field] != options[option]:
            raise ValueError(
                f"the observation is of a game with {option}={fields[field]!r}, but the options say {options[option]!r}"
            )


def field_at(observer: FillObserver, index: int) -> str:
    """The name of the observation block holding ``index``."""
    names = ("FILLED", "ROCK", "EMPTY", "GEM", "LEGAL", "POISONED", "SPRUNG", "MY_TRAP", "TO_ACT", "PHASE",
             "SEEDER", "CHOICE", "MY_TOKENS", "THEIR_TOKENS", "SPRUNG_BY", "MY_TRAPS", "RESULT", "CLOCKS", "RULES")
    starts = sorted((getattr(observer, name), name) for name in names)
    return [name for start, name in starts if start <= index][-1]


def check_reproduces(observer: FillObserver, game: FillGame, seat: int, vector: np.ndarray, mask) -> None:
    """The rebuilt state must show exactly this observation (and mask): else it came from elsewhere."""
    again = observer.observe(game, seat)
    if again.tobytes() != vector.tobytes():
        index = int(np.flatnonzero(again != vector)[0])
        raise ValueError(
            f"the observation cannot come from a fill_v0 game with these options: its {field_at(observer, index)} "
            f"block (entry {index}) holds {float(vector[index])!r}, which no state consistent with the rest shows "
            f"(a rebuilt state gives {float(again[index])!r})"
        )
    if mask is not None:
        legal = game.legal_actions()
        if np.flatnonzero(mask).tolist() != legal:
            raise ValueError(
                f"the action mask does not match the observation: the position's legal actions are {legal}, "
                f"the mask allows {np.flatnonzero(mask).tolist()}"
            )


class ObservedPosition:
    """One seat's decoded observation, with what the public facts allow for the rest."""

    def __init__(self, options: dict[str, Any], fields: dict[str, Any]):
        self.options = options
        self.size = size = options["size"]
        self.life = TOKEN_LIFE[size]
        self.seat = seat = 0 if fields["seeder"] else 1
        self.phase = PHASE_NAMES.index(fields["phase"])
        self.fields = fields
        self.filled = fields["filled"]
        self.rocks = fields["rocks"]
        self.gems = {cell: KIND_NAMES.index(kind) for cell, kind in fields["gems"].items()}
        self.my_tokens = [(KIND_NAMES.index(kind), left) for kind, left in fields["my_tokens"]]
        self.their_tokens = [(KIND_NAMES.index(kind), left) for kind, left in fields["their_tokens"]]
        self.my_pattern = tuple(sorted([0] * fields["ready_traps"] + fields["recharging"]))
        if len(self.my_pattern) != 2:
            raise ValueError("the observation's trap block does not describe two regular traps")
        self.my_trap = -1 if fields["my_trap"] is None else fields["my_trap"]
        sprung = fields["last_sprung"]
        self.last_sprung = None if sprung is None else (sprung[0], seat if sprung[1] == "me" else 1 - seat)
        self.choice = {None: -1, "stay": STAY, "swap": SWAP}[fields["choice"]]
        self.check_rocks()

    def check_rocks(self) -> None:
        options, rocks = self.options, self.rocks
        if not options["rocks"]:
            return  # the rebuilt state refuses rocks with rocks off
        scripted = options["rock_cells"]
        if scripted is not None and sorted(rocks) != sorted(scripted):
            raise ValueError(f"the observation's rocks {rocks} are not the scripted rock_cells {list(scripted)}")
        if scripted is None and len(rocks) != self.size - 3:
            raise ValueError(f"the observation shows {len(rocks)} rocks; random rocks on {self.size}x{self.size} are {self.size - 3}")

    # ----- the public base state ----------------------------------------------------------------
    def base_state(self, seed: int) -> dict[str, Any]:
        seat, opp, options = self.seat, 1 - self.seat, self.options
        fields = self.fields
        limit = TIME_LIMIT[self.size]
        time_left = [limit, limit]
        if options["time_limit"]:
            for p, shown in ((seat, fields["my_time"]), (opp, fields["their_time"])):
                if shown is not None:
                    time_left[p] = float(shown)
        tokens: list[list] = [[], []]
        tokens[seat] = [[KIND_NAMES[k], left, 0] for k, left in self.my_tokens]
        tokens[opp] = [[KIND_NAMES[k], left, 0] for k, left in self.their_tokens]
        extra = [0, 0]
        extra[seat] = self.fields["extra_traps"]
        live = [-1, -1]
        live[seat] = self.my_trap
        fresh_chance = self.phase == SEED and options["gems"] and options["gem_cells"] is None
        return {
            "rocks": sorted(self.rocks),
            "filled": sorted(self.filled),
            "seed": seed,
            "choice": self.choice,
            "phase": PHASE_NAMES[self.phase],
            "to_move": seat,
            "gems": [[cell, KIND_NAMES[kind]] for cell, kind in sorted(self.gems.items())],
            "tokens": tokens,
            "turns": [0, 0],
            "recharge": [[0, 0], [0, 0]],
            "extra_traps": extra,
            "live_trap": live,
            "last_sprung": list(self.last_sprung) if self.last_sprung else None,
            "double": self.phase == FILL2,
            "winner": -1,
            "end_reason": "",
            "time_left": time_left,
            "shown_time": list(time_left),
            "rng": rng_state_json(random.Random(0)) if fresh_chance else None,
        }

    # ----- everything the draws choose from ---------------------------------------------------------
    def prepare(self) -> tuple[list[tuple[FillGame, bool]], list[float]]:
        """Sets ``seeds``, ``trap_cells``, ``seeds_for``, ``fresh_chance``; returns the prepared
        states (each with whether the opponent set a trap) and their draw weights."""
        options, phase, size = self.options, self.phase, self.size
        lines = options["lines"]
        if phase == SEED:
            self.seeds = [-1]
        elif phase == CHOOSE:
            self.seeds = list(self.filled)
        else:
            self.seeds = seed_cells(self.filled, self.gems, size, lines)
        if not self.seeds:
            raise ValueError("the observation shows no filled cell after the seed")
        try:
            base = FillGame.from_state_dict(options, self.base_state(self.seeds[0]))
        except SnapshotError as error:
            raise ValueError(f"the observation cannot come from a fill_v0 game with these options: {error}") from None
        self.fresh_chance = base.rng is not None
        base.rng = None  # drawn per call (before the seed with random gems), not copied per clone
        self.trap_cells, self.seeds_for = [], {}
        if phase in (SEED, CHOOSE):
            return [(base, False)], [1.0]
        return self.prepare_turn(base)

    def prepare_turn(self, base: FillGame) -> tuple[list[tuple[FillGame, bool]], list[float]]:
        options, phase, seat, life = self.options, self.phase, self.seat, self.life
        opp = 1 - seat
        first = 1 if self.choice == STAY else 0
        second_fill = phase == FILL2
        fills_done = len(self.filled) - 1 - int(second_fill)  # fills of finished turns

        def finished(t: int) -> int:  # turns finished when the seat is in its turn t
            return 2 * t - 2 if seat == first else 2 * t - 1

        def turn_for(u: int) -> int:  # the seat's turn when the opponent has played u turns
            return u + 1 if seat == first else max(1, u)

        base_turn = (fills_done + 3) // 2 if seat == first else max(1, (fills_done + 2) // 2)
        seen = list(self.gems.values()) + [k for k, _ in self.my_tokens] + [k for k, _ in self.their_tokens]
        spare, problem = unseen_tokens(options, seen + [TRAP] * self.fields["extra_traps"])
        if problem:
            raise ValueError(f"the observation cannot come from a fill_v0 game with these options: {problem}")
        # With no trap ever sprung, every finished turn but a Pass filled at least one cell.
        most_finished = fills_done + spare[PASS] if self.last_sprung is None else NO_LIMIT
        most_opp_turns = most_finished // 2 if seat == first else (most_finished + 1) // 2

        doubles = [False]
        if phase == FILL2:
            doubles = [True]
        elif phase in (TRAP_PHASE, FILL) and spare[DOUBLE] >= 1 and fills_done >= 1 and most_finished >= finished(2):
            doubles = [False, True]
        fresh = [i for i, (_, left) in enumerate(self.my_tokens) if left == life]
        collected_now = [None]
        if second_fill:
            kinds_seen: set[int] = set()
            for i in fresh:
                if self.my_tokens[i][0] not in kinds_seen:
                    kinds_seen.add(self.my_tokens[i][0])
                    collected_now.append(i)
        my_extra = self.fields["extra_traps"]
        own_budget = unseen_tokens(options, seen)[0][TRAP]
        my_extras = [my_extra]
        if my_extra >= MAX_EXTRA and own_budget > my_extra:
            my_extras = list(range(my_extra, own_budget + 1))  # the observation clips extra traps at 3

        point = {TOKEN: "start", TRAP_PHASE: "before_trap"}.get(phase, "after_trap")
        if point != "after_trap" and self.my_trap >= 0:
            raise ValueError("the observation shows the seat's live trap before its trap phase of this turn")
        my_set = NO_SET
        if point == "after_trap":
            my_set = REGULAR_SET if RECHARGE in self.my_pattern else (EXTRA_SET if self.my_trap >= 0 else NO_SET)
        opp_set_before = self.last_sprung is not None and self.last_sprung[1] == opp
        my_set_before = self.last_sprung is not None and self.last_sprung[1] == seat

        # Where the opponent's trap can lie: empty cells, or cells filled since their trap phase.
        could_double = unseen_tokens(options, seen)[0][DOUBLE] >= 1
        after_trap_fills = (2 if could_double else 1) + int(second_fill)
        full = base.geo.full
        self.seeds_for = recent_fills(base.filled, self.size, options["lines"], self.seeds, after_trap_fills)
        self.trap_cells = bits(full & ~(base.filled | base.rock)) + sorted(self.seeds_for)

        prepared: list[tuple[FillGame, bool]] = []
        weights: list[float] = []
        own_choices = [(d, c, e) for d in doubles for c in collected_now for e in my_extras]
        for double, collected, extra in own_choices:
            own_turn = 0
            if options["traps"]:
                mine = stocks_at(trap_stocks(own_budget, NO_LIMIT)[point], my_set_before)
                own_turn = mine.get((self.my_pattern, extra, my_set), -1)
                if own_turn < 0:
                    continue
            opp_budget = unseen_tokens(options, seen + [TRAP] * extra + [DOUBLE] * double)[0][TRAP]
            if options["traps"]:
                theirs = stocks_at(trap_stocks(opp_budget, most_opp_turns)["after_trap"], opp_set_before)
            else:
                theirs = {((0, 0), 0, NO_SET): 0}
            if not theirs:
                continue
            least = [base_turn, own_turn, 2 if double else 1]
            least += [2 + life - left for i, (_, left) in enumerate(self.my_tokens) if i != collected]
            least += [turn_for(1 + life - left) for _, left in self.their_tokens]
            least += [4 - d for d in self.my_pattern if d]
            for (pattern, opp_extra, how), opp_turn in theirs.items():
                t = max(least + [turn_for(opp_turn)])
                u = t - 1 if seat == first else t
                game = base.clone()
                game.turns[seat], game.turns[opp] = t, u
                game.tokens[seat] = [
                    [k, left, t if i == collected else t - 1 - (life - left)] for i, (k, left) in enumerate(self.my_tokens)
                ]
                game.tokens[opp] = [[k, left, u - (life - left)] for k, left in self.their_tokens]
                game.recharge[seat] = [t + d if d else 0 for d in self.my_pattern]
                game.recharge[opp] = [u + d if d else 0 for d in pattern]
                game.extra[seat], game.extra[opp] = extra, opp_extra
                game.double = double
                prepared.append((game, how != NO_SET))
                weights.append(1.0 / len(theirs))
        if not prepared:
            raise ValueError(
                "the observation cannot come from a fill_v0 game with these options: no trap stock of "
                "either player fits what it shows"
            )
        # each own choice's states weigh 1 in all: uniform over the seat's own choices, then
        # uniform over the opponent's stocks
        return prepared, weights


# ----- complete_snapshot ----------------------------------------------------------------------

HIDDEN_ENTRIES = ("recharge", "extra_traps", "live_trap")  # the opponent's entry may be null
STATE_KEYS = (
    "rocks", "filled", "seed", "choice", "phase", "to_move", "gems", "tokens", "turns", "recharge",
    "extra_traps", "live_trap", "last_sprung", "double", "winner", "end_reason", "time_left", "shown_time",
)


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
    draws_chance = state["phase"] == "seed" and options["gems"] and options["gem_cells"] is None
    completed_state = dict(state)
    if state.get("rng") is None:
        completed_state["rng"] = rng_state_json(random.Random(rng.getrandbits(64))) if draws_chance else None

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
        if not options["traps"] or phase in (SEED, CHOOSE):
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
                raise SnapshotError(f"player_{opp}'s {name!r} entry must be an integer or null, not {value!r}")
        pattern = None
        if recharge is not None:
            if not isinstance(recharge, list) or len(recharge) != 2:
                raise SnapshotError(f"player_{opp}'s 'recharge' entry must list their two regular traps, not {recharge!r}")
            if any(isinstance(r, bool) or not isinstance(r, int) for r in recharge):
                raise SnapshotError(f"player_{opp}'s 'recharge' entry must hold two turn numbers, not {recharge!r}")
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


def strip_hidden(snapshot: dict, seat: int) -> dict:
    """What ``seat`` may know of a full snapshot, in the form ``complete_snapshot`` reads: the
    opponent's live trap, recharge turns and extra traps left out (``null``)."""
    partial = copy.deepcopy(snapshot)
    state, other = partial["state"], 1 - seat
    for key in ("live_trap", "recharge", "extra_traps"):
        state[key][other] = None
    return partial
