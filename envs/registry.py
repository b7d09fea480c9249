"""Registered games: ids, lazy construction, the PettingZoo ``env``/``raw_env`` entry points,
and the registrations with PettingZoo's and Gymnasium's own registries.

Importing :mod:`envs` registers every game twice (entry points are strings, so nothing is
compiled until an environment is made):

* PettingZoo: ``pettingzoo.make("aec", "cityzoo/<game>-v<n>", **options)`` -- the AEC
  environment, named like PettingZoo's own (``classic/connect_four-v3``);
* Gymnasium: ``gymnasium.make("cityzoo/<Game>-v<n>", opponents=..., **options)`` -- the
  single-seat :class:`envs.SingleAgentEnv`, named like Gymnasium's (``CartPole-v1``).
  Opponents given by name need ``agent_factory=agents.make`` (``envs`` never imports
  ``agents``); agent objects can be passed directly.

PettingZoo's registry (``pettingzoo.register``, ``pettingzoo.aec_registry``,
``pettingzoo.make``) exists from PettingZoo 1.27 on.  Under an older PettingZoo (1.26 is what
AgileRL 2.58 requires) the PettingZoo registration is skipped, and importing :mod:`envs` still
works: make the AEC environment with ``envs.make(game)`` (or ``envs.<game>.env()``).  The
Gymnasium registration does not depend on PettingZoo's version.
"""
import importlib
import re
import sys

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
SHIPPED_GAMES = GAMES      # the games of the package (GAMES also lists those added by register)

# The games' names as people write them (pages and reports; the ids stay the contract).
TITLES = {
    "kingdomino_duel_v0": "Kingdomino Duel",
    "tiny_towns_v0": "Tiny Towns",
    "between_two_cities_v0": "Between Two Cities",
    "expancity_v0": "Expancity",
    "smartphone_inc_v0": "Smartphone Inc.",
}


def title(game_id):
    """``"kingdomino_duel_v0"`` -> ``"Kingdomino Duel"`` (the id itself for a game not listed)."""
    return TITLES.get(game_id, game_id)

NAMESPACE = "cityzoo"


def pettingzoo_id(game_id):
    """``"kingdomino_duel_v0"`` -> ``"cityzoo/kingdomino_duel-v0"``."""
    name, version = game_id.rsplit("_v", 1)
    return f"{NAMESPACE}/{name}-v{version}"


def gymnasium_id(game_id):
    """``"kingdomino_duel_v0"`` -> ``"cityzoo/KingdominoDuel-v0"``."""
    name, version = game_id.rsplit("_v", 1)
    return f"{NAMESPACE}/{''.join(w.capitalize() for w in name.split('_'))}-v{version}"


def register_with_libraries():
    """Register every game with PettingZoo's and Gymnasium's registries (idempotent).

    PettingZoo's registry only exists from PettingZoo 1.27 on: under an older PettingZoo the
    PettingZoo registration is skipped (``envs.make`` works all the same) and only the
    Gymnasium one is made."""
    import gymnasium
    import pettingzoo
    # PettingZoo < 1.27 (e.g. 1.26, for AgileRL) has no registry API.
    has_pz_registry = hasattr(pettingzoo, "register") and hasattr(pettingzoo, "aec_registry")
    for game_id in GAMES:
        pz_id = pettingzoo_id(game_id)
        if has_pz_registry and pz_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pz_id, entry_point=f"envs.{game_id}:env")
        gym_id = gymnasium_id(game_id)
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point="envs.single_agent:SingleAgentEnv",
                               kwargs={"game_id": game_id}, disable_env_checker=True)


def spec_for(game_id):
    if game_id not in ADAPTERS:
        raise ValueError(f"unknown game {game_id!r}; registered games: {', '.join(GAMES)}")
    module, _, name = ADAPTERS[game_id].partition(":")
    return getattr(importlib.import_module(module), name or "Spec")()


def register(game_id, adapter):
    """Register a game written on the shell (see ``envs/spec.py``) under ``game_id``:
    ``adapter`` is ``"package.module"`` (its ``Spec`` class) or ``"package.module:SpecClass"``,
    imported on first use.  ``envs.make``, records and every suite that reads the case table
    of :mod:`envs.testing` then know the game.  ``ValueError`` if the id is taken or not of
    the form ``<name>_v<version>``."""
    if not isinstance(game_id, str) or not re.fullmatch(r"[a-z][a-z0-9_]*_v[0-9]+", game_id):
        raise ValueError(f"game_id must look like 'my_game_v0', got {game_id!r}")
    if game_id in ADAPTERS:
        raise ValueError(f"game_id {game_id!r} is already registered")
    if not isinstance(adapter, str) or not re.fullmatch(r"[\w.]+(:\w+)?", adapter):
        raise ValueError(f"adapter must be 'package.module' or 'package.module:SpecClass', got {adapter!r}")
    ADAPTERS[game_id] = adapter
    _publish()


def unregister(game_id):
    """Undo :func:`register` (``ValueError`` for a game that ships with the package)."""
    if game_id in SHIPPED_GAMES or game_id not in ADAPTERS:
        raise ValueError(f"game_id {game_id!r} is not a game registered with register()")
    del ADAPTERS[game_id]
    _publish()


def _publish():
    """``GAMES`` (here and as ``envs.GAMES``) lists every registered id."""
    global GAMES
    GAMES = tuple(ADAPTERS)
    package = sys.modules.get("envs")
    if package is not None and hasattr(package, "GAMES"):
        package.GAMES = GAMES


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
