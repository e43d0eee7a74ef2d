"""The policy-value network as torch trains it, and its weights as the numpy agent file holds them."""

from __future__ import annotations

import numpy as np

# ----- the network, as torch trains it --------------------------------------------------------


def torch_network(architecture):
    """The torch twin of :class:`training.agents.network.PolicyValueNet` (with batch normalisation,
    folded into the convolutions when exported)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, filters: int):
            super().__init__()
            self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(filters)
            self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(filters)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(x + self.bn2(self.conv2(y)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            a = architecture
            f = a.filters
            self.stem = nn.Conv2d(a.planes[2], f, 3, padding=1, bias=False)
            self.stem_bn = nn.BatchNorm2d(f)
            self.blocks = nn.ModuleList(Block(f) for _ in range(a.blocks))
            self.cell = nn.Conv2d(f, a.cell_channels, 1) if a.cell_channels else None
            self.globals = nn.Linear(2 * f, a.global_actions) if a.global_actions else None
            self.value = nn.Sequential(nn.Linear(2 * f, 64), nn.ReLU(), nn.Linear(64, a.players))
            self.margin = nn.Sequential(nn.Linear(2 * f, 64), nn.ReLU(), nn.Linear(64, a.players))

        def forward(self, planes):  # (N, H, W, C) -> head logits, values, margins
            x = planes.permute(0, 3, 1, 2)
            x = torch.relu(self.stem_bn(self.stem(x)))
            for block in self.blocks:
                x = block(x)
            pooled = torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)
            parts = []
            if self.cell is not None:
                parts.append(self.cell(x).permute(0, 2, 3, 1).reshape(x.shape[0], -1))
            if self.globals is not None:
                parts.append(self.globals(pooled))
            head = torch.cat(parts, dim=1) if len(parts) > 1 else parts[0]
            return head, torch.tanh(self.value(pooled)), torch.tanh(self.margin(pooled))

    return Net()


def named_layers(model) -> tuple[list, list]:
    """The network's layers under the names agent files give their weights: ``(name, conv,
    batch norm)`` for the tower, ``(name, linear or 1×1 conv)`` for the heads (absent ones left out)."""
    tower = [("stem", model.stem, model.stem_bn)]
    for i, block in enumerate(model.blocks):
        tower += [(f"block{i}.conv1", block.conv1, block.bn1), (f"block{i}.conv2", block.conv2, block.bn2)]
    heads = [("policy.cell", model.cell), ("policy.global", model.globals)]
    heads += [(f"{head}.fc{j}", getattr(model, head)[2 * j - 2]) for head in ("value", "margin") for j in (1, 2)]
    return tower, [(name, layer) for name, layer in heads if layer is not None]


def export_weights(model) -> dict[str, np.ndarray]:
    """The torch network's weights for numpy, batch normalisation folded into each convolution."""
    import torch

    def fold(conv, bn) -> tuple[np.ndarray, np.ndarray]:
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        weight = conv.weight * scale[:, None, None, None]
        bias = bn.bias - bn.running_mean * scale
        return weight.detach().cpu().numpy(), bias.detach().cpu().numpy()

    out: dict[str, np.ndarray] = {}
    tower, heads = named_layers(model)
    with torch.no_grad():
        for name, conv, bn in tower:
            out[f"{name}.w"], out[f"{name}.b"] = fold(conv, bn)
        for name, layer in heads:
            out[f"{name}.w"], out[f"{name}.b"] = layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy()
    return {k: np.asarray(v, np.float32) for k, v in out.items()}
