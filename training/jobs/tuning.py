"""Tuning a trained network on better labels than its own, in one file: the exact solver's
endgames, or a stronger bot's moves at the network's own decisions (DAgger).

    python -m training.endgame_tuning --agent checkpoints/fill/fill__alphazero__3.zip --seed 0
    python -m training.endgame_tuning --agent checkpoints/loom/loom__dagger__2.zip --teacher mcts:100

A network trained by search and self-play (``training.alphazero``) can still throw away a won
endgame now and then: its policy alone is right in most critical endgame positions, not all, and
a weak opponent leads it into endgames self-play rarely shows. Where a game's search hooks
include an exact solver (``SearchHooks.solved``: Fill's fill-only search once at most 14 cells
are left), every such position can be labelled with the moves that really win. And where a bot
plays better than the network (a search), the positions the network's own play reaches can be
labelled with that bot's choices: imitation learned from the teacher's games alone drifts into
positions the teacher never showed, and DAgger (Ross et al. 2011) fixes that by asking the
teacher where the student goes. This job:

1. **positions** — the agent plays ``--games`` games, on every core, against each of
   ``--opponents`` in turn (``self``: itself, picking a share ``--explore`` of its moves by
   sampling its policy instead of taking the best one, so that its games differ); every
   decision with more than one legal move is recorded, whoever made it (with ``--teacher``:
   the agent's own decisions, both seats' in games against itself), with the network's own
   policy, value and margin for the player to move;
2. **targets** — without a teacher, a position is *critical* when the solver scores every legal
   move (each child solved or over) and some moves do worse than others: its policy target is
   the network's own policy restricted to the best moves, mixed half and half with the uniform
   over them (the network keeps its taste among winning moves but must put its weight on them).
   Wherever the solver decides a position its value and margin targets are the solved outcome.
   Everywhere else the targets are the network's own outputs (self-distillation), so what it
   knew stays. With ``--teacher SPEC`` (any ``load_agent`` spec) every recorded position is
   labelled: its policy target is the teacher's move distribution from the same observation
   (``action_probabilities``, a search's visit shares; a bot without one gives its move), so a
   teacher sees nothing hidden and any game can use this mode;
3. **learning** — ``--steps`` minibatches, a share ``--critical-share`` of each drawn from the
   critical (or teacher-labelled) positions, each batch mapped by one of the game's symmetries
   (as in ``training.alphazero``); with ``--earlier-positions`` the positions of earlier rounds
   (saved with ``--keep-positions``) join this round's, as DAgger proper trains on every round's
   data rather than the last round's alone;
4. **evaluation** — the tuned and the starting network, policy alone, against ``random`` and
   ``heuristic`` on the same deals, ``--eval-games`` each, printed and in ``evaluation.json``.

The solver labels the true state, so a game with hidden information would leak it into the
targets; only games whose solver answers where nothing is hidden can use the solver labels
(Fill's answers only without traps, gems and tokens). Outputs go to
``runs/<game>__endgame__<seed>__<time>/`` (``<game>__dagger__…`` with a teacher):
``config.json``, ``agent.zip`` (an agent file like ``training.alphazero``'s: ``load_agent``
plays it, ``mcts:N:net=`` searches with it), ``evaluation.json``, TensorBoard logs and, with
``--keep-positions``, ``positions.npz`` (the round's labelled positions; plain arrays and a JSON
record of the game, options, teacher and kind of labels, so loading it unpickles nothing).
"""

from __future__ import annotations

import dataclasses
import json
import random
import shlex
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.core.game import margins as score_margins
from envs.core.game import ranked_returns
from training.common.flags import FlagError, parse_flags
from training.jobs.config import require_counts, require_optimiser, require_shares
from training.bots import bot_kit

SELF = "self"  # the opponent that is the agent itself
POSITION_KEYS = ("vectors", "masks", "policies", "values", "margins", "critical")  # a recorded position's arrays


@dataclass
class EndgameConfig:
    agent: str = ""
    """the agent file to tune (written by training.alphazero); its game and options are the
    run's (without --teacher the game's search hooks must include an exact solver,
    ``SearchHooks.solved``)"""
    teacher: str = ""
    """a load_agent spec (a search such as mcts:100) whose choices at the agent's own decisions
    become the policy targets (DAgger); empty: the exact solver's endgame labels"""
    seed: int = 0
    """seeds the games, the minibatch order and the torch initialisation"""
    games: int = 9000
    """games played for positions (split among the opponents in turn)"""
    opponents: tuple = ("random", "heuristic", SELF)
    """who the agent plays (load_agent specs, or ``self``); the seat alternates"""
    explore: float = 0.3
    """in games against itself, the share of its moves sampled from its policy"""
    steps: int = 4000
    """minibatch updates"""
    batch_size: int = 256
    """minibatch size"""
    critical_share: float = 0.5
    """share of each minibatch drawn from the critical positions"""
    learning_rate: float = 3e-4
    """AdamW learning rate"""
    weight_decay: float = 1e-4
    """AdamW weight decay"""
    value_targets: bool = False
    """also train the value and margin heads: on the solved outcomes and on their own outputs
    elsewhere; with --teacher on each game's outcome, seen from the seat to move (a search
    leans on these heads). Off, the policy alone is tuned and the heads follow the shared tower"""
    margin_weight: float = 0.5
    """weight of the score-margin target in the loss, as in training.alphazero"""
    keep_positions: bool = False
    """write this round's labelled positions to positions.npz in the run folder, for a later
    round's --earlier-positions"""
    earlier_positions: tuple = ()
    """positions.npz files of earlier rounds (same game, options, teacher and --value-targets),
    learned from together with this round's positions"""
    eval_games: int = 400
    """games per opponent when the tuned and the starting network are evaluated (0: none)"""
    workers: int = 2
    """processes playing games at once (one per core)"""
    device: str = "cpu"
    """torch device of the learner"""
    torch_threads: int = 1
    """CPU threads of the learner"""
    out_dir: str = "runs"
    """where run folders go"""


def check_config(config: EndgameConfig) -> None:
    require_counts(config, ("games", "steps", "batch_size", "workers"))
    require_counts(config, ("eval_games",), least=0)
    require_shares(config, ("explore", "critical_share"))
    require_optimiser(config)
    if not config.opponents:
        raise FlagError("--opponents needs at least one opponent (a load_agent spec or 'self')")
    if not config.agent:
        raise FlagError("--agent is required: the agent file (from training.jobs.alphazero) to tune")


# ----- labelling ---------------------------------------------------------------------------------


def best_moves(state, legal: list[int], solved) -> tuple[list[int] | None, list[float] | None]:
    """``(moves, scores)``: the legal moves whose solved result is best for the player to move
    and the final scores perfect play reaches from ``state``, when the solver decides the state
    and every move; ``(None, scores)`` when it decides the state but not every move; ``(None,
    None)`` when it does not decide the state."""
    scores = solved(state)
    if scores is None:
        return None, None
    mover = state.current_player()
    results = []
    for action in legal:
        child = state.clone()
        child.apply(action)
        after = child.scores() if child.is_terminal() else solved(child)
        if after is None:
            return None, list(scores)
        results.append(after[mover])
    best = max(results)
    return [a for a, r in zip(legal, results) if r == best], list(scores)


def play_positions(task: dict) -> dict:
    """A worker's games: the agent against its opponents, every decision labelled."""
    from training.players.load import load_agent
    from training.agents.files import load_network

    game, options, teacher_spec = task["game"], task["options"], task.get("teacher", "")
    solved = bot_kit(game).search.solved
    net, meta = load_network(task["agent"])
    scale = float(meta["margin_scale"])
    rows: dict[str, list] = {key: [] for key in POSITION_KEYS}
    for seed, opponent_spec in task["games"]:
        rng = random.Random(seed)
        env = envs.load(game).raw_env(**options)
        env.reset(seed=seed)
        seats = len(env.possible_agents)
        mine = seed % seats
        opponent = None if opponent_spec == SELF else load_agent(opponent_spec, game, seed=seed, **options)
        teacher = load_agent(teacher_spec, game, seed=seed, **options) if teacher_spec else None
        first_row, movers = len(rows["vectors"]), []
        while not env.game.is_terminal():
            state = env.game
            player = state.current_player()
            observation = env.observe(env.possible_agents[player])
            mask = np.asarray(observation["action_mask"], bool)
            legal = [int(a) for a in np.flatnonzero(mask)]
            if len(legal) == 1:
                env.step(legal[0])
                continue
            agents_turn = opponent is None or player == mine
            if teacher is not None and not agents_turn:  # DAgger records the student's own decisions only
                env.step(int(opponent.act(observation)))
                continue
            vector = np.asarray(observation["observation"], np.float32)
            head, values, margins = net.forward(env.observer.planes(vector))
            logits = np.where(mask, net.action_logits(head)[0], -np.inf)
            own = np.exp(logits - logits.max())
            own /= own.sum()
            policy, value, margin, critical = own, values[0], margins[0], False
            moves, scores = (None, None) if teacher else best_moves(state, legal, solved)
            if teacher is not None:
                policy, critical = teacher_policy(teacher, observation), True
            if scores is not None:  # solved: the outcome and margin of perfect play, mover first
                order = (player + np.arange(seats)) % seats
                value = np.asarray(ranked_returns(scores), np.float32)[order]
                margin = np.tanh(np.asarray(score_margins(scores), np.float64)[order] / scale)
            if moves is not None and len(moves) < len(legal):
                kept = np.zeros_like(own)
                kept[moves] = own[moves]
                uniform = np.zeros_like(own)
                uniform[moves] = 1.0 / len(moves)
                policy = 0.5 * kept / kept.sum() + 0.5 * uniform if kept.sum() > 0 else uniform
                critical = True
            record(rows, vector, mask, policy, value, margin, scale, critical)
            movers.append(player)
            if opponent is not None and player != mine:
                action = int(opponent.act(observation))
            elif opponent is None and rng.random() < task["explore"]:
                action = int(rng.choices(range(len(own)), weights=own.tolist())[0])
            else:
                action = int(np.argmax(logits))
            env.step(action)
        if teacher is not None and task.get("outcome_values"):
            # the game's outcome is the value target of every position it recorded, as in self-play
            final = list(env.game.scores())
            returns, raw_margins = np.asarray(ranked_returns(final), np.float32), np.asarray(score_margins(final), np.float32)
            for row, player in zip(range(first_row, len(rows["vectors"])), movers):
                order = (player + np.arange(seats)) % seats
                rows["values"][row] = returns[order]
                rows["margins"][row] = raw_margins[order]
    # observations in half precision, as training.alphazero's replay buffer keeps them
    return {key: np.asarray(value, np.float16 if key == "vectors" else None) for key, value in rows.items()}


def record(rows: dict, vector, mask, policy, value, margin, scale: float, critical: bool) -> None:
    rows["vectors"].append(vector)
    rows["masks"].append(mask)
    rows["policies"].append(np.asarray(policy, np.float32))
    rows["values"].append(np.asarray(value, np.float32))
    # the learner squashes raw margins by the agent's scale: store the raw value that squashes to it
    rows["margins"].append((scale * np.arctanh(np.clip(margin, -0.999999, 0.999999))).astype(np.float32))
    rows["critical"].append(critical)


def teacher_policy(teacher, observation) -> np.ndarray:
    """The teacher's move distribution from the observation: its ``action_probabilities`` where it
    has them (a search's visit shares), else all weight on the move it plays."""
    mask = np.asarray(observation["action_mask"], bool)
    if hasattr(teacher, "action_probabilities"):
        policy = np.where(mask, np.asarray(teacher.action_probabilities(observation), np.float64), 0.0)
        if policy.sum() > 0:
            return policy / policy.sum()
    policy = np.zeros(len(mask), np.float64)
    policy[int(teacher.act(observation))] = 1.0
    return policy


def label_kind(teacher) -> str:
    """What a round's policy targets are: the exact solver's (no teacher), the teacher's move
    distribution (``teacher_policy`` with ``action_probabilities``), or its played move alone.
    Recorded with kept positions: a bot that gains ``action_probabilities`` keeps its name, and
    its old one-move labels must not be mixed with its new distributions."""
    if teacher is None:
        return "solver"
    return "distribution" if hasattr(teacher, "action_probabilities") else "move"


# ----- rounds' positions -------------------------------------------------------------------------

def save_positions(path: Path, data: dict, record: dict) -> None:
    """The round's positions and, as a JSON string, what they were labelled for (``record``)."""
    np.savez_compressed(path, record=np.asarray(json.dumps(record)), **{key: data[key] for key in POSITION_KEYS})


def read_earlier_positions(paths: tuple, record: dict, vector_size: int, actions: int) -> list[dict]:
    """The arrays of each ``--earlier-positions`` file, checked against this round: the same
    game, options, teacher, value targets and kind of labels, observations and masks of this
    game's sizes."""
    rounds = []
    for path in paths:
        where = f"--earlier-positions {path!r}"
        try:
            with np.load(path, allow_pickle=False) as stored:
                arrays = {key: stored[key] for key in stored.files}
        except (OSError, EOFError, ValueError, zipfile.BadZipFile) as error:
            raise FlagError(f"{where}: cannot be read as a positions file ({error})") from None
        missing = [key for key in ("record",) + POSITION_KEYS if key not in arrays]
        if missing:
            raise FlagError(f"{where}: not a positions file of training.endgame_tuning (no {', '.join(missing)})")
        try:
            earlier = json.loads(str(arrays.pop("record")))
        except json.JSONDecodeError:
            earlier = None
        if not isinstance(earlier, dict):
            raise FlagError(f"{where}: its record is not a JSON object")
        if "labels" not in earlier:
            raise FlagError(f"{where}: its record does not say what its labels are (a file from before the kind "
                             "was recorded: its teacher may have labelled single moves), so it cannot be mixed")
        for key in ("game", "options", "teacher", "value_targets", "labels"):
            mine = json.loads(json.dumps(record[key]))  # as JSON keeps it (tuples as lists)
            if earlier.get(key) != mine:
                raise FlagError(f"{where} was labelled with {key} {earlier.get(key)!r}, this round with {mine!r}")
        rows = len(arrays["vectors"])
        shapes = {"vectors": (rows, vector_size), "masks": (rows, actions), "policies": (rows, actions)}
        for key, shape in shapes.items():
            if arrays[key].shape != shape:
                raise FlagError(f"{where}: its {key} have shape {arrays[key].shape}, this game's are {shape}")
        if any(len(arrays[key]) != rows for key in POSITION_KEYS):
            raise FlagError(f"{where}: its arrays hold different numbers of positions")
        rounds.append({key: arrays[key] for key in POSITION_KEYS})
    return rounds


# ----- the job -----------------------------------------------------------------------------------


def tune(config: EndgameConfig, command: str) -> dict[str, Any]:
    from torch.utils.tensorboard import SummaryWriter

    from training.jobs.alphazero.self_play import Workers
    from training.agents.network import save_network

    check_config(config)
    net, meta = read_agent(config)
    game, options = meta["game"], meta["options"]
    description = envs.describe(game)
    observer = description.observer(description.resolve_options(options))
    teacher = _check_agents(config, game, options)
    labelled_for = {"game": game, "options": options, "teacher": config.teacher,
                    "value_targets": config.value_targets, "labels": label_kind(teacher)}
    earlier = read_earlier_positions(config.earlier_positions, labelled_for, observer.size,
                                     description.num_actions(options))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kind = "dagger" if config.teacher else "endgame"
    run_dir = Path(config.out_dir) / f"{description.short_name}__{kind}__{config.seed}__{stamp}"
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
    writer = SummaryWriter(str(run_dir / "tensorboard"))
    labels = f"the moves of {config.teacher}" if config.teacher else "the exact solver's endgames"
    print(f"{game} {options}: tuning {config.agent} (iteration {meta.get('iteration')}) on {labels}; "
          f"run folder: {run_dir}", flush=True)
    workers = Workers(config.workers, None)
    started = time.perf_counter()
    try:
        # 1-2. positions and targets
        data, positions, round_critical = _collect_positions(config, workers, game, options, started)
        if config.keep_positions:
            save_positions(run_dir / "positions.npz", data, {**labelled_for, "agent": config.agent, "seed": config.seed})
        if earlier:  # every round's positions, this one's first
            data = {key: np.concatenate([data[key]] + [arrays[key] for arrays in earlier]) for key in POSITION_KEYS}
            print(f"  with {len(data['vectors']) - positions} positions of {len(earlier)} earlier round(s)", flush=True)
        learned = len(data["vectors"])
        # 3. learning
        learner = _learn(config, net, observer, data, float(meta["margin_scale"]), writer)
        tuning_seconds = time.perf_counter() - started
        from training.agents.checkpoint import code_version

        agent_meta = {
            **{k: v for k, v in meta.items() if k not in ("format", "format_version", "architecture")},
            "algo": f"{meta.get('algo', 'alphazero')} + "
                    + (f"DAgger tuning (teacher {config.teacher}"
                       + (", value and margin heads on the games' outcomes)" if config.value_targets else ")")
                       if config.teacher else "endgame tuning (exact solver targets)"),
            "tuned_from": config.agent, "positions": int(meta.get("positions", 0)) + positions,
            "endgame_positions": positions, "critical_positions": round_critical,
            "earlier_positions": learned - positions,
            "wall_seconds": round(float(meta.get("wall_seconds", 0.0)) + tuning_seconds, 1),
            "command": f"{meta.get('command', '')} && {command}", "created": time.strftime("%Y-%m-%d %H:%M:%S"),
            "code_version": code_version(),  # this job's code, not the start's
        }
        agent_path = save_network(run_dir / "agent.zip", net.architecture, learner.weights(), net.index, agent_meta)
        # 4. evaluation: both networks on the same deals
        # (final_evaluation is where load_agent("trained") reads an agent's score)
        report: dict[str, Any] = {"game": game, "options": options, "command": agent_meta["command"],
                                  "config": dataclasses.asdict(config), "positions": positions,
                                  "critical_positions": round_critical,
                                  "earlier_positions": learned - positions,
                                  "tuning_seconds": round(tuning_seconds, 1),
                                  "final_evaluation": {}, "start_evaluation": {}}
        _evaluate_both(config, workers, game, options, str(agent_path), report, writer)
        (run_dir / "evaluation.json").write_text(json.dumps(report, indent=2))
        print(f"agent: {agent_path}", flush=True)
        return {"dir": str(run_dir), "agent": str(agent_path), **report}
    finally:
        workers.close()
        writer.close()


def _check_agents(config: EndgameConfig, game: str, options: dict[str, Any]):
    """Every opponent and the teacher loaded once, so that a bad spec is refused before
    anything starts; the teacher (``None`` without one)."""
    from training.players.load import load_agent

    bots = [("--opponents", spec) for spec in config.opponents if spec != SELF]
    teacher = None
    for flag, spec in bots + ([("--teacher", config.teacher)] if config.teacher else []):
        try:
            agent = load_agent(spec, game, seed=0, **options)
        except (ValueError, OSError) as error:
            raise FlagError(f"{flag} {spec!r}: {error}") from None
        teacher = agent if flag == "--teacher" else teacher
    return teacher


def _collect_positions(config: EndgameConfig, workers, game: str, options: dict[str, Any],
                       started: float) -> tuple[dict[str, np.ndarray], int, int]:
    """The agent's games against the opponents, in chunks over the workers: every position
    with its targets (:data:`POSITION_KEYS`), how many, and how many are labelled (critical)."""
    from tqdm import tqdm

    games = [(1_000_000 * (config.seed + 1) + i, config.opponents[i % len(config.opponents)])
             for i in range(config.games)]
    chunk = 50
    # "seeds" is what Workers.map counts for the progress bar
    tasks = [{"game": game, "options": options, "agent": config.agent, "explore": config.explore,
              "teacher": config.teacher,
              "outcome_values": config.value_targets, "games": games[i:i + chunk], "seeds": games[i:i + chunk]}
             for i in range(0, len(games), chunk)]
    with tqdm(total=len(games), desc="games", unit="game") as bar:
        parts = workers.map(play_positions, tasks, bar)
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    positions = len(data["vectors"])
    round_critical = int(data["critical"].sum())
    print(f"  {positions} positions, {round_critical} {'labelled' if config.teacher else 'critical'}, "
          f"in {time.perf_counter() - started:.0f} s", flush=True)
    return data, positions, round_critical


def _learn(config: EndgameConfig, net, observer, data: dict[str, np.ndarray], margin_scale: float, writer):
    """The network tuned on ``data``: each batch ``critical_share`` labelled positions, the
    rest drawn from every position; the learner."""
    from tqdm import tqdm

    from training.jobs.alphazero.learning import Learner

    critical_rows = np.flatnonzero(data["critical"])
    learned = len(data["vectors"])
    if not len(critical_rows):
        raise RuntimeError("no position was labelled: the agent had no decision with a choice in these games"
                           if config.teacher else
                           "no critical position was found: the solver decided no position in these games")
    learner = Learner(config, net.architecture, observer)
    learner.load_folded(net.weights)
    rng = np.random.default_rng(config.seed)
    learner.calibrate(observer.planes(data["vectors"][rng.integers(0, learned, min(learned, 4096))]))
    take_critical = int(round(config.batch_size * config.critical_share))
    with tqdm(total=config.steps, desc="learning", unit="step") as bar:
        for step in range(config.steps):
            rows = np.concatenate([critical_rows[rng.integers(0, len(critical_rows), take_critical)],
                                   rng.integers(0, learned, config.batch_size - take_critical)])
            batch = {key: data[key][rows] for key in POSITION_KEYS if key != "critical"}
            batch["value_weights"] = np.full(len(rows), 1.0 if config.value_targets else 0.0, np.float32)
            losses = learner.step(batch, rng, margin_scale)
            if step % 100 == 0:
                for name, value in losses.items():
                    writer.add_scalar(name, value, step)
                bar.set_postfix(policy=f"{losses['loss/policy']:.3f}")
            bar.update(1)
    return learner


def _evaluate_both(config: EndgameConfig, workers, game: str, options: dict[str, Any], agent_path: str,
                   report: dict[str, Any], writer) -> None:
    """The tuned and the starting network against random and the heuristic on the same deals,
    into ``report``'s ``final_evaluation`` and ``start_evaluation``."""
    from training.jobs.alphazero.evaluation import evaluate_agent

    for label, path in (("tuned", agent_path), ("start", config.agent)):
        for opponent in ("random", "heuristic") if config.eval_games else ():
            result = evaluate_agent(workers, game, options, path, opponent, config.eval_games, seed=7_000_000)
            report["final_evaluation" if label == "tuned" else "start_evaluation"][opponent] = result
            low, high = result["interval95"]
            print(f"  {label:5s} vs {opponent:9s}: {result['score']:.1%} ({low:.1%}–{high:.1%}) "
                  f"over {result['games']} games", flush=True)
            writer.add_scalar(f"eval/{label}_vs_{opponent}", result["score"], 0)


def read_agent(config: EndgameConfig):
    """The ``--agent`` file's network and metadata, checked: a training.alphazero network, for a
    game whose search hooks include an exact solver unless a ``--teacher`` labels the moves."""
    from training.agents.archive import CheckpointError
    from training.agents.files import load_network

    try:
        net, meta = load_network(config.agent)
    except (OSError, CheckpointError) as error:
        raise FlagError(f"--agent {config.agent!r}: {error}") from None
    if not isinstance(meta.get("options"), dict) or not isinstance(meta.get("margin_scale"), (int, float)):
        raise FlagError(f"--agent {config.agent!r}: its meta.json has no options or no margin_scale "
                         "(it was not written by training.alphazero)")
    try:
        description = envs.describe(str(meta.get("game")))
    except (KeyError, ValueError):
        raise FlagError(f"--agent {config.agent!r} is for an unknown game {meta.get('game')!r}") from None
    if bot_kit(description).search.solved is None and not config.teacher:
        raise FlagError(f"--agent {config.agent!r} plays {description.name}, whose search hooks have no exact "
                         "solver (SearchHooks.solved): there are no solved endgames to learn from "
                         "(--teacher SPEC labels the agent's moves with a bot's instead)")
    return net, meta


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    config = parse_flags(EndgameConfig, argv, __doc__, prog="abstract-games tune-endgame")
    return tune(config, "python -m training.endgame_tuning " + shlex.join(argv))


if __name__ == "__main__":
    main()
