"""Training of the agents that learn.

:mod:`agents.learning.training`: ``train.py``'s machinery (masked self-play PPO) and the export
of a run as a shipped policy; :mod:`agents.learning.imitation`: the greedy/MCTS warm start;
:mod:`agents.learning.alphazero`: self-play training of the learned search's network.
Learning code imports players and the core package, never the apps or ``train``.
"""
