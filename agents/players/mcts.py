"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Every iteration

1. draws a determinization from the agent's point of view,
   ``env.unwrapped.determinize(agent, seed_i)`` -- a copy in which everything the agent
   cannot see is re-drawn -- so the search never reads hidden information;
2. descends one tree, keyed by action sequences, choosing among the actions legal in
   *this* determinization by UCB1 with availability counts (an edge's exploration term
   uses how often it was available, not how often its parent was visited);
3. expands one new edge;
4. plays on entirely inside numba, on the determinized kernel state: at random to the
   end of the game (``"random"``, the loop of :func:`kernels.playout.random_playout`), or
   for a few moves -- random ones (``"heuristic"``) or each seat's greedy move
   (``"greedy"``) -- after which the position is scored with the game's greedy
   evaluation (score plus positional ``kernel.potential``) squashed into (-1, 1);
5. backs up every seat's result: the shell's ``"rank"`` reward (+1 winner ... -1 last,
   ties averaged) computed from ``kernel.ranks`` at the end, or that squashed evaluation.
   Each edge accumulates the reward of the seat that chose it.  With one seat those
   rewards carry no signal, so a solo search backs up
   :func:`kernels.outcome.solo_value_function` instead -- the seat's score plus
   potential in points, plus a bonus for a game won against automata -- and UCB rescales
   the children's mean results to [-1, 1] (worst to best) at every node.

The move played is the most visited root edge among the actions legal in the real game.
"""
import time
from typing import NamedTuple

import numpy as np

from agents.base import Agent, legal_actions, most_visited, register
from agents.settings import search_settings
from kernels import greedy, outcome, rng
from kernels.compile_memo import per_kernel, specialise
from kernels.playout import pick_uniform
from kernels.rng import new_generator


# ---------------------------------------------------------------- jitted search
# The tree lives in two arrays (one column per node; node 0 is the root):
#   ints[FIRST]   first child (-1: none)     ints[NEXT]  next sibling (-1: none)
#   ints[ACTION]  action on the edge into the node
#   floats[VISITS], floats[VALUE]  visits and summed reward of the seat that chose the edge
#   floats[AVAIL] how often the edge was legal when its parent was selected through
FIRST, NEXT, ACTION = 0, 1, 2
VISITS, VALUE, AVAIL = 0, 1, 2

_WARM = set()
# UCB's exploration constant with several seats (rank rewards in [-1, 1])
MULTI_SEAT_C_UCT = 1.0


@per_kernel
def _iteration_function(kernel):
    """The jitted MCTS iteration of one kernel (:func:`kernels.compile_memo.specialise`:
    the kernel's functions are bound as constants, so calling the result from Python costs a
    microsecond instead of the ~25 us that passing dispatchers as arguments costs on every
    call)."""
    return specialise(_iterate, step=kernel.step, current_player=kernel.current_player,
                      legal_mask=kernel.legal_mask, k_ranks=kernel.ranks,
                      values_of=outcome.value_function(kernel),
                      solo_value=outcome.solo_value_function(kernel),
                      position_value=outcome.position_value_function(kernel),
                      greedy_action=greedy.first_best_function(kernel))


def _iterate(state, mask, tried, gen, ints, floats, n_nodes, path, seats, reward, rk, sc, vals,
             c, max_steps, scale, ordered, scratch, greedy, win_bonus):
    u = 0
    depth = 0
    n_seats = reward.shape[0]      # rk, sc and vals also hold the automata, after the seats
    solo = n_seats == 1
    # Selection and expansion.
    while True:
        seat = current_player(state)
        if seat < 0:
            break
        legal_mask(state, mask)
        n_legal = 0
        for a in range(mask.shape[0]):
            if mask[a] != 0:
                n_legal += 1
        n_kids = 0
        ch = ints[FIRST, u]
        while ch >= 0:
            if mask[ints[ACTION, ch]] != 0:
                n_kids += 1
            ch = ints[NEXT, ch]
        if n_kids < n_legal:
            ch = ints[FIRST, u]
            while ch >= 0:
                tried[ints[ACTION, ch]] = 1
                ch = ints[NEXT, ch]
            pick = -1
            if ordered:
                # Expand the untried action the greedy evaluation likes best, so a
                # node's first visits (which set its average) follow good moves.
                best_m = -np.inf
                for a in range(mask.shape[0]):
                    if mask[a] != 0 and tried[a] == 0:
                        scratch[:] = state
                        step(scratch, a)
                        m = position_value(scratch, seat, n_seats, sc, vals, rk)
                        if m > best_m:
                            best_m = m
                            pick = a
            else:
                k = rng.randint(gen, 0, n_legal - n_kids)
                for a in range(mask.shape[0]):
                    if mask[a] != 0 and tried[a] == 0:
                        if k == 0:
                            pick = a
                            break
                        k -= 1
            ch = ints[FIRST, u]
            while ch >= 0:
                tried[ints[ACTION, ch]] = 0
                ch = ints[NEXT, ch]
            v = n_nodes
            n_nodes += 1
            ints[FIRST, v] = -1
            ints[NEXT, v] = ints[FIRST, u]
            ints[ACTION, v] = pick
            ints[FIRST, u] = v
            floats[VISITS, v] = 0.0
            floats[VALUE, v] = 0.0
            floats[AVAIL, v] = 1.0
            path[depth] = v
            seats[depth] = seat
            depth += 1
            step(state, pick)
            break
        # Solo results are points: rescale the children's means to [-1, 1] (worst to
        # best among those available here), so that exploration is weighed against
        # the spread of this node's choices whatever the game's scale or the budget.
        lo, hi = np.inf, -np.inf
        if solo:
            ch = ints[FIRST, u]
            while ch >= 0:
                if mask[ints[ACTION, ch]] != 0:
                    q = floats[VALUE, ch] / floats[VISITS, ch]
                    lo = min(lo, q)
                    hi = max(hi, q)
                ch = ints[NEXT, ch]
        best = -1
        best_v = -np.inf
        ch = ints[FIRST, u]
        while ch >= 0:
            if mask[ints[ACTION, ch]] != 0:
                floats[AVAIL, ch] += 1.0
                n = floats[VISITS, ch]
                q = floats[VALUE, ch] / n
                if solo:
                    q = 2.0 * (q - lo) / (hi - lo) - 1.0 if hi > lo else 0.0
                val = q + c * np.sqrt(np.log(floats[AVAIL, ch]) / n)
                if val > best_v:
                    best_v = val
                    best = ch
            ch = ints[NEXT, ch]
        path[depth] = best
        seats[depth] = seat
        depth += 1
        step(state, ints[ACTION, best])
        u = best
    # Simulation.
    # (The loop of kernels.playout.random_playout, inlined: calling that cached
    # function with dispatcher arguments from here makes numba rewrite its on-disk
    # cache index, which breaks when the index names kernels of other processes.)
    n_steps = 0
    while n_steps < max_steps and current_player(state) >= 0:
        legal_mask(state, mask)
        if greedy:
            step(state, greedy_action(state, mask, scratch, n_seats, sc, vals, rk))
        else:
            step(state, pick_uniform(mask, gen, 0))
        n_steps += 1
    # Result: the shell's rank reward of every seat at the end; for a playout cut
    # short, the evaluation of kernels.outcome squashed into (-1, 1) like a rank reward
    # (against the other participants, automata included).  One seat: its solo value
    # in points (no squashing: its scale is unknown in advance; selection rescales).
    if solo:
        reward[0] = solo_value(state, sc, vals, rk, win_bonus)
    elif current_player(state) >= 0:
        values_of(state, n_seats, sc, vals)
        if scale > 0.0:   # (a lone participant's margin is its own value)
            outcome.margins(vals, n_seats, reward)
            for i in range(n_seats):
                reward[i] = np.tanh(reward[i] / scale)
        else:   # unfinished after max_steps: ranked by the values so far
            outcome.ranks_by_value(vals, rk)
            outcome.rank_rewards(rk, n_seats, reward)
    else:
        k_ranks(state, rk)
        outcome.rank_rewards(rk, n_seats, reward)
    # Backpropagation.
    for d in range(depth):
        floats[VISITS, path[d]] += 1.0
        floats[VALUE, path[d]] += reward[seats[d]]
    return n_nodes


class Playout(NamedTuple):
    """How an MCTS iteration finishes: ``moves`` moves of ``policy`` (``"random"``,
    ``"heuristic"``: random moves, or ``"greedy"``), then -- unless the game ended or
    ``scale`` is 0 -- the evaluation of :mod:`kernels.outcome`, squashed as
    tanh(margin / scale)."""
    policy: str
    moves: int
    scale: float


@register("mcts")
class MCTSAgent(Agent):
    """SO-ISMCTS with playouts in numba.

    ``simulations``: iterations per move (used when ``seconds`` is None).
    ``seconds``: time budget per move; when set it replaces ``simulations``.
    ``c_uct``: exploration constant (rewards lie in [-1, 1]); default: 1 with several
    seats, the game's ``solo_c_uct`` (:mod:`agents.settings`) with one seat.
    ``seed``: seeds determinizations, expansion choices and playouts; with a simulation
    budget the agent is fully reproducible.
    ``playout``: ``"random"`` plays uniformly random legal moves to the end of the game and
    backs up the rank rewards; ``"heuristic"`` plays ``playout_depth`` random moves and
    then backs up ``tanh(margin / margin_scale)`` per seat, where ``margin`` is the seat's
    evaluation of :mod:`kernels.outcome` (score plus the kernel's ``potential``, minus the
    mean of the other participants', automata included); ``"greedy"`` does the same after
    ``playout_depth`` moves in which every seat plays GreedyAgent's move (first best on
    ties; one evaluation per legal action, so each move costs far more than a random
    one).  A playout that reaches the end backs up the rank rewards.  ``"auto"``
    (default) is the game's choice in :mod:`agents.settings` (with one seat, its solo
    playout where it has one: Tiny Towns plays 30 greedy moves).
    ``playout_depth``: moves before the evaluation (``"heuristic"`` and ``"greedy"``;
    default: the game's setting).
    ``margin_scale``: the score lead squashed to tanh(1) (default: the game's setting).
    ``ordered_expansion``: with a heuristic or greedy playout, expand a node's untried actions in
    the order of the greedy evaluation (best first) instead of at random.  It costs one
    evaluation per untried action at each expansion.
    """

    PLAYOUTS = ("auto", "random", "heuristic", "greedy")

    def __init__(self, simulations=400, seconds=None, c_uct=None, seed=None, playout="auto",
                 playout_depth=None, margin_scale=None, ordered_expansion=False):
        if playout not in self.PLAYOUTS:
            raise ValueError(f"unknown playout policy {playout!r}; available: {self.PLAYOUTS}")
        if playout_depth is not None and (isinstance(playout_depth, bool)
                                          or not isinstance(playout_depth, (int, np.integer))
                                          or playout_depth < 0):
            raise ValueError(f"playout_depth must be an integer >= 0 or None, got {playout_depth!r}")
        if margin_scale is not None and not (isinstance(margin_scale, (int, float, np.number))
                                             and np.isfinite(margin_scale) and margin_scale > 0):
            raise ValueError(f"margin_scale must be a number > 0 or None, got {margin_scale!r}")
        if seconds is None and (simulations is None or simulations < 1):
            raise ValueError("give simulations >= 1 or a time budget in seconds")
        self.simulations = simulations
        self.seconds = seconds
        if c_uct is not None and not (isinstance(c_uct, (int, float, np.number))
                                      and not isinstance(c_uct, bool) and np.isfinite(c_uct) and c_uct >= 0):
            raise ValueError(f"c_uct must be a number >= 0 or None, got {c_uct!r}")
        self.c_uct = None if c_uct is None else float(c_uct)
        self.seed = seed
        self.playout = playout
        self.playout_depth = playout_depth
        self.margin_scale = margin_scale
        self.ordered_expansion = bool(ordered_expansion)
        self.rng = np.random.default_rng(seed)
        self.last_simulations = 0      # iterations run for the last move
        self.total_simulations = 0
        self.total_seconds = 0.0

    def playout_settings(self, spec, num_seats=None):
        """The :class:`Playout` this agent runs in ``spec``'s game with ``num_seats`` seats.

        ``"auto"`` takes the game's setting (:func:`agents.settings.search_settings`; its
        ``solo_playout`` when one seat plays and the game has one).  A ``"random"`` playout
        runs to the end (``moves = spec.max_steps``, ``scale = 0``: rank rewards)."""
        game = search_settings(spec.game_id)
        solo = self.playout == "auto" and num_seats == 1 and game.solo_playout is not None
        policy = self.playout if self.playout != "auto" else (game.solo_playout if solo else game.playout)
        if policy == "random":
            return Playout("random", int(spec.max_steps), 0.0)
        depth = self.playout_depth if self.playout_depth is not None else (
            game.solo_playout_depth if solo else game.playout_depth)
        scale = self.margin_scale if self.margin_scale is not None else game.margin_scale
        return Playout(policy, int(depth), float(scale))

    def warm_up(self, env):
        """Compile the search for ``env``'s game now (once per process), so that the
        first move's time budget and think-time measurements exclude compilation.
        Leaves this agent's random stream untouched."""
        raw = env.unwrapped
        key = raw.spec.kernel.__name__
        if key in _WARM or not raw.legal_actions():
            return
        MCTSAgent(simulations=1, seed=0).search(raw, raw.agent_selection)
        _WARM.add(key)

    # ------------------------------------------------------------------ act
    def act(self, env, agent) -> int:
        legal = legal_actions(env, agent)
        if legal.size == 1:
            self.last_simulations = 0
            return int(legal[0])
        self.warm_up(env)
        return most_visited(legal, self.search(env.unwrapped, agent))

    def search(self, raw, agent):
        """Search from ``agent``'s information set in the raw env ``raw``; returns
        ``{action: (visits, summed reward)}`` of the root edges."""
        spec, cfg = raw.spec, raw.cfg
        kernel = spec.kernel
        iterate = _iteration_function(kernel)
        n_players = cfg.num_players
        participants = int(cfg.num_participants)
        policy, max_steps, scale = self.playout_settings(spec, cfg.num_players)
        # one seat: a won game is worth this many points on top of the margin
        win_bonus = float(self.margin_scale if self.margin_scale is not None
                          else search_settings(spec.game_id).margin_scale)
        greedy = policy == "greedy"
        ordered = bool(self.ordered_expansion and scale > 0)
        scratch = np.zeros_like(raw.kernel_state)
        mask = np.zeros(spec.num_actions, dtype=np.int8)
        tried = np.zeros(spec.num_actions, dtype=np.int8)
        m = max(participants, n_players)     # every participant, automata after the seats
        rk = np.zeros(m, dtype=np.int64)
        sc = np.zeros(m, dtype=np.int64)
        vals = np.zeros(m)
        reward = np.zeros(n_players)
        gen = new_generator(int(self.rng.integers(1 << 62)))
        det_rng = self.rng
        c = self.c_uct
        if c is None:
            c = search_settings(spec.game_id).solo_c_uct if n_players == 1 else MULTI_SEAT_C_UCT

        limit = self.simulations if self.seconds is None else None
        cap = (limit + 2) if limit is not None else 4096
        ints = np.full((3, cap), -1, dtype=np.int64)
        floats = np.zeros((3, cap))
        path = np.zeros(cap, dtype=np.int64)
        seats = np.zeros(cap, dtype=np.int64)
        n_nodes = 1

        start = time.perf_counter()
        deadline = None if self.seconds is None else start + float(self.seconds)
        done = 0
        while True:
            if limit is not None and done >= limit:
                break
            if deadline is not None and done > 0 and time.perf_counter() >= deadline:
                break
            if n_nodes + 1 >= cap:          # grow the tree arrays
                cap *= 2
                ints = np.concatenate([ints, np.full_like(ints, -1)], axis=1)
                floats = np.concatenate([floats, np.zeros_like(floats)], axis=1)
                path = np.zeros(cap, dtype=np.int64)
                seats = np.zeros(cap, dtype=np.int64)
            # Plan on a determinization only: never on the true state.
            det = raw.determinize(agent, int(det_rng.integers(1 << 62)))
            n_nodes = iterate(det.kernel_state, mask, tried, gen, ints, floats, n_nodes, path, seats,
                              reward, rk, sc, vals, c, max_steps, scale,
                              ordered, scratch, greedy, win_bonus)
            done += 1
        self.last_simulations = done
        self.total_simulations += done
        self.total_seconds += time.perf_counter() - start
        stats = {}
        ch = ints[FIRST, 0]
        while ch >= 0:
            stats[int(ints[ACTION, ch])] = (float(floats[VISITS, ch]), float(floats[VALUE, ch]))
            ch = ints[NEXT, ch]
        return stats

    def __repr__(self):
        budget = f"seconds={self.seconds!r}" if self.seconds is not None else f"simulations={self.simulations!r}"
        return (f"MCTSAgent({budget}, c_uct={self.c_uct!r}, seed={self.seed!r}, "
                f"playout={self.playout!r}, playout_depth={self.playout_depth!r})")


def playouts_per_second(env, agent, seconds=1.0, seed=0):
    """Measured MCTS iterations per second (determinize + tree + playout) from the
    current position of ``env`` for ``agent`` (the agent to move)."""
    bot = MCTSAgent(simulations=None, seconds=seconds, seed=seed)
    bot.search(env.unwrapped, agent)
    return bot.last_simulations / max(bot.total_seconds, 1e-9)

