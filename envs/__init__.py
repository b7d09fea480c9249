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
# The per-game entry modules (PettingZoo's convention, ``envs.tiny_towns_v0.env()``, as the
# docs write it); each is two lines and imports nothing heavy.
from envs import (between_two_cities_v0, expancity_v0, kingdomino_duel_v0,  # noqa: E402,F401
                  smartphone_inc_v0, tiny_towns_v0)

__all__ = ["GAMES", "make", "make_vec", "CityEnv", "SingleAgentEnv", "pettingzoo_id", "gymnasium_id"]

register_with_libraries()
