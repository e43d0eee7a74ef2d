"""The replay buffer of recent positions and the learner that fits the network to them."""

from __future__ import annotations

import numpy as np
from training.agents.network import squash_margins
from training.jobs.alphazero.config import AlphaZeroConfig
from training.jobs.alphazero.network import export_weights, named_layers, torch_network
from training.jobs.alphazero.self_play import GameRecord

# ----- the replay buffer ----------------------------------------------------------------------


class ReplayBuffer:
    """The latest ``capacity`` positions, in preallocated arrays (a ring)."""

    def __init__(self, capacity: int, size: int, actions: int, seats: int):
        self.capacity = capacity
        self.vectors = np.zeros((capacity, size), np.float16)
        self.masks = np.zeros((capacity, actions), bool)
        self.policies = np.zeros((capacity, actions), np.float16)
        self.values = np.zeros((capacity, seats), np.float32)
        self.margins = np.zeros((capacity, seats), np.float32)
        self.value_weights = np.zeros(capacity, np.float32)  # 1: the outcome is a value target; 0: policy only
        self.count = 0  # positions ever added
        self.size = 0

    def add(self, record: GameRecord) -> None:
        n = len(record.vectors)
        for start in range(0, n, self.capacity):
            chunk = slice(start, min(n, start + self.capacity))
            k = chunk.stop - chunk.start
            where = (self.count + np.arange(k)) % self.capacity
            self.vectors[where] = record.vectors[chunk]
            self.masks[where] = record.masks[chunk]
            self.policies[where] = record.policies[chunk]
            self.values[where] = record.values[chunk]
            self.margins[where] = record.margins[chunk]
            self.value_weights[where] = float(record.outcome_is_target)
            self.count += k
        self.size = min(self.capacity, self.count)

    def sample(self, rng: np.random.Generator, batch: int) -> dict[str, np.ndarray]:
        rows = rng.integers(0, self.size, batch)
        return {"vectors": self.vectors[rows].astype(np.float32), "masks": self.masks[rows],
                "policies": self.policies[rows].astype(np.float32), "values": self.values[rows],
                "margins": self.margins[rows], "value_weights": self.value_weights[rows]}

    def state(self) -> dict[str, np.ndarray]:
        keep = np.arange(self.size) if self.count <= self.capacity else (self.count + np.arange(self.capacity)) % self.capacity
        return {"vectors": self.vectors[keep], "masks": self.masks[keep], "policies": self.policies[keep],
                "values": self.values[keep], "margins": self.margins[keep], "value_weights": self.value_weights[keep],
                "count": np.asarray(self.count)}

    def load(self, state: dict[str, np.ndarray]) -> None:
        n = len(state["vectors"])
        record = GameRecord(state["vectors"], state["masks"], state["policies"], state["values"], state["margins"], 0)
        self.count, self.size = 0, 0
        self.add(record)
        if "value_weights" in state:  # a state saved before policy-only positions existed has none
            self.value_weights[:n] = state["value_weights"]
        self.count = int(state["count"]) if n else 0
        self.size = min(self.capacity, n)


# ----- learning -------------------------------------------------------------------------------


class Learner:
    """The torch network, its optimiser and the loss (policy cross-entropy + value MSE +
    ``margin_weight`` × squashed-margin MSE)."""

    def __init__(self, config: AlphaZeroConfig, architecture, observer):
        import torch

        torch.manual_seed(config.seed)
        torch.set_num_threads(config.torch_threads)
        self.torch = torch
        self.device = torch.device(config.device)
        self.model = torch_network(architecture).to(self.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.learning_rate,
                                           weight_decay=config.weight_decay)
        self.index = torch.as_tensor(observer.policy_layout().index, device=self.device)
        self.observer = observer
        self.symmetries = observer.symmetries()
        self.margin_weight = config.margin_weight
        self.steps = 0
        self.needs_calibration = False  # set by load_folded until the first positions arrive

    def step(self, batch: dict[str, np.ndarray], rng: np.random.Generator, margin_scale: float = 1.0) -> dict[str, float]:
        """One minibatch update; the margin target is ``tanh(raw margin / margin_scale)``."""
        torch = self.torch
        planes = self.observer.planes(batch["vectors"])
        policies, masks = batch["policies"], batch["masks"]
        symmetry = self.symmetries[int(rng.integers(len(self.symmetries)))]
        planes = symmetry.apply_planes(planes)
        policies, masks = symmetry.apply_policy(policies), symmetry.apply_policy(masks)
        x = torch.as_tensor(planes, device=self.device)
        target = torch.as_tensor(policies, device=self.device)
        target = target / target.sum(dim=1, keepdim=True).clamp_min(1e-8)
        legal = torch.as_tensor(masks, device=self.device)
        self.model.train()
        head, values, margins = self.model(x)
        logits = head[:, self.index].masked_fill(~legal, -1e9)
        policy_loss = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        # Positions whose outcome is no value target (games against a fixed opponent, with
        # --no-opponent-outcomes) weigh 0 in the value and margin losses.
        given = batch.get("value_weights")
        weights = torch.as_tensor(np.ones(len(planes), np.float32) if given is None else given, device=self.device)[:, None]
        count = (weights.sum() * values.shape[1]).clamp_min(1.0)
        value_loss = (weights * (values - torch.as_tensor(batch["values"], device=self.device)) ** 2).sum() / count
        target_margins = torch.as_tensor(squash_margins(batch["margins"], margin_scale), device=self.device)
        margin_loss = (weights * (margins - target_margins) ** 2).sum() / count
        loss = policy_loss + value_loss + self.margin_weight * margin_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        return {"loss/policy": policy_loss.item(), "loss/value": value_loss.item(), "loss/margin": margin_loss.item()}

    def weights(self) -> dict[str, np.ndarray]:
        self.model.eval()
        return export_weights(self.model)

    def load_folded(self, weights: dict[str, np.ndarray]) -> None:
        """Start from an agent file's weights, whose batch normalisation was folded into the
        convolutions: each normalisation becomes the identity plus the folded bias, so the
        network in inference mode is exactly the file's. :meth:`calibrate` then gives the
        normalisations statistics, so that training mode computes nearly the same function."""
        torch = self.torch
        tower, heads = named_layers(self.model)
        with torch.no_grad():
            for name, conv, bn in tower:
                conv.weight.copy_(torch.as_tensor(weights[f"{name}.w"]))
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.as_tensor(weights[f"{name}.b"]))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            for name, layer in heads:
                layer.weight.copy_(torch.as_tensor(weights[f"{name}.w"]).reshape(layer.weight.shape))
                layer.bias.copy_(torch.as_tensor(weights[f"{name}.b"]))
        self.needs_calibration = True

    def calibrate(self, planes: np.ndarray) -> None:
        """Each normalisation's statistics from these positions, chosen so that inference mode
        is unchanged: with input mean m and variance v, (y - m) / sqrt(v + eps) * sqrt(v + eps)
        + (bias + m) = y + bias; in training mode the batch's own m and v are then close to these."""
        torch = self.torch
        norms = [m for m in self.model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
        seen: dict[int, tuple] = {}
        hooks = [bn.register_forward_hook(lambda module, inputs, _out: seen.__setitem__(
            id(module), (inputs[0].mean(dim=(0, 2, 3)), inputs[0].var(dim=(0, 2, 3), unbiased=False)))) for bn in norms]
        self.model.eval()
        with torch.no_grad():
            self.model(torch.as_tensor(planes, device=self.device))
            for hook in hooks:
                hook.remove()
            for bn in norms:
                mean, var = seen[id(bn)]
                bn.running_mean.copy_(mean)
                bn.running_var.copy_(var)
                bn.weight.copy_(torch.sqrt(var + bn.eps))
                bn.bias.add_(mean)
        self.needs_calibration = False

    def state_dict(self) -> dict:
        """The network's weights and normalisation statistics, on the CPU (for the workers)."""
        return {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()}
