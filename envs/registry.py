"""Registered games: ids, lazy construction, and the PettingZoo ``env``/``raw_env`` entry points."""
import importlib

from envs.shell import CityEnv

# game id -> adapter module.  Adapters are imported on first use so that importing
# ``envs`` does not compile every kernel.
ADAPTERS = {
    "kingdomino_duel_v0": "envs.kingdomino_duel",
    "tiny_towns_v0": "envs.tiny_towns",
    "between_two_cities_v0": "envs.between_two_cities",
    "expancity_v0": "envs.expancity",
    "smartphone_inc_v0": "envs.smartphone_inc",
}

GAMES = tuple(ADAPTERS)


def spec_for(game_id):
    if game_id not in ADAPTERS:
        raise ValueError(f"unknown game {game_id!r}; registered games: {', '.join(GAMES)}")
    return importlib.import_module(ADAPTERS[game_id]).Spec()


def make(game_id, **options):
    """A ready-to-use AEC environment of ``game_id``.  The shell itself enforces reset-before-use,
    action bounds and legality (``illegal_action="raise"|"terminate"``), so no wrapper is needed."""
    return CityEnv(spec_for(game_id), **options)


def entry_points(game_id):
    """``(env, raw_env)`` constructors for a versioned game module.  Both return the same
    class: the guarantees PettingZoo's wrappers add are built into the shell."""

    def env(**options):
        return make(game_id, **options)

    def raw_env(**options):
        return make(game_id, **options)

    env.__doc__ = raw_env.__doc__ = f"Create a {game_id} environment (options: see its module)."
    return env, raw_env
