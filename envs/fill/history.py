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
        seat_first = self.seat == (1 if self.choice == STAY else 0)
        second_fill = self.phase == FILL2
        fills_done = len(self.filled) - 1 - int(second_fill)  # fills of finished turns
        base_turn = fewest_turns(fills_done, seat_first)[0]
        seen = list(self.gems.values()) + [k for k, _ in self.my_tokens] + [k for k, _ in self.their_tokens]
        spare, problem = unseen_tokens(self.options, seen + [TRAP] * self.fields["extra_traps"])
        if problem:
            raise ValueError(f"the observation cannot come from a fill_v0 game with these options: {problem}")
        # With no trap ever sprung, every finished turn but a Pass filled at least one cell.
        most_finished = fills_done + spare[PASS] if self.last_sprung is None else NO_LIMIT
        most_opp_turns = most_finished // 2 if seat_first else (most_finished + 1) // 2
        own_choices = self._own_choices(seen, spare, fills_done, most_finished, seat_first)
        point, my_set = self._trap_point()
        self._trap_places(base, seen, second_fill)
        prepared: list[tuple[FillGame, bool]] = []
        weights: list[float] = []
        for double, collected, extra in own_choices:
            for game, opp_set, weight in self._templates(base, seen, (double, collected, extra), point, my_set,
                                                          base_turn, most_opp_turns, seat_first):
                prepared.append((game, opp_set))
                weights.append(weight)
        if not prepared:
            raise ValueError(
                "the observation cannot come from a fill_v0 game with these options: no trap stock of "
                "either player fits what it shows"
            )
        # each own choice's states weigh 1 in all: uniform over the seat's own choices, then
        # uniform over the opponent's stocks
        return prepared, weights

    def _own_choices(self, seen: list[int], spare, fills_done: int, most_finished: int,
                     seat_first: bool) -> list[tuple[bool, int | None, int]]:
        """What the seat's own turn may hide: whether it plays a Double, which fresh token it
        collected with this turn's first fill (``None``: none), how many extra traps it holds."""
        phase = self.phase
        doubles = [False]
        if phase == FILL2:
            doubles = [True]
        elif phase in (TRAP_PHASE, FILL) and spare[DOUBLE] >= 1 and fills_done >= 1 and most_finished >= (
                2 if seat_first else 3):  # the turns finished when the seat is in its second turn
            doubles = [False, True]
        fresh = [i for i, (_, left) in enumerate(self.my_tokens) if left == self.life]
        collected_now: list[int | None] = [None]
        if phase == FILL2:
            kinds_seen: set[int] = set()
            for i in fresh:
                if self.my_tokens[i][0] not in kinds_seen:
                    kinds_seen.add(self.my_tokens[i][0])
                    collected_now.append(i)
        my_extra = self.fields["extra_traps"]
        own_budget = unseen_tokens(self.options, seen)[0][TRAP]
        my_extras = [my_extra]
        if my_extra >= MAX_EXTRA and own_budget > my_extra:
            my_extras = list(range(my_extra, own_budget + 1))  # the observation clips extra traps at 3
        return [(d, c, e) for d in doubles for c in collected_now for e in my_extras]

    def _trap_point(self) -> tuple[str, int]:
        """Where the turn stands against the trap phase, and how the seat's trap of this turn was set."""
        point = {TOKEN: "start", TRAP_PHASE: "before_trap"}.get(self.phase, "after_trap")
        if point != "after_trap" and self.my_trap >= 0:
            raise ValueError("the observation shows the seat's live trap before its trap phase of this turn")
        my_set = NO_SET
        if point == "after_trap":
            my_set = REGULAR_SET if RECHARGE in self.my_pattern else (EXTRA_SET if self.my_trap >= 0 else NO_SET)
        return point, my_set

    def _trap_places(self, base: FillGame, seen: list[int], second_fill: bool) -> None:
        """Where the opponent's trap can lie: empty cells, or cells filled since their trap phase."""
        could_double = unseen_tokens(self.options, seen)[0][DOUBLE] >= 1
        after_trap_fills = (2 if could_double else 1) + int(second_fill)
        full = base.geo.full
        self.seeds_for = recent_fills(base.filled, self.size, self.options["lines"], self.seeds, after_trap_fills)
        self.trap_cells = bits(full & ~(base.filled | base.rock)) + sorted(self.seeds_for)

    def _templates(self, base: FillGame, seen: list[int], own: tuple[bool, int | None, int], point: str, my_set: int,
                   base_turn: int, most_opp_turns: int, seat_first: bool) -> list[tuple[FillGame, bool, float]]:
        """For one own choice (``own``: double, collected token, extra traps), a template per
        trap stock the opponent may hold: the validated public base with this history's counters
        and stocks, whether the opponent's trap is set, and its weight (together 1)."""
        options, seat, life = self.options, self.seat, self.life
        opp = 1 - seat
        double, collected, extra = own
        own_budget = unseen_tokens(options, seen)[0][TRAP]
        opp_set_before = self.last_sprung is not None and self.last_sprung[1] == opp
        my_set_before = self.last_sprung is not None and self.last_sprung[1] == seat

        def turn_for(u: int) -> int:  # the seat's turn when the opponent has played u turns
            return u + 1 if seat_first else max(1, u)

        own_turn = 0
        if options["traps"]:
            mine = stocks_at(trap_stocks(own_budget, NO_LIMIT)[point], my_set_before)
            own_turn = mine.get((self.my_pattern, extra, my_set), -1)
            if own_turn < 0:
                return []
        opp_budget = unseen_tokens(options, seen + [TRAP] * extra + [DOUBLE] * double)[0][TRAP]
        if options["traps"]:
            theirs = stocks_at(trap_stocks(opp_budget, most_opp_turns)["after_trap"], opp_set_before)
        else:
            theirs = {((0, 0), 0, NO_SET): 0}
        least = [base_turn, own_turn, 2 if double else 1]
        least += [2 + life - left for i, (_, left) in enumerate(self.my_tokens) if i != collected]
        least += [turn_for(1 + life - left) for _, left in self.their_tokens]
        least += [4 - d for d in self.my_pattern if d]
        found = []
        for (pattern, opp_extra, how), opp_turn in theirs.items():
            t = max(least + [turn_for(opp_turn)])
            u = t - 1 if seat_first else t
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
            found.append((game, how != NO_SET, 1.0 / len(theirs)))
        return found
