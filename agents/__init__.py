"""Agents that play any cityzoo environment: ``act(env, agent) -> int``.

``agents.make(name, seed=None, **options)`` builds one by name: ``"random"``, ``"greedy"``,
``"mcts"``, ``"policy"`` (``path=``), ``"pretrained"`` (``game=``: the policy shipped with
the package), ``"az"`` / ``"az_policy"`` (``game=``: the learned search's shipped network with
search / its policy alone); every agent takes ``seed=`` in its constructor.
``agents.play_game(env, seat_agents, seed)`` plays one game (the loop of the tournaments
and of ``train.py``'s evaluations).
"""


def _check_import_names(names):
    """Stop at once, in one line, when a module of the user's hides one of ``names``
    (envs/import_names.py; loaded by its path, as ``envs`` may be the hidden name)."""
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "envs",
                        "import_names.py")
    spec = importlib.util.spec_from_file_location("cityzoo_import_names", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check(names)


_check_import_names(("envs", "kernels"))

from agents.base import Agent, make, register
from agents.loop import GameOutcome, play_game

# The agent classes, imported on first use through the registry (agents.base.BUILTIN_AGENTS):
# the core package imports none of its subpackages when it is imported.
_CLASSES = {"RandomAgent": "random", "GreedyAgent": "greedy", "MCTSAgent": "mcts",
            "PolicyAgent": "policy", "PretrainedAgent": "pretrained", "AZAgent": "az",
            "AZPolicyAgent": "az_policy"}


def __getattr__(name):
    if name in _CLASSES:
        from agents.base import builtin_class

        cls = builtin_class(_CLASSES[name])
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_CLASSES))


__all__ = ["AZAgent", "AZPolicyAgent", "Agent", "GameOutcome", "GreedyAgent", "MCTSAgent", "PolicyAgent", "PretrainedAgent",
           "RandomAgent", "make", "play_game", "register"]
