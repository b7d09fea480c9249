"""One-ply greedy play: try every legal action on a copy, keep the best-looking one.

The copy is ``env.unwrapped.determinize(agent, seed)``: everything the agent cannot see
(deck order, future dice, other players' hands) is re-drawn at random, so the agent
never exploits hidden information.  Each legal action is applied to a copy of that
determinized state with the kernel's ``step`` and the result is scored by
:func:`evaluate_state`.
"""
import numpy as np

from agents.base import Agent, action_mask, register
from kernels import outcome

# A decided game is worth far more than any score margin.
TERMINAL_WEIGHT = 1_000_000.0


def rank_rewards(ranks, num_seats):
    """The shell's ``"rank"`` reward of every seat from the 1-based ``ranks`` of every
    participant (seats first, then automata); see :func:`kernels.outcome.rank_rewards`."""
    return outcome.seat_rank_rewards(ranks, num_seats)


def score_difference(scores, seat):
    """``seat``'s score minus the mean score of the other seats (its score if alone)."""
    scores = np.asarray(scores, dtype=np.float64)
    n = scores.shape[0]
    if n == 1:
        return float(scores[0])
    return float(scores[seat] - (scores.sum() - scores[seat]) / (n - 1))


def evaluate_state(env, state, seat):
    """How good ``state`` (a kernel state array of ``env``'s game) looks for ``seat``.

    * Game over: ``TERMINAL_WEIGHT`` times the seat's rank reward plus its final score
      margin, so a won game beats any position and a lost one is avoided.
    * Otherwise ``env.spec.evaluate(state, cfg, seat)`` when the game's adapter defines
      it -- a float estimate of the seat's prospects comparable to score points (score
      margin plus a positional term for points that arrive later) -- or else the seat's
      score minus the mean of the others' scores.
    """
    spec, cfg = env.spec, env.cfg
    kernel = spec.kernel
    n = cfg.num_players
    if kernel.current_player(state) >= 0:
        evaluate = getattr(spec, "evaluate", None)
        if evaluate is not None:
            return float(evaluate(state, cfg, seat))
    scores = np.zeros(n, dtype=np.int64)
    kernel.scores(state, scores)
    if kernel.current_player(state) < 0:
        ranks = np.zeros(max(cfg.num_participants, n), dtype=np.int64)   # automata after the seats
        kernel.ranks(state, ranks)
        reward = outcome.rank_reward(ranks, seat)
        return TERMINAL_WEIGHT * float(reward) + score_difference(scores, seat)
    return score_difference(scores, seat)


@register("greedy")
class GreedyAgent(Agent):
    """One-ply lookahead maximising :func:`evaluate_state`; ties broken at random.

    ``seed`` seeds both the tie-breaking and the determinizations.
    """

    def __init__(self, seed=None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, env, agent) -> int:
        legal = np.flatnonzero(action_mask(env, agent))
        if legal.size == 0:
            raise ValueError(f"{agent} has no legal action (is it the agent to move?)")
        if legal.size == 1:
            return int(legal[0])
        raw = env.unwrapped
        seat = raw.possible_agents.index(agent)
        # Plan on a determinization only: the true state may hold hidden information.
        base = raw.determinize(agent, int(self.rng.integers(1 << 62)))
        step = raw.spec.kernel.step
        values = np.full(legal.size, -np.inf)
        for i, a in enumerate(legal):
            if not base._mask[a]:   # cannot happen if the observer's moves are public
                continue
            state = base._state.copy()
            step(state, int(a))
            values[i] = evaluate_state(raw, state, seat)
        if not np.isfinite(values.max()):
            return int(legal[self.rng.integers(legal.size)])
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(legal[best[self.rng.integers(best.size)]])

    def __repr__(self):
        return f"GreedyAgent(seed={self.seed!r})"
