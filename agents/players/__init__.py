"""Agents that play at the table (the planned home of every agent; the learned search first).

:mod:`agents.players.az` registers ``"az"`` (a learned policy/value network guiding an
information-set search) and ``"az_policy"`` (the same network's policy, no search).
"""
