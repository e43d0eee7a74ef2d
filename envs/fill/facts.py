"""Fill's fixed facts: board sizes, lifetimes, counts, phases, action numbers and names.

Every other Fill module imports these; nothing here depends on a position.
"""

from __future__ import annotations

SIZES = (6, 7, 8)
LINES = ("orthogonal", "strict", "off")
TOKEN_LIFE = {6: 8, 7: 11, 8: 14}
TIME_LIMIT = {6: 120.0, 7: 180.0, 8: 240.0}
GEM_COUNT = 3
REGULAR_TRAPS = 2
RECHARGE = 3
MIN_LEGAL_TO_SPRING = 3

DOUBLE, PASS, TRAP = 0, 1, 2
KIND_NAMES = ("double", "pass", "trap")
KIND_TITLES = ("Double", "Pass", "Trap")

# Phases. SEED and CHOOSE are not turns; TOKEN … FILL2 are the phases of a turn; ROCKS (before
# the seed) and GEMS (right after it) are chance nodes. The first six are a player's phases, in
# the order of the observation's phase one-hot.
SEED, CHOOSE, TOKEN, TRAP_PHASE, FILL, FILL2, OVER, ROCKS, GEMS = range(9)
PHASE_NAMES = ("seed", "choose", "token", "trap", "fill", "second-fill", "over", "rocks", "gems")
PLAYER_PHASES = 6  # SEED … FILL2

# Action offsets past the cells.
STAY, SWAP, NO_TOKEN, USE_DOUBLE, USE_PASS, USE_TRAP, NO_TRAP = range(7)
SPECIAL_NAMES = ("stay", "swap", "no-token", "double", "pass", "trap-token", "no-trap")
SPECIALS = len(SPECIAL_NAMES)  # actions past the cells: a game has size² + 7

AGENTS = ("player_0", "player_1")
DIRECTION_WORDS = {(0, 1): "across", (1, 0): "down", (1, 1): "diagonally", (1, -1): "diagonally"}

