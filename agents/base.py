"""The agent protocol, the by-name registry, and the seeds of games played against people."""
import secrets

import numpy as np

from kernels.rng import new_generator

_REGISTRY = {}
# The built-in agents, imported on first use: ``import agents`` stays light (no numba search
# compiled, no torch), and the core package imports no subpackage at import time.
BUILTIN_AGENTS = {
    "random": "agents.players.random_agent:RandomAgent",
    "greedy": "agents.players.greedy:GreedyAgent",
    "mcts": "agents.players.mcts:MCTSAgent",
    "policy": "agents.players.policy:PolicyAgent",
    "pretrained": "agents.pretrained:PretrainedAgent",
    "az": "agents.players.az:AZAgent",
    "az_policy": "agents.players.az:AZPolicyAgent",
}


class Agent:
    """Plays one seat: ``act(env, agent)`` returns a legal action for ``agent``, the agent
    to move in ``env``.  ``reset()`` is called before each new game (optional).

    Every agent takes ``seed=`` (an integer, or None for fresh entropy) in its constructor,
    so that the tournament and ``train.py`` can seed any agent they build by name.
    ``set_seed(seed)`` (re)starts the agent's random streams -- ``envs.SingleAgentEnv`` calls
    it at every seeded reset: ``self.rng``, a numpy Generator for draws in Python, and
    ``self.gen``, a :mod:`kernels.rng` generator for draws in jitted code."""

    name = "agent"

    def __init__(self, seed=None):
        self.set_seed(seed)

    def set_seed(self, seed):
        if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        start = int(np.random.SeedSequence().entropy) if seed is None else int(seed)
        self.gen = new_generator(start % (1 << 63))

    def act(self, env, agent) -> int:
        raise NotImplementedError

    def reset(self):
        pass

    def __repr__(self):
        return f"{type(self).__name__}()"


def register(name):
    """Class decorator: make the agent buildable with ``agents.make(name, ...)``."""

    def deco(cls):
        _REGISTRY[name] = cls
        cls.name = name
        return cls

    return deco


def known_agents():
    """The names :func:`make` knows, sorted."""
    return sorted(set(_REGISTRY) | set(BUILTIN_AGENTS))


def builtin_class(name):
    """The class of the built-in agent ``name`` (a key of :data:`BUILTIN_AGENTS`), imported
    now; importing it registers it."""
    import importlib

    module_name, _, attr = BUILTIN_AGENTS[name].partition(":")
    return getattr(importlib.import_module(module_name), attr)


def agent_class(name):
    """The class :func:`make` builds for ``name``; ``ValueError`` naming the known agents."""
    if name not in _REGISTRY:
        if name not in BUILTIN_AGENTS:
            raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(known_agents())}")
        builtin_class(name)
    return _REGISTRY[name]


def make(name, **options):
    """A new agent ``name`` (see :func:`register`) built with the keyword ``options`` of its
    constructor; every agent accepts ``seed=``."""
    return agent_class(name)(**options)


def action_mask(env, agent):
    """The legal-action mask of ``agent`` (the agent to move)."""
    return env.observe(agent)["action_mask"]


def legal_actions(env, agent):
    """The legal actions of ``agent`` (the agent to move), ascending; ``ValueError`` when it
    has none."""
    legal = np.flatnonzero(action_mask(env, agent))
    if legal.size == 0:
        raise ValueError(f"{agent} has no legal action (is it the agent to move?)")
    return legal


def most_visited(legal, stats):
    """A tree search's move among the actions ``legal`` (ascending): the most visited root
    edge of ``stats`` (``{action: (visits, summed value)}``), ties going to the better mean
    value, then to the lower action.  An action the search never tried has 0 visits (and
    mean -2, below any value)."""
    best, best_key = int(legal[0]), None
    for a in legal:
        n, w = stats.get(int(a), (0.0, 0.0))
        key = (n, w / n if n else -2.0)
        if best_key is None or key > best_key:
            best, best_key = int(a), key
    return best


def policy_observation(env, agent, n_obs):
    """``(flat observation, mask)`` of ``agent`` for a policy that reads ``n_obs`` values:
    the observation, followed by its action values (the env option ``action_values``) when
    the policy was trained with them.  An env made without that option is asked for the
    same values (:meth:`envs.shell.CityEnv.observe_action_values`), which depend only on
    what ``agent`` knows."""
    obs = env.observe(agent)
    observation, mask = np.asarray(obs["observation"]), np.asarray(obs["action_mask"])
    if n_obs == observation.size + mask.size:
        values = obs.get("action_values")
        if values is None:
            values = env.unwrapped.observe_action_values(agent)
        observation = np.concatenate([observation, values])
    return observation, mask


def new_game_seed():
    """A game seed for a game a person plays (terminal, web app): 63 bits from the operating
    system's generator, so that nobody can recover it from what the game shows -- the seed
    fixes every hidden card and future draw."""
    return secrets.randbits(63)


def seat_seeds(game_seed, num_seats):
    """One agent seed per seat for a game seeded ``game_seed``: independent 63-bit integers,
    the children of ``numpy.random.SeedSequence(game_seed)``.  Knowing one of them (or how an
    agent plays) tells nothing of the game seed or of the other seats' seeds, as ``seed + k``
    would; the same game seed gives the same seeds, so a seeded game is reproduced whole."""
    from envs.spec import as_seed

    children = np.random.SeedSequence(as_seed(game_seed, "game_seed")).spawn(int(num_seats))
    return [int(child.generate_state(1, np.uint64)[0]) >> 1 for child in children]
