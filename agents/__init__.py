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
from agents.greedy import GreedyAgent
from agents.mcts import MCTSAgent
from agents.loop import GameRecord, play_game
from agents.policy import PolicyAgent  # torch is imported only when a policy is loaded
from agents.pretrained import PretrainedAgent  # numpy only
from agents.random_agent import RandomAgent
from agents.players.az import AZAgent, AZPolicyAgent  # numpy and numba only

__all__ = ["AZAgent", "AZPolicyAgent", "Agent", "GameRecord", "GreedyAgent", "MCTSAgent", "PolicyAgent", "PretrainedAgent",
           "RandomAgent", "make", "play_game", "register"]
