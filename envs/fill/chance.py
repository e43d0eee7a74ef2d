"""Fill's chance nodes, as OpenSpiel models chance: rocks before the seed, gems right after it.

* **Rocks** (``rocks=True``): the game starts in the ``"rocks"`` phase, one chance node per
  rock. An outcome is a cell id ``0 … size²−1``: a rock lands there. Random rocks: ``size − 3``
  nodes, each uniform over the cells not yet a rock (so the rocks are a uniform set of distinct
  cells). Scripted (``rock_cells``): one node per scripted cell, in the script's order (a
  repeated cell counts once), each offering that cell alone with probability 1.
* **Gems** (``gems=True``): right after the seed the game is in the ``"gems"`` phase, one chance
  node per gem. An outcome is ``kind * size² + cell`` (kind 0 Double, 1 Pass, 2 Trap): a gem of
  that kind appears on the cell. The *open* cells are the empty non-rock cells that do not touch
  the seed and can still be filled. Random gems: ``min(3, open cells)`` nodes, each uniform over
  the open cells not yet holding a gem times the kinds (Double, Pass, and Trap with traps on):
  cells uniform without repeats, kinds uniform and independent. Scripted (``gem_cells``): the
  script's gems in list order, skipping one that is not on an open cell or whose cell already
  holds a gem; each node offers the next one alone with probability 1.

The state holds only the past (rocks and gems placed so far); what is still to be drawn
follows from the options and the board. :class:`FillChance` is a mixin of
:class:`envs.fill.rules.FillGame`.
"""

from __future__ import annotations

from typing import Any

from envs.core.bits import set_bits as bits
from envs.fill.board import settle_chains
from envs.fill.facts import CHOOSE, GEM_COUNT, GEMS, KIND_NAMES, KIND_TITLES, ROCKS, SEED


def rock_target(options: dict[str, Any]) -> int:
    """How many rocks a game with these options has."""
    if not options["rocks"]:
        return 0
    scripted = options["rock_cells"]
    return len(scripted) if scripted is not None else options["size"] - 3


def gem_kinds(options: dict[str, Any]) -> int:
    """Gem kinds in play: Double and Pass, and Trap when traps are on."""
    return 3 if options["traps"] else 2


class FillChance:
    """Chance nodes of a :class:`~envs.fill.rules.FillGame` (see the module docstring)."""

    # ----- facts that depend on the options -------------------------------------------------------
    @classmethod
    def max_chance_outcomes_for(cls, options: dict[str, Any]) -> int:
        """Distinct outcome ids: ``kinds * size²`` with gems (a gem's kind and cell), else
        ``size²`` with rocks (a rock's cell), else 0."""
        n = options["size"] ** 2
        if options["gems"]:
            return gem_kinds(options) * n
        return n if options["rocks"] else 0

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        """A true upper bound on the player actions of a game (chance outcomes not counted).

        The seed and the choice are 2 actions; a turn takes at most one action per phase (token,
        trap, fill, second fill). A turn either fills a cell (at most ``size² − 1`` of them
        after the seed), is a Pass (one token each) or is cut short by a sprung trap. A player
        sets at most 2 regular traps in any 3 of their own turns, plus one per Trap token, so
        over ``T`` turns in all at most ``2(T + 4)/3`` plus the tokens spring; with ``G`` gems
        in the game, ``T ≤ 3(size² − 1 + G) + 8`` (without traps ``T ≤ size² − 1 + G``)."""
        n = options["size"] ** 2
        gems = 0
        if options["gems"]:
            script = options["gem_cells"]
            gems = GEM_COUNT if script is None else len(script)
        fills = n - 1
        turns = 3 * (fills + gems) + 8 if options["traps"] else fills + gems
        per_turn = 1 + bool(options["traps"]) + 2 * bool(gems)  # fill; trap; token and second fill
        return 2 + per_turn * turns

    # ----- the nodes --------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every outcome of this chance node with its probability (they sum to 1); with a
        scripted option, the scripted outcome alone with probability 1."""
        if self.phase == ROCKS:
            scripted = self.options["rock_cells"]
            if scripted is not None:
                return [(scripted[self.rock.bit_count()], 1.0)]
            free = bits(self.geo.full & ~self.rock)
            p = 1.0 / len(free)
            return [(cell, p) for cell in free]
        if self.phase == GEMS:
            scripted = self._scripted_gems()
            if scripted is not None:
                cell, kind = scripted[len(self.gems)]
                return [(kind * self.n + cell, 1.0)]
            cells = [c for c in self._open_gem_cells() if c not in self.gems]
            kinds = gem_kinds(self.options)
            p = 1.0 / (len(cells) * kinds)
            n = self.n
            return [(kind * n + cell, p) for kind in range(kinds) for cell in cells]
        return super().chance_outcomes()  # the base class says no chance node is here

    def _chance_legal(self) -> list[int]:
        return sorted(outcome for outcome, _ in self.chance_outcomes())

    def _is_outcome(self, outcome: int) -> bool:
        """Whether ``outcome`` can happen at this chance node (without listing them all)."""
        n = self.n
        if self.phase == ROCKS:
            scripted = self.options["rock_cells"]
            if scripted is not None:
                return outcome == scripted[self.rock.bit_count()]
            return 0 <= outcome < n and not self.rock >> outcome & 1
        scripted = self._scripted_gems()
        if scripted is not None:
            cell, kind = scripted[len(self.gems)]
            return outcome == kind * n + cell
        kind, cell = divmod(outcome, n)
        return 0 <= kind < gem_kinds(self.options) and cell in self._open_gem_chains() and cell not in self.gems

    def _apply_chance(self, outcome: int) -> None:
        if self.phase == ROCKS:
            self.rock |= 1 << outcome
            if self.rock.bit_count() == rock_target(self.options):
                self.phase = SEED
            return
        kind, cell = divmod(outcome, self.n)
        self.gems[cell] = kind
        self.witness[cell] = self._open_gem_chains()[cell]
        if not self._gems_to_come():
            self.phase = CHOOSE

    # ----- what the gem nodes draw from -----------------------------------------------------------
    def _open_gem_cells(self) -> tuple[int, ...]:
        """The cells a gem may appear on, ascending: empty, not rock, not touching the seed,
        and can still be filled (decided on the board right after the seed; gems change
        nothing on it)."""
        return tuple(self._open_gem_chains())

    def _open_gem_chains(self) -> dict[int, int]:
        """The open cells (ascending) with a filling chain each, found once and kept in
        ``gem_open`` until the choice (the board holds the seed alone until then)."""
        if self.gem_open is None:
            geo, seed, rock = self.geo, self.seed_cell, self.rock
            # The chains of the board without rocks that avoid the rocks still work; the
            # cells left are settled on the real board (its search starts from those chains).
            table = geo.seed_chains(seed)
            chains, unsure = {}, []
            for cell, choices in table.items():
                for chain in choices:
                    if not chain & rock:
                        chains[cell] = chain
                        break
                else:
                    if not rock >> cell & 1:
                        unsure.append(cell)
            if unsure:
                hopeless = geo.full & ~sum(1 << cell for cell in table)  # no chain even without rocks
                settle_chains(geo, rock | hopeless, self.filled, self.touch, self.poison, chains, unsure)
            near = geo.nbr[seed] | self.filled
            self.gem_open = {c: chains[c] for c in sorted(chains) if not near >> c & 1}
        return self.gem_open

    def _scripted_gems(self) -> list[tuple[int, int]] | None:
        """The gems a ``gem_cells`` script places, in order, as ``(cell, kind)``: its entries
        on open cells, each cell's first only (``None`` without a script)."""
        script = self.options["gem_cells"]
        if script is None:
            return None
        open_cells, placed, out = set(self._open_gem_cells()), set(), []
        for cell, name in script:
            if cell in open_cells and cell not in placed:
                placed.add(cell)
                out.append((cell, KIND_NAMES.index(name)))
        return out

    def _gem_target(self) -> int:
        """How many gems the gem nodes place in all."""
        scripted = self._scripted_gems()
        if scripted is not None:
            return len(scripted)
        return min(GEM_COUNT, len(self._open_gem_cells()))

    def _gems_to_come(self) -> bool:
        return len(self.gems) < self._gem_target()

    # ----- words ----------------------------------------------------------------------------------
    def _chance_name(self, outcome: int) -> str:
        if self.phase == ROCKS:
            if not 0 <= outcome < self.n:
                raise ValueError(f"outcome {outcome} does not exist at a rock node: outcomes are cells 0…{self.n - 1}")
            return f"rock {self._name(outcome)}"
        kinds = gem_kinds(self.options)
        if not 0 <= outcome < kinds * self.n:
            raise ValueError(f"outcome {outcome} does not exist at a gem node: outcomes are 0…{kinds * self.n - 1}")
        kind, cell = divmod(outcome, self.n)
        return f"{KIND_NAMES[kind]} gem {self._name(cell)}"

    def _chance_problem(self, outcome: int) -> str | None:
        """Why ``outcome`` cannot happen at this chance node (``None`` when it can)."""
        if self._is_outcome(outcome):
            return None
        n = self.n
        if self.phase == ROCKS:
            if not 0 <= outcome < n:
                return f"a rock lands on a cell: outcomes are cells 0…{n - 1}"
            if self.options["rock_cells"] is not None:
                return f"the rocks are scripted (rock_cells): the next one is {self._chance_name(self.chance_outcomes()[0][0])}"
            return f"{self._name(outcome)} is already a rock"
        kinds = gem_kinds(self.options)
        if not 0 <= outcome < kinds * n:
            return f"a gem outcome is kind × {n} + cell, 0…{kinds * n - 1} (kinds: {', '.join(KIND_NAMES[:kinds])})"
        if self._scripted_gems() is not None:
            return f"the gems are scripted (gem_cells): the next one is {self._chance_name(self.chance_outcomes()[0][0])}"
        kind, cell = divmod(outcome, n)
        name = self._name(cell)
        bit = 1 << cell
        if self.rock & bit:
            return f"{name} is a rock: no gem appears there"
        if self.filled & bit:
            return f"{name} is the seed: no gem appears there"
        if self.geo.nbr[self.seed_cell] & bit:
            return f"{name} touches the seed: no gem appears there"
        if cell in self.gems:
            return f"{name} already holds a {KIND_TITLES[self.gems[cell]]} gem"
        return f"{name} can no longer be filled: no gem appears there"


__all__ = ["FillChance", "gem_kinds", "rock_target"]
