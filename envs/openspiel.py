"""Every suite game as an OpenSpiel game: ``import envs.openspiel`` registers them with pyspiel.

    import pyspiel
    import envs.openspiel  # registers abstract_linecatch, abstract_loom, abstract_fill, abstract_uzor, abstract_knot
    game = pyspiel.load_game("abstract_knot", {"players": 3})
    state = game.new_initial_state()      # chance nodes first (the deal), then player 0

The game parameters are the env options, with the same defaults and the same validation
messages. Options whose values are lists or ``None`` (scripted chance such as Loom's
``throws``, Knot's ``pile``, Uzor's ``patterns``) are JSON text parameters (``""`` is ``None``);
run-time options (Fill's ``clock``) are not parameters. One parameter is OpenSpiel's alone:
``opening``, a JSON list of actions (chance outcomes included) applied to every new initial
state — small openings make exact algorithms (CFR, alpha-beta) tractable.

The ``GameType`` comes from the game's declared facts (``GameDescription.facts``): sequential,
explicit chance or deterministic, perfect or imperfect information, zero-sum with two players
and general-sum with more, terminal rewards, ``max_game_length`` from the engine. A state wraps
the suite's rules engine: OpenSpiel's player ids are the engine's (chance −1, terminal −4),
``clone`` is the engine's own ``clone``, ``serialize`` is the engine's JSON snapshot, and the
observation and information-state tensors and strings come from the game's observer, so
OpenSpiel's algorithms see only what a seat may see. ``resample_from_infostate`` draws a full
state through the game's sampler (what ``open_spiel.python.algorithms.ismcts.ISMCTSBot``
calls). The information state is the seat's observation (which keeps the public history the
seat needs) with the move number; it is not a perfect-recall record of every past observation.

:class:`AgentBot` plays any suite agent as a ``pyspiel.Bot``, so suite agents enter OpenSpiel's
``evaluate_bots`` (``training.players.openspiel.SuiteBot`` takes a ``load_agent`` spec instead);
:class:`OpenSpielAgent` is the reverse, an OpenSpiel bot acting as a suite agent (it searches a
state sampled from the seat's observation).

Games registered after this module is imported (:func:`envs.registry.register`) join with
:func:`register`.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

import envs
from envs.core.description import GameDescription
from envs.core.game import CHANCE, TERMINAL, OptionError, json_ready

PREFIX = "abstract_"
SCALAR = (bool, int, float, str)


def game_short_name(description: GameDescription) -> str:
    return PREFIX + description.short_name


# ----- parameters ---------------------------------------------------------------------------------

def integer_unset_options(description: GameDescription) -> set[str]:
    """Options whose default is ``None`` but which take a whole number (Knot's ``size``, chosen
    by the number of players when unset): pyspiel parameters have one type, so these are
    integer parameters where 0 stands for ``None``."""
    resolved = description.resolve_options({})
    return {name for name, default in description.engine.OPTIONS.items()
            if default is None and type(resolved[name]) is int}


def parameter_defaults(description: GameDescription) -> dict[str, Any]:
    """The pyspiel parameter of every option: scalars as themselves, everything else as JSON
    text (``""`` for ``None``), whole-number options that default to ``None`` as integers (0 for
    ``None``); run-time options are left out. Plus ``opening``."""
    out: dict[str, Any] = {}
    integers = integer_unset_options(description)
    for name, default in description.engine.OPTIONS.items():
        if name in description.runtime_options:
            continue
        if name in integers:
            out[name] = 0
        elif isinstance(default, SCALAR):
            out[name] = default
        else:
            out[name] = "" if default is None else json.dumps(json_ready(default))
    out["opening"] = ""
    return out


def options_from_parameters(description: GameDescription, params: dict[str, Any]) -> tuple[dict, list[int]]:
    """The env options and the opening a pyspiel parameter dict stands for (checked by the
    game's own option checks, so the messages are the env's)."""
    defaults = parameter_defaults(description)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise OptionError(
            f"unknown option {unknown[0]!r} for {description.name}; the options are: {', '.join(defaults)}"
        )
    options: dict[str, Any] = {}
    opening: list[int] = []
    integers = integer_unset_options(description)
    for name, value in params.items():
        default = defaults[name]
        if name in integers:
            options[name] = None if value == 0 else value
        elif name == "opening" or not isinstance(description.engine.OPTIONS.get(name), SCALAR):
            if not isinstance(value, str):
                raise OptionError(f"option {name!r} is JSON text in OpenSpiel (\"\" for none), not {value!r:.60}")
            try:
                decoded = None if value == "" else json.loads(value)
            except json.JSONDecodeError as error:
                raise OptionError(f"option {name!r} must be JSON text: {error}") from None
            if name == "opening":
                if decoded is not None and not (isinstance(decoded, list) and all(
                        isinstance(a, int) and not isinstance(a, bool) for a in decoded)):
                    raise OptionError("option 'opening' must be a JSON list of action numbers")
                opening = list(decoded or [])
            else:
                options[name] = decoded
        else:
            if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            options[name] = value
    return options, opening


def game_type(description: GameDescription, players: int | None = None) -> pyspiel.GameType:
    facts = description.facts
    utility = facts.utility(players) if players is not None else (
        "zero_sum" if facts.max_players == 2 else "general_sum")
    return pyspiel.GameType(
        short_name=game_short_name(description),
        long_name=f"{facts.long_name} (abstract games suite)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if facts.chance == "explicit"
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if facts.information == "imperfect"
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=(pyspiel.GameType.Utility.ZERO_SUM if utility == "zero_sum" else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=facts.max_players,
        min_num_players=facts.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_defaults(description),
    )


# ----- the game and its states ----------------------------------------------------------------------

class SuiteGame(pyspiel.Game):
    """A suite game under one option set, as OpenSpiel sees it."""

    description: GameDescription

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        description = self.description
        options, self.opening = options_from_parameters(description, params)
        self.options = description.resolve_options(options)
        self.env_options = options
        engine = description.engine
        players = engine.num_players_for(self.options)
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions_for(self.options),
            max_chance_outcomes=engine.max_chance_outcomes_for(self.options),
            num_players=players,
            min_utility=description.facts.min_utility,
            max_utility=description.facts.max_utility,
            utility_sum=0.0 if players == 2 else None,
            max_game_length=engine.max_game_length_for(self.options),
        )
        super().__init__(game_type(description, players), info, {**parameter_defaults(description), **params})
        self.observer = description.observer(self.options)

    def new_initial_state(self) -> "SuiteState":
        state = SuiteState(self, EngineBox(self.description.engine(self.options)))
        for index, action in enumerate(self.opening):
            engine = state.box.engine
            if engine.is_terminal() or action not in engine.legal_actions():
                raise OptionError(f"option 'opening': action {index} ({action}) is not legal there")
            state.apply_action(action)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> "SuiteObserver":
        if params:
            raise ValueError(f"observation parameters are not supported, not {params!r}")
        if iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("the suite's observers show one seat's view, not every player's private items")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return SuiteObserver(self.observer, perfect_recall)


class EngineBox:
    """Holds the engine for a pyspiel state: OpenSpiel clones a Python state by deep-copying
    its attributes and serialises it by pickling them, so the box copies by the engine's own
    ``clone`` and pickles as the engine's JSON snapshot."""

    __slots__ = ("engine",)

    def __init__(self, engine):
        self.engine = engine

    def __deepcopy__(self, memo) -> "EngineBox":
        return EngineBox(self.engine.clone())

    def __getstate__(self) -> dict:
        engine = self.engine
        runtime = engine.RUNTIME_OPTIONS
        return {"game": engine.NAME, "snapshot": json.dumps(engine.snapshot(), sort_keys=True), "runtime": runtime}

    def __setstate__(self, state: dict) -> None:
        description = envs.describe(state["game"])
        self.engine = description.engine.from_snapshot(state["snapshot"])


class SuiteState(pyspiel.State):
    """One position: the suite's engine state in a box (see :class:`EngineBox`)."""

    def __init__(self, game: SuiteGame, box: EngineBox | None = None):
        super().__init__(game)
        self.box = box if box is not None else EngineBox(game.description.engine(game.options))

    # ----- OpenSpiel's state interface ------------------------------------------------------------
    def current_player(self) -> int:
        player = self.box.engine.current_player()
        if player == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if player == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return player

    def _legal_actions(self, player: int) -> list[int]:
        engine = self.box.engine
        return engine.legal_actions() if engine.current_player() == player else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.box.engine.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.box.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        engine = self.box.engine
        if engine.is_terminal() or engine.current_player() != player:
            return f"action {action}"
        try:
            return engine.action_to_string(action)
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self.box.engine.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.box.engine.returns()]

    def __str__(self) -> str:
        return json.dumps(self.box.engine.snapshot()["state"], sort_keys=True)

    # ----- what search algorithms need ------------------------------------------------------------
    @property
    def engine(self):
        """The suite's rules engine of this position."""
        return self.box.engine

    def observation_dict(self, player: int) -> dict[str, np.ndarray]:
        """What ``env.observe`` would give ``player`` here: the flat vector and the mask."""
        game = self.get_game()
        engine = self.box.engine
        mask = np.zeros(game.num_distinct_actions(), np.int8)
        if engine.current_player() == player:
            mask[engine.legal_actions()] = 1
        return {"observation": game.observer.observe(engine, player), "action_mask": mask}

    def resample_from_infostate(self, player: int, sampler=None) -> "SuiteState":
        """A full state ``player`` cannot tell from this one, drawn by the game's sampler (the
        seat must be the one to act: the sampler draws for the seat that acts now)."""
        game = self.get_game()
        if self.box.engine.current_player() != player:
            raise ValueError(f"resample_from_infostate needs the seat to act (player {player} is not)")
        seed = int(sampler() * 2**52) if sampler is not None else random.getrandbits(52)
        draw = game.description.sampling.sampler(self.observation_dict(player), game.env_options)
        resampled = self.clone()  # keeps OpenSpiel's own record (history, move number)
        resampled.box = EngineBox(draw(random.Random(seed)))
        return resampled


class SuiteObserver:
    """OpenSpiel's observer protocol over the game's observer: the flat vector of one seat, and
    as a string its non-zero entries (plus the move number for the information state)."""

    def __init__(self, observer, perfect_recall: bool):
        self.observer = observer
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(observer.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: SuiteState, player: int) -> None:
        self.tensor[:] = self.observer.observe(state.box.engine, player)

    def string_from(self, state: SuiteState, player: int) -> str:
        vector = self.observer.observe(state.box.engine, player)
        entries = " ".join(f"{i}:{v:.7g}" for i, v in zip(np.flatnonzero(vector), vector[vector != 0]))
        if self.perfect_recall:
            return f"p{player} move {state.move_number()} | {entries}"
        return f"p{player} | {entries}"


# ----- bots both ways -------------------------------------------------------------------------------

class AgentBot(pyspiel.Bot):
    """A suite agent (any object with ``act(observation) -> int``) as a ``pyspiel.Bot`` for
    ``player_id``: it sees only that seat's observation of the state it is asked about. (The
    training stack's ``training.players.openspiel.SuiteBot`` builds the agent from a
    ``load_agent`` spec.)"""

    def __init__(self, game: SuiteGame, player_id: int, agent: Any):
        pyspiel.Bot.__init__(self)
        self.player_id = player_id
        self.agent = agent

    def step(self, state: SuiteState) -> int:
        return int(self.agent.act(state.observation_dict(self.player_id)))

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass


class OpenSpielAgent:
    """An OpenSpiel bot as a suite agent: each ``act`` draws a full state from the seat's
    observation with the game's sampler, wraps it as a pyspiel state and asks the bot."""

    def __init__(self, bot: pyspiel.Bot, game: str, seed: int | None = None, **options: Any):
        description = envs.describe(game)
        self.bot = bot
        self.game = pyspiel.load_game(game_short_name(description), parameters_from_options(description, options))
        self.rng = random.Random(seed)

    def act(self, observation) -> int:
        game = self.game
        draw = game.description.sampling.sampler(observation, game.env_options)
        state = SuiteState(game, EngineBox(draw(self.rng)))
        return int(self.bot.step(state))


def parameters_from_options(description: GameDescription, options: dict[str, Any]) -> dict[str, Any]:
    """The pyspiel parameters of env options (the inverse of :func:`options_from_parameters`)."""
    params = {}
    integers = integer_unset_options(description)
    for name, value in options.items():
        if name in description.runtime_options:
            continue
        if name in integers:
            params[name] = 0 if value is None else value
        elif isinstance(description.engine.OPTIONS.get(name), SCALAR):
            params[name] = value
        else:
            params[name] = "" if value is None else json.dumps(json_ready(value))
    return params


def register(description: GameDescription) -> None:
    """Register a suite game with pyspiel as ``abstract_<short_name>`` (once)."""
    short = game_short_name(description)
    if short in pyspiel.registered_names():
        return
    game_class = type(f"{description.facts.long_name}Game", (SuiteGame,), {"description": description,
                                                                          "__module__": __name__})
    pyspiel.register_game(game_type(description), game_class)


for _description in envs.DESCRIPTIONS:
    register(_description)

__all__ = ["AgentBot", "EngineBox", "OpenSpielAgent", "SuiteGame", "SuiteObserver", "SuiteState",
           "game_short_name", "options_from_parameters", "parameters_from_options", "register"]
