"""Agents that play any cityzoo environment: ``act(env, agent) -> int``.

``agents.make(name, **options)`` builds one by name: ``"random"``, ``"greedy"``, ``"mcts"``, ``"policy"`` (``path=``).
"""
from agents.base import Agent, make, register
from agents.greedy import GreedyAgent
from agents.mcts import MCTSAgent
from agents.policy import PolicyAgent  # torch is imported only when a policy is loaded
from agents.random_agent import RandomAgent

__all__ = ["Agent", "GreedyAgent", "MCTSAgent", "PolicyAgent", "RandomAgent", "make", "register"]
