"""The JAX backend's shared part: Pgx's API over any game's JAX rules (``docs/jax.md``).

A game's JAX engine (``envs/<game>/jax_engine.py``, named on its description as ``jax``)
subclasses :class:`JaxRules`: pure functions over one fixed-shape position (a ``NamedTuple`` of
arrays, ``G`` below) for one option set — the start, whose turn, the legal mask, ``apply`` (a
decision or a chance outcome), the chance probabilities, a seat's observation, the scores, and
host-side bridges to and from the Python engine. :class:`JaxEnv` turns that into Pgx's API the
same way for every game, as Pgx's one ``Env.step`` does: finished games, illegal actions,
chance resolved from a key, rewards, the acting seat's observation.

Nothing here branches in Python on a traced value: every function works under ``jax.jit`` and
``jax.vmap``. This module imports JAX; ``envs`` itself does not (``envs.make_jax`` imports it
when called), so the suite runs without JAX installed.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.core.game import json_ready


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class State:
    """One game (or a batch, with a leading axis on every field), as Pgx's states are.

    * ``current_player`` — int32, the seat to act (seats are never shuffled: seat ``i`` is
      ``player_i``); ``-1`` at a chance node (only :meth:`JaxEnv.apply` stops at one); once the
      game is over, the seat the rules would have moved next;
    * ``observation`` — float32, the acting seat's flat observation (seat 0's at a chance node);
    * ``legal_action_mask`` — bool per action: exactly the acting seat's ``action_mask()``; all
      False at a chance node and once the game is over (Pgx sets all True there);
    * ``rewards`` — float32 per seat, as the AEC env gives them: 0 until the step that ends the
      game, then +1 for a sole winner, −1 for every other player, 0 for players tied first; an
      illegal action: the offender −1, the others 0; a step on a finished game: zeros;
    * ``terminated``, ``truncated`` (never set by the games; there for Pgx's wrappers);
    * ``is_chance`` — the rules wait for a chance outcome (``chance_probs``);
    * ``_step_count`` — decisions taken; ``_game`` — the game's own position (its engine's ``G``).
    """

    current_player: jax.Array
    observation: jax.Array
    legal_action_mask: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    is_chance: jax.Array
    _step_count: jax.Array
    _game: Any

    def replace(self, **changes: Any) -> "State":
        return dataclasses.replace(self, **changes)


class Turn(NamedTuple):
    """Whose turn it is in a position: the seat (``-1`` at a chance node), whether the rules
    wait for chance, whether the game is over."""

    player: jax.Array
    is_chance: jax.Array
    terminated: jax.Array


class JaxRules:
    """One game's rules in JAX for one option set (the options fix every shape).

    Subclasses set the class facts and implement the methods below. ``options`` are resolved
    by the Python engine first (so bad options raise exactly as it does); ``refuse`` names the
    options the JAX engine cannot honour.
    """

    python_engine: ClassVar[type]  # the Python engine this one equals, step for step
    has_chance: ClassVar[bool] = False
    # A game whose observer's planes compute channels (not only copy flat entries, which
    # :class:`PlanesMap` finds by itself) defines ``planes(self, flat) -> planes`` (any leading
    # batch axes), equal to the observer's ``planes``.
    planes: ClassVar[Any] = None
    # A game whose opening chance takes several nodes (Fill's rocks) may set ``opening(g, key)``:
    # the position once they are resolved, drawn at once with the same distribution as the
    # nodes one by one (``init`` then skips the loop; ``apply`` still meets every node).
    opening: Any = None
    # True when ``opening`` always leaves a seat to act: ``init`` then runs no chance loop after
    # it, so XLA can fold what the opening leaves constant (Knot's empty board, in the first
    # observation that ``auto_reset`` computes at every step).
    opening_settles: ClassVar[bool] = False
    # A game whose decisions may be followed by chance nodes may set
    # ``apply_and_draw(g, action, key)``: ``apply`` of a decision, then every chance node that
    # follows drawn as :meth:`JaxEnv.step`'s loop draws them (the first from
    # ``jax.random.split(key)[1]``), in one program (Knot: the turn's bookkeeping once, not
    # once per node).
    apply_and_draw: Any = None

    def __init__(self, options: dict[str, Any]):
        self.options = options
        self.num_players = self.python_engine.num_players_for(options)
        self.num_actions = self.python_engine.num_actions_for(options)
        self.num_outcomes = max(1, self.python_engine.max_chance_outcomes_for(options))

    # ----- the rules (pure, jit- and vmap-safe) ---------------------------------------------------
    def start(self) -> Any:
        """The position before anything happened (its first chance node unresolved)."""
        raise NotImplementedError

    def turn(self, g: Any) -> Turn:
        raise NotImplementedError

    def legal_mask(self, g: Any) -> jax.Array:
        """bool per action: the acting seat's legal actions (all False at chance and the end)."""
        raise NotImplementedError

    def apply(self, g: Any, action: jax.Array) -> Any:
        """The position after a legal decision, or after a possible chance outcome."""
        raise NotImplementedError

    def chance_probs(self, g: Any) -> jax.Array:
        """float32 per outcome id: the probabilities at a chance node (zeros elsewhere)."""
        return jnp.zeros(self.num_outcomes, jnp.float32)

    def observe(self, g: Any, player: jax.Array) -> jax.Array:
        """Seat ``player``'s flat observation, equal to the Python observer's."""
        raise NotImplementedError

    def scores(self, g: Any) -> jax.Array:
        """float32 per seat: the game's own points (``infos["scores"]``)."""
        raise NotImplementedError

    # ----- host-side bridges to the Python engine ---------------------------------------------
    def from_python(self, game: Any) -> Any:
        """The position of a Python engine state (numpy arrays)."""
        raise NotImplementedError

    def state_dict(self, g: Any) -> dict[str, Any]:
        """The Python engine's ``state_dict()`` of a single position (arrays on the host)."""
        raise NotImplementedError


def ranked_rewards(scores: jax.Array) -> jax.Array:
    """The contract's rewards from scores: +1 for a sole winner, 0 for players tied first, −1
    for everybody else (``envs.core.game.ranked_returns`` in JAX)."""
    best = jnp.max(scores)
    leaders = jnp.sum(scores == best)
    return jnp.where(scores == best, jnp.where(leaders == 1, 1.0, 0.0), -1.0).astype(jnp.float32)


def _select(pred: jax.Array, on_true: Any, on_false: Any) -> Any:
    """``on_true`` where ``pred`` else ``on_false``, leaf by leaf (both are computed: under
    ``vmap`` a ``lax.cond`` does the same)."""
    return jax.tree_util.tree_map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


class PlanesMap:
    """The Python observer's ``planes`` as one gather: every planes entry copies one flat
    entry (or is a constant 0), which is what each game's observer does. Found once from the
    observer itself (one-hot flat vectors), and checked on random vectors, so the JAX planes are
    the Python planes by construction."""

    def __init__(self, observer: Any):
        size = observer.size
        shape = tuple(observer.planes_shape())
        basis = observer.planes(np.eye(size, dtype=np.float32)).reshape(size, -1)
        offset = observer.planes(np.zeros(size, np.float32)).reshape(-1)
        if np.any(offset != 0) or np.any((basis != 0) & (basis != 1)) or np.any(basis.sum(axis=0) > 1):
            raise ValueError(f"{type(observer).__name__}.planes is not a copy of flat entries")
        self.index = jnp.asarray(np.where(basis.any(axis=0), basis.argmax(axis=0), size), jnp.int32)
        self.shape = shape
        probe = np.random.default_rng(0).random((3, size), dtype=np.float32)
        if not np.array_equal(observer.planes(probe), np.asarray(self(jnp.asarray(probe)))):
            raise ValueError(f"{type(observer).__name__}.planes is not a copy of flat entries")

    def __call__(self, flat: jax.Array) -> jax.Array:
        padded = jnp.concatenate([flat, jnp.zeros(flat.shape[:-1] + (1,), flat.dtype)], axis=-1)
        return padded[..., self.index].reshape(flat.shape[:-1] + self.shape)


class JaxEnv:
    """Pgx's ``Env`` API over a game's :class:`JaxRules`, plus explicit chance and snapshot
    bridges. Made by ``envs.make_jax(name, **options)``."""

    version = "v0"

    def __init__(self, description: Any, rules: JaxRules):
        self.description = description
        self.rules = rules
        self.options = rules.options
        self.id = description.name
        self.num_players = rules.num_players
        self.num_actions = rules.num_actions
        self.num_outcomes = rules.num_outcomes
        self.observer = description.observer(self.options)
        self.observation_shape = (self.observer.size,)
        if rules.planes is not None:  # the game's own (its observer computes some channels)
            self._planes, self.planes_shape = rules.planes, tuple(self.observer.planes_shape())
        else:
            try:
                self._planes = PlanesMap(self.observer)
            except NotImplementedError:
                self._planes = None
            self.planes_shape = None if self._planes is None else self._planes.shape
        self._start = jax.tree_util.tree_map(np.asarray, jax.device_get(rules.start()))  # host copy: a constant in programs
        self._opening_table: Any = None

    def __repr__(self) -> str:
        return f"make_jax({self.id!r}, **{self.description.portable_options(self.options)!r})"

    # ----- Pgx's API ------------------------------------------------------------------------------
    def init(self, key: jax.Array) -> State:
        """The start of a game, its opening chance (a Loom throw, Fill's rocks) resolved from
        ``key``."""
        openings = self._openings()
        if openings is not None:  # the start, or one per outcome of the one node that opens the game
            probs, table = openings
            if len(probs) == 1:  # no chance, or scripted chance: one start, a constant
                return jax.tree_util.tree_map(lambda leaf: jnp.asarray(leaf[0]), table)
            return jax.tree_util.tree_map(lambda leaf: jnp.asarray(leaf)[draw_outcome(jnp.asarray(probs), key)], table)
        start = jax.tree_util.tree_map(jnp.asarray, self._start)
        if self.rules.opening is not None:
            start = self.rules.opening(start, key)
            if self.rules.opening_settles:
                return self._fresh(start)
        return self._fresh(self._resolve_chance(start, key))

    def _openings(self) -> tuple[np.ndarray, State] | None:
        """Where the game opens with chance nodes of one possible outcome each (scripted chance),
        if any, and then at most one node after which a seat acts (Loom's first throw): the last
        node's probabilities and, per outcome, the state it leads to (one state, probability 1,
        when nothing is left to draw: every game without chance), built once on the host. XLA
        does not fold a start computed inside the program, and under auto_reset's select it
        would be computed at every step (3x slower for Linecatch). Else None."""
        if self._opening_table is None:
            with jax.ensure_compile_time_eval():
                g = jax.tree_util.tree_map(jnp.asarray, self._start)
                table = False
                while bool(self.rules.turn(g).is_chance):
                    probs = np.asarray(self.rules.chance_probs(g))
                    if np.count_nonzero(probs) != 1:
                        break
                    g = self.rules.apply(g, jnp.int32(int(np.flatnonzero(probs)[0])))
                if not bool(self.rules.turn(g).is_chance):
                    table = (np.ones(1, np.float32),
                             jax.tree_util.tree_map(lambda x: np.asarray(x)[None], jax.device_get(self._fresh(g))))
                else:
                    outcomes = []
                    for outcome, probability in enumerate(probs):
                        after = self.rules.apply(g, jnp.int32(outcome))
                        if probability > 0 and bool(self.rules.turn(after).is_chance):
                            outcomes = None  # more chance follows (Fill's rocks): no table
                            break
                        outcomes.append(after)
                    if outcomes is not None:
                        states = [jax.device_get(self._fresh(after)) for after in outcomes]
                        table = (probs, jax.tree_util.tree_map(lambda *leaves: np.stack([np.asarray(x) for x in leaves]),
                                                               *states))
                self._opening_table = table
        return self._opening_table or None

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """The acting seat's decision, then every chance node that follows resolved from
        ``key`` (needed by games with chance). An illegal action ends the game (the offender
        −1, the others 0); a step on a finished game changes nothing and rewards zeros."""
        if self.rules.has_chance and key is None:
            raise ValueError(f"{self.id} has chance: step(state, action, key) needs a key to resolve it")
        after = self._decide(state, action, key if self.rules.has_chance else None)
        return self._rewrap(after, after._game)

    def observe(self, state: State, player: jax.Array) -> jax.Array:
        """Seat ``player``'s flat observation (equal to the Python observer's)."""
        return self.rules.observe(state._game, jnp.asarray(player, jnp.int32))

    def planes(self, observation: jax.Array) -> jax.Array:
        """The ``(rows, cols, channels)`` planes of flat observations (any leading batch axes),
        as the Python observer's ``planes`` gives them."""
        if self._planes is None:
            raise ValueError(f"{self.id} has no planes layout")
        return self._planes(observation)

    # ----- explicit chance ----------------------------------------------------------------------
    def apply(self, state: State, action: jax.Array) -> State:
        """The Python engine's ``apply``: at a decision the acting seat's action (illegal: the
        game ends as in :meth:`step`), at a chance node the outcome id (one ``chance_probs``
        gives a non-zero probability). Chance is never resolved here."""
        action = jnp.asarray(action, jnp.int32)
        at_chance = state.is_chance & ~state.terminated
        decided = self._decide(state, action)
        outcome = self.rules.apply(state._game, action)
        ended = self.rules.turn(outcome).terminated
        chanced = state.replace(_game=outcome, rewards=jnp.where(ended, ranked_rewards(self.rules.scores(outcome)), 0.0))
        after = _select(at_chance, chanced, decided)
        return self._rewrap(after, after._game)

    def chance_probs(self, state: State) -> jax.Array:
        """float32 per outcome id at a chance node (0 for impossible outcomes; zeros elsewhere)."""
        return jnp.where(state.is_chance, self.rules.chance_probs(state._game), 0.0)

    # ----- snapshots (host side, one game) ------------------------------------------------------
    def to_snapshot(self, state: State) -> dict[str, Any]:
        """The Python engine's ``snapshot()`` of this position."""
        g = jax.tree_util.tree_map(np.asarray, jax.device_get(state._game))
        if np.ndim(state.current_player) != 0:
            raise ValueError("to_snapshot takes one game, not a batch (index the batch first)")
        engine = self.rules.python_engine
        options = {k: (None if k in engine.RUNTIME_OPTIONS else v) for k, v in self.options.items()}
        return {"game": engine.NAME, "version": engine.SNAPSHOT_VERSION, "options": json_ready(options),
                "state": self.rules.state_dict(g)}

    def from_snapshot(self, snapshot: Any) -> State:
        """A state at a snapshot's position (checked by the Python engine first; its options
        must be this env's, since they fix the shapes)."""
        game = self.rules.python_engine.from_snapshot(snapshot)
        mine = self.description.portable_options(self.options)
        theirs = self.description.portable_options(game.options)
        if mine != theirs:
            raise ValueError(f"the snapshot's options {theirs} are not this env's {mine}: make_jax(..., **options) for them")
        return self._fresh(jax.tree_util.tree_map(jnp.asarray, self.rules.from_python(game)))

    # ----- the shared step ----------------------------------------------------------------------
    def _decide(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """The decision, and with ``key`` every chance node after it (before the rewards: a
        draw can end the game)."""
        action = jnp.asarray(action, jnp.int32)
        done = state.terminated | state.truncated
        legal = state.legal_action_mask[jnp.clip(action, 0, self.num_actions - 1)] & (action >= 0) & (action < self.num_actions)
        illegal = ~done & ~legal
        clipped = jnp.clip(action, 0, self.num_actions - 1)
        if key is None:
            moved = self.rules.apply(state._game, clipped)
        elif self.rules.apply_and_draw is not None:
            moved = self.rules.apply_and_draw(state._game, clipped, key)
        else:
            moved = self._resolve_chance(self.rules.apply(state._game, clipped), key)
        g = _select(done | illegal, state._game, moved)
        offender = jnp.where(jnp.arange(self.num_players) == state.current_player, -1.0, 0.0)
        finished = self.rules.turn(g).terminated
        rewards = jnp.where(done, 0.0, jnp.where(illegal, offender,
                                                 jnp.where(finished, ranked_rewards(self.rules.scores(g)), 0.0)))
        return state.replace(_game=g, rewards=rewards.astype(jnp.float32), terminated=state.terminated | illegal,
                             _step_count=state._step_count + jnp.where(done, 0, 1).astype(jnp.int32))

    def _fresh(self, g: Any) -> State:
        """The state of a position nobody has stepped into yet: no rewards, no steps."""
        return self._wrap(g, jnp.zeros(self.num_players, jnp.float32), jnp.bool_(False), jnp.int32(0))

    def _rewrap(self, state: State, g: Any) -> State:
        return self._wrap(g, state.rewards, state.terminated, state._step_count, state.truncated)

    def _wrap(self, g: Any, rewards: jax.Array, ended: jax.Array, step_count: jax.Array,
              truncated: jax.Array | None = None) -> State:
        turn = self.rules.turn(g)
        terminated = turn.terminated | ended
        mask = self.rules.legal_mask(g) & ~terminated & ~turn.is_chance
        seat = jnp.maximum(turn.player, 0)
        return State(current_player=turn.player.astype(jnp.int32), observation=self.rules.observe(g, seat),
                     legal_action_mask=mask, rewards=rewards, terminated=terminated,
                     truncated=jnp.bool_(False) if truncated is None else truncated,
                     is_chance=turn.is_chance & ~terminated, _step_count=step_count, _game=g)

    def _resolve_chance(self, g: Any, key: jax.Array) -> Any:
        if not self.rules.has_chance:
            return g

        def waiting(carry):
            return self.rules.turn(carry[0]).is_chance

        def draw(carry):
            g, key = carry
            key, sub = jax.random.split(key)
            return self.rules.apply(g, draw_outcome(self.rules.chance_probs(g), sub)), key

        return jax.lax.while_loop(waiting, draw, (g, key))[0]


def stored(tree: Any, anything: jax.Array) -> Any:
    """``tree`` unchanged, but computed once and stored before anything reads it.

    On the CPU XLA drops ``optimization_barrier`` and copies cheap chains of steps into every
    loop that reads their result: a move's per-game scalars (whose turn it is now, whether
    the game ended, which ports a strand took) are then redone for every entry of the batch's
    big arrays (an observation of thousands of floats), several times the cost of the step. A
    loop it cannot see through is a boundary it does not fuse across: one pass that ORs in a
    zero derived from a one it cannot fold (``anything``: any int32 array of the program that
    is never negative)."""
    stop = 1 + (jnp.min(anything) < 0).astype(jnp.int32)

    def once(carry: tuple[jax.Array, Any]) -> tuple[jax.Array, Any]:
        count, leaves = carry
        zero = count >= stop  # False on the one pass

        def leaf(x: jax.Array) -> jax.Array:
            if x.dtype == jnp.bool_:
                return x | zero
            if jnp.issubdtype(x.dtype, jnp.integer):
                return x | zero.astype(x.dtype)
            return x + zero.astype(x.dtype)

        return count + 1, jax.tree_util.tree_map(leaf, leaves)

    tree = jax.tree_util.tree_map(jnp.asarray, tree)
    return jax.lax.while_loop(lambda carry: carry[0] < stop, once, (jnp.int32(0), tree))[1]


def draw_outcome(probs: jax.Array, key: jax.Array) -> jax.Array:
    """One outcome drawn with its probability, by the inverse of the cumulative distribution at
    one uniform number (a categorical draw would take one Gumbel number per outcome); never an
    outcome of probability 0."""
    cumulative = jnp.cumsum(probs)
    point = jax.random.uniform(key) * cumulative[-1]
    last = jnp.max(jnp.where(probs > 0, jnp.arange(probs.shape[0]), 0))
    return jnp.minimum(jnp.sum(cumulative <= point), last).astype(jnp.int32)

