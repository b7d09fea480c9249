"""cityzoo environments: PettingZoo AEC environments of modern board games.

>>> import envs
>>> env = envs.make("kingdomino_duel_v0", render_mode="ansi")
>>> env.reset(seed=0)
"""
from envs.registry import GAMES, make
from envs.shell import CityEnv
from envs.single_agent import SingleAgentEnv

__all__ = ["GAMES", "make", "CityEnv", "SingleAgentEnv"]
