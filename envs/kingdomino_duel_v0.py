"""Kingdomino Duel, version 0: ``env()``/``raw_env()``.  Documentation: :mod:`envs.kingdomino_duel`."""
from envs.registry import entry_points

env, raw_env = entry_points("kingdomino_duel_v0")
