"""Tiny Towns, version 0: ``env()``/``raw_env()``.  Documentation: :mod:`envs.tiny_towns`."""
from envs.registry import entry_points

env, raw_env = entry_points("tiny_towns_v0")
