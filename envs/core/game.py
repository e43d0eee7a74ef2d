"""The contract every rules engine meets, and the helpers they share.

A rules engine is a plain Python object (no gymnasium, no PettingZoo): it knows whose turn it
is, which actions are legal, how an action changes the state, when the game is over and what
everybody scored. The AEC adapter in :mod:`envs.core.aec` is the only thing that turns an
engine into a PettingZoo environment; bots and search code use engines directly.
"""

from __future__ import annotations

import json
import operator
from typing import Any, ClassVar

import numpy as np

# current_player() ids that are not seats: OpenSpiel's own (kChancePlayerId, kTerminalPlayerId).
CHANCE = -1  # at a chance node: the rules throw dice, shuffle, deal or draw
TERMINAL = -4  # the game is over


class IllegalActionError(ValueError):
    """Raised by ``apply`` for an illegal action; the message is the ``why_illegal`` sentence."""


class SnapshotError(ValueError):
    """Raised by ``restore`` / ``from_snapshot`` for a malformed or inconsistent snapshot."""


class OptionError(ValueError):
    """Raised when an option is unknown or has a value the game does not allow."""


def ranked_returns(scores: list[float]) -> list[int]:
    """Contract rewards: +1 for the sole winner, 0 for everyone tied for first, -1 otherwise."""
    best = max(scores)
    leaders = sum(1 for s in scores if s == best)
    return [(1 if leaders == 1 else 0) if s == best else -1 for s in scores]


def margins(scores: list[float]) -> list[float]:
    """Per player, its points minus the best other player's (a score-shaping signal)."""
    out = []
    for player, mine in enumerate(scores):
        out.append(float(mine - max(s for i, s in enumerate(scores) if i != player)))
    return out


def relative_margins(scores: list[float]) -> list[float]:
    """Per player, its lead over the best other player relative to both scores, in (−1, 1):
    ``(mine − best other) / (|mine| + |best other| + 1)``. Search uses it to tell a big win
    from a narrow one and to score a play-out cut off before the end."""
    out = []
    for player, mine in enumerate(scores):
        best_other = max(s for i, s in enumerate(scores) if i != player)
        out.append((mine - best_other) / (abs(mine) + abs(best_other) + 1))
    return out


def action_index(action: Any, num_actions: int) -> int:
    """An action as a plain int: ints, numpy integer scalars and 0-d integer arrays pass (the
    range is the engine's to check); a bool, a float, a longer array or anything else is
    refused with an :class:`IllegalActionError` (a ``ValueError``) that names it."""
    wanted = f"an action is an integer 0…{num_actions - 1}"
    if isinstance(action, (bool, np.bool_)):
        raise IllegalActionError(f"{wanted}, not the boolean {action!r}")
    if isinstance(action, np.ndarray):
        if action.shape != () or action.dtype.kind not in "iu":
            raise IllegalActionError(f"{wanted}, not an array of shape {action.shape} and dtype {action.dtype}")
        return int(action)
    try:
        return operator.index(action)
    except TypeError:
        raise IllegalActionError(f"{wanted}, not {short_repr(action)}") from None


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters: error messages never repeat a huge input."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 1]}…"


def draw_outcome(outcomes: list[tuple[int, float]], rng) -> int:
    """One outcome of a chance node, drawn with its probability from ``rng`` (a
    ``random.Random``): the same generator state gives the same outcome on every machine."""
    if len(outcomes) == 1:
        return outcomes[0][0]
    point = rng.random() * sum([p for _, p in outcomes])
    for outcome, probability in outcomes:
        point -= probability
        if point < 0:
            return outcome
    return outcomes[-1][0]


class Game:
    """Base class of every game's engine: shared option checks, snapshot framing, helpers.

    Subclasses set ``NAME`` (the env name with the game's version, e.g. ``"linecatch_v0"``:
    the description checks it) and ``OPTIONS`` (the defaults), and keep their whole state in
    plain attributes listed in ``STATE_KEYS`` so ``clone`` and ``snapshot`` stay cheap and
    generic. What a game overrides:

    * always: ``check_options``; the sizes its options fix, ``num_actions_for`` and
      ``max_game_length_for``; the state interface (``current_player``, ``legal_actions``,
      ``why_illegal``, ``apply``, ``scores``, ``action_to_string``, ``string_to_action``);
      ``clone``, ``state_dict`` and ``from_state_dict``;
    * where it differs from the default: ``num_players_for`` (2), ``max_chance_outcomes_for``
      and ``chance_outcomes`` (a game with chance), ``memory_estimate_for`` (0) and
      ``action_mask`` (built from ``legal_actions``).
    """

    NAME: ClassVar[str]
    OPTIONS: ClassVar[dict[str, Any]]
    SNAPSHOT_VERSION: ClassVar[int] = 1
    # The keys of a snapshot's ``state`` (``state_dict`` writes exactly these): ``read_snapshot``
    # refuses any other, ``from_snapshot`` a missing one.
    STATE_KEYS: ClassVar[tuple[str, ...]]
    # Options that are run-time objects, not part of a position (Fill's clock): a snapshot
    # records them as null, and from_snapshot takes them as keyword arguments.
    RUNTIME_OPTIONS: ClassVar[tuple[str, ...]] = ()
    # Options that change no rule an agent plays by: scripted chance outcomes (the outcomes are
    # fixed, not the game) and clocks. An agent file trained without them plays under them; any
    # other option must be the one it was trained with (``training.agents``).
    NEUTRAL_OPTIONS: ClassVar[tuple[str, ...]] = ()

    options: dict[str, Any]

    # ----- options -------------------------------------------------------------------------
    @classmethod
    def resolve_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """Defaults filled in, unknown names refused, values checked by ``check_options``."""
        unknown = sorted(set(options) - set(cls.OPTIONS))
        if unknown:
            raise OptionError(
                f"unknown option {short_repr(unknown[0])} for {cls.NAME}; "
                f"the options are: {', '.join(cls.OPTIONS)}"
            )
        resolved = dict(cls.OPTIONS)
        resolved.update(options)
        return cls.check_options(resolved)

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """The resolved options checked (a bad one refused with an ``OptionError`` that names
        it), possibly completed (a default that depends on another option)."""
        return options

    # ----- what an option set fixes, asked before any game is made (all take resolved options)
    @classmethod
    def num_players_for(cls, options: dict[str, Any]) -> int:
        """The number of seats (``player_0`` …) a game with these options has."""
        return 2

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        """The size of the action space: every action id is below it."""
        raise NotImplementedError

    @classmethod
    def max_chance_outcomes_for(cls, options: dict[str, Any]) -> int:
        """The number of distinct chance outcome ids (0 for a game without chance)."""
        return 0

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        """An upper bound on the player actions in one game (chance outcomes not counted)."""
        raise NotImplementedError

    # Options that make a game's own data big (Uzor's Map laid on its table), named by a
    # server that refuses an option set over its memory budget.
    MEMORY_OPTIONS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def memory_estimate_for(cls, options: dict[str, Any]) -> int:
        """About how many bytes a game with these (resolved) options holds that games of other
        option sets do not share with it, reckoned before it is made: a server charges each
        open game this much against its budget. Most option sets cost next to nothing (0)."""
        return 0

    # ----- the state interface (OpenSpiel-like) ----------------------------------------------
    @property
    def num_players(self) -> int:
        return self.num_players_for(self.options)

    @property
    def num_actions(self) -> int:
        return self.num_actions_for(self.options)

    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def action_mask(self) -> np.ndarray:
        """The legal actions now as a fresh ``int8`` array over every action (1 = legal): the
        AEC env's ``action_mask``. This one marks ``legal_actions()``; an engine may build it
        more directly (Uzor from its bitboards), always with the same ones."""
        mask = np.zeros(self.num_actions_for(self.options), np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def why_illegal(self, action: int) -> str | None:
        raise NotImplementedError

    def apply(self, action: int) -> None:
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    # ----- chance, as OpenSpiel models it ---------------------------------------------------
    # At a chance node current_player() is CHANCE, legal_actions() lists the outcome ids and
    # apply(outcome) makes that outcome happen. Future chance is never part of the state.
    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: every outcome with its probability given what is known (they sum
        to 1); with a scripted chance option, the scripted outcome alone, probability 1."""
        raise ValueError(f"{self.NAME} is not at a chance node (player {self.current_player()} is to act)")

    def scores(self) -> list[float]:
        raise NotImplementedError

    def returns(self) -> list[int]:
        """Rewards at the end (zeros before): the contract's ranking of ``scores()``."""
        if not self.is_terminal():
            return [0] * self.num_players
        return ranked_returns(self.scores())

    def action_to_string(self, action: int) -> str:
        raise NotImplementedError

    def string_to_action(self, text: str) -> int:
        raise NotImplementedError

    # ----- copies and snapshots ----------------------------------------------------------------
    def clone(self):
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """The JSON-ready state, without framing; subclasses implement."""
        raise NotImplementedError

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]):
        """Build a game from ``state_dict`` output, validating it; subclasses implement."""
        raise NotImplementedError

    def snapshot(self) -> dict[str, Any]:
        """A JSON-serialisable dict of the complete state (hidden parts included): ``game`` is
        the env name, which carries the game's version (``"fill_v0"``); ``version`` is the
        snapshot format's number (``SNAPSHOT_VERSION``), not the game's."""
        options = {k: (None if k in self.RUNTIME_OPTIONS else v) for k, v in self.options.items()}
        return {
            "game": self.NAME,
            "version": self.SNAPSHOT_VERSION,
            "options": json_ready(options),
            "state": self.state_dict(),
        }

    @classmethod
    def read_snapshot(cls, snapshot: Any, **runtime: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The snapshot's framing checked — JSON text or a dict with exactly the entries
        ``game`` (this game's name), ``version`` (the integer this engine reads), ``options``
        and ``state`` (dicts, the state with no key but ``STATE_KEYS``) — and its options
        resolved: returns the snapshot dict and the options. ``from_snapshot`` and the samplers'
        ``complete_snapshot`` read snapshots through it (a partial snapshot may leave state
        keys out; ``from_snapshot`` refuses a missing one)."""
        if isinstance(snapshot, str):
            try:
                snapshot = json.loads(snapshot)
            except json.JSONDecodeError as error:
                raise SnapshotError(f"snapshot is not valid JSON: {error}") from None
            except RecursionError:
                raise SnapshotError("snapshot JSON is nested too deeply to be a snapshot") from None
        if not isinstance(snapshot, dict):
            raise SnapshotError(f"a snapshot is a dict, not {type(snapshot).__name__}")
        check_keys(snapshot, SNAPSHOT_KEYS, unknown="snapshot has an unknown entry {key}; a snapshot holds {keys}",
                   missing="snapshot has no {key} entry")
        if snapshot["game"] != cls.NAME:
            short = cls.NAME.rpartition("_v")[0]
            other = snapshot["game"] if isinstance(snapshot["game"], str) else ""
            if other.rpartition("_v")[0] == short and other.rpartition("_v")[2].isdigit():
                raise SnapshotError(  # the same game, another version: its positions follow other rules
                    f"snapshot is of game {short_repr(other)}, another version of {short} than this engine's "
                    f"{cls.NAME!r}; docs/changelog.md says what changed between versions")
            raise SnapshotError(
                f"snapshot is of game {short_repr(snapshot['game'])}, not {cls.NAME!r}"
            )
        version = snapshot["version"]
        if not is_int(version):
            raise SnapshotError(
                f"snapshot 'version' is {short_repr(version)}, not an integer (this engine reads version "
                f"{cls.SNAPSHOT_VERSION})"
            )
        if version != cls.SNAPSHOT_VERSION:
            raise SnapshotError(
                f"snapshot version {short_repr(version)} is not supported "
                f"(this engine reads version {cls.SNAPSHOT_VERSION})"
            )
        if not isinstance(snapshot["options"], dict) or not isinstance(snapshot["state"], dict):
            raise SnapshotError("snapshot 'options' and 'state' must be dicts")
        check_state_keys(cls, snapshot["state"], complete=False)
        unknown = sorted(set(runtime) - set(cls.RUNTIME_OPTIONS))
        if unknown:
            raise TypeError(f"{cls.NAME} snapshots take no run-time option {unknown[0]!r}")
        try:
            options = cls.resolve_options({**snapshot["options"], **runtime})
        except OptionError as error:
            raise SnapshotError(f"snapshot options are invalid: {error}") from None
        return snapshot, options

    @classmethod
    def from_snapshot(cls, snapshot: Any, **runtime: Any):
        """A new game from a snapshot (validated first); ``runtime`` gives the run-time options
        (``RUNTIME_OPTIONS``) the snapshot does not carry, else their defaults are used."""
        try:
            snapshot, options = cls.read_snapshot(snapshot, **runtime)
            check_state_keys(cls, snapshot["state"], complete=True)
            return cls.from_state_dict(options, snapshot["state"])
        except SnapshotError:
            raise
        except RecursionError:
            raise SnapshotError("snapshot is nested too deeply to be a snapshot") from None
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise SnapshotError(f"snapshot state is malformed: {short_repr(error, 200)}") from None

    def restore(self, snapshot: Any) -> None:
        """Replace this game's state, in place, by the snapshot's (validated first); run-time
        options stay this game's own."""
        runtime = {name: self.options[name] for name in self.RUNTIME_OPTIONS}
        restored = type(self).from_snapshot(snapshot, **runtime)
        self.__dict__.clear()
        self.__dict__.update(restored.__dict__)

    # ----- shared helpers -----------------------------------------------------------------------
    def _check_action(self, action: Any) -> int:
        """Actions arrive as ints or numpy integers; anything else is refused by name."""
        return action_index(action, self.num_actions)

    def _raise_illegal(self, action: int):
        reason = self.why_illegal(action) or "that action is not legal now"
        raise IllegalActionError(reason)


def json_ready(value: Any) -> Any:
    """Tuples become lists, recursively, so a snapshot equals its JSON round trip."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


# ----- snapshot validation helpers ----------------------------------------------------------

SNAPSHOT_KEYS = ("game", "version", "options", "state")


def is_int(value: Any, low: int | None = None, high: int | None = None) -> bool:
    """An integer as JSON-read data holds them (snapshots, options, agent files, requests): an
    ``int`` (or an int subclass) but not a bool; a float, even ``1.0``, is not one. With
    ``low`` and/or ``high``, also within them (both ends included)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def check_keys(mapping: dict, keys: tuple[str, ...], *, unknown: str, missing: str | None = None) -> None:
    """The one reading of a snapshot's keys, for every game: a key not in ``keys`` is refused
    with ``unknown`` (and, when ``missing`` is given, a key of ``keys`` left out with
    ``missing``), formatted with ``{key}`` (the key, cut short) and ``{keys}`` (the keys)."""
    for key in mapping:
        if key not in keys:
            raise SnapshotError(unknown.format(key=short_repr(key, 40), keys=", ".join(keys)))
    if missing is not None:
        for key in keys:
            if key not in mapping:
                raise SnapshotError(missing.format(key=repr(key), keys=", ".join(keys)))


def check_state_keys(cls: type, state: dict, *, complete: bool) -> None:
    """A snapshot state's keys against the game's ``STATE_KEYS``: none other (a partial
    snapshot too), and, when ``complete``, none missing."""
    check_keys(state, cls.STATE_KEYS,
               unknown=f"snapshot field {{key}} is not part of a {cls.NAME} state (the fields are: {{keys}})",
               missing="snapshot field {key} is missing" if complete else None)


def require(condition: bool, message: str) -> None:
    if not condition:
        raise SnapshotError(message)


def int_list(state: dict, key: str, length: int, low: int, high: int) -> list[int]:
    """A list of ``length`` ints in ``low…high`` (bools refused), else SnapshotError. (The
    message is built only on failure: validators call this on every snapshot they read.)"""
    value = state.get(key)
    if not isinstance(value, list):
        raise SnapshotError(f"snapshot field {key!r} must be a list, not {short_repr(value)}")
    if len(value) != length:
        raise SnapshotError(f"snapshot field {key!r} must hold {length} entries, not {len(value)}")
    for item in value:
        if type(item) is not int or not low <= item <= high:
            if is_int(item, low, high):
                continue  # an int subclass other than bool
            raise SnapshotError(f"snapshot field {key!r} holds {short_repr(item)}; entries must be integers {low}…{high}")
    return list(value)


def int_field(state: dict, key: str, low: int, high: int) -> int:
    value = state.get(key)
    if type(value) is int and low <= value <= high:  # the common case first: this runs per field read
        return value
    if is_int(value, low, high):
        return value
    raise SnapshotError(f"snapshot field {key!r} is {short_repr(value)}; it must be an integer {low}…{high}")
