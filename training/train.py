"""``python -m training.train``: MaskablePPO self-play training (the code lives in ``training.jobs.ppo``)."""

from training.jobs.ppo import main

if __name__ == "__main__":
    main()
