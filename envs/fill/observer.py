"""What a Fill seat sees: the public board and tokens, its own traps; never the opponent's.

This is the one place where Fill's hidden information is filtered. The opponent's traps (where,
whether one is set, how many they hold, when theirs recharge) and the opponent's phase never
enter a seat's vector: during the opponent's turn a seat sees only that it is their turn.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from envs.core.observer import D4, Observer, PolicyLayout, Symmetry, as_vector, transform_grid
from envs.fill.rules import (
    CHOOSE, FILL, FILL2, KIND_NAMES, LINES, OVER, PHASE_NAMES, PLAYER_PHASES, REGULAR_TRAPS, RECHARGE, SEED, STAY,
    SWAP, TIME_LIMIT, TOKEN, TOKEN_LIFE, TRAP_PHASE, FillGame, bits,
)

MAX_EXTRA = 3  # extra traps are shown divided by this (clipped at 1)
TOKEN_FIELDS = 4  # kind one-hot (3) + turns left / lifetime
RULE_SWITCHES = ("traps", "rocks", "gems", "time_limit")  # the RULES block after the lines one-hot
CELL_PLANES = 10  # filled, rock, empty, three gem kinds, legal, poisoned, sprung, my trap
# planes: the cell planes, then to act (2), phase (6), seeder, choice (2), two token summaries
# (9 each), sprung by (2), my traps (4), result (2), clocks (4), rules (7)
PLANES = CELL_PLANES + 2 + 6 + 1 + 2 + 2 * 9 + 2 + 4 + 2 + 4 + 7


def cell_permutation(size: int, transform: str, extra: int = 0) -> np.ndarray:
    """Where each cell goes under one of the square's symmetries (``transform_grid``'s names),
    as an action permutation: ``out[cell]`` is the mapped cell; the ``extra`` numbers past the
    cells (actions that are not cells) stay."""
    n = size * size
    moved = transform_grid(np.arange(n).reshape(size, size, 1), transform).reshape(-1)
    out = np.arange(n + extra, dtype=np.int64)
    out[moved] = np.arange(n)
    return out


def token_slots(options: dict[str, Any]) -> int:
    """Token slots per player: 3 (the most random gems give), or more for a long script (at
    most one per cell: a script places at most one gem a cell)."""
    scripted = options.get("gem_cells")
    if options.get("gems") and scripted is not None:
        return max(3, min(len(scripted), options["size"] ** 2))
    return 3


class FillObserver(Observer):
    """Layout, with ``N = size²`` (cells in action order) and ``S`` token slots per player:

    planes of ``N``: ``FILLED`` · ``ROCK`` · ``EMPTY`` (neither) · ``GEM`` three planes
    (Double, Pass, Trap) · ``LEGAL`` (cells legal to fill now) · ``POISONED`` (the crosses) ·
    ``SPRUNG`` (the last sprung trap's cell) · ``MY_TRAP`` (my live trap, private);

    then scalars: ``TO_ACT`` (me, the opponent; both 0 once over) · ``PHASE`` one-hot of
    seed, choose, token, trap, fill, second-fill, only while I am to act · ``SEEDER`` (I am the
    seeder) · ``CHOICE`` (stay, swap once made) · ``MY_TOKENS`` and ``THEIR_TOKENS``, ``S``
    slots each of kind one-hot (Double, Pass, Trap) and turns left / lifetime, sorted by kind
    then turns left · ``SPRUNG_BY`` (me, the opponent) · ``MY_TRAPS``: ready regular traps / 2,
    extra traps / 3, then for each regular trap the own turns still to start until it is ready
    / 3 (sorted, 0 when ready) · ``RESULT`` (I won, I lost) · ``CLOCKS``: my time left (whole seconds,
    rounded up) / limit as of my last action, theirs (while they act: as it stood when they began acting, so their
    hidden steps do not show), I have a clock, they have one (all 0 when time_limit is off) ·
    ``RULES``: lines
    one-hot (orthogonal, strict, off), traps, rocks, gems, time_limit.
    """

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.board_size = size = options["size"]
        self.n = n = size * size
        self.slots = token_slots(options)
        self.life = TOKEN_LIFE[size]
        self.limit = TIME_LIMIT[size]
        tokens = self.slots * TOKEN_FIELDS
        # named blocks: error messages and views name them
        self.lay_out(FILLED=n, ROCK=n, EMPTY=n, GEM=3 * n, LEGAL=n, POISONED=n, SPRUNG=n, MY_TRAP=n,  # per cell
                     TO_ACT=2, PHASE=6, SEEDER=1, CHOICE=2, MY_TOKENS=tokens, THEIR_TOKENS=tokens, SPRUNG_BY=2,
                     MY_TRAPS=2 + REGULAR_TRAPS, RESULT=2, CLOCKS=4, RULES=7)
        self._rules = np.zeros(7, np.float32)
        self._rules[LINES.index(options["lines"])] = 1.0
        for i, name in enumerate(RULE_SWITCHES):
            self._rules[3 + i] = float(options[name])

    def _tokens(self, obs: np.ndarray, offset: int, tokens: list[list[int]]) -> None:
        if not tokens:
            return
        for slot, (kind, left) in enumerate(sorted((t[0], t[1]) for t in tokens)[: self.slots]):
            base = offset + slot * TOKEN_FIELDS
            obs[base + kind] = 1.0
            obs[base + 3] = left / self.life

    def observe(self, game: FillGame, player: int) -> np.ndarray:
        n, other = self.n, 1 - player
        filled, rock = game.filled, game.rock
        gem_masks = [0, 0, 0]
        for cell, kind in game.gems.items():
            gem_masks[kind] |= 1 << cell
        sprung_mask = 0
        if game.last_sprung is not None:
            sprung_mask = 1 << game.last_sprung[0]
        trap = game.live_trap[player]
        # The ten planes in one go: ten 64-bit masks unpacked to bits.
        planes = np.array(
            [filled, rock, game.geo.full & ~(filled | rock), gem_masks[0], gem_masks[1], gem_masks[2],
             game.legal_mask(), game.poison, sprung_mask, (1 << trap) if trap >= 0 else 0],
            dtype="<u8",  # little-endian on every machine: bit i is cell i
        )
        unpacked = np.unpackbits(planes.view(np.uint8).reshape(10, 8), axis=1, bitorder="little")
        obs = np.zeros(self.size, np.float32)
        obs[: 10 * n] = unpacked[:, :n].reshape(-1)
        if game.last_sprung is not None:
            obs[self.SPRUNG_BY + (0 if game.last_sprung[1] == player else 1)] = 1.0
        phase = game.phase
        if phase < PLAYER_PHASES:  # at a chance node (rocks, gems) and at the end nobody acts
            if game.to_move == player:
                obs[self.TO_ACT] = 1.0
                obs[self.PHASE + phase] = 1.0  # phases SEED…FILL2 are 0…5
            else:
                obs[self.TO_ACT + 1] = 1.0
        obs[self.SEEDER] = float(player == 0)
        if game.choice >= 0:
            obs[self.CHOICE + game.choice] = 1.0
        self._tokens(obs, self.MY_TOKENS, game.tokens[player])
        self._tokens(obs, self.THEIR_TOKENS, game.tokens[other])
        traps = self.MY_TRAPS
        obs[traps] = game.ready_regular(player) / REGULAR_TRAPS
        obs[traps + 1] = min(1.0, game.extra[player] / MAX_EXTRA)
        for i, count in enumerate(game.recharge_counts(player)):
            obs[traps + 2 + REGULAR_TRAPS - len(game.recharge_counts(player)) + i] = count / RECHARGE
        if phase == OVER:
            obs[self.RESULT + (0 if game.winner == player else 1)] = 1.0
        if game.timed:
            clocks = self.CLOCKS
            for i, p in enumerate((player, other)):
                if game.clocked[p]:
                    # the opponent's clock as it stood when they began acting: it must not
                    # tick visibly through their hidden trap phase
                    acting = p == other and game.to_move == other and phase != OVER
                    left = game.shown_time[p] if acting else game.time_left[p]
                    # whole seconds, rounded up like a clock display: the same game gives
                    # the same observation however many microseconds the machine took
                    obs[clocks + i] = min(1.0, max(0.0, math.ceil(left) / self.limit))
                    obs[clocks + 2 + i] = 1.0
        obs[self.RULES:self.RULES + 7] = self._rules
        return obs

    def check_fits(self, observation, who: str = "this observer") -> None:
        """A ``ValueError`` naming the options unless ``observation`` (the env's dict or the
        flat vector) has this observer's length and shows its rule switches (lines, traps,
        rocks, gems, time_limit): else it comes from a table with other options."""
        vec = np.asarray(as_vector(observation))
        made_for = ", ".join(f"{k}={self.options[k]!r}" for k in ("size", "lines", *RULE_SWITCHES))
        if vec.shape != (self.size,):
            raise ValueError(
                f"{who} is for fill_v0 with {made_for}, whose observations have {self.size} entries; this "
                f"one has shape {vec.shape}: it comes from a table with other options"
            )
        rules = vec[self.RULES:self.RULES + 7]
        shown = {"lines": LINES[int(np.argmax(rules[:3]))]}
        shown.update({name: bool(rules[3 + i] > 0.5) for i, name in enumerate(RULE_SWITCHES)})
        for name, value in shown.items():
            if value != self.options[name]:
                raise ValueError(
                    f"{who} is for fill_v0 with {made_for}; this observation is of a table with "
                    f"{name}={value!r}"
                )

    # ----- planes (observation_format="planes") ----------------------------------------------------
    # (size, size, PLANES): the ten cell blocks of the flat vector as channels 0-9, then constant
    # planes for the global facts. The token slots are summarised per kind (how many, the soonest
    # and the latest to expire), so the channel count does not depend on a gem script's length.
    def planes_shape(self) -> tuple[int, int, int]:
        return (self.board_size, self.board_size, PLANES)

    def planes(self, observation) -> np.ndarray:
        vec = np.asarray(as_vector(observation), dtype=np.float32)
        single = vec.ndim == 1
        if single:
            vec = vec[None]
        if vec.ndim != 2 or vec.shape[1] != self.size:
            raise ValueError(
                f"fill_v0 planes are made from observations of {self.size} entries under these options "
                f"(or a batch of shape (N, {self.size})), not shape {np.shape(as_vector(observation))}"
            )
        count, size, n = len(vec), self.board_size, self.n
        out = np.empty((count, size, size, PLANES), np.float32)
        cells = vec[:, : CELL_PLANES * n].reshape(count, CELL_PLANES, size, size)
        out[..., :CELL_PLANES] = cells.transpose(0, 2, 3, 1)
        globals_ = np.concatenate(
            [
                vec[:, self.TO_ACT:self.MY_TOKENS],  # to act, phase, seeder, choice
                self._token_summary(vec[:, self.MY_TOKENS:self.THEIR_TOKENS]),
                self._token_summary(vec[:, self.THEIR_TOKENS:self.SPRUNG_BY]),
                vec[:, self.SPRUNG_BY:],  # sprung by, my traps, result, clocks, rules
            ],
            axis=1,
        )
        out[..., CELL_PLANES:] = globals_[:, None, None, :]
        return out[0] if single else out

    def _token_summary(self, block: np.ndarray) -> np.ndarray:
        """Per kind (Double, Pass, Trap): tokens held ÷ 3 (clipped at 1), the soonest and the
        latest turns left ÷ lifetime (0 when none is held): ``(N, 9)``."""
        slots = block.reshape(len(block), self.slots, TOKEN_FIELDS)
        kinds, left = slots[..., :3] > 0.5, slots[..., 3:4]
        held = kinds.sum(axis=1)
        soonest = np.where(kinds, left, np.inf).min(axis=1)
        latest = np.where(kinds, left, 0.0).max(axis=1)
        soonest = np.where(held > 0, soonest, 0.0)
        return np.concatenate([np.minimum(held / 3.0, 1.0), soonest, latest], axis=1).astype(np.float32)

    def policy_layout(self) -> PolicyLayout:
        """One per-cell logit (the cell is seeded, trapped or filled by phase: one action
        number each) and 7 global ones: STAY, SWAP, NO_TOKEN, USE_DOUBLE, USE_PASS, USE_TRAP,
        NO_TRAP. Cells come in action order, which is ``(row, col)`` order."""
        return PolicyLayout(cell_channels=1, global_actions=7, index=np.arange(self.n + 7, dtype=np.int64))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The eight symmetries of the square, under every ``lines`` setting: touching (8
        neighbours), rows and columns, the two diagonal directions and 2×2 blocks all map onto
        themselves under rotations and reflections. Chance outcomes that are cells (rocks,
        gems) map with the cells."""
        out = []
        n = self.n
        for name in D4:
            cells = cell_permutation(self.board_size, name, extra=7)
            # chance outcomes: a rock's cell, or a gem's kind * size² + cell
            chance = np.concatenate([kind * n + cells[:n] for kind in range(3)])
            out.append(Symmetry(name, name, cells, chance=chance))
        return tuple(out)

    # ----- decoding ---------------------------------------------------------------------------------
    def decode(self, observation) -> dict[str, Any]:
        vec = as_vector(observation)
        n = self.n

        def cells(offset: int) -> list[int]:
            return [int(i) for i in np.flatnonzero(vec[offset:offset + n] > 0.5)]

        def one(offset: int, width: int) -> int | None:
            part = vec[offset:offset + width]
            return int(np.argmax(part)) if part.max() > 0.5 else None

        def tokens(offset: int) -> list[tuple[str, int]]:
            out = []
            for slot in range(self.slots):
                base = offset + slot * TOKEN_FIELDS
                kind = one(base, 3)
                if kind is not None:
                    out.append((KIND_NAMES[kind], int(round(vec[base + 3] * self.life))))
            return out

        gems = {}
        for kind in range(3):
            for cell in cells(self.GEM + kind * n):
                gems[cell] = KIND_NAMES[kind]
        to_act = one(self.TO_ACT, 2)
        phase = one(self.PHASE, 6)
        sprung = cells(self.SPRUNG)
        by = one(self.SPRUNG_BY, 2)
        trap = cells(self.MY_TRAP)
        result = one(self.RESULT, 2)
        choice = one(self.CHOICE, 2)
        traps = self.MY_TRAPS
        recharge = [int(round(v * RECHARGE)) for v in vec[traps + 2: traps + 2 + REGULAR_TRAPS] if v > 0]
        clocks = self.CLOCKS
        return {
            "size": self.board_size,
            "filled": cells(self.FILLED),
            "rocks": cells(self.ROCK),
            "empty": cells(self.EMPTY),
            "gems": gems,
            "legal": cells(self.LEGAL),
            "poisoned": cells(self.POISONED),
            "to_act": {0: "me", 1: "opponent", None: None}[to_act],
            "phase": PHASE_NAMES[phase] if phase is not None else None,
            "seeder": bool(vec[self.SEEDER] > 0.5),
            "choice": {None: None, STAY: "stay", SWAP: "swap"}[choice],
            "my_tokens": tokens(self.MY_TOKENS),
            "their_tokens": tokens(self.THEIR_TOKENS),
            "last_sprung": (sprung[0], "me" if by == 0 else "opponent") if sprung else None,
            "ready_traps": int(round(vec[traps] * REGULAR_TRAPS)),
            "extra_traps": int(round(vec[traps + 1] * MAX_EXTRA)),
            "recharging": recharge,
            "my_trap": trap[0] if trap else None,
            "result": {0: "won", 1: "lost", None: None}[result],
            "my_time": int(round(vec[clocks] * self.limit)) if vec[clocks + 2] > 0.5 else None,
            "their_time": int(round(vec[clocks + 1] * self.limit)) if vec[clocks + 3] > 0.5 else None,
            "lines": LINES[int(np.argmax(vec[self.RULES:self.RULES + 3]))],
            "traps": bool(vec[self.RULES + 3] > 0.5),
            "rocks_on": bool(vec[self.RULES + 4] > 0.5),
            "gems_on": bool(vec[self.RULES + 5] > 0.5),
            "time_limit": bool(vec[self.RULES + 6] > 0.5),
        }


__all__ = ["FillObserver", "token_slots", "SEED", "CHOOSE", "TOKEN", "TRAP_PHASE", "FILL", "FILL2", "bits"]
