"""Gumbel AlphaZero on the JAX engines (``python -m training.gumbel``): :mod:`.job` is the job,
read top to bottom; :mod:`.network` the suite's policy-value network in Equinox. Needs the
``jax`` extra; nothing else in ``training`` imports this package."""

from training.jobs.gumbel.job import GumbelConfig, main

__all__ = ["GumbelConfig", "main"]
