"""The one PettingZoo adapter: a game's description becomes an ``AECEnv``.

Every game module makes ``raw_env, env = public_envs(GAME)`` (``envs.core.wrapping``): the
unwrapped class and the ``env()`` factory, in PettingZoo's classic wrappers, the contract asks
for. Nothing game-specific lives
here: spaces come from the engine's option facts and the observer, masks from the engine's
``legal_actions``, rewards from ``returns``, ``infos[agent]["scores"]`` from ``scores``.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.core.description import GameDescription
from envs.core.game import (
    CHANCE, Game, IllegalActionError, OptionError, SnapshotError, action_index, draw_outcome, json_ready,
)
from envs.core.render import LastMove

RENDER_MODES = ["human", "ansi", "rgb_array"]


def viewer_seats(viewer: Any, players: int) -> tuple[int, ...]:
    """The seats whose hidden items a picture may show: ``None`` → ``()`` (a spectator),
    ``"player_i"`` or ``i`` → ``(i,)``, ``"all"`` → every seat."""
    if viewer is None:
        return ()
    if viewer == "all":
        return tuple(range(players))
    if isinstance(viewer, str) and viewer.startswith("player_") and viewer[7:].isdigit():
        seat = int(viewer[7:])
        if seat < players:
            return (seat,)
    elif isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < players:
        return (viewer,)
    seats = ", ".join(f"'player_{i}'" for i in range(players))
    raise OptionError(f"option 'viewer' must be None, 'all', {seats} or a seat number 0…{players - 1}, not {viewer!r}")


OBSERVATION_FORMATS = ("flat", "planes")


class SuiteEnv(AECEnv):
    """A PettingZoo AEC environment over a rules engine (see module docstring).

    A game's ``raw_env`` is an ordinary subclass naming its description:
    ``class raw_env(SuiteEnv, game=GAME): ...``. Besides the game's options it takes

    * ``render_mode`` — ``None``, ``"human"``, ``"ansi"`` or ``"rgb_array"``;
    * ``viewer`` — whose hidden items the pictures show: ``None`` (a spectator), a seat
      (``"player_0"`` or ``0``) or ``"all"`` (replays and debugging); observations never
      depend on it;
    * ``observation_format`` — ``"flat"`` (a vector, the default) or ``"planes"`` (a
      ``(H, W, C)`` array for convolutional networks; ``docs/observations.md``).
    """

    description: ClassVar[GameDescription]
    metadata: ClassVar[dict[str, Any]]

    def __init_subclass__(cls, game: GameDescription | None = None, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        if game is not None:
            cls.description = game
            cls.metadata = {
                "render_modes": list(RENDER_MODES),
                "name": game.name,
                "is_parallelizable": False,
                "render_fps": 2,
            }

    def __init__(self, render_mode: str | None = None, viewer: Any = None,
                 observation_format: str = "flat", **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise OptionError(
                f"option 'render_mode' must be one of None, {', '.join(map(repr, RENDER_MODES))}, "
                f"not {render_mode!r}"
            )
        if observation_format not in OBSERVATION_FORMATS:
            raise OptionError(
                f"option 'observation_format' must be one of {', '.join(map(repr, OBSERVATION_FORMATS))}, "
                f"not {observation_format!r}"
            )
        game = self.description
        self.render_mode = render_mode
        self.options = game.engine.resolve_options(options)
        count = game.engine.num_players_for(self.options)
        self.viewer = viewer
        self.viewer_seats = viewer_seats(viewer, count)
        self.observation_format = observation_format
        self.possible_agents = [f"player_{i}" for i in range(count)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        self.observer = game.observer(self.options)
        self._planes = observation_format == "planes"
        try:
            observation_space = self.observer.planes_space() if self._planes else self.observer.space()
        except NotImplementedError:
            raise OptionError(f"{game.name} has no 'planes' observation format yet; use 'flat'") from None
        self._num_actions = game.engine.num_actions_for(self.options)
        self._action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": observation_space,
                    "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._seed_rng = random.Random()  # replaced by reset(seed=...)
        self._chance_rng = random.Random()  # resolves the game's chance nodes; from the seed
        self.game: Game | None = None
        # Every action applied to the engine since reset, chance outcomes included: enough to
        # replay the game elsewhere (OpenSpiel). None after a restore (the past is not known).
        self.history: list[int] | None = None
        # The last move the pictures mark (render modes only): the last one this env's viewer
        # may see; None before the first move and after a restore.
        self.last_move: LastMove | None = None
        self._scores_seen: list | None = None
        self._legal: frozenset[int] | None = None  # legal actions of the position now (cached)
        # The action mask of the position now, for the agent to act (cached like _legal: every
        # change of position goes through step, reset or restore, which drop both).
        self._mask: np.ndarray | None = None
        self.ended_by_illegal_action = False  # set by env()'s wrapper: the offender got −1

    # ----- spaces ---------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    # ----- reset / observe / step -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_rng = random.Random(seed)
        self._chance_rng = random.Random(self._seed_rng.getrandbits(64))
        self.game = self.description.engine(self.options, self._chance_rng)
        self.history = []
        self.last_move = None
        self._resolve_chance()
        self._begin_bookkeeping()

    def _resolve_chance(self) -> None:
        """Play the game's chance nodes (dice, shuffles, draws) from the seeded generator, so
        that PettingZoo users only ever see a player to act or the end."""
        game, rng, history = self.game, self._chance_rng, self.history
        while game.current_player() == CHANCE:
            outcome = draw_outcome(game.chance_outcomes(), rng)
            game.apply(outcome)
            if history is not None:
                history.append(outcome)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.agent_name_mapping[agent]
        game = self.game
        if game.current_player() == player:
            mask = self._mask
            if mask is None:
                mask = self._mask = game.action_mask()
            mask = mask.copy()  # the caller's own array: the cached one stays as it is
        else:
            mask = np.zeros(self._num_actions, np.int8)
        vector = self.observer.observe(game, player)
        return {"observation": self.observer.planes(vector) if self._planes else vector, "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self.agents:
            raise IllegalActionError("the game is over and every agent has left it: call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        before = game.clone() if self.render_mode is not None else None  # for the last move's mark
        game.apply(action)  # raises IllegalActionError (a ValueError) with the reason
        if before is not None:
            self._remember_move(before, action)
        if self.history is not None:
            self.history.append(action if type(action) is int else action_index(action, self._num_actions))
        self._legal = self._mask = None
        if game.current_player() == CHANCE:
            self._resolve_chance()
        self._cumulative_rewards[agent] = 0
        if game.is_terminal():
            returns = game.returns()
            self.rewards = {a: float(returns[i]) for i, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
            mover = self.agent_name_mapping[agent]
            self.agent_selection = self.possible_agents[(mover + 1) % len(self.possible_agents)]
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[game.current_player()]
        self._refresh_scores()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _remember_move(self, before: Game, action: Any) -> None:
        """Keep the move just played for the pictures, unless its phase is secret
        (``PlayRules.secret_phases``, Fill's trap) and the viewer is not its player: then the
        viewer's last move stays the one before (not even that a secret move happened shows)."""
        seat = before.current_player()
        secret = self.description.play.secret_phases
        if secret and seat not in self.viewer_seats and before.snapshot()["state"].get("phase") in secret:
            return
        self.last_move = LastMove(seat, action_index(action, self._num_actions), before)

    def _begin_bookkeeping(self) -> None:
        """(Re)build PettingZoo's dicts from the engine's state: after reset and restore."""
        game = self.game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._scores_seen = None
        self._legal = self._mask = None
        self.ended_by_illegal_action = False
        self._skip_agent_selection = None
        if game.is_terminal():
            returns = game.returns()
            self.rewards = {a: float(returns[i]) for i, a in enumerate(self.agents)}
            self._cumulative_rewards = dict(self.rewards)
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.agents[game.current_player()]
        self._refresh_scores()

    def _refresh_scores(self) -> None:
        """``infos[agent]["scores"]``: every seat's points, a float32 array in seat order (infos
        hold numbers and arrays only, so libraries that stack infos into tensors take them)."""
        scores = self.game.scores()
        if scores == self._scores_seen:
            return
        self._scores_seen = list(scores)
        for agent in self.agents:
            self.infos[agent]["scores"] = np.asarray(scores, np.float32)

    def legal_now(self) -> frozenset[int]:
        """The legal actions of the position now, as a set (cached until the position changes)."""
        if self._legal is None:
            self._legal = frozenset(self.game.legal_actions())
        return self._legal

    def is_legal_now(self, index: int) -> bool:
        """Whether action ``index`` (an int) is legal for the agent to act now: read from the
        action mask of the position, the one its observation showed (cached until the position
        changes), so a step after ``last()`` does not list the legal actions again."""
        if not 0 <= index < self._num_actions:
            return False
        mask = self._mask
        if mask is None:
            mask = self._mask = self.game.action_mask()
        return bool(mask[index])

    def end_by_illegal_action(self, illegal_reward: float) -> None:
        """PettingZoo's classic convention: the agent to act made an illegal move, so it gets
        ``illegal_reward`` and everybody else 0, and the game ends for all (terminated and
        truncated, as PettingZoo's ``TerminateIllegalWrapper`` does)."""
        offender = self.agent_selection
        self._cumulative_rewards[offender] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[offender] = float(illegal_reward)
        self._accumulate_rewards()
        self._deads_step_first()
        self.ended_by_illegal_action = True

    # ----- rendering --------------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        pictures = self.description.render
        if self.render_mode == "rgb_array":
            return pictures.rgb(self.game, self.viewer_seats, last=self.last_move)
        text = pictures.ansi(self.game, self.viewer_seats, last=self.last_move)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ----- the engine API, reached through env.unwrapped ----------------------------------------------
    def why_illegal(self, action: int) -> str | None:
        """``None`` if ``action`` is legal now, else one sentence a player understands saying why
        not (the same text ``raw_env.step`` raises and ``env()``'s warning gives)."""
        return self.game.why_illegal(action)

    def action_to_string(self, action: int) -> str:
        """The move's notation in this position (``docs/<game>.md`` documents it per game)."""
        return self.game.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """The action number of a move written in the game's notation (a ValueError says what
        is wrong with the text); round-trips with :meth:`action_to_string`."""
        return self.game.string_to_action(text)

    def legal_actions(self) -> list[int]:
        """The legal action numbers of the agent to act now, ascending."""
        return self.game.legal_actions()

    def snapshot(self) -> dict[str, Any]:
        """The complete state (hidden parts included) as a JSON-ready dict: saved games,
        replays, undo, bug reports. :meth:`restore` continues from it."""
        return self.game.snapshot()

    def restore(self, snapshot: Any) -> None:
        """Continue from a snapshot of a game with this env's options (run-time options such as
        Fill's clock stay this env's own: a snapshot does not carry them)."""
        game = self.description
        runtime = {name: self.options[name] for name in game.runtime_options}
        restored = game.engine.from_snapshot(snapshot, **runtime)
        mine, theirs = game.portable_options(self.options), game.portable_options(restored.options)
        if json_ready(mine) != json_ready(theirs):
            raise SnapshotError(
                f"snapshot options {json_ready(theirs)} differ from this env's options "
                f"{json_ready(mine)}; make the env with the snapshot's options"
            )
        self.game = restored
        self.history = None
        self.last_move = None
        self._resolve_chance()
        self._begin_bookkeeping()

    def __getattr__(self, name: str) -> Any:
        # Only the names the game module lists are forwarded, so typos still fail loudly.
        if name in type(self).description.extra_methods and self.__dict__.get("game") is not None:
            return getattr(self.__dict__["game"], name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def __str__(self) -> str:
        return self.metadata["name"]
