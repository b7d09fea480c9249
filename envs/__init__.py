"""cityzoo environments: PettingZoo AEC environments of modern board games.

>>> import envs
>>> env = envs.make("kingdomino_duel_v0", render_mode="ansi")
>>> env.reset(seed=0)
"""
from envs.import_names import check as _check_import_names

_check_import_names(("kernels",))   # a module of the user's named kernels would hide ours

from envs.registry import GAMES, gymnasium_id, make, pettingzoo_id, register_with_libraries
from envs.shell import CityEnv
from envs.single_agent import SingleAgentEnv
from envs.vector import make_vec

__all__ = ["GAMES", "make", "make_vec", "CityEnv", "SingleAgentEnv", "pettingzoo_id", "gymnasium_id"]

register_with_libraries()
