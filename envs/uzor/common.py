"""What every part of Uzor shares: the tiles, the phases of a turn, the action numbering.

A tile type is ``motif * 5 + colour`` (0…24). Cell codes on the table (``board``): ``EMPTY``
(-1), an open tile's type (0…24), or a stone ``STONE + type`` (25…49: the face-down tile
remembers what it was, as every player does).

The setup, in the order its chance nodes come: player_0's secret goal, player_1's (a different
pattern), then the deal, one tile at a time from the shuffled 75: t0…t4 to player_0's hand
(they pass through the face-up market, so they are public), t5…t9 to player_1's, t10…t14 to the
market slots 0…4, t15 to the centre cell. If player_0 then has no legal placement, all the
tiles go back and the deal starts again (the goals kept).
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

# The phases (``PHASES`` names them in snapshots): a player's (the observation shows which,
# one-hot over the first ``SHOWN_PHASES``), the end, and the chance nodes — a secret goal dealt
# (GOAL), a tile dealt at the setup (DEAL), a market slot refilled from the face-down supply
# (REFILL).
PLACE, FORK, TAKE, DISCARD, DEAD_TAKE, PASS, OVER, GOAL, DEAL, REFILL = range(10)
PHASES = ("place", "fork", "take", "discard", "dead_take", "pass", "over", "goal", "deal", "refill")
SHOWN_PHASES = 7  # place … over
CHANCE_PHASES = (GOAL, DEAL, REFILL)

# Chance outcomes: drawing a tile of type t is outcome t; dealing pattern k as a goal is GOAL0 + k.
GOAL0 = TYPES
CHANCE_OUTCOMES = TYPES + MAP_SIZE  # 40 outcome ids


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
