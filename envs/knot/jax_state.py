"""The position of Knot's JAX engine (``envs/knot/jax_engine.py``): one fixed-shape tuple of
arrays per game, shared by the rules and by :mod:`envs.knot.jax_view` (observations, snapshots).
Ports are numbered port-major inside the engine (``port*S + square``)."""

from __future__ import annotations

from typing import Any, NamedTuple


class G(NamedTuple):
    """One Knot position (numpy arrays on the host, jnp arrays inside JAX). Ports are
    port-major (``port*S + square``); a ribbon's facts are kept on each of its ports."""

    geo: Any  # int16 (S,): per square, corners in use | blocked sides << 4 | sides in use << 8
    port_rib: Any  # int16 (8S,): the label of the ribbon through the port, -1 free
    port_owner: Any  # int8 (8S,): that ribbon's owner, -1 free
    port_points: Any  # int16 (8S,): that ribbon's inside links (its points)
    port_closed: Any  # int16 (8S,): that ribbon's closing order, -1 while open (or free)
    port_slot: Any  # int8 (8S,): the slot of the strand using the port, -1 free
    port_order: Any  # int16 (8S,): that strand's placement index, -1 free
    growable: Any  # bool (8S,): the acting player's ends that may grow this turn
    places: Any  # bool (16S,): the acting player's legal placements (whatever the phase)
    hands: Any  # int32 (P, 4)
    known: Any  # int32 (P, 4): per player, the strands of its hand taken face up
    market: Any  # int32 (2,): kinds, -1 empty
    pile: Any  # int32 (4,): strands per kind left in the pile
    banked: Any  # int32 (P,)
    placed_any: Any  # bool (P,)
    turn: Any  # int32
    player: Any  # int32: turn % players
    phase: Any  # int32: PLACE, DRAW, OVER or DEAL
    placed: Any  # int32: strands placed this turn
    pending: Any  # int32: the draw waiting for chance (MARKET_0, MARKET_1, BLIND, DEALING), -1 none
    strands: Any  # int32: strands on the board
    closed: Any  # int32: ribbons closed so far
