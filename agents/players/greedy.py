"""One-ply greedy play: try every legal action on a copy, keep the best-looking one.

The copy is a determinization from the agent's point of view (the kernel's
``determinize``): everything the agent cannot see (deck order, future dice, other
players' hands) is re-drawn at random, so the agent never exploits hidden information.
Each legal action is applied to a copy of it and the result is scored by
:func:`evaluate_state` (the evaluation of :mod:`kernels.outcome`, shared with MCTS).  The
whole choice runs in numba (:mod:`kernels.greedy`).
"""
import numpy as np

from agents.base import Agent, action_mask, register
from kernels import outcome
from kernels.greedy import Work, greedy_function

TERMINAL_WEIGHT = outcome.TERMINAL_WEIGHT


def rank_rewards(ranks, num_seats):
    """The shell's ``"rank"`` reward of every seat from the 1-based ``ranks`` of every
    participant (seats first, then automata); see :func:`kernels.outcome.rank_rewards`."""
    return outcome.seat_rank_rewards(ranks, num_seats)


def evaluate_state(env, state, seat):
    """How good ``state`` (a kernel state array of ``env``'s game) looks for ``seat``:
    :func:`kernels.outcome.position_value_function` -- at the end ``TERMINAL_WEIGHT``
    times the seat's rank reward plus its final margin, before that its margin (score
    plus the kernel's ``potential``, minus the mean of every other participant's); a solo
    seat's own value stands in for the margin, and a lone player's finished game is worth
    its score alone."""
    cfg = env.cfg
    m = max(int(cfg.num_participants), cfg.num_players)
    value = outcome.position_value_function(env.spec.kernel)
    return float(value(state, int(seat), cfg.num_players, np.zeros(m, dtype=np.int64),
                       np.zeros(m), np.zeros(m, dtype=np.int64)))


@register("greedy")
class GreedyAgent(Agent):
    """One-ply lookahead maximising :func:`evaluate_state` on a determinization; ties
    broken at random.  The choice is :func:`kernels.greedy.greedy_function`, the same
    jitted code the batched games' greedy opponents run.

    ``seed`` (an integer, or None for a fresh one) seeds the agent's generator, from which
    both the determinizations and the tie-breaks are drawn.
    ``noise`` (a probability, default 0): the share of moves played uniformly at random
    among the legal ones instead -- a weaker greedy, for the rungs of a rating ladder
    between random play and greedy's (:mod:`agents.rating`).
    """

    def __init__(self, seed=None, noise=0.0):
        if isinstance(noise, (bool, np.bool_)) or not isinstance(noise, (int, float, np.number)) \
                or not 0.0 <= float(noise) <= 1.0:
            raise ValueError(f"noise must be a probability in [0, 1], got {noise!r}")
        super().__init__(seed)
        self.noise = float(noise)
        self._work = {}

    @property
    def batch_kind(self):
        """The batched games play a noiseless greedy inside numba (:mod:`envs.vector`)."""
        return "greedy" if self.noise == 0.0 else None

    def act(self, env, agent) -> int:
        legal = action_mask(env, agent)
        if not legal.any():
            raise ValueError(f"{agent} has no legal action (is it the agent to move?)")
        if self.noise > 0.0 and self.rng.random() < self.noise:
            return int(self.rng.choice(np.flatnonzero(legal)))
        raw = env.unwrapped
        kernel = raw.spec.kernel
        key = (kernel.__name__, raw.cfg.state_size, raw.cfg.num_participants)
        work = self._work.get(key)
        if work is None:
            work = self._work[key] = Work(raw.kernel_state.shape[0], raw.spec.num_actions,
                                          max(raw.cfg.num_participants, raw.cfg.num_players))
        choose = greedy_function(kernel)
        return int(choose(raw.kernel_state, np.ascontiguousarray(legal, dtype=np.int8), raw.cfg.num_players,
                          self.gen, *work.args()))

    def __repr__(self):
        noise = f", noise={self.noise!r}" if self.noise else ""
        return f"GreedyAgent(seed={self.seed!r}{noise})"
