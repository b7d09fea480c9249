"""Between Two Cities, version 0: ``env()``/``raw_env()``.  Documentation: :mod:`envs.between_two_cities`."""
from envs.registry import entry_points

env, raw_env = entry_points("between_two_cities_v0")
