"""The observation vector decodes back to the game's public facts and the seat's own traps."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from envs.fill.observer import FillObserver
from envs.fill.rules import KIND_NAMES, OVER, PHASE_NAMES, FillGame, bits


@pytest.mark.parametrize("options", [
    {"traps": True, "gems": True, "rocks": True},
    {"size": 8, "lines": "strict", "traps": True, "gems": True},
    {"size": 7, "lines": "off", "gems": True, "time_limit": True},
])
def test_decode_matches_the_game(options):
    resolved = FillGame.resolve_options(options)
    observer = FillObserver(resolved)
    for seed in range(15):
        game = FillGame(resolved, random.Random(seed))
        rng = random.Random(seed)
        while True:
            for player in (0, 1):
                vec = observer.observe(game, player)
                assert vec.shape == (observer.size,) and vec.dtype == np.float32
                assert vec.min() >= 0.0 and vec.max() <= 1.0
                view = observer.decode(vec)
                assert view["filled"] == bits(game.filled) and view["rocks"] == bits(game.rock)
                assert view["legal"] == game.legal_cells() and view["poisoned"] == game.poisoned_cells()
                assert view["gems"] == {c: KIND_NAMES[k] for c, k in game.gems.items()}
                assert sorted(view["my_tokens"]) == sorted((KIND_NAMES[k], left) for k, left, _ in game.tokens[player])
                assert sorted(view["their_tokens"]) == sorted((KIND_NAMES[k], left) for k, left, _ in game.tokens[1 - player])
                assert view["seeder"] == (player == 0)
                if game.phase == OVER:
                    assert view["to_act"] is None and view["phase"] is None
                    assert view["result"] == ("won" if game.winner == player else "lost")
                elif game.is_chance_node():  # rocks or gems being placed: nobody acts
                    assert view["to_act"] is None and view["phase"] is None and view["result"] is None
                elif game.to_move == player:
                    assert view["to_act"] == "me" and view["phase"] == PHASE_NAMES[game.phase]
                else:
                    assert view["to_act"] == "opponent" and view["phase"] is None
                if resolved["traps"]:
                    assert view["ready_traps"] == game.ready_regular(player)
                    assert view["extra_traps"] == min(3, game.extra[player])
                    assert view["recharging"] == game.recharge_counts(player)
                    trap = game.live_trap[player]
                    assert view["my_trap"] == (trap if trap >= 0 else None)
                if game.last_sprung:
                    cell, owner = game.last_sprung
                    assert view["last_sprung"] == (cell, "me" if owner == player else "opponent")
                if resolved["time_limit"]:
                    assert view["my_time"] == math.ceil(game.time_left[player])
            if game.is_terminal():
                break
            game.apply(rng.choice(game.legal_actions()))
