"""Search-and-learn training (AlphaZero / Expert Iteration), in pieces one can hold in the head:

* ``config`` — the typed settings and their checks;
* ``network`` — the torch twin of the numpy policy-value network, and its export;
* ``self_play`` — recorded games, the torch evaluator, the worker processes (or Ray actors);
* ``learning`` — the replay buffer and the learner;
* ``evaluation`` — scheduled games against fixed opponents;
* ``run`` — the run folder (state for ``--resume``, agent files, history);
* ``job`` — the job itself, read top to bottom (``abstract-games alphazero``).
"""
