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


def conv3x3(layer: eqx.nn.Conv2d, x: jax.Array) -> jax.Array:
    """'Same' 3×3 convolution of a batch ``(N, H, W, C)`` as one matrix product over the nine
    shifted copies (im2col, as the numpy reader computes it). XLA's own convolution is about
    ten times slower inside a loop on a CPU (the search's while loop), the product is not."""
    n, h, w, c = x.shape
    padded = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    columns = jnp.concatenate([padded[:, dy:dy + h, dx:dx + w, :] for dy in range(3) for dx in range(3)], axis=-1)
    matrix = jnp.transpose(layer.weight, (2, 3, 1, 0)).reshape(9 * c, -1)
    return (columns.reshape(n * h * w, 9 * c) @ matrix).reshape(n, h, w, -1) + layer.bias.reshape(-1)


def dense(layer: eqx.nn.Linear, x: jax.Array) -> jax.Array:
    return x @ layer.weight.T + layer.bias


class PolicyValueNet(eqx.Module):
    """``net(planes)`` for a batch ``(N, H, W, C)`` gives ``(head logits, values, margins)``
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
        x = jax.nn.relu(conv3x3(self.stem, planes))
        for first, second in self.blocks:
            x = jax.nn.relu(x + conv3x3(second, jax.nn.relu(conv3x3(first, x))))
        n, _, _, f = x.shape
        pooled = jnp.concatenate([x.mean(axis=(1, 2)), x.max(axis=(1, 2))], axis=1)
        parts = []
        if self.policy_cell is not None:  # a 1×1 convolution: (row, col, channel) order
            weight = self.policy_cell.weight.reshape(self.policy_cell.weight.shape[0], f)
            parts.append((x.reshape(-1, f) @ weight.T + self.policy_cell.bias.reshape(-1)).reshape(n, -1))
        if self.policy_global is not None:
            parts.append(dense(self.policy_global, pooled))
        head = jnp.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        values, margins = (jnp.tanh(dense(second, jax.nn.relu(dense(first, pooled)))) for first, second in (self.value, self.margin))
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


def import_weights(net: PolicyValueNet, weights: dict[str, np.ndarray]) -> PolicyValueNet:
    """``net`` with the weights of a file (names and shapes as :func:`export_weights` writes
    them, checked by the file's reader against the same architecture): ``--init-from``."""
    def conv(layer, prefix: str):
        bias = jnp.asarray(weights[f"{prefix}.b"]).reshape(layer.bias.shape)
        return eqx.tree_at(lambda l: (l.weight, l.bias), layer, (jnp.asarray(weights[f"{prefix}.w"]), bias))

    def linear(layer, prefix: str):
        return eqx.tree_at(lambda l: (l.weight, l.bias), layer, (jnp.asarray(weights[f"{prefix}.w"]),
                                                                 jnp.asarray(weights[f"{prefix}.b"])))

    replaced = {"stem": conv(net.stem, "stem"),
                "blocks": [(conv(first, f"block{i}.conv1"), conv(second, f"block{i}.conv2"))
                           for i, (first, second) in enumerate(net.blocks)],
                "value": tuple(linear(layer, f"value.fc{k + 1}") for k, layer in enumerate(net.value)),
                "margin": tuple(linear(layer, f"margin.fc{k + 1}") for k, layer in enumerate(net.margin))}
    if net.policy_cell is not None:
        replaced["policy_cell"] = conv(net.policy_cell, "policy.cell")
    if net.policy_global is not None:
        replaced["policy_global"] = linear(net.policy_global, "policy.global")
    names = tuple(replaced)
    return eqx.tree_at(lambda n: tuple(getattr(n, name) for name in names), net,
                       tuple(replaced[name] for name in names))
