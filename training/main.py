"""``python -m training.main``: the main job: train an agent, then evaluate it (the code lives in ``training.jobs.main``)."""

from training.jobs.main import main

if __name__ == "__main__":
    main()
