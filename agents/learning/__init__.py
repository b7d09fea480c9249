"""Training of the agents that learn (the planned home of ``train.py``'s machinery).

:mod:`agents.learning.alphazero`: self-play training of the learned search's network.
"""
