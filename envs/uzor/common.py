"""What every part of Uzor shares: the tiles, the phases of a turn, the action numbering.

A tile type is ``motif * 5 + colour`` (0…24). Cell codes on the table (``board``): ``EMPTY``
(-1), an open tile's type (0…24), or a stone ``STONE + type`` (25…49: the face-down tile
remembers what it was, as every player does).
"""

from __future__ import annotations

from envs.uzor.patterns import MAP_SIZE

MOTIFS = ("cedar", "sun", "wave", "bird", "star")
COLOURS = ("crimson", "azure", "emerald", "amber", "ivory")
TYPES = len(MOTIFS) * len(COLOURS)  # 25
COPIES = 3  # tiles of each type
TILES = TYPES * COPIES  # 75
HAND = 5  # hand slots
MARKET = 5  # market slots
DEALT = 2 * HAND + MARKET + 1  # the deal: both hands, the market and the centre tile (16)
SUPPLY_MAX = TILES - DEALT  # 59: the supply never holds more (a dead end adds one and takes one)
EMPTY = -1
STONE = TYPES  # a stone's code is STONE + its tile type
IDLE_LIMIT = 20  # the game ends when none of the last 20 turns had a placement

# The phases of a turn (``PHASES`` names them in snapshots and observations).
PLACE, FORK, TAKE, DISCARD, DEAD_TAKE, PASS, OVER = range(7)
PHASES = ("place", "fork", "take", "discard", "dead_take", "pass", "over")


def tile_name(t: int) -> str:
    """``"cedar/azure"``."""
    return f"{MOTIFS[t // 5]}/{COLOURS[t % 5]}"


class ActionLayout:
    """The action numbers on a table of ``cells`` cells: PLACE slot ``s`` at ``cell`` is
    ``s * cells + cell``; then CLOSE ``k`` for each pattern, CONTINUE, TAKE ``m`` for each
    market slot, DISCARD ``s`` for each hand slot, PASS."""

    def __init__(self, cells: int):
        self.close0 = HAND * cells
        self.cont = self.close0 + MAP_SIZE
        self.take0 = self.cont + 1
        self.discard0 = self.take0 + MARKET
        self.pass_ = self.discard0 + HAND
        self.num_actions = self.pass_ + 1

    @staticmethod
    def count(cells: int) -> int:
        """How many actions a table of ``cells`` cells has (``5 * cells + 27``)."""
        return HAND * cells + MAP_SIZE + 1 + MARKET + HAND + 1
