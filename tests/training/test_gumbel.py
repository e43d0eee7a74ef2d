"""The Gumbel AlphaZero job on the JAX engines: a tiny run end to end (self-play, learning, the
agent file the suite's numpy reader plays, the progress log), --resume, and the Equinox network
equal to the numpy reader's forward pass."""

from __future__ import annotations

import csv
import json
import zipfile

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("mctx")
pytest.importorskip("equinox")

import envs  # noqa: E402
from training.agents.network import Architecture  # noqa: E402
from training.agents.network import PolicyValueNet as NumpyNet  # noqa: E402
from training.jobs.gumbel.job import main  # noqa: E402
from training.jobs.gumbel.network import PolicyValueNet, export_weights  # noqa: E402

TINY = ["--iterations", "2", "--games", "16", "--moves", "16", "--simulations", "4", "--considered", "4",
        "--filters", "8", "--blocks", "1", "--batch-size", "32", "--updates", "4", "--eval-games", "8",
        "--eval-every", "2", "--python-eval-games", "2"]


@pytest.mark.parametrize("game,options", [("linecatch", {"rows": 3, "cols": 4}), ("loom", {}),
                                          ("fill", {"traps": True})])
def test_the_equinox_network_is_the_numpy_readers(game, options):
    observer = envs.describe(game).make_observer(options)
    layout = observer.policy_layout()
    architecture = Architecture(tuple(observer.planes_shape()), 8, 2, layout.cell_channels, layout.global_actions, 2)
    net = PolicyValueNet(architecture, jax.random.PRNGKey(0))
    planes = np.random.default_rng(0).random((4,) + tuple(observer.planes_shape()), dtype=np.float32)
    ours = [np.asarray(part) for part in net(planes)]
    theirs = NumpyNet(architecture, export_weights(net), layout.index).forward(planes)
    for mine, reference in zip(ours, theirs):
        assert np.allclose(mine, reference, atol=1e-5)


def test_a_tiny_run_trains_saves_and_resumes(tmp_path):
    from training.players.load import load_agent

    folder = main(["--game", "linecatch", "--options", '{"rows": 3, "cols": 4}', "--out-dir", str(tmp_path), *TINY])
    rows = list(csv.DictReader(open(folder / "progress.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    assert float(rows[-1]["positions_per_second"]) > 0 and rows[-1]["versus_heuristic"] != ""
    assert rows[0]["versus_heuristic"] == "" and 0 <= float(rows[0]["compiled_versus_random"]) <= 1
    meta = json.loads(__import__("zipfile").ZipFile(folder / "latest.zip").read("meta.json"))
    assert meta["kind"] == "network" and meta["game"] == "linecatch_v0" and meta["iteration"] == 2
    agent = load_agent(str(folder / "best.zip"), "linecatch", rows=3, cols=4)
    env = envs.load("linecatch").raw_env(rows=3, cols=4)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation)] == 1
    searcher = load_agent(f"mcts:8:net={folder / 'latest.zip'}", "linecatch", seed=0, rows=3, cols=4)
    assert observation["action_mask"][searcher.act(observation)] == 1
    main(["--resume", str(folder), "--iterations", "3"])
    rows = list(csv.DictReader(open(folder / "progress.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2, 3]
    assert int(rows[-1]["positions"]) == 3 * 16 * 16


def test_max_minutes_stops_the_sitting_saved_and_resume_goes_on(tmp_path):
    # a deadline already passed after the first iteration: that iteration is saved as at an
    # evaluation (snapshot, state), though --eval-every would not have saved it yet
    settings = [*TINY[:TINY.index("--eval-every")], "--eval-every", "5", "--python-eval-games", "0"]
    folder = main(["--game", "linecatch", "--options", '{"rows": 3, "cols": 4}', "--out-dir", str(tmp_path),
                   *settings, "--iterations", "5", "--max-minutes", "1e-6"])
    rows = list(csv.DictReader(open(folder / "progress.csv")))
    assert [int(r["iteration"]) for r in rows] == [1]
    assert sorted(p.name for p in (folder / "snapshots").iterdir()) == ["iteration_00001.zip"]
    assert json.loads((folder / "state.json").read_text())["iteration"] == 1
    main(["--resume", str(folder)])  # no deadline this sitting: on to the run's own 5 iterations
    rows = list(csv.DictReader(open(folder / "progress.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2, 3, 4, 5]
    assert sorted(p.name for p in (folder / "snapshots").iterdir()) == ["iteration_00001.zip", "iteration_00005.zip"]


def test_games_played_to_the_end_stop_once_all_have_ended_with_the_states_of_the_full_length():
    from training.jobs.gumbel.job import play_to_the_end, random_moves

    env = envs.make_jax("linecatch", rows=3, cols=4)
    games, key = 16, jax.random.PRNGKey(3)
    longest = env.description.engine.max_game_length_for(env.options) + 1

    def full_length(key):  # the reference: every game stepped to the longest length
        def move(carry, _):
            state, key = carry
            key, pick, step_key = jax.random.split(key, 3)
            after = jax.vmap(env.step)(state, random_moves(state, pick), jax.random.split(step_key, games))
            return (after, key), after.terminated

        key, start = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(start, games))
        (state, _), ended = jax.lax.scan(move, (state, key), None, length=longest)
        return state, ended

    reference, ended = jax.jit(full_length)(key)
    assert bool(ended[-1].all()) and not bool(ended[longest // 2].all())  # some games ended early, all at the end
    stopped = jax.jit(lambda k: play_to_the_end(env, games, k, random_moves))(key)
    # rewards aside: the reference's last steps are no-ops rewarding zeros, the stopped loop's last
    # step may be the one that ended a game (the callers read the scores)
    assert not bool(reference.rewards.any())
    stopped = stopped.replace(rewards=jax.numpy.zeros_like(stopped.rewards))
    for mine, theirs in zip(jax.tree_util.tree_leaves(stopped), jax.tree_util.tree_leaves(reference)):
        assert np.array_equal(np.asarray(mine), np.asarray(theirs))


def test_init_from_goes_on_from_a_shipped_network_of_the_python_job():
    # the shipped Linecatch network was written by the Python jobs (a torch tower, folded):
    # the compiled job starts from the very function the numpy reader computes, with its tower's
    # shape and margin scale, though the job's own defaults (32 × 2) differ from its 64 × 4
    from training.agents.files import read_network_file
    from training.agents.network import architecture_from_meta
    from training.jobs.gumbel.job import GumbelRun, parse_config

    shipped = "checkpoints/linecatch/linecatch__dagger__46.zip"
    config, start = parse_config(["--game", "linecatch", "--init-from", shipped, "--games", "4"])
    meta, arrays = read_network_file(shipped)
    index = arrays.pop("policy.index")
    architecture = architecture_from_meta(meta)
    assert (config.filters, config.blocks) == (architecture.filters, architecture.blocks) != (32, 2)
    assert config.margin_scale == meta["margin_scale"] > 0
    run = GumbelRun(config, "test", start)
    planes = np.random.default_rng(1).random((3,) + architecture.planes, dtype=np.float32)
    for mine, reference in zip(run.net(planes), NumpyNet(architecture, arrays, index).forward(planes)):
        # float32 sums over a 64 x 4 tower differ by ~1e-5 in the order of operations; a wrong weight is off by far more
        assert np.allclose(np.asarray(mine), reference, rtol=1e-5, atol=1e-4)


def test_init_from_a_run_of_this_job_then_trains_on(tmp_path):
    first = main(["--game", "linecatch", "--options", '{"rows": 3, "cols": 4}', "--out-dir", str(tmp_path / "a"),
                  *TINY, "--iterations", "1", "--eval-every", "1", "--python-eval-games", "0", "--margin-scale", "2.5"])
    pairs = dict(zip(TINY[::2], TINY[1::2]))
    tiny = [part for flag, value in pairs.items() if flag not in ("--filters", "--blocks") for part in (flag, value)]
    second = main(["--game", "linecatch", "--options", '{"rows": 3, "cols": 4}', "--out-dir", str(tmp_path / "b"),
                   *tiny, "--iterations", "1", "--python-eval-games", "0", "--seed", "5",
                   "--init-from", str(first / "latest.zip")])
    saved = json.loads((second / "config.json").read_text())
    assert (saved["filters"], saved["blocks"], saved["margin_scale"]) == (8, 1, 2.5)
    assert saved["init_from"] == str(first / "latest.zip")
    meta = json.loads(zipfile.ZipFile(second / "latest.zip").read("meta.json"))
    assert meta["architecture"]["filters"] == 8 and meta["margin_scale"] == 2.5


def test_init_from_refuses_another_game_or_tower_naming_the_flag(tmp_path):
    shipped = "checkpoints/linecatch/linecatch__dagger__46.zip"
    with pytest.raises(ValueError, match="--init-from .* was trained for linecatch_v0"):
        main(["--game", "linecatch", "--options", '{"rows": 4, "cols": 4}', "--init-from", shipped])
    with pytest.raises(ValueError, match="--init-from .* was trained for linecatch_v0"):
        main(["--game", "fill", "--init-from", shipped])
    with pytest.raises(ValueError, match="--filters 16 differs from the --init-from network's 64"):
        main(["--game", "linecatch", "--init-from", shipped, "--filters", "16"])
    with pytest.raises(ValueError, match="--margin-scale 3 differs from the --init-from network's"):
        main(["--game", "linecatch", "--init-from", shipped, "--margin-scale", "3"])
    with pytest.raises(ValueError, match="--init-from .*nowhere.zip"):
        main(["--game", "linecatch", "--init-from", str(tmp_path / "nowhere.zip")])
    assert not list(tmp_path.iterdir())  # nothing written by a refused command


def test_bad_settings_name_the_flag():
    with pytest.raises(ValueError, match="--simulations"):
        main(["--simulations", "0"])


def test_bad_value_mix_and_margin_scale_name_the_flag():
    with pytest.raises(ValueError, match="--value-mix"):
        main(["--value-mix", "1.5"])
    with pytest.raises(ValueError, match="--margin-scale"):
        main(["--margin-scale", "-1"])
    with pytest.raises(ValueError, match="--max-minutes"):
        main(["--max-minutes", "0"])


def test_the_targets_agree_outcome_with_margin_through_every_turn():
    """Each decision's value target is its game's outcome from the deciding seat's side, its margin
    target the final margin from the same side: in a two-player game decided by points they have
    the same sign, through Linecatch's extra turns (the seat to act repeats) and seat changes."""
    from training.jobs.gumbel.job import GumbelConfig, build, measured_margin_scale
    from training.jobs.gumbel.network import PolicyValueNet as Net

    config = GumbelConfig(game="linecatch", options={"rows": 3, "cols": 4}, games=32, moves=40, simulations=4,
                          considered=4, value_mix=0.5)
    env = envs.make_jax("linecatch", rows=3, cols=4)
    scale = measured_margin_scale(env, 64, jax.random.PRNGKey(3))
    assert scale > 0
    layout = env.observer.policy_layout()
    net = Net(Architecture(tuple(env.planes_shape), 8, 1, layout.cell_channels, layout.global_actions, 2),
              jax.random.PRNGKey(0))
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), config.games))
    _, _, trajectory = build(config, env, scale).self_play(net, state, jax.random.PRNGKey(2))
    valid = np.asarray(trajectory.valid)
    value, margin = np.asarray(trajectory.value)[valid], np.asarray(trajectory.margin)[valid]
    assert valid.sum() > 100 and set(np.unique(value)) <= {-1.0, 0.0, 1.0}
    assert np.array_equal(np.sign(margin), value)
    assert np.all(np.abs(margin) < 1)
