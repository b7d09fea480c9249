"""How a finished game turns into rewards: one place for the shell, greedy and MCTS.

Ranks come from each kernel's ``ranks(state, out)`` over *all participants* -- the seats
first, then the automata (Smartphone Inc.'s Steve, Between Two Cities' solo automata) --
so a seat tied with an automaton shares its place with it.
"""
import numpy as np
from numba import njit

from kernels.compile_memo import per_kernel, specialise


@njit(cache=True)
def rank_reward(ranks, seat):
    """The ``"rank"`` reward of one seat; see :func:`rank_rewards`."""
    m = ranks.shape[0]
    if m == 1:
        return 1.0
    tied = 0
    for j in range(m):
        if ranks[j] == ranks[seat]:
            tied += 1
    place = ranks[seat] + (tied - 1) / 2.0
    return 1.0 - 2.0 * (place - 1.0) / (m - 1)


@njit(cache=True)
def rank_rewards(ranks, num_seats, out):
    """The ``"rank"`` reward of each seat into ``out[:num_seats]``.

    ``ranks`` holds the 1-based rank of every participant (seats first, then automata;
    tied participants share the better rank).  A participant ranked ``r`` among ``M``
    gets ``1 - 2 (r - 1) / (M - 1)``: +1 for first, -1 for last; participants still tied
    after every tie-break share the average of the places they occupy, counting the
    automata among them.  With a lone participant (``M == 1``) there is no place to
    share: +1 (callers decide what a solo game pays; the shell pays the score).
    """
    for i in range(num_seats):
        out[i] = rank_reward(ranks, i)


@njit(cache=True)
def end_rewards(ranks, scores, num_seats, score_mode, out):
    """Each seat's reward at the end of a game into ``out[:num_seats]``, as the AEC shell
    pays it: with ``score_mode`` -- or when a lone participant has no place to win -- the
    seat's final score minus the mean of the other seats' (its score alone); otherwise
    :func:`rank_rewards` over every participant's ``ranks``."""
    if score_mode or ranks.shape[0] == 1:
        if num_seats == 1:
            out[0] = scores[0]
            return
        total = 0.0
        for i in range(num_seats):
            total += scores[i]
        for i in range(num_seats):
            out[i] = scores[i] - (total - scores[i]) / (num_seats - 1)
        return
    rank_rewards(ranks, num_seats, out)


def seat_rank_rewards(ranks, num_seats):
    """:func:`rank_rewards` as a new float64 array (Python callers)."""
    ranks = np.asarray(ranks)
    if ranks.ndim != 1 or ranks.size == 0 or not np.issubdtype(ranks.dtype, np.integer):
        raise ValueError(f"ranks must be a non-empty 1-D sequence of integers, got {ranks!r}")
    if ranks.min() < 1 or ranks.max() > ranks.size:
        raise ValueError(f"ranks must lie in [1, {ranks.size}] (one per participant), got {ranks.tolist()}")
    if isinstance(num_seats, (bool, np.bool_)) or not isinstance(num_seats, (int, np.integer)) \
            or not 1 <= num_seats <= ranks.size:
        raise ValueError(f"num_seats must be an integer in [1, {ranks.size}], got {num_seats!r}")
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    out = np.zeros(int(num_seats), dtype=np.float64)
    rank_rewards(ranks, num_seats, out)
    return out


# ----------------------------------------------------------------------------- evaluation
# Greedy play, MCTS's cut-off playouts and SingleAgentEnv's reward shaping all judge an
# unfinished position the same way: each participant's *value* is its score plus, for the
# seats, the points the position promises but the score does not count yet (the kernel's
# optional ``potential(state, seat) -> float``, weighted by the kernel's optional
# ``POTENTIAL_WEIGHT``, default 1); a seat's *margin* is its value minus the mean of every
# other participant's -- automata included, so a solo seat is judged against the automaton
# it must beat -- or its own value when it plays alone.  Greedy and MCTS judge a seat
# that plays alone with automata by its value too (see solo_value_function).


@njit(cache=True)
def margin(values, seat):
    """``values[seat]`` minus the mean of the other entries (``values[seat]`` alone)."""
    m = values.shape[0]
    if m == 1:
        return values[seat]
    total = 0.0
    for i in range(m):
        total += values[i]
    return values[seat] - (total - values[seat]) / (m - 1)


@njit(cache=True)
def margins(values, num_seats, out):
    """:func:`margin` of each seat into ``out[:num_seats]``."""
    for i in range(num_seats):
        out[i] = margin(values, i)


@njit(cache=True)
def ranks_lexicographic(keys, num_participants, out):
    """1-based ranks of the first ``num_participants`` rows of ``keys`` into ``out`` (as
    many entries as ``out`` holds, at most ``num_participants``): row ``p`` holds
    participant ``p``'s keys, higher is better, the first key decides and each later one
    breaks the ties left by those before it.  Participants equal on every key share the
    better rank -- every game's rules leave such ties standing.

    ``keys`` is a 2-D C-contiguous int64 array, in the kernels a view of the state's
    scratch tail (``state[A:B].reshape(rows, num_keys)`` allocates nothing)."""
    num_keys = keys.shape[1]
    for p in range(min(out.shape[0], num_participants)):
        better = 0
        for q in range(num_participants):
            for j in range(num_keys):
                a = keys[q, j]
                b = keys[p, j]
                if a != b:
                    if a > b:
                        better += 1
                    break
        out[p] = 1 + better


@njit(cache=True)
def ranks_by_value(values, out):
    """1-based ranks of ``values`` (higher is better; equal values share the better rank)
    into ``out`` -- how a game cut short is ranked, and a finished game whose rules break no
    ties (Expancity's final VP)."""
    m = values.shape[0]
    for i in range(m):
        r = 1
        for j in range(m):
            if values[j] > values[i]:
                r += 1
        out[i] = r


@njit(cache=True)
def _no_potential(state, seat):
    return 0.0


# A decided game is worth far more than any score margin.
TERMINAL_WEIGHT = 1_000_000.0


def potential_of(kernel, features):
    """The kernel's ``potential``; with ``features``, its ``feature_potential`` if it has
    one -- the potential behind the action values a learning policy observes
    (:func:`kernels.greedy.action_value_features_function`), where a kernel knows a better
    one-ply judge than greedy's.  Greedy, MCTS and the shaping keep ``potential``, so the
    baseline a policy is measured against does not move."""
    if features and hasattr(kernel, "feature_potential"):
        return kernel.feature_potential
    return getattr(kernel, "potential", _no_potential)


@per_kernel
def value_function(kernel, features=False):
    """The jitted ``values(state, num_seats, scores, out)`` of ``kernel`` (one per process
    and ``features``, see :func:`potential_of`): writes every participant's value into
    ``out`` (``float64``, one per participant, seats first) using ``scores`` (``int64``,
    same length) as scratch."""
    return specialise(_values, k_scores=kernel.scores, current_player=kernel.current_player,
                      potential=potential_of(kernel, features),
                      weight=float(getattr(kernel, "POTENTIAL_WEIGHT", 1.0)))


# Specialised by value_function: the kernel's scores, current_player and potential, and
# the potential's weight.
def _values(state, num_seats, scores, out):
    k_scores(state, scores)
    running = current_player(state) >= 0
    for i in range(out.shape[0]):
        out[i] = scores[i]
        if running and i < num_seats:
            out[i] += weight * potential(state, i)


@per_kernel
def position_value_function(kernel, features=False):
    """The jitted ``position_value(state, seat, num_seats, scores, values, ranks)`` of
    ``kernel``: how good ``state`` looks for ``seat`` to greedy play (and to MCTS's greedy
    playouts and ordered expansion) -- at the end, ``TERMINAL_WEIGHT`` times the seat's
    rank reward plus its final margin (a won game beats any position, ties and automata
    counted as in the rewards); before, its margin.  A solo seat (``num_seats == 1``) is
    judged by its own value instead of a margin (see :func:`solo_value_function` for
    why), and a lone participant (no automata) has no place to win, so its finished game
    is worth its score alone: ending the game is worth nothing by itself.
    ``scores``/``values``/``ranks`` are scratch arrays with one entry per participant.
    ``features``: value with the kernel's feature potential (:func:`potential_of`)."""
    return specialise(_position_value, values_of=value_function(kernel, features),
                      k_ranks=kernel.ranks, current_player=kernel.current_player)


# Specialised by position_value_function.
def _position_value(state, seat, num_seats, scores, values, ranks):
    values_of(state, num_seats, scores, values)
    m = values[seat] if num_seats == 1 else margin(values, seat)
    if current_player(state) >= 0 or values.shape[0] == 1:
        return m
    k_ranks(state, ranks)
    return TERMINAL_WEIGHT * rank_reward(ranks, seat) + m


def evaluate(kernel, state, seat, num_seats, num_participants):
    """``seat``'s margin (see above) in the position ``state`` of ``kernel``'s game."""
    m = max(int(num_participants), int(num_seats))
    out = np.zeros(m, dtype=np.float64)
    value_function(kernel)(state, int(num_seats), np.zeros(m, dtype=np.int64), out)
    return float(margin(out, int(seat)))


@per_kernel
def solo_value_function(kernel):
    """The jitted ``solo_value(state, scores, values, ranks, win_bonus)`` of ``kernel``:
    what a game is worth to its one seat, in points -- its value (score plus potential),
    plus, once the game is over and automata took part, ``win_bonus`` times its rank
    reward (first: +``win_bonus``, last: -``win_bonus``).

    Why not the rank reward, or the margin over the automata, as with several seats: the
    rank reward is constant without automata (Tiny Towns) and blind to the score with
    them; and an automaton's score can be tied to the seat's own work -- in Between Two
    Cities each automaton scores the lower of a city it shares with the seat and the Deep
    Learning City, so while the seat's cities trail that city, raising one raises the
    automaton sharing it as much and the margin only rewards keeping them level.  The
    automata play on their own, so the seat's best way to beat them is to score.
    Scratch arrays as for :func:`position_value_function`."""
    return specialise(_solo_value, values_of=value_function(kernel), k_ranks=kernel.ranks,
                      current_player=kernel.current_player)


# Specialised by solo_value_function.
def _solo_value(state, scores, values, ranks, win_bonus):
    values_of(state, 1, scores, values)
    v = values[0]
    if current_player(state) < 0 and values.shape[0] > 1:
        k_ranks(state, ranks)
        v += win_bonus * rank_reward(ranks, 0)
    return v


def winning_seats(ranks, num_seats):
    """The seats (0-based, of the first ``num_seats`` entries of ``ranks``) ranked first: a
    game's winners.  An automaton ranked first alone leaves none (plain Python: once a game)."""
    return [p for p in range(num_seats) if int(ranks[p]) == 1]
