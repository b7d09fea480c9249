"""Smartphone Inc., version 0: ``env()``/``raw_env()``.  Documentation: :mod:`envs.smartphone_inc`."""
from envs.registry import entry_points

env, raw_env = entry_points("smartphone_inc_v0")
