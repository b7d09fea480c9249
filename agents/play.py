"""The game-playing loop shared by the tournament runner and ``train.py``'s evaluations.

>>> record = play_game(env, [bot0, bot1], seed=7)    # seat i is played by seat_agents[i]
>>> record.info["scores"], record.rewards, record.moves

The agents are reset, ``env`` is reset with ``seed``, agents that have a ``warm_up(env)``
method (:class:`agents.mcts.MCTSAgent`) compile their search, and then the agent to move
is asked for its action until the game ends.  Each seat's thinking time is measured.
"""
from __future__ import annotations

import time
from typing import NamedTuple


class GameRecord(NamedTuple):
    """The outcome of one game played by :func:`play_game`."""

    info: dict             # the final info (``scores``, ``ranks``, ``winners``, ...)
    rewards: dict          # agent name -> its final reward
    moves: list            # actions taken, per seat
    think_seconds: list    # time spent in ``act``, per seat
    seconds: float         # wall time of the game after the warm-up


def play_game(env, seat_agents, seed=None):
    """Play one game on the AEC ``env``; ``seat_agents[i]`` plays seat ``i``
    (``env.possible_agents[i]``; one agent object may play several seats).

    Returns a :class:`GameRecord`.  Raises ``RuntimeError`` if the game takes more moves
    than the game's ``spec.max_steps``."""
    names = list(env.possible_agents)
    if len(seat_agents) != len(names):
        raise ValueError(f"{len(names)} seats, got {len(seat_agents)} agents")
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
    seat_of = {a: i for i, a in enumerate(names)}
    limit = getattr(env.unwrapped.spec, "max_steps", 100_000)
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
        action = seat_agents[seat].act(env, who)
        think[seat] += time.perf_counter() - t0
        moves[seat] += 1
        total += 1
        env.step(int(action))
    seconds = time.perf_counter() - start
    return GameRecord(info=dict(env.infos[who]), rewards={a: float(env.rewards[a]) for a in names},
                      moves=moves, think_seconds=think, seconds=seconds)
