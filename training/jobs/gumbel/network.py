"""The suite's policy-value network (``training.agents.network``) in JAX, with Equinox.

The same tower the numpy reader runs — a 3×3 convolution stem, residual blocks of two 3×3
convolutions, mean- and max-pooled features, a 1×1 convolution per cell and a linear layer for
the policy, value and margin heads of two layers each — so a network trained here is saved as
the suite's own ``network`` agent file and played with numpy alone (:func:`export_weights`).
No batch normalisation: the saved weights are the trained ones, nothing folded.

Equinox, because a module is a plain pytree of arrays whose convolution weights are already in
the ``(out, in, kh, kw)`` layout the file format stores, and its only dependencies are small
(Flax would pull in checkpointing libraries the job does not use).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from training.agents.network import VALUE_HIDDEN, Architecture


class PolicyValueNet(eqx.Module):
    """``net(planes)`` for one ``(H, W, C)`` input gives ``(head logits, values, margins)``
    exactly as :class:`training.agents.network.PolicyValueNet.forward` computes them."""

    stem: eqx.nn.Conv2d
    blocks: list
    policy_cell: eqx.nn.Conv2d | None
    policy_global: eqx.nn.Linear | None
    value: tuple
    margin: tuple
    architecture: Architecture = eqx.field(static=True)

    def __init__(self, architecture: Architecture, key: jax.Array):
        _, _, channels = architecture.planes
        f = architecture.filters
        keys = iter(jax.random.split(key, 8 + 2 * architecture.blocks))
        self.architecture = architecture
        self.stem = eqx.nn.Conv2d(channels, f, 3, padding=1, key=next(keys))
        self.blocks = [(eqx.nn.Conv2d(f, f, 3, padding=1, key=next(keys)), eqx.nn.Conv2d(f, f, 3, padding=1, key=next(keys)))
                       for _ in range(architecture.blocks)]
        self.policy_cell = (eqx.nn.Conv2d(f, architecture.cell_channels, 1, key=next(keys))
                            if architecture.cell_channels else None)
        self.policy_global = (eqx.nn.Linear(2 * f, architecture.global_actions, key=next(keys))
                              if architecture.global_actions else None)
        self.value = (eqx.nn.Linear(2 * f, VALUE_HIDDEN, key=next(keys)), eqx.nn.Linear(VALUE_HIDDEN, architecture.players, key=next(keys)))
        self.margin = (eqx.nn.Linear(2 * f, VALUE_HIDDEN, key=next(keys)), eqx.nn.Linear(VALUE_HIDDEN, architecture.players, key=next(keys)))

    def __call__(self, planes: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        x = jax.nn.relu(self.stem(jnp.transpose(planes, (2, 0, 1))))  # Equinox convolves (C, H, W)
        for first, second in self.blocks:
            x = jax.nn.relu(x + second(jax.nn.relu(first(x))))
        pooled = jnp.concatenate([x.mean(axis=(1, 2)), x.max(axis=(1, 2))])
        parts = []
        if self.policy_cell is not None:
            parts.append(jnp.transpose(self.policy_cell(x), (1, 2, 0)).reshape(-1))  # (row, col, channel) order
        if self.policy_global is not None:
            parts.append(self.policy_global(pooled))
        head = jnp.concatenate(parts) if len(parts) > 1 else parts[0]
        values, margins = (jnp.tanh(second(jax.nn.relu(first(pooled)))) for first, second in (self.value, self.margin))
        return head, values, margins


def export_weights(net: PolicyValueNet) -> dict[str, np.ndarray]:
    """The weights by the names and shapes of the file format (``Architecture.weight_shapes``)."""
    def conv(prefix: str, layer) -> dict[str, np.ndarray]:
        return {f"{prefix}.w": np.asarray(layer.weight, np.float32), f"{prefix}.b": np.asarray(layer.bias, np.float32).reshape(-1)}

    def linear(prefix: str, layer) -> dict[str, np.ndarray]:
        return {f"{prefix}.w": np.asarray(layer.weight, np.float32), f"{prefix}.b": np.asarray(layer.bias, np.float32)}

    weights = conv("stem", net.stem)
    for i, (first, second) in enumerate(net.blocks):
        weights |= conv(f"block{i}.conv1", first) | conv(f"block{i}.conv2", second)
    if net.policy_cell is not None:
        weights |= conv("policy.cell", net.policy_cell)
    if net.policy_global is not None:
        weights |= linear("policy.global", net.policy_global)
    for name, (first, second) in (("value", net.value), ("margin", net.margin)):
        weights |= linear(f"{name}.fc1", first) | linear(f"{name}.fc2", second)
    return weights
