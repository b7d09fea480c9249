"""Expancity, version 0: ``env()``/``raw_env()``.  Documentation: :mod:`envs.expancity`."""
from envs.registry import entry_points

env, raw_env = entry_points("expancity_v0")
