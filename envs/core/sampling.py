"""What every game's sampler does first and last: read one seat's observation, and check that a
rebuilt state shows exactly that observation.

A sampler (``GameDescription.sampling.sampler``) turns one seat's observation into full states.
It starts with :func:`read_observation` — options resolved, the vector's shape, range and the
mask checked, with messages that name the game and its options — and before it hands out a
state it checks with :func:`check_reproduces` that the state it rebuilt shows the seat exactly
the observation and mask it was given (else the observation came from elsewhere: other options,
a corrupted vector).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.game import short_repr
from envs.core.observer import Observer, as_vector


@dataclass
class SeatView:
    """One seat's observation, read and checked: resolved options, the observer, the vector
    (float32), the mask (``None`` when a bare vector was given) and the decoded fields."""

    options: dict[str, Any]
    observer: Observer
    vector: np.ndarray
    mask: np.ndarray | None
    fields: dict[str, Any]


def read_observation(engine: type, observer_cls: type, observation: Any, options: dict[str, Any],
                     needs_mask: bool = True) -> SeatView:
    """Resolve ``options``, build the observer and check ``observation`` (the env's dict or the
    bare vector) against them; a ``ValueError`` says what does not fit. With ``needs_mask``
    an empty mask is refused: a sampler draws states for the seat that acts now."""
    resolved = engine.resolve_options(dict(options))
    observer = observer_cls(resolved)
    vector = np.asarray(as_vector(observation), dtype=np.float32)
    if vector.shape != (observer.size,):
        shown = {k: v for k, v in resolved.items() if k not in engine.RUNTIME_OPTIONS}
        raise ValueError(
            f"a {engine.NAME} observation under options {short_repr(shown, 200)} has {observer.size} entries, "
            f"not shape {vector.shape} (was it made with other options?)"
        )
    if not np.all((vector >= 0) & (vector <= 1)):
        raise ValueError(f"a {engine.NAME} observation's entries lie in [0, 1]; this one has others (or NaN)")
    mask = None
    if isinstance(observation, dict) and observation.get("action_mask") is not None:
        mask = np.asarray(observation["action_mask"])
        actions = engine.num_actions_for(resolved)
        if mask.shape != (actions,):
            raise ValueError(f"the action mask must hold {actions} entries under these options, not shape {mask.shape}")
        if needs_mask and not mask.any():
            raise ValueError("the observation's action mask is empty: this seat does not act now")
    return SeatView(resolved, observer, vector, mask, observer.decode(vector))


def check_reproduces(view: SeatView, game, seat: int) -> None:
    """A rebuilt state must show ``seat`` exactly the observation (and mask) of ``view``; a
    ``ValueError`` names the first block that differs."""
    observer, vector = view.observer, view.vector
    again = observer.observe(game, seat)
    if again.tobytes() != vector.tobytes():
        index = int(np.flatnonzero(again != vector)[0])
        block = observer.layout.name_at(index)
        raise ValueError(
            f"the observation cannot come from a {game.NAME} game with these options: its {block} block "
            f"(entry {index}) holds {float(vector[index])!r}, which no state consistent with the rest shows "
            f"(a rebuilt state gives {float(again[index])!r})"
        )
    if view.mask is not None:
        legal = game.legal_actions()
        allowed = np.flatnonzero(view.mask).tolist()
        if allowed != legal:
            raise ValueError(
                f"the action mask does not match the observation: the position's legal actions are "
                f"{legal[:20]}{'…' if len(legal) > 20 else ''}, the mask allows "
                f"{allowed[:20]}{'…' if len(allowed) > 20 else ''}"
            )
