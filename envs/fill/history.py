"""Rebuilding the public history a Fill observation does not spell out.

A seat's observation holds the board, gems, tokens and its own traps, but not a few public
facts that change nothing in what it sees: the seed cell, both turn counters (only their
differences matter to the rules), when each token was collected, and — in the seat's own turn —
whether it spent a Double earlier in this turn. :class:`ObservedPosition` reads the decoded
observation, works out what those can be, and builds, through the engine's validated
``from_state_dict``, one full state per combination of the seat's own possibilities and the
opponent's possible trap stocks (:mod:`envs.fill.hidden`): the templates the sampler draws from.
"""

from __future__ import annotations

from typing import Any

from envs.core.game import SnapshotError
from envs.fill.board import geometry
from envs.fill.hidden import EXTRA_SET, NO_LIMIT, NO_SET, REGULAR_SET, recent_fills, stocks_at, trap_stocks, unseen_tokens
from envs.fill.observer import MAX_EXTRA
from envs.fill.rules import (
    CHOOSE, DOUBLE, FILL, FILL2, KIND_NAMES, PASS, PHASE_NAMES, RECHARGE, SEED, STAY, SWAP, TIME_LIMIT, TOKEN,
    TOKEN_LIFE, TRAP, TRAP_PHASE, FillGame, bits,
)


def seed_cells(filled: list[int], gems: dict[int, int], size: int, lines: str) -> list[int]:
    """Filled cells the seed can be: gems never appear next to it (every filled cell when no cell
    qualifies: puzzle positions place gems freely)."""
    nbr = geometry(size, lines).nbr
    near_gems = 0
    for cell in gems:
        near_gems |= nbr[cell]
    return [c for c in filled if not near_gems >> c & 1] or list(filled)


def fewest_turns(fills_done: int, seat_first: bool) -> tuple[int, int]:
    """The seat's turn and the opponent's turns so far, fewest that fit ``fills_done`` fills of
    finished turns (one a turn) with the seat now in a turn: the seat moved first after the
    choice (``seat_first``) or second."""
    if seat_first:
        seat_turn = (fills_done + 3) // 2
        return seat_turn, seat_turn - 1
    seat_turn = max(1, (fills_done + 2) // 2)
    return seat_turn, seat_turn






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
        return {
            "rocks": sorted(self.rocks),
            "filled": sorted(self.filled),
            "seed": seed,
            "choice": self.choice,
            "phase": PHASE_NAMES[self.phase],
            "to_move": seat,
            "gems": [[cell, KIND_NAMES[kind]] for cell, kind in sorted(self.gems.items())],
            "tokens": tokens,
            "turns": self.base_turns(),
            "recharge": [[0, 0], [0, 0]],
            "extra_traps": extra,
            "live_trap": live,
            "last_sprung": list(self.last_sprung) if self.last_sprung else None,
            "double": self.phase == FILL2,
            "winner": -1,
            "end_reason": "",
            "time_left": time_left,
            "shown_time": list(time_left),
        }

    def base_turns(self) -> list[int]:
        """Both turn counters of the public base: the fewest turns that fit the filled cells
        (``prepare_turn`` gives each template its own)."""
        if self.phase in (SEED, CHOOSE):
            return [0, 0]
        fills_done = len(self.filled) - 1 - int(self.phase == FILL2)
        mine, theirs = fewest_turns(fills_done, self.seat == (1 if self.choice == STAY else 0))
        turns = [0, 0]
        turns[self.seat], turns[1 - self.seat] = mine, theirs
        return turns

    def build(self, state: dict[str, Any]) -> FillGame:
        """A full state through the engine's validated constructor; a ``ValueError`` when the
        rules allow no such state (the observation came from elsewhere)."""
        try:
            return FillGame.from_state_dict(self.options, state)
        except SnapshotError as error:
            raise ValueError(f"the observation cannot come from a fill_v0 game with these options: {error}") from None

    # ----- everything the draws choose from ---------------------------------------------------------
    def prepare(self) -> tuple[list[tuple[FillGame, bool]], list[float]]:
        """Sets ``seeds``, ``trap_cells``, ``seeds_for``; returns the prepared
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
        self.base = self.base_state(self.seeds[0])
        base = self.build(self.base)
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

        base_turn = fewest_turns(fills_done, seat == first)[0]
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
                # the template: the validated public base with this history's counters and stocks
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

