"""The game-playing loop shared by the tournament runner, ``train.py``'s evaluations and
anything else that lets agents play a whole game.

>>> outcome = play_game(env, [bot0, bot1], seed=7)    # seat i is played by seat_agents[i]
>>> outcome.info["scores"], outcome.rewards, outcome.moves

The agents are reset, ``env`` is reset with ``seed``, agents that have a ``warm_up(env)``
method (:class:`agents.players.mcts.MCTSAgent`) compile their search, and then the agent to move
is asked for its action until the game ends.  Each seat's thinking time is measured.

Pass ``record=envs.records.new_record(...)`` to have the game written into that record
(actions, labels and outcome; see :mod:`envs.records`).
"""
from __future__ import annotations

import time
from typing import NamedTuple

from envs import records
from envs.spec import as_seed


class GameOutcome(NamedTuple):
    """The outcome of one game played by :func:`play_game`."""

    info: dict             # the final info (``scores``, ``ranks``, ``winners``, ...)
    rewards: dict          # agent name -> its final reward
    moves: list            # actions taken, per seat
    think_seconds: list    # time spent in ``act``, per seat
    seconds: float         # wall time of the game after the warm-up


def play_game(env, seat_agents, seed=None, record=None):
    """Play one game on the AEC ``env``; ``seat_agents[i]`` plays seat ``i``
    (``env.possible_agents[i]``; one agent object may play several seats).

    ``record``: an empty :mod:`envs.records` record of this game (its ``game`` and
    ``options`` are the caller's to get right); the game is reset with its seed (``seed``
    may be left out, or must agree) and every action is written into it, then the outcome.

    Returns a :class:`GameOutcome`.  Raises ``RuntimeError`` if the game takes more moves
    than the game's ``spec.max_steps``."""
    names = list(env.possible_agents)
    if len(seat_agents) != len(names):
        raise ValueError(f"{len(names)} seats, got {len(seat_agents)} agents")
    if record is not None:
        if record["actions"]:
            raise ValueError("record must be a new, empty record (envs.records.new_record)")
        if seed is None:
            seed = record["seed"]
        elif as_seed(seed) != as_seed(record["seed"]):
            raise ValueError(f"seed {seed} differs from the record's seed {record['seed']}")
    unique = list({id(a): a for a in seat_agents}.values())
    for bot in unique:
        reset = getattr(bot, "reset", None)
        if reset is not None:
            reset()
    env.reset(seed=seed)
    for bot in unique:   # compile search code before the clock starts (MCTSAgent)
        warm_up = getattr(bot, "warm_up", None)
        if warm_up is not None:
            warm_up(env)
    raw = env.unwrapped
    seat_of = {a: i for i, a in enumerate(names)}
    limit = getattr(raw.spec, "max_steps", 100_000)
    moves = [0] * len(names)
    think = [0.0] * len(names)
    total = 0
    start = time.perf_counter()
    while True:
        who = env.agent_selection
        if env.terminations[who] or env.truncations[who]:
            break
        if total >= limit:
            raise RuntimeError(f"the game did not end within {limit} moves")
        seat = seat_of[who]
        t0 = time.perf_counter()
        action = int(seat_agents[seat].act(env, who))
        think[seat] += time.perf_counter() - t0
        moves[seat] += 1
        total += 1
        if record is not None:
            records.add_action(record, raw, action)
        env.step(action)
    seconds = time.perf_counter() - start
    if record is not None:
        records.finish(record, raw)
    return GameOutcome(info=dict(env.infos[who]), rewards={a: float(env.rewards[a]) for a in names},
                      moves=moves, think_seconds=think, seconds=seconds)
