"""Agent arguments of the command lines, checked before any game starts (see :mod:`envs.cli`
for the one-line refusals and the argument types), and the notice before the search
kernels compile.

* :func:`check_agent_names` -- names :func:`agents.make` knows;
* :func:`check_agent_specs` -- SPECs of :mod:`agents.specs` (names, ``module:factory``, paths);
* :func:`check_agents_build` -- every agent built once with its options, so that an option
  its constructor does not take is refused now, not in a worker minutes later;
* :class:`Blamed` / :class:`AgentFailure` -- an agent's error during a game, as one line
  that names the agent (it crosses process boundaries: workers raise it, the command
  prints it);
* :func:`compile_notice` -- what to say before the first game when an agent's search is
  compiled first.
"""
from __future__ import annotations

import sys

from envs.cli import fail, one_line

# Agents whose first move compiles jitted search code for the game, once: numba caches it on
# disk (kernels.compile_memo), and later processes load it in well under a second.  The
# first compile, measured on the development machine (2 cores, busy): greedy 23-27 s and
# MCTS another 20 s for Kingdomino Duel, whose kernels compile fastest (Tiny Towns' take
# about 3 times as long).
SEARCH_AGENTS = ("greedy", "mcts", "az", "az_policy")


class AgentFailure(RuntimeError):
    """An agent failed while being built or playing: one line naming the agent."""


class Blamed:
    """``agent`` as seen by the game loop, with its errors turned into an
    :class:`AgentFailure` naming ``label`` (and the game).  ``reset``/``warm_up`` pass
    through (with the same naming); everything else is the agent's own attribute."""

    def __init__(self, agent, label, where=""):
        self._agent, self._label, self._where = agent, label, where

    def _blame(self, exc):
        where = f" in {self._where}" if self._where else ""
        return AgentFailure(f"agent {self._label!r} failed{where}: {type(exc).__name__}: "
                            f"{one_line(exc)}")

    def act(self, env, agent):
        try:
            return self._agent.act(env, agent)
        except Exception as exc:
            raise self._blame(exc) from exc

    def __getattr__(self, name):
        value = getattr(self._agent, name)
        if name in ("reset", "warm_up") and callable(value):
            def call(*args, **kwargs):
                try:
                    return value(*args, **kwargs)
                except Exception as exc:
                    raise self._blame(exc) from exc
            return call
        return value


def build_blamed(label, where, build):
    """``build()`` (an agent), its errors an :class:`AgentFailure` naming ``label``."""
    try:
        return Blamed(build(), label, where)
    except Exception as exc:
        where_text = f" in {where}" if where else ""
        raise AgentFailure(f"agent {label!r} could not be built{where_text}: "
                           f"{type(exc).__name__}: {one_line(exc)}") from exc


def check_agent_names(names, prog=None, what="--agents"):
    """Refuse (:func:`envs.cli.fail`) a name :func:`agents.make` does not know."""
    from agents.base import known_agents

    known = known_agents()
    for name in names:
        if name not in known:
            fail(f"{what}: unknown agent {name!r}; known agents: {', '.join(known)}", prog)


def check_agent_specs(specs, prog=None, what="--agent"):
    """Refuse a SPEC (:mod:`agents.specs`) that names no agent; a factory's module is
    imported now."""
    from agents import specs as agent_specs

    for spec in specs:
        try:
            agent_specs.check(spec)
        except ValueError as exc:
            fail(f"{what}: {exc}", prog)


def check_agents_build(entries, prog=None, game=None):
    """Build every ``(label, name, options)`` once, as the games will (seed 0), and refuse
    the first that cannot be built (an option its constructor does not take, a policy
    file that does not load): one line naming the agent."""
    import agents

    for label, name, options in entries:
        if not isinstance(options, dict):
            fail(f"agent {label!r}: its options must be a JSON object, got {options!r}", prog)
        try:
            kwargs = {"seed": 0, **options}
            if game is not None and name in ("pretrained", "az", "az_policy"):
                kwargs.setdefault("game", game)
            agents.make(name, **kwargs)
        except Exception as exc:   # the constructor's own refusal, whatever its type
            fail(f"agent {label!r} ({name}) cannot be built with options {options}: "
                 f"{type(exc).__name__}: {one_line(exc)}", prog)


def compile_notice(names, game, workers=1):
    """The line to print before the first game when one of ``names`` may compile search
    code first (None when none does): the first run for a game compiles it, later runs
    load it from numba's disk cache."""
    slow = sorted({n for n in names if n in SEARCH_AGENTS})
    if not slow:
        return None
    where = f" in each of the {workers} worker processes" if workers > 1 else ""
    return (f"compiling the search kernels of {', '.join(slow)} for {game}{where}: 20 s to a "
            "minute or more before the first game on the first run (then cached on disk)")


def say(message, stream=None):
    """Print a notice on stderr (the output stays the results)."""
    if message:
        print(message, file=stream or sys.stderr, flush=True)
