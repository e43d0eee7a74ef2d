"""Uzor's planes in JAX (``envs/uzor/jax_planes.py``) equal the Python observer's
(``envs/uzor/planes.py``) to the bit.

Every seat's observation along seeded random games that close about half the forks offered
(``tests.uzor.test_planes.positions``: both seats at every decision, at the forks, at the end),
on the described tables (9×9, 15×15, 21×21), scripted tiles and goals, a user's Map with a shape
too wide for the table, and a Map that uses every criterion (a one-cell shape, a wide hollow
one); batched, single, with more leading axes, under ``jit`` and ``vmap``; and no host callback
on the way. The data are checked to hold what the channels are about (forks, the end,
placements that complete patterns, threats and preparations), so the equality means something.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from envs.uzor import planes as P
from envs.uzor.common import PHASES
from envs.uzor.observer import UzorObserver
from envs.uzor.rules import UzorGame
from tests.jax.lockstep import compiled
from tests.jax.test_uzor import OPTION_SETS as ENGINE_SETS
from tests.uzor.test_planes import ODD_MAP, positions

OPTION_SETS = {
    "quick": (ENGINE_SETS["quick"], 4),
    "15x15": (ENGINE_SETS["15x15"], 2),
    "default 21x21": (ENGINE_SETS["default 21x21"], 1),
    "scripted": (ENGINE_SETS["scripted"], 2),
    "user map": (ENGINE_SETS["user map"], 3),
    "every criterion 11x11": ({"board_size": 11, "patterns": ODD_MAP}, 3),
}
CHUNK = 96  # observations per call: one compiled shape per option set


def _observations(options: dict, games: int, seed: int = 0) -> tuple[UzorObserver, np.ndarray]:
    resolved = UzorGame.resolve_options(dict(options))
    observer = UzorObserver(resolved)
    return observer, np.stack([observer.observe(game, player) for game, player in positions(resolved, games, seed)])


def _jax_planes(options: dict, flats: np.ndarray) -> np.ndarray:
    """The JAX planes of a batch, ``CHUNK`` observations per call (the last chunk padded)."""
    planes = jax.jit(compiled("uzor", options)[0].planes)
    out = []
    for start in range(0, len(flats), CHUNK):
        chunk = flats[start:start + CHUNK]
        padded = np.concatenate([chunk, np.repeat(chunk[-1:], CHUNK - len(chunk), axis=0)])
        out.append(np.asarray(planes(padded))[:len(chunk)])
    return np.concatenate(out)


def _assert_same(got: np.ndarray, want: np.ndarray, label: str) -> None:
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    bad = np.argwhere(got != want)
    if len(bad):
        n, r, c, ch = bad[0]
        raise AssertionError(f"{label}: {len(bad)} entries differ, in channels {sorted(set(bad[:, 3].tolist()))}; "
                             f"first: observation {n}, cell ({r}, {c}), channel {ch}: "
                             f"JAX {got[n, r, c, ch]!r}, Python {want[n, r, c, ch]!r}")


def _phase_count(observer: UzorObserver, flats: np.ndarray, phase: str) -> int:
    return int((flats[:, observer.PHASE + PHASES.index(phase)] > 0.5).sum())


@pytest.mark.parametrize("label", list(OPTION_SETS))
def test_the_jax_planes_are_the_python_observers(label):
    options, games = OPTION_SETS[label]
    observer, flats = _observations(options, games, seed=1)
    want = observer.planes(flats)
    _assert_same(_jax_planes(options, flats), want, label)
    # what the comparison covers: forks, the end, placements that complete something, the
    # opponent's threats and my preparations, seats that see different planes
    assert _phase_count(observer, flats, "fork") >= 1 and _phase_count(observer, flats, "over") >= 2
    completes = want[..., P.MINE_CH:P.THEIRS_CH + 1] > P.BASE + 1e-6
    assert completes.any(axis=(1, 2, 3)).sum() >= 10, label
    for channel in (P.THREAT_CH, P.PREPARE_CH):
        assert (want[..., channel:channel + 5] > 0).any(axis=(1, 2, 3)).sum() >= 10, (label, channel)
    assert not np.array_equal(want[0::2], want[1::2])


def test_single_batched_and_vmapped_observations_agree():
    """One observation gives ``(B, B, 74)``, ``vmap`` over a batch the batch's, each equal to
    the Python observer's; leading axes ``(2, 3)`` give ``(2, 3, B, B, 74)``."""
    options = ENGINE_SETS["quick"]
    observer, flats = _observations(options, 1, seed=4)
    env = compiled("uzor", options)[0]
    picked = flats[np.linspace(0, len(flats) - 1, 6).astype(int)]
    want = observer.planes(picked)

    @jax.jit
    def both_ways(batch):
        return env.planes(batch[0]), jax.vmap(env.planes)(batch)

    single, mapped = (np.asarray(x) for x in both_ways(picked))
    _assert_same(single[None], want[:1], "single")
    _assert_same(mapped, want, "vmap")
    # more leading axes are one reshape around the batch's program (its values: the batches above)
    grid = jax.eval_shape(env.planes, jax.ShapeDtypeStruct((2, 3, observer.size), np.float32))
    assert grid.shape == (2, 3) + want.shape[1:] and grid.dtype == np.float32
    assert env.planes_shape == observer.planes_shape() == single.shape
    with pytest.raises(ValueError, match=str(observer.size)):
        env.planes(flats[0][:-1])


def test_the_planes_need_no_host():
    """The planes are JAX all the way: no callback to the host in their program."""
    env = compiled("uzor", ENGINE_SETS["quick"])[0]
    program = str(jax.make_jaxpr(env.planes)(np.zeros((2, env.observer.size), np.float32)))
    assert "callback" not in program and "pure_callback" not in str(jax.make_jaxpr(env.step)(
        env.init(jax.random.PRNGKey(0)), 0, jax.random.PRNGKey(1)))
