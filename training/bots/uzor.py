"""Uzor's bots, search hooks and ladders, as the game's ``KIT``.

The parts, one module each:

* ``training.bots.uzor_simple`` — what the bots share (a position from an observation through
  the game's one route, ``envs.uzor.sampling.read_position``), ``closer`` and ``greedy``;
* ``training.bots.uzor_heuristic`` — ``heuristic``, which prices placements, closes, takes and
  discards, and ``thorough``, the same pricing every legal placement;
* ``training.bots.uzor_scan`` — the fast scan for placements that complete a pattern;
* ``training.bots.uzor_search`` — the search hooks built on it (preferred moves, the root's
  candidates, the evaluation of a cut-off play-out).
"""

from __future__ import annotations

from training.bots import BotKit, LadderSpec, SearchHooks
from training.bots.uzor_heuristic import HeuristicUzorBot, ThoroughUzorBot
from training.bots.uzor_scan import best_completion, completing_placements
from training.bots.uzor_search import ROOT_CANDIDATES, evaluate_state, preferred_actions, root_preferred_actions
from training.bots.uzor_simple import CloserBot, GreedyBot

__all__ = [
    "KIT", "ROOT_CANDIDATES", "CloserBot", "GreedyBot", "HeuristicUzorBot", "ThoroughUzorBot", "best_completion",
    "completing_placements", "evaluate_state", "preferred_actions", "root_preferred_actions",
]

KIT = BotKit(
    heuristic=HeuristicUzorBot,
    others={"greedy": GreedyBot, "closer": CloserBot, "thorough": ThoroughUzorBot},
    search=SearchHooks(preferred=preferred_actions, root_preferred=root_preferred_actions, evaluate=evaluate_state),
    ladders=(
        LadderSpec({}, mcts=":depth=1:c=0.2", top_games=40,
                   note="default 21×21 table; play-outs cut after 1 move and scored by the game's evaluation"),
        LadderSpec({"board_size": 9}, mcts=":depth=1:c=0.2", trained="checkpoints/uzor/uzor_9x9__maskppo__0.zip",
                   climb=False, place_against=2, note="where the shipped 9×9 agent stands"),
    ),
)
