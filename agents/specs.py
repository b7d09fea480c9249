"""Agents named by a string, as the command lines take them (the scorecard's ``--agent``).

A SPEC is one of

* a registered agent name: ``random``, ``greedy``, ``mcts``, ``pretrained``, ... (options
  as a JSON object beside it, e.g. ``{"simulations": 200}``);
* ``module:factory`` -- a user's own code: ``factory(**options)`` (given ``seed=`` and
  ``game=`` too when its signature takes them) returns an object with ``act(env, agent)``,
  or with ``act_batch(observations, masks) -> actions`` (it then sees one observation at a
  time, as a batch of one; :class:`BatchActor`);
* a path to a ``train.py`` run directory or a saved policy file: played by the
  ``"policy"`` agent (:mod:`agents.players.policy`).

:func:`build` turns ``(spec, options, seed)`` into an agent; jobs carry the three as plain
data, so worker processes build their own copy.  A ``module:factory`` is imported in the
worker: run the command from the folder that holds the module, or install it.
"""
from __future__ import annotations

import importlib
import inspect
import os
import re

import numpy as np

_FACTORY = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


class BatchActor:
    """Plays an object that only has ``act_batch(observations, masks)`` through
    ``act(env, agent)``: one observation, as a batch of one."""

    def __init__(self, inner):
        self.inner = inner

    def act(self, env, agent):
        obs = env.observe(agent)
        actions = self.inner.act_batch(np.asarray(obs["observation"])[None],
                                       np.asarray(obs["action_mask"])[None])
        return int(np.asarray(actions).reshape(-1)[0])

    def reset(self):
        reset = getattr(self.inner, "reset", None)
        if reset is not None:
            reset()


def kind(spec):
    """``"name"``, ``"factory"`` or ``"path"``; ``ValueError`` for anything else (one line)."""
    from agents.base import known_agents

    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent SPEC must be a non-empty string, got {spec!r}")
    if spec in known_agents():
        return "name"
    if _FACTORY.match(spec):
        return "factory"
    if os.path.exists(spec):
        return "path"
    raise ValueError(f"unknown agent {spec!r}: not an agent name ({', '.join(known_agents())}), "
                     "not module:factory and not an existing train.py run or policy file")


def factory(spec):
    """The callable a ``module:factory`` SPEC names (imported now); ``ValueError`` (one
    line) when the module or the name is missing."""
    module_name, _, attr = spec.partition(":")
    try:
        target = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"agent {spec!r}: cannot import {module_name!r} ({exc})") from None
    for part in attr.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise ValueError(f"agent {spec!r}: {module_name!r} has no {attr!r}")
    if not callable(target):
        raise ValueError(f"agent {spec!r}: {attr!r} is not callable")
    return target


def check(spec):
    """:func:`kind` of ``spec``, having imported a factory's module: the checks a command
    makes before it starts any game."""
    how = kind(spec)
    if how == "factory":
        factory(spec)
    return how


def build(spec, options=None, seed=None, game=None):
    """The agent ``spec`` names (see the module docstring), built with ``options`` and
    ``seed``.  ``ValueError`` (one line) when it cannot be built."""
    import agents

    options = dict(options or {})
    how = kind(spec)
    if how == "name":
        kw = {"seed": seed, **options}
        if spec in ("pretrained", "az", "az_policy") and game is not None:
            kw.setdefault("game", game)
        return agents.make(spec, **kw)
    if how == "path":
        return agents.make("policy", path=spec, **{"seed": seed, **options})
    target = factory(spec)
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        params = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kw = dict(options)
    if "seed" in params or takes_any:
        kw.setdefault("seed", seed)
    if game is not None and ("game" in params or takes_any):
        kw.setdefault("game", game)
    agent = target(**kw)
    if callable(getattr(agent, "act", None)):
        return agent
    if callable(getattr(agent, "act_batch", None)):
        return BatchActor(agent)
    raise ValueError(f"agent {spec!r}: the factory returned {type(agent).__name__}, which has "
                     "neither act(env, agent) nor act_batch(observations, masks)")
