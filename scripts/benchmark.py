"""Steps per second of every game, as ratios against PettingZoo classic measured in the same run.

    python scripts/benchmark.py            # every game, every benchmark option set
    python scripts/benchmark.py --games linecatch loom --seconds 1

For each game and each option set its description lists in ``benchmark_options``:

* engine: random legal play straight on the rules engine (``legal_actions`` + ``apply``, no
  observation), new games started as old ones end; chance nodes are resolved by their
  probabilities as the env resolves them, and only player actions are counted;
* aec: the full wrapped env (``env()``): ``last()`` (observe + mask), a random legal action
  from the mask, ``step``; ``reset`` when a game ends;
* clone: microseconds per ``game.clone()`` of a mid-game state.

``--jax`` times the JAX engines instead (``envs.make_jax``, ``docs/jax.md``): random play with
Pgx's ``auto_reset`` at batch 1, 64 and 1,024, 64 steps per compiled call, steps per second
counted over every game of the batch (compile time shown apart), beside Pgx's ``connect_four``
in the same harness, measured again just before each row (the ratio divides by that).

``--self-play`` times self-play: positions per second of the Gumbel AlphaZero job on the JAX
engines (``training.gumbel``: one compiled call of ``--games`` 256 games × 32 decisions) beside
the search-and-learn job of ``training.alphazero`` (its two self-play worker processes, 16 games
at once each), at the same network size (32 filters × 2 blocks, random weights: the cost does
not depend on what the network knows) and the same simulations (16; 16 actions considered).
The JAX job counts every decision; the Python job records the decisions with more than one
legal move, and every position it searches is counted here.

``--search`` times MCTS, sampling and clone on each game's ladder settings; ``--network`` times
each game's shipped network (``training.agents.network``) on a batch of 1 and of 16 of its planes, with
the reference convolution (a reshaped sliding-window view, the textbook im2col) in the same run,
and the observer's planes for the same batch from the flat vectors (what a network agent adds
to each call).

References, same loop, same run: PettingZoo ``connect_four_v3`` and ``tictactoe_v3`` AEC steps
per second (connect-four measured again beside each row: the row's ratios divide by that), and
``copy.deepcopy`` of a connect-four raw env. Not part of the tests: timings
belong in reports, not in assertions.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from pathlib import Path

import numpy as np

# Measure the code of the tree this script lives in (a checkout or a worktree), whatever is
# installed: the editable install would otherwise put another checkout first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402
from envs.core.game import CHANCE, draw_outcome  # noqa: E402
from training.bots import bot_kit  # noqa: E402


def aec_steps_per_second(make_env, seconds: float, seed: int = 0) -> float:
    env = make_env()
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while True:
        for _ in range(200):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            steps += 1
        if time.perf_counter() > deadline:
            break
    return steps / (time.perf_counter() - started)


def engine_steps_per_second(module, options: dict, seconds: float, seed: int = 0) -> float:
    game_cls = module.GAME.engine
    resolved = game_cls.resolve_options(dict(options))
    rng = random.Random(seed)
    game = game_cls(resolved, random.Random(rng.getrandbits(64)))
    steps = 0
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    choice = rng.choice
    while True:
        for _ in range(500):
            if game.is_terminal():
                game = game_cls(resolved, random.Random(rng.getrandbits(64)))
            if game.current_player() == CHANCE:  # drawn as the env draws it, not counted
                game.apply(draw_outcome(game.chance_outcomes(), rng))
                continue
            game.apply(choice(game.legal_actions()))
            steps += 1
        if time.perf_counter() > deadline:
            break
    return steps / (time.perf_counter() - started)


def clone_microseconds(module, options: dict, seed: int = 0) -> float:
    game_cls = module.GAME.engine
    rng = random.Random(seed)
    game = game_cls(game_cls.resolve_options(dict(options)), random.Random(seed))
    for _ in range(10):  # a mid-game position
        if game.is_terminal():
            break
        game.apply(rng.choice(game.legal_actions()))
    count = 2000
    started = time.perf_counter()
    for _ in range(count):
        game.clone()
    return (time.perf_counter() - started) / count * 1e6


def deepcopy_reference_microseconds() -> float:
    from pettingzoo.classic import connect_four_v3

    raw = connect_four_v3.raw_env()
    raw.reset(seed=0)
    count = 500
    started = time.perf_counter()
    for _ in range(count):
        copy.deepcopy(raw)
    return (time.perf_counter() - started) / count * 1e6


def search_speed(name: str, positions: int = 5, simulations: int = 200, seed: int = 0) -> tuple[float, float, float]:
    """MCTS on the game's first ladder's options and settings (its bot kit's ``ladders``):
    simulations per second over a few mid-game positions, and µs per sampled state and per
    clone there."""
    from training.search.mcts import MCTSAgent, parse_mcts_spec

    description = envs.describe(name)
    spec = bot_kit(description).ladders[0]
    module = envs.load(name)
    sampling = description.sampling
    rng = random.Random(seed)
    searched = spent = sample_us = clone_us = 0.0
    for index in range(positions):
        env = module.raw_env(**spec.options)
        env.reset(seed=seed + index)
        for _ in range(rng.randrange(4, 16)):
            if env.game.is_terminal():
                break
            env.step(rng.choice(env.game.legal_actions()))
        if env.game.is_terminal():
            continue
        seen = env.observe(env.possible_agents[env.game.current_player()])
        agent = MCTSAgent(name, seed=index, **{**parse_mcts_spec("mcts:1" + spec.mcts), "simulations": simulations}, **spec.options)
        started = time.perf_counter()
        agent.search(seen)
        spent += time.perf_counter() - started
        searched += simulations
        draw = sampling.sampler(seen, spec.options)
        started = time.perf_counter()
        states = [draw(rng) for _ in range(500)]
        sample_us += (time.perf_counter() - started) / 500 * 1e6
        started = time.perf_counter()
        for _ in range(500):
            states[0].clone()
        clone_us += (time.perf_counter() - started) / 500 * 1e6
    return searched / spent, sample_us / positions, clone_us / positions


def sliding_window_conv3x3(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """The reference 'same' 3×3 convolution: im2col by reshaping a sliding-window view."""
    from numpy.lib.stride_tricks import sliding_window_view

    n, h, w, c = x.shape
    windows = sliding_window_view(np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))), (3, 3), axis=(1, 2))
    out = windows.reshape(n * h * w, c * 9) @ weight.reshape(weight.shape[0], -1).T + bias
    return out.reshape(n, h, w, weight.shape[0])


def network_milliseconds(name: str, seconds: float) -> list[tuple[str, int, float, float, float]]:
    """``(tower, batch, ms a call, ms a call with the reference convolution, ms of the planes)``
    for the game's shipped network at its default options, on real planes from random play."""
    from unittest import mock

    from training.agents import network
    from training.agents.files import load_network
    from training.agents.manifest import resolve

    net, _ = load_network(resolve(name, {}, "net"))
    env = envs.load(name).raw_env()
    env.reset(seed=0)
    rng = random.Random(0)
    vectors = []
    while len(vectors) < 16:
        if env.game.is_terminal():
            env.reset(seed=len(vectors))
        vectors.append(np.asarray(env.observe(env.agent_selection)["observation"], np.float32))
        env.step(rng.choice(env.game.legal_actions()))
    planes = env.observer.planes(np.stack(vectors))
    # the reference multiplies by the torch-shaped weight each prepared matrix came from
    weight_of = {id(matrix): net.weights[key] for key, matrix in net.conv_matrices.items()}

    def timed(batch: np.ndarray, call=net.forward) -> float:
        calls, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds / 4:
            call(batch)
            calls += 1
        return (time.perf_counter() - started) / calls * 1e3

    rows = []
    for batch in (1, 16):
        ours = timed(planes[:batch])
        with mock.patch.object(network, "conv3x3", lambda x, m, b: sliding_window_conv3x3(x, weight_of[id(m)], b)):
            theirs = timed(planes[:batch])
        built = timed(np.stack(vectors[:batch]), env.observer.planes)
        rows.append((f"{net.architecture.filters}×{net.architecture.blocks}", batch, ours, theirs, built))
    return rows


JAX_BATCHES = (1, 64, 1024)
JAX_EXTRA_OPTIONS = {"fill_v0": {"traps+rocks": {"traps": True, "rocks": True},
                                 "size8 strict traps+rocks": {"size": 8, "lines": "strict", "traps": True, "rocks": True}}}


def jax_random_play(env, batch: int, seconds: float, steps: int = 64) -> tuple[float, float]:
    """Steps per second of random legal play over a batch of games with Pgx's ``auto_reset``
    (``steps`` a compiled call), and the seconds the first call took to compile and run."""
    import jax
    import jax.numpy as jnp
    from pgx.experimental import auto_reset

    step = jax.vmap(auto_reset(env.step, env.init))

    def body(carry, _):
        state, key = carry
        key, pick, resolve = jax.random.split(key, 3)
        # uniform over the legal actions from one number per game (a categorical would draw one
        # per action, and the harness would then cost more for games with more actions)
        mask = state.legal_action_mask
        count = mask.sum(axis=-1)
        nth = jnp.floor(jax.random.uniform(pick, count.shape) * count).astype(jnp.int32)
        action = jnp.argmax(jnp.cumsum(mask, axis=-1) > nth[:, None], axis=-1)
        return (step(state, action, jax.random.split(resolve, batch)), key), None

    run = jax.jit(lambda state, key: jax.lax.scan(body, (state, key), None, length=steps)[0])
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), batch))
    begun = time.perf_counter()
    carry = jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
    compile_seconds = time.perf_counter() - begun
    calls, begun = 0, time.perf_counter()
    while time.perf_counter() - begun < seconds:
        carry = run(*carry)
        calls += 1
        jax.block_until_ready(carry)
    return batch * steps * calls / (time.perf_counter() - begun), compile_seconds


def jax_option_sets(name: str) -> dict[str, dict]:
    """The game's benchmark option sets that its JAX engine takes, and any JAX-only ones."""
    sets = {}
    for label, options in {**envs.describe(name).benchmark_options, **JAX_EXTRA_OPTIONS.get(name, {})}.items():
        try:
            envs.make_jax(name, **options)
        except ValueError:
            continue  # an option the JAX engine refuses (real-time clocks, gems)
        sets[label] = options
    return sets


def jax_table(names: list[str], seconds: float) -> None:
    import jax
    import pgx

    connect_four = pgx.make("connect_four")
    print(f"JAX {jax.__version__} on {jax.devices()[0].platform} ({jax.devices()[0].device_kind}); random play, "
          "Pgx auto_reset, 64 steps a compiled call; steps/s over the whole batch; ÷ c4 divides by Pgx "
          "connect_four measured in the same harness just before the row\n")
    print("| game | options | batch | steps/s | Pgx connect_four steps/s | ÷ c4 | compile s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in names:
        if name not in envs.jax_games():
            continue
        for label, options in jax_option_sets(name).items():
            env = envs.make_jax(name, **options)
            for batch in JAX_BATCHES:
                beside, _ = jax_random_play(connect_four, batch, seconds)
                ours, compiled = jax_random_play(env, batch, seconds)
                print(f"| {name} | {label} | {batch:,} | {ours:,.0f} | {beside:,.0f} | {ours / beside:.2f}× | {compiled:.1f} |",
                      flush=True)


SELF_PLAY_GAMES = {"linecatch_v0": {}, "loom_v0": {}, "fill_v0": {}}


def jax_self_play_positions(name: str, options: dict, seconds: float, simulations: int = 16) -> float:
    import jax

    from training.agents.network import Architecture
    from training.jobs.gumbel.job import GumbelConfig, build
    from training.jobs.gumbel.network import PolicyValueNet

    config = GumbelConfig(game=name, options=options, games=256, moves=32, simulations=simulations, considered=16)
    env = envs.make_jax(name, **options)
    layout = env.observer.policy_layout()
    net = PolicyValueNet(Architecture(tuple(env.planes_shape), 32, 2, layout.cell_channels, layout.global_actions,
                                      env.num_players), jax.random.PRNGKey(0))
    self_play = build(config, env, 1.0).self_play
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), config.games))
    state, key, trajectory = self_play(net, state, jax.random.PRNGKey(1))  # compile
    jax.block_until_ready(trajectory)
    calls, begun = 0, time.perf_counter()
    while time.perf_counter() - begun < seconds or calls == 0:
        state, key, trajectory = self_play(net, state, key)
        jax.block_until_ready(trajectory)
        calls += 1
    return calls * config.games * config.moves / (time.perf_counter() - begun)


def python_self_play_positions(name: str, options: dict, simulations: int = 16, games: int = 16) -> float:
    from profile_self_play import task_for

    from training.jobs.alphazero.self_play import Workers, play_games

    workers = Workers(2, None)
    try:
        tasks = []
        for worker in range(2):
            task = task_for(name, options, simulations, games, 32, 2)
            task["seeds"] = [worker * games + seed for seed in range(games)]
            tasks.append(task)
        begun = time.perf_counter()
        results = workers.map(play_games, tasks)
        elapsed = time.perf_counter() - begun
    finally:
        workers.close()
    return sum(len(record.vectors) for result in results for record in result["records"]) / elapsed


def self_play_table(names: list[str], seconds: float) -> None:
    print("| game | options | JAX Gumbel job positions/s | Python AlphaZero job positions/s | ratio |")
    print("|---|---|---:|---:|---:|")
    for name in names:
        if name not in SELF_PLAY_GAMES:
            continue
        options = SELF_PLAY_GAMES[name]
        ours = jax_self_play_positions(name, options, seconds)
        theirs = python_self_play_positions(name, options)
        print(f"| {name} | {options or 'default'} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.1f}× |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=None, help="games to time (default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    parser.add_argument("--search", action="store_true", help="time MCTS, sampling and clone instead (ladder options)")
    parser.add_argument("--network", action="store_true", help="time each shipped network's forward pass instead")
    parser.add_argument("--jax", action="store_true", help="time the JAX engines beside Pgx connect_four instead")
    parser.add_argument("--self-play", action="store_true",
                        help="time the JAX Gumbel job's self-play beside the Python AlphaZero job's instead")
    args = parser.parse_args()
    names = envs.GAMES if not args.games else [envs.canonical_name(g) for g in args.games]
    if args.jax:
        jax_table(names, args.seconds)
        return
    if args.self_play:
        sys.path.insert(0, str(Path(__file__).resolve().parent))  # profile_self_play's task, as that script builds it
        self_play_table(names, args.seconds)
        return
    if args.network:
        print("| game | tower | batch | ms a call | reference ms | speed-up | planes ms | planes ÷ call |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name in names:
            for tower, batch, ours, theirs, built in network_milliseconds(name, args.seconds):
                print(f"| {name} | {tower} | {batch} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.1f}× | "
                      f"{built:.2f} | {built / ours:.1f}× |", flush=True)
        return
    if args.search:
        print(f"reference copy.deepcopy(connect_four_v3 raw env): {deepcopy_reference_microseconds():.1f} µs\n")
        print("| game | options | MCTS settings | simulations/s | sampled state µs | clone µs |")
        print("|---|---|---|---:|---:|---:|")
        for name in names:
            spec = bot_kit(name).ladders[0]
            sims, sample, clone = search_speed(name)
            print(f"| {name} | {spec.options or 'default'} | mcts{spec.mcts or ''} | {sims:,.0f} | {sample:.1f} | {clone:.1f} |", flush=True)
        return

    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    c4 = aec_steps_per_second(connect_four_v3.env, args.seconds)
    ttt = aec_steps_per_second(tictactoe_v3.env, args.seconds)
    deep = deepcopy_reference_microseconds()
    print(f"reference connect_four_v3 AEC: {c4:,.0f} steps/s   tictactoe_v3 AEC: {ttt:,.0f} steps/s")
    print(f"reference copy.deepcopy(connect_four_v3 raw env): {deep:.1f} µs\n")
    print("(each row's ÷ c4 divides by connect_four_v3 measured again just before that row, so that a")
    print(" change of the machine's load during the run moves both sides of a ratio alike)\n")
    print("| game | options | engine steps/s | engine ÷ c4 | AEC steps/s | AEC ÷ c4 | AEC ÷ ttt | clone µs | c4 beside |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        module = envs.load(name)
        option_sets = module.GAME.benchmark_options
        for label, options in option_sets.items():
            beside = aec_steps_per_second(connect_four_v3.env, args.seconds)
            engine = engine_steps_per_second(module, options, args.seconds)
            aec = aec_steps_per_second(lambda: module.env(**options), args.seconds)
            clone = clone_microseconds(module, options)
            print(
                f"| {name} | {label} | {engine:,.0f} | {engine / beside:.1f}× | {aec:,.0f} | "
                f"{aec / beside:.2f}× | {aec / ttt:.2f}× | {clone:.1f} | {beside:,.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
