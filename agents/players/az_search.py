"""The learned search in numba: PUCT / Gumbel selection guided by :mod:`agents.players.az_net`,
over determinizations (information-set MCTS, as :mod:`agents.players.mcts`).

Every simulation

1. copies the root and re-draws everything the searching seat cannot see (the kernel's
   ``determinize`` from that seat's point of view, seeded from the search's generator), so
   the search never reads hidden information;
2. descends one tree keyed by action sequences, choosing among the actions legal in *this*
   determinization by PUCT: ``Q + c_puct * prior * sqrt(N) / (1 + n)``, ``N`` the visits of
   the children legal here; an unvisited child's ``Q`` is its parent's evaluation minus
   ``fpu_reduction``;
3. evaluates the first node that has no child for some action legal here (a new node, or a
   node whose determinization opened new actions): the network gives the priors of the
   missing children and every seat's value, mixed with the game's heuristic evaluation
   (``heuristic_mix``: :func:`outcome_vector` of the position, or with ``playout_depth`` of
   the position that many greedy moves on, :func:`_heuristic`) -- a finished game is
   valued by :func:`outcome_vector` alone, the same numbers self-play trains the value on.
   At ``heuristic_mix`` 1 the network's value is not used and its priors are needed only
   once a node has children, so (``delay_expansion``) a node's first visit values it by the
   heuristic alone and its second visit evaluates the network, adds the children and goes
   on down: the same search (its priors read on the second visit's determinization),
   without a network call for the nodes visited once;
4. backs up every seat's value; each edge accumulates the value of the seat that chose it.

Root selection: PUCT (play, :func:`SearchFunctions.puct`), or Gumbel sequential halving
(Danihelka et al. 2022; self-play, :func:`SearchFunctions.gumbel`): ``m`` actions sampled
without replacement by ``logits + Gumbel noise``, simulations split over ``log2 m`` rounds
that halve the candidates by ``g + logits + sigma(q)``; the improved policy
``softmax(logits + sigma(completed q))`` is the policy target.  Policy improvement holds with
as few simulations as the candidates need (8-32 a move is what two cores afford).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from agents.players.az_net import forward, masked_softmax
from agents.settings import search_settings
from kernels import greedy, outcome, rng
from kernels.compile_memo import per_kernel, specialise

# tree: one column per node, node 0 the root
FIRST, NEXT, ACTION, EXPANDED = 0, 1, 2, 3           # ints rows
VISITS, VALUE, PRIOR, NODE_V = 0, 1, 2, 3            # floats rows
INT_ROWS, FLOAT_ROWS = 4, 4

# params: one float64 vector (see SearchParams)
C_PUCT, FPU, MIX, MARGIN_SCALE, RANK_WEIGHT, SOLO_CENTER, SOLO_SCALE, VALUE_SCALE, C_VISIT, \
    C_SCALE, WIN_BONUS, USE_VALUES, DELAY, PLAYOUT = range(14)
N_PARAMS = 14


class SearchParams(NamedTuple):
    """The search's constants (also the training targets' scales: ``margin_scale``,
    ``rank_weight``, ``solo_center``, ``solo_scale``, ``win_bonus``)."""
    c_puct: float = 1.5
    fpu_reduction: float = 0.2
    heuristic_mix: float = 0.5       # share of the heuristic evaluation in a leaf's value
    margin_scale: float = 10.0       # score margin squashed to tanh(1)
    rank_weight: float = 0.5         # share of the rank reward in a finished game's value
    solo_center: float = 0.0         # one seat: value tanh((solo value - center) / scale)
    solo_scale: float = 10.0
    value_scale: float = 5.0         # the action-value inputs' unit (agents.players.features)
    c_visit: float = 50.0            # Gumbel sigma(q) = (c_visit + max visits) * c_scale * q
    c_scale: float = 0.1
    win_bonus: float = 10.0          # one seat with automata: a won game's extra points
    use_action_values: bool = True   # feed greedy's one-ply action values to the network
    delay_expansion: bool = True     # heuristic_mix 1: the network waits for a node's 2nd visit
    playout_depth: int = 0           # greedy moves from a leaf before the heuristic values it

    def vector(self):
        return np.array([self.c_puct, self.fpu_reduction, self.heuristic_mix, self.margin_scale,
                         self.rank_weight, self.solo_center, self.solo_scale, self.value_scale,
                         self.c_visit, self.c_scale, self.win_bonus, float(self.use_action_values),
                         float(self.delay_expansion), float(self.playout_depth)])


# Per game: scales of the targets (from the MCTS settings where they exist) and, for one
# seat, where its solo value is centred (a typical solo score of our agents) and how wide.
# Smartphone Inc.: solo scores against the revised Steve are 170-210
# (benchmarks/results/solo.md), so the former centre of 100 saturated every value near +1
# and the search could not tell a good game from a poor one; 175 +- 25 follows them.
SOLO_SCALES = {
    "tiny_towns_v0": (20.0, 10.0),
    "between_two_cities_v0": (70.0, 20.0),
    "expancity_v0": (30.0, 15.0),
    "smartphone_inc_v0": (175.0, 25.0),
    "kingdomino_duel_v0": (80.0, 20.0),
}


def default_params(game_id, **overrides):
    """:class:`SearchParams` of ``game_id``: its MCTS margin scale (also the solo win bonus)
    and its solo centre and scale, then ``overrides``."""
    ms = float(search_settings(game_id).margin_scale)
    center, scale = SOLO_SCALES.get(game_id, (0.0, 10.0))
    unknown = set(overrides) - set(SearchParams._fields)
    if unknown:
        raise ValueError(f"unknown search parameter(s) {sorted(unknown)}; known: {SearchParams._fields}")
    for name, value in overrides.items():
        check_param(name, value)
    return SearchParams(margin_scale=ms, win_bonus=ms, solo_center=center, solo_scale=scale)._replace(**overrides)


# Search parameters that are shares (in [0, 1]), scales (above 0) or of either sign; the
# others are constants >= 0 (see check_param).
_SHARES = ("heuristic_mix", "rank_weight")
_POSITIVE = ("margin_scale", "solo_scale", "value_scale", "c_scale")
_ANY_SIGN = ("solo_center", "fpu_reduction")
_SWITCHES = ("use_action_values", "delay_expansion")
_COUNTS = {"playout_depth": 200}      # whole numbers from 0 to the bound


def check_param(name, value):
    """``ValueError`` naming ``name`` unless ``value`` fits it: ``use_action_values`` and
    ``delay_expansion`` bools, ``playout_depth`` a whole number (at most 200), the others
    finite numbers; shares in [0, 1], scales above 0, the rest at least 0 (``solo_center`` and
    ``fpu_reduction``, which may be optimistic, any number)."""
    if name in _SWITCHES:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"search parameter {name} must be true or false, got {value!r}")
        return
    if name in _COUNTS:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or not 0 <= value <= _COUNTS[name]:
            raise ValueError(f"search parameter {name} must be a whole number from 0 to {_COUNTS[name]}, "
                             f"got {value!r}")
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value):
        raise ValueError(f"search parameter {name} must be a finite number, got {value!r}")
    if name in _SHARES and not 0.0 <= value <= 1.0:
        raise ValueError(f"search parameter {name} must be in [0, 1], got {value!r}")
    if name in _POSITIVE and not value > 0.0:
        raise ValueError(f"search parameter {name} must be > 0, got {value!r}")
    if name not in _SHARES + _POSITIVE + _ANY_SIGN and value < 0.0:
        raise ValueError(f"search parameter {name} must be >= 0, got {value!r}")


class Workspace:
    """Scratch arrays of one search (allocated once per agent or self-play worker)."""

    def __init__(self, cfg, num_actions, hidden, capacity=4096):
        p = cfg.num_players
        m = max(int(cfg.num_participants), p)
        self.det = np.zeros(cfg.state_size, np.int64)
        self.mask = np.zeros(num_actions, np.int8)
        self.obs = np.zeros(cfg.obs_size, np.float32)
        self.av = np.zeros(num_actions, np.float32)
        self.h1 = np.zeros(hidden[0], np.float32)
        self.h2 = np.zeros(hidden[1], np.float32)
        self.logits = np.zeros(num_actions, np.float32)
        self.prior = np.zeros(num_actions, np.float64)
        self.value = np.zeros(p, np.float32)
        self.leaf = np.zeros(p, np.float64)
        self.heur = np.zeros(p, np.float64)
        self.sc = np.zeros(m, np.int64)
        self.vals = np.zeros(m, np.float64)
        self.rk = np.zeros(m, np.int64)
        self.g = np.zeros(num_actions, np.float64)
        self.cand = np.zeros(num_actions, np.int64)
        self.root_mask = np.zeros(num_actions, np.int8)
        self.work = greedy.Work(cfg.state_size, num_actions, m)
        self.capacity = 0
        self.grow(capacity)

    def grow(self, capacity):
        """Room for ``capacity`` nodes (the tree's contents are kept)."""
        if capacity <= self.capacity:
            return
        ints = np.full((INT_ROWS, capacity), -1, np.int64)
        floats = np.zeros((FLOAT_ROWS, capacity))
        if self.capacity:
            ints[:, :self.capacity] = self.ints
            floats[:, :self.capacity] = self.floats
        self.ints, self.floats = ints, floats
        self.path = np.zeros(capacity, np.int64)
        self.seats = np.zeros(capacity, np.int64)
        self.capacity = capacity

    def scratch(self):
        return (self.det, self.mask, self.obs, self.av, self.h1, self.h2, self.logits, self.prior,
                self.value, self.leaf, self.heur, self.sc, self.vals, self.rk, self.g, self.cand,
                self.root_mask)

    def tree(self):
        return self.ints, self.floats, self.path, self.seats


class SearchFunctions(NamedTuple):
    evaluate: object      # (state, seat, net, params, scratch, work) -> None: logits/prior/leaf
    outcome_vector: object
    heuristic: object     # (state, params, mask, scratch_state, sc, vals, rk, out): playout + outcome_vector
    puct: object          # (root, observer, sims, n_nodes, net, params, gen, scratch, work, tree) -> n_nodes
    gumbel: object        # (root, observer, sims, m, net, params, gen, scratch, work, tree, improved) -> action
    selfplay: object      # see selfplay_game


@per_kernel
def search_functions(kernel):
    """The jitted functions of the learned search for ``kernel`` (any seat count: it is read
    from the sizes of the value arrays), with the kernel's functions bound as constants
    (:func:`kernels.compile_memo.specialise`, as :mod:`agents.players.mcts`'s iteration)."""
    rules = dict(step=kernel.step, legal_mask=kernel.legal_mask, current_player=kernel.current_player)
    features = greedy.action_value_features_function(kernel)
    outcome_vector = specialise(_outcome_vector, current_player=kernel.current_player,
                                k_ranks=kernel.ranks, values_of=outcome.value_function(kernel),
                                solo_value=outcome.solo_value_function(kernel))
    evaluate = specialise(_evaluate, k_observe=kernel.observe, features=features)
    heuristic = specialise(_heuristic, outcome_vector=outcome_vector, first_best=greedy.first_best_function(kernel),
                           **rules)
    simulate = specialise(_simulate, outcome_vector=outcome_vector, evaluate=evaluate, heuristic=heuristic,
                          **rules)
    one = specialise(_one, k_determinize=kernel.determinize, simulate=simulate)
    puct = specialise(_puct, one=one)
    gumbel = specialise(_gumbel, legal_mask=kernel.legal_mask, one=one)
    selfplay = specialise(_selfplay, k_observe=kernel.observe, k_init=kernel.init, features=features,
                          outcome_vector=outcome_vector, gumbel=gumbel, **rules)
    return SearchFunctions(evaluate, outcome_vector, heuristic, puct, gumbel, selfplay)


# Specialised per kernel by search_functions (step ... k_ranks: the kernel's functions).
def _outcome_vector(state, params, sc, vals, rk, out):
    """Every seat's value of ``state`` in [-1, 1]: with several seats
    ``tanh(margin / margin_scale)`` (the margin over every other participant, automata
    included), mixed at the end with the rank reward (``rank_weight``); one seat
    ``tanh((solo value - solo_center) / solo_scale)`` (score plus potential, plus the win
    bonus against automata at the end).  ``out`` has one entry per seat."""
    n_seats = out.shape[0]
    if n_seats == 1:
        v = solo_value(state, sc, vals, rk, params[WIN_BONUS])
        out[0] = np.tanh((v - params[SOLO_CENTER]) / params[SOLO_SCALE])
        return
    values_of(state, n_seats, sc, vals)
    outcome.margins(vals, n_seats, out)
    for i in range(n_seats):
        out[i] = np.tanh(out[i] / params[MARGIN_SCALE])
    if current_player(state) < 0:
        k_ranks(state, rk)
        w = params[RANK_WEIGHT]
        for i in range(n_seats):
            out[i] = w * outcome.rank_reward(rk, i) + (1.0 - w) * out[i]


def _heuristic(state, params, mask, scratch_state, sc, vals, rk, out):
    """The heuristic's value of a leaf for every seat into ``out``: ``playout_depth`` moves of
    greedy play (each seat's first best one-ply move, as MCTS's greedy playouts) on ``state``
    itself -- a simulation's own determinization, which nothing reads after its leaf -- then
    :func:`outcome_vector`.  ``mask``, ``scratch_state``: scratch."""
    n_seats = out.shape[0]
    for _ in range(int(params[PLAYOUT])):
        if current_player(state) < 0:
            break
        legal_mask(state, mask)
        a = first_best(state, mask, scratch_state, n_seats, sc, vals, rk)
        if a < 0:
            break
        step(state, a)
    outcome_vector(state, params, sc, vals, rk, out)


def _evaluate(state, seat, net, params, scratch, work):
    """The network at ``state`` for the seat to move: ``prior`` (softmax over the legal
    actions, from ``mask``, which the caller wrote), and every seat's value by the network
    into ``leaf`` (absolute seats); ``state`` is only read."""
    det, mask, obs, av, h1, h2, logits, prior, value, leaf, heur, sc, vals, rk, g, cand, root_mask = scratch
    n_seats = leaf.shape[0]
    k_observe(state, seat, obs)
    if params[USE_VALUES] != 0.0:
        features(state, mask, seat, n_seats, obs, av, work[0], work[1], work[2], work[3], work[4],
                 work[5], work[6])
    else:
        av[:] = 0.0
    forward(net, obs, av, mask, params[VALUE_SCALE], h1, h2, logits, value)
    masked_softmax(logits, mask, prior)
    for k in range(n_seats):
        leaf[(seat + k) % n_seats] = value[k]


def _simulate(state, forced, n_nodes, net, params, scratch, work, ints, floats, path, seats):
    """One simulation from the root on the determinized ``state`` (played on in place);
    ``forced`` >= 0 takes that root action when it is legal here.  Returns the node count."""
    det, mask, obs, av, h1, h2, logits, prior, value, leaf, heur, sc, vals, rk, g, cand, root_mask = scratch
    u = 0
    depth = 0
    c = params[C_PUCT]
    while True:
        seat = current_player(state)
        if seat < 0:
            outcome_vector(state, params, sc, vals, rk, leaf)
            break
        legal_mask(state, mask)
        n_legal = 0
        for a in range(mask.shape[0]):
            n_legal += mask[a]
        n_kids = 0
        ch = ints[FIRST, u]
        while ch >= 0:
            if mask[ints[ACTION, ch]] != 0:
                n_kids += 1
            ch = ints[NEXT, ch]
        if n_kids < n_legal:
            fresh = ints[EXPANDED, u] < 0            # valued on its first visit, expanded now
            if u != 0 and ints[EXPANDED, u] == 0 and params[MIX] >= 1.0 and params[DELAY] != 0.0:
                # At heuristic_mix 1 a leaf's value is the heuristic's, and the network
                # only gives its children's priors: they wait for a second visit, so a node
                # visited once costs no network call (the same search, see delay_expansion).
                heuristic(state, params, mask, work[1], sc, vals, rk, leaf)
                floats[NODE_V, u] = leaf[seat]
                ints[EXPANDED, u] = -1
                break
            # a leaf (or new actions opened by this determinization): evaluate, add children
            evaluate(state, seat, net, params, scratch, work)
            ch = ints[FIRST, u]
            while ch >= 0:
                mask[ints[ACTION, ch]] = 0       # (mask is rewritten before it is read again)
                ch = ints[NEXT, ch]
            for a in range(mask.shape[0]):
                if mask[a] != 0:
                    v = n_nodes
                    n_nodes += 1
                    ints[FIRST, v] = -1
                    ints[NEXT, v] = ints[FIRST, u]
                    ints[ACTION, v] = a
                    ints[EXPANDED, v] = 0
                    floats[VISITS, v] = 0.0
                    floats[VALUE, v] = 0.0
                    floats[PRIOR, v] = prior[a]
                    floats[NODE_V, v] = 0.0
                    ints[FIRST, u] = v
            if fresh:       # no children before, so mask is whole: go on down to one of them
                ints[EXPANDED, u] = 1
            else:
                mix = params[MIX]
                if mix > 0.0:       # (last: the playout plays on state)
                    heuristic(state, params, mask, work[1], sc, vals, rk, heur)
                    for i in range(leaf.shape[0]):
                        leaf[i] = (1.0 - mix) * leaf[i] + mix * heur[i]
                if ints[EXPANDED, u] == 0:
                    floats[NODE_V, u] = leaf[seat]
                    ints[EXPANDED, u] = 1
                break
        best = -1
        if u == 0 and forced >= 0:
            ch = ints[FIRST, u]
            while ch >= 0:
                if ints[ACTION, ch] == forced and mask[forced] != 0:
                    best = ch
                ch = ints[NEXT, ch]
        if best < 0:
            total = 0.0
            ch = ints[FIRST, u]
            while ch >= 0:
                if mask[ints[ACTION, ch]] != 0:
                    total += floats[VISITS, ch]
                ch = ints[NEXT, ch]
            root_n = np.sqrt(max(total, 1.0))
            fpu = floats[NODE_V, u] - params[FPU]
            best_v = -np.inf
            ch = ints[FIRST, u]
            while ch >= 0:
                if mask[ints[ACTION, ch]] != 0:
                    n = floats[VISITS, ch]
                    q = floats[VALUE, ch] / n if n > 0.0 else fpu
                    s = q + c * floats[PRIOR, ch] * root_n / (1.0 + n)
                    if s > best_v:
                        best_v = s
                        best = ch
                ch = ints[NEXT, ch]
        if best < 0:       # (values that are not numbers): the first legal child
            ch = ints[FIRST, u]
            while ch >= 0 and best < 0:
                if mask[ints[ACTION, ch]] != 0:
                    best = ch
                ch = ints[NEXT, ch]
        path[depth] = best
        seats[depth] = seat
        depth += 1
        step(state, ints[ACTION, best])
        u = best
    for d in range(depth):
        floats[VISITS, path[d]] += 1.0
        floats[VALUE, path[d]] += leaf[seats[d]]
    return n_nodes


@njit(cache=True)
def reset_tree(ints, floats):
    ints[FIRST, 0] = -1
    ints[NEXT, 0] = -1
    ints[ACTION, 0] = -1
    ints[EXPANDED, 0] = 0
    for r in range(FLOAT_ROWS):
        floats[r, 0] = 0.0
    return 1


def _one(root, observer, forced, n_nodes, net, params, gen, scratch, work, ints, floats, path, seats):
    det = scratch[0]
    det[:] = root
    k_determinize(det, observer, np.int64(rng.next_u64(gen, 0) >> np.uint64(2)))
    return simulate(det, forced, n_nodes, net, params, scratch, work, ints, floats, path, seats)


def _puct(root, observer, sims, n_nodes, net, params, gen, scratch, work, ints, floats, path, seats):
    """``sims`` PUCT simulations from ``root`` for ``observer`` (``n_nodes`` 0: a new tree);
    stops early, before the tree could overflow.  Returns the node count."""
    if n_nodes == 0:
        n_nodes = reset_tree(ints, floats)
    room = ints.shape[1] - scratch[1].shape[0] - 1
    for _ in range(sims):
        if n_nodes >= room:
            break
        n_nodes = one(root, observer, -1, n_nodes, net, params, gen, scratch, work, ints, floats,
                      path, seats)
    return n_nodes


@njit(cache=True)
def sigma_q(floats, ints, mask, v_mix, c_visit, c_scale, out):
    """``sigma(completed q)`` of every legal root action into ``out``: q of a visited
    child, ``v_mix`` otherwise, rescaled to [0, 1] over the legal actions, times
    ``(c_visit + max visits) * c_scale``."""
    for a in range(mask.shape[0]):
        out[a] = v_mix
    max_n = 0.0
    ch = ints[FIRST, 0]
    while ch >= 0:
        n = floats[VISITS, ch]
        a = ints[ACTION, ch]
        if n > 0.0 and mask[a] != 0:
            out[a] = floats[VALUE, ch] / n
            max_n = max(max_n, n)
        ch = ints[NEXT, ch]
    lo, hi = np.inf, -np.inf
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            lo = min(lo, out[a])
            hi = max(hi, out[a])
    k = (c_visit + max_n) * c_scale
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            out[a] = 0.0
        elif hi > lo:
            out[a] = k * (out[a] - lo) / (hi - lo)
        else:
            out[a] = 0.0


@njit(cache=True)
def mixed_value(ints, floats, mask):
    """Gumbel's ``v_mix``: the root's evaluation blended with the prior-weighted mean q of
    its visited children, by their visits."""
    total_n = 0.0
    p_visited = 0.0
    pq = 0.0
    ch = ints[FIRST, 0]
    while ch >= 0:
        n = floats[VISITS, ch]
        if n > 0.0 and mask[ints[ACTION, ch]] != 0:
            total_n += n
            p_visited += floats[PRIOR, ch]
            pq += floats[PRIOR, ch] * floats[VALUE, ch] / n
        ch = ints[NEXT, ch]
    v = floats[NODE_V, 0]
    if total_n > 0.0 and p_visited > 0.0:
        v = (v + total_n * pq / p_visited) / (1.0 + total_n)
    return v


@njit(cache=True)
def root_q(ints, floats, mask):
    """The search's value of the root for its mover: the visit-weighted mean q of its legal
    children (their summed values over their visits); the root's own evaluation if none
    was visited."""
    total_n = 0.0
    total_v = 0.0
    ch = ints[FIRST, 0]
    while ch >= 0:
        if mask[ints[ACTION, ch]] != 0:
            total_n += floats[VISITS, ch]
            total_v += floats[VALUE, ch]
        ch = ints[NEXT, ch]
    if total_n > 0.0:
        return total_v / total_n
    return floats[NODE_V, 0]


def _gumbel(root, observer, sims, m, net, params, gen, scratch, work, ints, floats, path, seats,
            improved, sig):
    """Gumbel root search with sequential halving: the action to play, and the improved
    policy ``softmax(log prior + sigma(completed q))`` over the legal actions into
    ``improved``.  ``sig``: scratch of ``num_actions`` floats."""
    det, mask, obs, av, h1, h2, logits, prior, value, leaf, heur, sc, vals, rk, g, cand, root_mask = scratch
    n_nodes = reset_tree(ints, floats)
    n_nodes = one(root, observer, -1, n_nodes, net, params, gen, scratch, work, ints, floats, path, seats)
    mask = root_mask              # the root's legal actions (simulations rewrite scratch[1])
    legal_mask(root, mask)
    n_legal = 0
    for a in range(mask.shape[0]):
        n_legal += mask[a]
        improved[a] = -np.inf       # log prior of each legal action, from the root's children
    ch = ints[FIRST, 0]
    while ch >= 0:
        a = ints[ACTION, ch]
        if mask[a] != 0:
            improved[a] = np.log(max(floats[PRIOR, ch], 1e-30))
        ch = ints[NEXT, ch]
    # Gumbel top-m without replacement
    n_cand = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            u = (np.float64(rng.next_u64(gen, 0) >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)
            g[a] = -np.log(-np.log(u))
            cand[n_cand] = a
            n_cand += 1
    for i in range(n_cand):          # sort candidates by g + logit, best first
        for j in range(i + 1, n_cand):
            if g[cand[j]] + improved[cand[j]] > g[cand[i]] + improved[cand[i]]:
                t = cand[i]
                cand[i] = cand[j]
                cand[j] = t
    remaining = min(m, n_cand)
    if n_legal > 1 and sims > 0:
        phases = 0
        while (1 << phases) < remaining:
            phases += 1
        phases = max(phases, 1)
        room = ints.shape[1] - mask.shape[0] - 1
        while True:
            per = max(1, sims // (phases * remaining))
            for i in range(remaining):
                for _ in range(per):
                    if n_nodes < room:
                        n_nodes = one(root, observer, cand[i], n_nodes, net, params, gen, scratch,
                                      work, ints, floats, path, seats)
            if remaining <= 1:
                break
            v_mix = mixed_value(ints, floats, mask)
            sigma_q(floats, ints, mask, v_mix, params[C_VISIT], params[C_SCALE], sig)
            for i in range(remaining):
                for j in range(i + 1, remaining):
                    si = g[cand[i]] + improved[cand[i]] + sig[cand[i]]
                    sj = g[cand[j]] + improved[cand[j]] + sig[cand[j]]
                    if sj > si:
                        t = cand[i]
                        cand[i] = cand[j]
                        cand[j] = t
            remaining = (remaining + 1) // 2
            if remaining == 1:
                break
    v_mix = mixed_value(ints, floats, mask)
    sigma_q(floats, ints, mask, v_mix, params[C_VISIT], params[C_SCALE], sig)
    best = cand[0]
    best_s = -np.inf
    for i in range(max(remaining, 1)):
        a = cand[i]
        s = g[a] + improved[a] + sig[a]
        if s > best_s:
            best_s = s
            best = a
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            improved[a] += sig[a]
    masked_softmax(improved, mask, improved)     # in place: each entry is read before it is written
    return best


def _selfplay(state, config, seed, sims, m, max_steps, net, params, gen, scratch, work, ints, floats,
              path, seats, improved, sig, out_obs, out_av, out_mask, out_pi, out_seat, out_q, final):
    """One self-play game from ``seed``: every seat plays :func:`gumbel`'s move; each decision
    with more than one legal action becomes a sample (observation, action-value inputs,
    mask, improved policy, mover, and in ``out_q`` the search's value of the position for
    the mover, :func:`root_q`).  ``final`` gets every seat's :func:`outcome_vector` at the
    end.  Returns the number of samples (``-1`` if ``max_steps`` ran out)."""
    det, mask, obs, av, h1, h2, logits, prior, value, leaf, heur, sc, vals, rk, g, cand, root_mask = scratch
    n_seats = final.shape[0]
    k_init(state, config, seed)
    n = 0
    steps = 0
    while True:
        seat = current_player(state)
        if seat < 0:
            break
        if steps >= max_steps:
            return -1
        steps += 1
        legal_mask(state, mask)
        n_legal = 0
        only = -1
        for a in range(mask.shape[0]):
            if mask[a] != 0:
                n_legal += 1
                only = a
        if n_legal == 1:
            step(state, only)
            continue
        action = gumbel(state, seat, sims, m, net, params, gen, scratch, work, ints, floats, path, seats,
                        improved, sig)
        if n < out_obs.shape[0]:
            legal_mask(state, mask)
            k_observe(state, seat, out_obs[n])
            if params[USE_VALUES] != 0.0:
                features(state, mask, seat, n_seats, out_obs[n], out_av[n], work[0], work[1], work[2],
                         work[3], work[4], work[5], work[6])
            else:
                out_av[n, :] = 0.0
            out_mask[n, :] = mask
            for a in range(mask.shape[0]):
                out_pi[n, a] = improved[a]
            out_seat[n] = seat
            out_q[n] = root_q(ints, floats, mask)
            n += 1
        step(state, action)
    outcome_vector(state, params, sc, vals, rk, final)
    return n


def root_stats(ws):
    """``{action: (visits, summed value)}`` of the root's children in ``ws``'s tree."""
    ints, floats = ws.ints, ws.floats
    stats = {}
    ch = ints[FIRST, 0]
    while ch >= 0:
        stats[int(ints[ACTION, ch])] = (float(floats[VISITS, ch]), float(floats[VALUE, ch]))
        ch = ints[NEXT, ch]
    return stats
