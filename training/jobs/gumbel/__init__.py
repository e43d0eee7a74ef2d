"""Gumbel AlphaZero on the JAX engines (``abstract-games gumbel``): :mod:`.job` is the job,
read top to bottom; :mod:`.network` the suite's policy-value network in Equinox. Needs the
``jax`` extra; nothing else in ``training`` imports this package."""
