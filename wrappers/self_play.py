"""One learning seat's view of any suite game, as a gymnasium env for SB3 (MaskablePPO).

The other seats are played by opponents drawn from a pool at every reset: agent objects
(``act(observation) -> int``), or entries that ``make_opponent(entry, game, options, seed)``
turns into agents — named bots (``"random"``, ``"heuristic"``), agent file paths, frozen
snapshots of the learner (policy payloads). This package knows no bots: the training stack's
``training.players.self_play.SelfPlayEnv`` is this env with ``make_opponent`` resolving every
``load_agent`` spec and policy payload. The learner's seat is drawn at random each episode (or
fixed with ``learner_seat``). Opponents act until the learner is to move, so multi-step turns
(the same agent acting again) and 3–4 player games need nothing special. The learner receives its own terminal reward whoever made the last
move — including when an opponent's move ends the game.

``score_shaping`` (default 0) adds ``weight × change of (my points − best other points)`` to
every step's reward: over a game it sums to ``weight × final margin``, a denser signal for
games with points and chance (Loom's dice) than the win/loss alone.

``action_masks()`` serves sb3-contrib's ``MaskablePPO``; ``set_opponent_pool`` can be called
through ``VecEnv.env_method`` so a training run swaps in new snapshots under ``SubprocVecEnv``.

``reset(seed=s)`` starts the same episode every time on one env: the seat draw, the game's
chance and the opponents (rebuilt from their pool entries with seeds drawn from ``s``; an agent
object given as an entry is used as it is) all restart from ``s``.

``illegal_action`` says what an illegal action does: ``"lose"`` (the default) ends the
episode with reward −1 for the learner, ``info["illegal_action"]`` True and an
``IllegalMoveWarning`` giving the engine's reason, as PettingZoo's classic envs do — so the env
passes gymnasium's and Stable-Baselines3's env checkers as constructed (they step
``action_space.sample()``) and unmasked algorithms can learn on it; ``"raise"`` raises the
engine's ``IllegalActionError`` and leaves the state as it was (a masked learner never plays an
illegal action: a raise shows a bug). A value that is not an action at all (a bool, a float, an
array) is a ``ValueError`` either way.
"""

from __future__ import annotations

import random
import warnings
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np

import envs
from envs.core.wrapping import IllegalMoveWarning
from envs.core.game import action_index

ILLEGAL_ACTIONS = ("raise", "lose")


def agent_only(entry: Any, game: str, options: dict[str, Any], seed: int):
    """The default ``make_opponent``: an agent object is used as it is; anything else needs a
    ``make_opponent`` that knows how to build it."""
    if hasattr(entry, "act"):
        return entry
    raise ValueError(
        f"opponent {entry!r} is not an agent (no act method); pass make_opponent to build it "
        "(training.players.self_play.SelfPlayEnv builds bot names, agent files and policy payloads)"
    )


class SelfPlayEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str,
        options: dict[str, Any] | None = None,
        opponents: Sequence[Any] = ("random",),
        seed: int | None = None,
        learner_seat: int | None = None,
        render_mode: str | None = None,
        score_shaping: float = 0.0,
        illegal_action: str = "lose",
        make_opponent: Callable[[Any, str, dict[str, Any], int], Any] = agent_only,
    ):
        super().__init__()
        self.make_opponent = make_opponent
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be 'raise' or 'lose', not {illegal_action!r}")
        self.illegal_action = illegal_action
        self.module = envs.load(game)
        self.game = envs.canonical_name(game)
        self.options = dict(options or {})
        self.raw = self.module.raw_env(render_mode=render_mode, **self.options)
        self.render_mode = render_mode
        self.num_players = len(self.raw.possible_agents)
        if learner_seat is not None and not 0 <= learner_seat < self.num_players:
            raise ValueError(f"learner_seat must be 0…{self.num_players - 1} or None, not {learner_seat!r}")
        self.fixed_seat = learner_seat
        self.score_shaping = float(score_shaping)
        self._margin = 0.0
        first = self.raw.possible_agents[0]
        self.observation_space = self.raw.observation_space(first)["observation"]
        self.action_space = self.raw.action_space(first)
        self._rng = random.Random(seed)
        self.learner = 0
        self._last: dict[str, np.ndarray] | None = None
        self._over = True  # until the first reset
        self.metadata = {**type(self).metadata, "render_fps": self.raw.metadata.get("render_fps", 2)}
        self.set_opponent_pool(opponents)

    # ----- opponents ---------------------------------------------------------------------------
    def set_opponent_pool(self, opponents: Sequence[Any]) -> None:
        if not opponents:
            raise ValueError("the opponent pool is empty: give at least one opponent")
        self.pool_specs = list(opponents)
        self.pool = [self.make_opponent(spec, self.game, self.options, self._rng.getrandbits(31)) for spec in self.pool_specs]

    # ----- gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
            # the opponents restart from the seed too (their own generators are part of the episode)
            self.pool = [self.make_opponent(spec, self.game, self.options, self._rng.getrandbits(31)) for spec in self.pool_specs]
        self.raw.reset(seed=self._rng.getrandbits(63))
        self._over = False
        seats = range(self.num_players)
        self.learner = self.fixed_seat if self.fixed_seat is not None else self._rng.randrange(self.num_players)
        self.seated = {seat: self._rng.choice(self.pool) for seat in seats if seat != self.learner}
        self._play_opponents()
        self._margin = self._current_margin()
        return self._observe(), self._info()

    def step(self, action):
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        game = self.raw.game
        index = action_index(action, int(self.action_space.n))  # a ValueError for what is not an action
        reason = game.why_illegal(index) if self.illegal_action == "lose" else None
        if reason is not None:
            self._over = True
            warnings.warn(f"illegal action {index} by the learner (player_{self.learner}), the episode ends as its "
                          f"loss: {reason}", IllegalMoveWarning, stacklevel=2)
            # a copy: the observation returned last may be kept (and changed) by the caller
            return self._last["observation"].copy(), -1.0, True, False, {**self._info(), "illegal_action": True}
        self.raw.step(index)  # "raise": IllegalActionError with the reason, nothing changed
        self._play_opponents()
        game = self.raw.game
        done = game.is_terminal()
        self._over = done
        reward = float(game.returns()[self.learner]) if done else 0.0
        if self.score_shaping:
            margin = self._current_margin()
            reward += self.score_shaping * (margin - self._margin)
            self._margin = margin
        return self._observe(), reward, done, False, self._info()

    def _current_margin(self) -> float:
        scores = self.raw.game.scores()
        return float(scores[self.learner] - max(s for i, s in enumerate(scores) if i != self.learner))

    def action_masks(self) -> np.ndarray:
        return self._last["action_mask"].astype(bool)

    def render(self):
        return self.raw.render()

    # ----- internals ----------------------------------------------------------------------------
    def _play_opponents(self) -> None:
        raw, names = self.raw, self.raw.possible_agents
        game = raw.game
        while not game.is_terminal() and game.current_player() != self.learner:
            seat = game.current_player()
            raw.step(self.seated[seat].act(raw.observe(names[seat])))
            game = raw.game

    def _observe(self) -> np.ndarray:
        self._last = self.raw.observe(self.raw.possible_agents[self.learner])
        return self._last["observation"]

    def _info(self) -> dict[str, Any]:
        scores = self.raw.game.scores()
        return {"learner_seat": self.learner, "scores": np.asarray(scores, np.float32)}
