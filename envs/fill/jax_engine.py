"""Fill's rules in JAX (``docs/jax.md``): equal to :class:`envs.fill.rules.FillGame` step for step.

One :class:`FillRules` per option set (the options fix every shape). Supported: sizes 6, 7 and
8, every ``lines`` setting, traps (the hidden trap stock per seat, the trap phase, recharge, the
live trap, springing with at least 3 legal cells, the sprung trap revealed to both), rocks
(random, or scripted ``rock_cells``) as chance nodes, the seed, stay or swap, and losing for
lack of a legal cell. Refused by name:

* ``time_limit=True`` — real-time clocks cannot be expressed in a JAX engine;
* ``gems=True`` — gems are placed on, and shatter off, the cells that "can still be filled",
  which :func:`envs.fill.board.fill_witness` decides by an exhaustive search over induced
  chains with no fixed bound on its size (in random games it visits up to about 100 search
  nodes for one cell on 6×6 and 1,000–3,000 on 8×8 strict, and chains of up to 22 cells; the
  tail grows with the board). A fixed-shape version would have to unroll the worst case, and
  an approximation would not be Fill (the simple fixed-shape relaxation, reachability over
  (previous, last) cell pairs, differs from it under ``lines="orthogonal"`` and ``"strict"``).
  Without gems there are no tokens, so the token phase, the Double's second fill and extra
  traps never occur (their observation blocks stay zeros, as the Python observer leaves them).

The position :class:`G` holds the board as rows of bits (one int32 per row: boards are at most
8 wide), with the two derived sets every step needs (``poison`` and ``legal``, recomputed by
``apply`` from ``filled`` and ``rock``: a cell is poisoned when it is empty and some forbidden
pattern through it has all its other cells filled, which is exactly what the Python engine
accumulates fill by fill), and the scalars of the Python state. Every forbidden pattern and the
touching rule are shifted views of the rows, so a move is a few fused integer operations on
``size`` numbers; cells are unpacked (a table lookup per row) only for the mask and the
observation. Equal to the Python engine step for step (``tests/jax/test_fill.py``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.core.jax_env import JaxRules, Turn, draw_outcome
from envs.fill.board import geometry
from envs.fill.chance import rock_target
from envs.fill.facts import (
    CHOOSE, FILL, FILL2, LINES, MIN_LEGAL_TO_SPRING, NO_TRAP, OVER, PHASE_NAMES, PLAYER_PHASES, RECHARGE,
    REGULAR_TRAPS, ROCKS, SEED, STAY, SWAP, TIME_LIMIT, TRAP_PHASE,
)
from envs.fill.observer import MAX_EXTRA, RULE_SWITCHES, FillObserver
from envs.fill.rules import FillGame

END_REASONS = ("", "no legal cell", "time")


class G(NamedTuple):
    """One Fill position (numpy arrays on the host, jnp arrays inside JAX)."""

    filled: Any  # int32[size]: per row, the filled cells as bits (bit c: column c)
    rock: Any  # int32[size]: the rocks, the same way
    poison: Any  # int32[size]: empty cells that complete a forbidden pattern when filled (derived)
    legal: Any  # int32[size]: cells legal to fill now (derived)
    phase: Any  # int32: envs.fill.facts phase number
    to_move: Any  # int32
    seed: Any  # int32: the seed cell, -1 before it
    choice: Any  # int32: -1, STAY or SWAP
    turns: Any  # int32[2]
    recharge: Any  # int32[2, 2]: per seat, the own turn at whose start each regular trap is ready
    extra: Any  # int32[2]: extra traps (only Trap tokens give them: always 0 here)
    live_trap: Any  # int32[2]: per seat, its live trap's cell or -1
    sprung_cell: Any  # int32: the last sprung trap's cell, -1 when none sprang
    sprung_owner: Any  # int32: its setter (0 when none sprang)
    winner: Any  # int32: -1 until the end
    end_reason: Any  # int32: index in END_REASONS


class FillRules(JaxRules):
    python_engine = FillGame
    has_chance = True  # rocks are chance nodes (an option set without rocks just never reaches one)

    def __init__(self, options: dict[str, Any]):
        if options["time_limit"]:
            raise ValueError("fill's JAX engine refuses time_limit=True: real-time clocks cannot be expressed in a JAX engine")
        if options["gems"]:
            raise ValueError(
                "fill's JAX engine refuses gems=True: gems appear on and shatter off the cells that can still be "
                "filled, an exhaustive search over chains (envs/fill/board.py: fill_witness) with no fixed bound"
            )
        super().__init__(options)
        size = self.size = options["size"]
        geo = geometry(size, options["lines"])
        n = self.n = geo.cells
        self.traps = bool(options["traps"])
        self.target = rock_target(options)
        self.rocks = bool(options["rocks"])
        script = options["rock_cells"] if self.rocks else None
        self.scripted = script is not None
        self.script = jnp.asarray(np.array(list(script) + [0], np.int32) if script is not None else np.zeros(1, np.int32))
        self.limit = TIME_LIMIT[size]
        # random rocks are drawn at once when a game starts (JaxRules.opening)
        self.opening = self._draw_rocks if self.rocks and not self.scripted and self.target else None

        # The forbidden lines' directions (2x2 blocks are forbidden under every setting).
        self.directions = {"orthogonal": [(0, 1), (1, 0)], "strict": [(0, 1), (1, 0), (1, 1), (1, -1)],
                           "off": []}[options["lines"]]
        self.cells = jnp.arange(n, dtype=jnp.int32)
        self.columns = jnp.arange(size, dtype=jnp.int32)
        self.row_mask = (1 << size) - 1
        unpacked = (np.arange(1 << size)[:, None] >> np.arange(size)) & 1  # row value -> its bits
        self.bits, self.bits_f = jnp.asarray(unpacked.astype(bool)), jnp.asarray(unpacked.astype(np.float32))
        # Exact float32 values of the Python observer's divisions (float64, then stored in float32).
        self.recip = jnp.asarray(np.array([0.0] + [1.0 / k for k in range(1, n + 1)], np.float64).astype(np.float32))
        self.thirds = jnp.asarray(np.array([c / RECHARGE for c in range(RECHARGE + 1)], np.float64).astype(np.float32))
        self.halves = jnp.asarray(np.array([c / REGULAR_TRAPS for c in range(REGULAR_TRAPS + 1)], np.float64).astype(np.float32))
        self.extra_shown = jnp.asarray(np.array([min(1.0, c / MAX_EXTRA) for c in range(MAX_EXTRA + 1)], np.float64).astype(np.float32))

        observer = FillObserver(options)
        self.obs_size = observer.size
        rules = np.zeros(7, np.float32)
        rules[LINES.index(options["lines"])] = 1.0
        for i, name in enumerate(RULE_SWITCHES):
            rules[3 + i] = float(options[name])
        self.rule_block = jnp.asarray(rules)
        # The blocks between the cell planes and the rules, in the observer's order (checked).
        self.token_width = 2 * observer.slots * 4
        self.held_shown = jnp.asarray(np.minimum(np.arange(observer.slots + 1) / 3.0, 1.0).astype(np.float32))
        self.offsets = dict(TO_ACT=observer.TO_ACT, PHASE=observer.PHASE, SEEDER=observer.SEEDER, CHOICE=observer.CHOICE,
                            MY_TOKENS=observer.MY_TOKENS, SPRUNG_BY=observer.SPRUNG_BY, MY_TRAPS=observer.MY_TRAPS,
                            RESULT=observer.RESULT, CLOCKS=observer.CLOCKS, RULES=observer.RULES)
        expected = dict(TO_ACT=10 * n, PHASE=10 * n + 2, SEEDER=10 * n + 8, CHOICE=10 * n + 9, MY_TOKENS=10 * n + 11,
                        SPRUNG_BY=10 * n + 11 + self.token_width, MY_TRAPS=10 * n + 13 + self.token_width,
                        RESULT=10 * n + 17 + self.token_width, CLOCKS=10 * n + 19 + self.token_width,
                        RULES=10 * n + 23 + self.token_width)
        if self.offsets != expected or self.obs_size != 10 * n + 30 + self.token_width:
            raise AssertionError(f"FillObserver's layout changed: {self.offsets} (size {self.obs_size})")

    # ----- the board --------------------------------------------------------------------------
    def _board(self, filled: jax.Array, rock: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(poison, legal)`` of a board (rows of bits): poisoned, the empty non-rock cells
        some forbidden pattern through which has all its other cells filled; legal, the empty
        non-rock unpoisoned cells touching a filled cell. Every pattern is a shifted view of
        the rows (padded with empty rows; bits shifted off a row's ends are cut), so the whole
        board is a few fused operations on ``size`` integers."""
        s, row = self.size, self.row_mask
        padded = jnp.pad(filled, 2)

        def at(dr: int, dc: int) -> jax.Array:  # bit c of at(dr, dc)[r]: cell (r + dr, c + dc) is filled
            rows = padded[2 + dr:2 + dr + s]
            return rows >> dc if dc >= 0 else (rows << -dc) & row

        touch = at(-1, -1) | at(-1, 0) | at(-1, 1) | at(0, -1) | at(0, 1) | at(1, -1) | at(1, 0) | at(1, 1)
        completes = jnp.zeros(s, jnp.int32)
        for dr, dc in self.directions:  # (r, c) ends or is the middle of three in that line
            completes |= (at(dr, dc) & at(2 * dr, 2 * dc)) | (at(-dr, -dc) & at(-2 * dr, -2 * dc)) | (at(dr, dc) & at(-dr, -dc))
        for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):  # (r, c) is the last cell of a 2x2 block
            completes |= at(dr, 0) & at(0, dc) & at(dr, dc)
        empty = ~(filled | rock) & row
        poison = completes & empty
        return poison, touch & empty & ~poison

    def _cells(self, rows: jax.Array, table: jax.Array | None = None) -> jax.Array:
        """bool per cell (cell ``r * size + c``) of rows of bits (any leading axes); float32
        with ``table=self.bits_f`` (a lookup per row: faster than shifting each cell out)."""
        table = self.bits if table is None else table
        return table[rows].reshape(rows.shape[:-1] + (self.n,))

    def _count(self, rows: jax.Array) -> jax.Array:
        return jnp.sum(jax.lax.population_count(rows))

    # ----- the rules --------------------------------------------------------------------------
    def start(self) -> G:
        none = np.zeros(self.size, np.int32)
        i32 = np.int32
        return jax.tree_util.tree_map(jnp.asarray, G(
            filled=none, rock=none, poison=none, legal=none,
            phase=i32(ROCKS if self.target else SEED), to_move=i32(0), seed=i32(-1), choice=i32(-1),
            turns=np.zeros(2, i32), recharge=np.zeros((2, REGULAR_TRAPS), i32), extra=np.zeros(2, i32),
            live_trap=np.full(2, -1, i32), sprung_cell=i32(-1), sprung_owner=i32(0), winner=i32(-1),
            end_reason=i32(0)))

    def _draw_rocks(self, g: G, key: jax.Array) -> G:
        """All the rocks at once, each uniform over the cells left, as the rock nodes draw them
        (without the node-by-node loop); the last rock is applied as its node would be."""
        keys = jax.random.split(key, self.target)
        taken = jnp.zeros(self.n, bool)
        for index in range(self.target - 1):
            taken = taken | (self.cells == draw_outcome((~taken).astype(jnp.float32), keys[index]))
        rows = jnp.sum(jnp.where(taken.reshape(self.size, self.size), jnp.left_shift(1, self.columns), 0), axis=1)
        last = draw_outcome((~taken).astype(jnp.float32), keys[-1])
        return self.apply(g._replace(rock=rows.astype(jnp.int32)), last)

    def turn(self, g: G) -> Turn:
        chance = g.phase == ROCKS
        return Turn(player=jnp.where(chance, -1, g.to_move).astype(jnp.int32), is_chance=chance,
                    terminated=g.phase == OVER)

    def legal_mask(self, g: G) -> jax.Array:
        phase, row = g.phase, self.row_mask
        rows = jnp.where(phase == SEED, ~g.rock & row,
                         jnp.where(phase == TRAP_PHASE, ~(g.filled | g.rock) & row,
                                   jnp.where((phase == FILL) | (phase == FILL2), g.legal, 0)))
        cells = self._cells(rows)
        special = jnp.arange(7)
        specials = jnp.where(phase == CHOOSE, (special == STAY) | (special == SWAP),
                             (phase == TRAP_PHASE) & (special == NO_TRAP))
        return jnp.concatenate([cells, specials])

    def apply(self, g: G, action: jax.Array) -> G:
        n = self.n
        a = jnp.asarray(action, jnp.int32)
        phase, p = g.phase, g.to_move
        seats = jnp.arange(2, dtype=jnp.int32)
        me, them = seats == p, seats != p
        is_cell = (a >= 0) & (a < n)
        cell = jnp.clip(a, 0, n - 1)
        onehot = jnp.where(self.columns == cell // self.size, 1 << (cell % self.size), 0)  # the cell as rows of bits
        at_rocks, at_seed, at_choose = phase == ROCKS, phase == SEED, phase == CHOOSE
        at_trap, at_fill = phase == TRAP_PHASE, (phase == FILL) | (phase == FILL2)

        # A rock lands (a chance node).
        rock = g.rock | jnp.where(at_rocks, onehot, 0)
        rocks_done = self._count(rock) >= self.target

        # A fill springs the opponent's trap when at least 3 cells are legal just before it:
        # the fill is cancelled, the trap revealed; else the cell is filled (as is the seed).
        their_trap = jnp.sum(jnp.where(them, g.live_trap, 0))
        sprung = at_fill & (cell == their_trap) & (self._count(g.legal) >= MIN_LEGAL_TO_SPRING)
        filled = g.filled | jnp.where(at_seed | (at_fill & ~sprung), onehot, 0)
        poison, legal = self._board(filled, rock)

        # The trap phase: a trap on a cell uses an extra trap if any, else the first regular
        # trap of the soonest ready turn, ready again RECHARGE own turns later.
        trap_set = at_trap & is_cell
        my_extra = jnp.sum(jnp.where(me, g.extra, 0))
        my_turn = jnp.sum(jnp.where(me, g.turns, 0))
        use_extra = trap_set & (my_extra > 0)
        use_regular = trap_set & (my_extra == 0)
        mine = jnp.sum(jnp.where(me[:, None], g.recharge, 0), axis=0)
        slot = jnp.argmin(mine)
        recharge = jnp.where(me[:, None] & (jnp.arange(REGULAR_TRAPS) == slot)[None, :] & use_regular,
                             my_turn + RECHARGE, g.recharge)
        extra = g.extra - jnp.where(me & use_extra, 1, 0)
        live_trap = jnp.where(me & trap_set, cell, g.live_trap)
        # The end of a fill phase ends the turn: the opponent's live trap expires.
        live_trap = jnp.where(them & at_fill, -1, live_trap)
        sprung_cell = jnp.where(sprung, cell, g.sprung_cell)
        sprung_owner = jnp.where(sprung, 1 - p, g.sprung_owner)

        # A turn starts after the choice (stay: the chooser, swap: the seeder) and after a fill
        # phase (the opponent): no legal cell, and its player loses; else the turn is counted
        # and begins with a trap phase when a trap is ready.
        starting = at_choose | at_fill
        q = jnp.where(at_choose, jnp.where(a == n + STAY, 1, 0), 1 - p).astype(jnp.int32)
        stuck = ~jnp.any(legal)
        begins = starting & ~stuck
        turns = g.turns + jnp.where((seats == q) & begins, 1, 0)
        q_turn = jnp.sum(jnp.where(seats == q, turns, 0))
        q_extra = jnp.sum(jnp.where(seats == q, extra, 0))
        q_ready = jnp.min(jnp.sum(jnp.where((seats == q)[:, None], recharge, 0), axis=0)) <= q_turn
        trap_ready = self.traps & ((q_extra > 0) | q_ready)
        after_start = jnp.where(stuck, OVER, jnp.where(trap_ready, TRAP_PHASE, FILL))
        new_phase = jnp.where(at_rocks, jnp.where(rocks_done, SEED, ROCKS),
                              jnp.where(at_seed, CHOOSE,
                                        jnp.where(at_trap, FILL,
                                                  jnp.where(starting, after_start, phase))))
        to_move = jnp.where(at_seed, 1, jnp.where(starting, q, p))
        lost = starting & stuck
        return G(
            filled=filled, rock=rock, poison=poison, legal=legal,
            phase=new_phase.astype(jnp.int32), to_move=to_move.astype(jnp.int32),
            seed=jnp.where(at_seed, cell, g.seed).astype(jnp.int32),
            choice=jnp.where(at_choose, a - n, g.choice).astype(jnp.int32),
            turns=turns.astype(jnp.int32), recharge=recharge.astype(jnp.int32), extra=extra.astype(jnp.int32),
            live_trap=live_trap.astype(jnp.int32), sprung_cell=sprung_cell.astype(jnp.int32),
            sprung_owner=sprung_owner.astype(jnp.int32),
            winner=jnp.where(lost, 1 - q, g.winner).astype(jnp.int32),
            end_reason=jnp.where(lost, 1, g.end_reason).astype(jnp.int32),
        )

    def chance_probs(self, g: G) -> jax.Array:
        if not self.rocks:
            return jnp.zeros(self.num_outcomes, jnp.float32)
        at_rocks = g.phase == ROCKS
        placed = self._count(g.rock)
        if self.scripted:
            probs = (self.cells == self.script[jnp.clip(placed, 0, self.target)]).astype(jnp.float32)
        else:
            probs = jnp.where(self._cells(g.rock), 0.0, self.recip[self.n - placed])
        return jnp.where(at_rocks, probs, 0.0).astype(jnp.float32)

    def observe(self, g: G, player: jax.Array) -> jax.Array:
        n = self.n
        player = jnp.asarray(player, jnp.int32)
        f32 = jnp.float32
        seats = jnp.arange(2, dtype=jnp.int32)
        own = seats == player
        my_trap = jnp.sum(jnp.where(own, g.live_trap, 0))
        board = self._cells(jnp.stack([g.filled, g.rock, ~(g.filled | g.rock) & self.row_mask, g.legal, g.poison]),
                            self.bits_f)
        planes = jnp.concatenate([
            board[:3].reshape(-1), jnp.zeros(3 * n, f32), board[3:].reshape(-1), (self.cells == g.sprung_cell).astype(f32),
            (self.cells == my_trap).astype(f32),
        ])
        phase = g.phase
        acting = phase < PLAYER_PHASES
        to_act = jnp.stack([acting & (g.to_move == player), acting & (g.to_move != player)])
        phase_hot = (jnp.arange(PLAYER_PHASES) == phase) & to_act[0]
        seeder = (player == 0)[None]
        choice = jnp.arange(2) == g.choice
        sprung = g.sprung_cell >= 0
        sprung_by = jnp.stack([sprung & (g.sprung_owner == player), sprung & (g.sprung_owner != player)])
        turn = jnp.sum(jnp.where(own, g.turns, 0))
        mine = jnp.sum(jnp.where(own[:, None], g.recharge, 0), axis=0)
        ready = jnp.sum(mine <= turn)
        extra = jnp.sum(jnp.where(own, g.extra, 0))
        # the recharging traps' waits, ascending and right-aligned (a ready trap shows 0)
        wait = jnp.clip(mine - turn, 0, RECHARGE)
        waits = jnp.stack([jnp.min(wait), jnp.max(wait)])
        traps = jnp.concatenate([self.halves[ready][None], self.extra_shown[jnp.clip(extra, 0, MAX_EXTRA)][None],
                                 self.thirds[waits]])
        over = phase == OVER
        result = jnp.stack([over & (g.winner == player), over & (g.winner != player)])
        return jnp.concatenate([
            planes, to_act.astype(f32), phase_hot.astype(f32), seeder.astype(f32), choice.astype(f32),
            jnp.zeros(self.token_width, f32), sprung_by.astype(f32), traps, result.astype(f32),
            jnp.zeros(4, f32), self.rule_block,
        ])

    def planes(self, flat: jax.Array) -> jax.Array:
        """:meth:`FillObserver.planes` of flat observations (any leading batch axes): the ten
        cell blocks as channels, then the global facts as constant planes, each seat's token
        slots summarised per kind (held ÷ 3 clipped at 1, the soonest and latest turns left)."""
        n, size, o = self.n, self.size, self.offsets
        flat = jnp.asarray(flat, jnp.float32)
        lead = flat.shape[:-1]
        cells = flat[..., :10 * n].reshape(lead + (10, size, size))
        cells = jnp.moveaxis(cells, -3, -1)
        slots = self.token_width // 8

        def summary(block: jax.Array) -> jax.Array:
            tokens = block.reshape(lead + (slots, 4))
            kinds, left = tokens[..., :3] > 0.5, tokens[..., 3:4]
            held = jnp.sum(kinds, axis=-2)
            soonest = jnp.min(jnp.where(kinds, left, jnp.inf), axis=-2)
            latest = jnp.max(jnp.where(kinds, left, 0.0), axis=-2)
            return jnp.concatenate([self.held_shown[jnp.clip(held, 0, slots)], jnp.where(held > 0, soonest, 0.0), latest],
                                   axis=-1)

        mine = o["MY_TOKENS"]
        theirs = mine + self.token_width // 2
        globals_ = jnp.concatenate([flat[..., o["TO_ACT"]:mine], summary(flat[..., mine:theirs]),
                                    summary(flat[..., theirs:o["SPRUNG_BY"]]), flat[..., o["SPRUNG_BY"]:]], axis=-1)
        spread = jnp.broadcast_to(globals_[..., None, None, :], lead + (size, size, globals_.shape[-1]))
        return jnp.concatenate([cells, spread], axis=-1)

    def scores(self, g: G) -> jax.Array:
        return ((jnp.arange(2) == g.winner) & (g.winner >= 0)).astype(jnp.float32)

    # ----- host-side bridges ------------------------------------------------------------------
    def from_python(self, game: FillGame) -> G:
        if game.gems or game.tokens != [[], []] or game.double:
            raise ValueError("fill's JAX engine has no gems: this game holds gems, tokens or a Double")
        size = self.size

        def cells(mask: int) -> np.ndarray:  # a Python bitmask (bit r * size + c) as rows of bits
            return np.array([mask >> (r * size) & self.row_mask for r in range(size)], np.int32)

        i32 = np.int32
        sprung = game.last_sprung
        return G(
            filled=cells(game.filled), rock=cells(game.rock), poison=cells(game.poison), legal=cells(game.legal_mask()),
            phase=i32(game.phase), to_move=i32(game.to_move), seed=i32(game.seed_cell), choice=i32(game.choice),
            turns=np.array(game.turns, i32), recharge=np.array(game.recharge, i32), extra=np.array(game.extra, i32),
            live_trap=np.array(game.live_trap, i32), sprung_cell=i32(-1 if sprung is None else sprung[0]),
            sprung_owner=i32(0 if sprung is None else sprung[1]), winner=i32(game.winner),
            end_reason=i32(END_REASONS.index(game.end_reason)),
        )

    def state_dict(self, g: G) -> dict[str, Any]:
        size = self.size

        def cells(rows) -> list[int]:
            return [r * size + c for r, value in enumerate(np.asarray(rows).tolist()) for c in range(size) if value >> c & 1]

        def ints(values) -> list:
            return np.asarray(values).tolist()

        sprung = int(g.sprung_cell)
        return {
            "rocks": cells(g.rock),
            "filled": cells(g.filled),
            "seed": int(g.seed),
            "choice": int(g.choice),
            "phase": PHASE_NAMES[int(g.phase)],
            "to_move": int(g.to_move),
            "gems": [],
            "tokens": [[], []],
            "turns": ints(g.turns),
            "recharge": ints(g.recharge),
            "extra_traps": ints(g.extra),
            "live_trap": ints(g.live_trap),
            "last_sprung": None if sprung < 0 else [sprung, int(g.sprung_owner)],
            "double": False,
            "winner": int(g.winner),
            "end_reason": END_REASONS[int(g.end_reason)],
            "time_left": [self.limit, self.limit],
            "shown_time": [self.limit, self.limit],
        }


RULES = FillRules
