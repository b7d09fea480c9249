"""Agents that play any cityzoo environment: ``act(env, agent) -> int``.

``agents.make(name, **options)`` builds one by name.
"""
from agents.base import Agent, make, register
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent", "make", "register"]
