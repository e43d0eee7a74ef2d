"""``python -m training.train_rllib``: self-play PPO on Ray RLlib (the code lives in ``training.jobs.rllib``)."""

from training.jobs.rllib import main

if __name__ == "__main__":
    main()
