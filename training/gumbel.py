"""``python -m training.gumbel``: Gumbel AlphaZero on the JAX engines (the job lives in ``training.jobs.gumbel``)."""

from training.jobs.gumbel import main

if __name__ == "__main__":
    main()
