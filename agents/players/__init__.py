"""Agents that play at the table, and what they need to play: the baselines
(:mod:`~agents.players.random_agent`, :mod:`~agents.players.greedy`,
:mod:`~agents.players.mcts`), a policy saved by ``train.py`` (:mod:`~agents.players.policy`,
its files :mod:`~agents.players.policy_files` and network architectures
:mod:`~agents.players.networks`, with the inputs they read: :mod:`~agents.players.boards`,
:mod:`~agents.players.features`), and the learned search (:mod:`~agents.players.az`: ``"az"``
and ``"az_policy"``).  The policies shipped with the package are :mod:`agents.pretrained`.
Players import the core package (``agents.base`` ...) and each other, never the learning
code or the apps.
"""
