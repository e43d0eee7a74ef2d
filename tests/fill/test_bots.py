"""Fill bots: legal in every phase and setting, and the heuristic beats random."""

from __future__ import annotations

import pytest

from envs import fill_v0
from training import bot_table, load_agent
from training.bots.fill import Board, FillHeuristicBot, Solver
from envs.fill.positions import position


def play(options, seed, specs):
    env = fill_v0.env(**options)
    env.reset(seed=seed)
    agents = {f"player_{i}": load_agent(spec, "fill_v0", seed=seed + i, **options) for i, spec in enumerate(specs)}
    results, phases = {}, set()
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            results[name] = reward
            env.step(None)
            continue
        phases.add(env.unwrapped.game.phase)
        action = agents[name].act(obs)
        assert obs["action_mask"][action] == 1, "bots only play legal actions"
        env.step(action)
    assert "illegal_action" not in env.unwrapped.infos.get("player_0", {})
    return results, phases


def test_bot_table():
    table = bot_table("fill_v0")
    assert set(table) >= {"random", "heuristic"} and table["heuristic"] is FillHeuristicBot


@pytest.mark.parametrize("options", [
    {}, {"lines": "strict", "rocks": True}, {"lines": "off", "size": 7},
    {"traps": True, "gems": True, "rocks": True}, {"size": 8, "traps": True, "gems": True, "lines": "strict"},
])
def test_heuristic_beats_random_in_every_setting(options):
    wins = 0
    games = 8
    all_phases = set()
    for seed in range(games):
        for seat in (0, 1):
            specs = ["heuristic", "random"] if seat == 0 else ["random", "heuristic"]
            results, phases = play(options, seed, specs)
            all_phases |= phases
            wins += results[f"player_{seat}"] > 0
    assert wins >= 0.7 * 2 * games, wins
    if options.get("traps"):
        assert 3 in all_phases  # the trap phase was played


def test_heuristic_against_itself_finishes():
    for seed in range(3):
        results, _ = play({"traps": True, "gems": True, "rocks": True}, seed, ["heuristic", "heuristic"])
        assert sorted(results.values()) == [-1.0, 1.0]


def test_solver_finds_the_only_winning_fill():
    game = position("""
    # . R . . .
    . . R . . .
    R R R . . .
    . . . . . .
    . . . . . .
    . . . . . .
    """)
    board = Board.from_cells(game.geo, [c for c in range(36) if game.rock >> c & 1], [0])
    # legal b1 a2 b2; after any one, two are left and they exclude each other via the 2×2? solve
    solver = Solver()
    winning = solver.winning_fills(board)
    for cell in game.legal_cells():
        after = game.clone()
        after.apply(cell)
        # brute-force the fill-only game from the engine's own position
        assert (cell in winning) == (not _wins(after))


def _wins(game):
    if game.is_terminal():
        return False
    for cell in game.legal_actions():
        nxt = game.clone()
        nxt.apply(cell)
        if nxt.is_terminal() or not _wins(nxt):
            return True
    return False


def test_heuristic_sets_traps_and_uses_trap_tokens():
    env = fill_v0.raw_env(traps=True, gems=True)
    bot = FillHeuristicBot(seed=1, traps=True, gems=True)
    env.reset(seed=0)
    game = env.game
    env.step(game.string_to_action("c3"))
    env.step(game.n + 1)  # swap: player_0 (the bot's seat) moves
    game.tokens[0].append([2, 8, 0])
    game.phase = 2  # token phase, as the turn would have started with the token
    action = bot.act(env.observe("player_0"))
    assert action == game.n + 5  # USE_TRAP
    env.step(action)
    action = bot.act(env.observe("player_0"))
    assert action < game.n  # a trap on a cell
