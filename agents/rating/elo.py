"""Bradley-Terry ratings on the Elo scale, fitted by maximum likelihood.

Agent ``i`` scores ``p = 1 / (1 + 10 ** ((r_j - r_i) / 400))`` of the points against agent
``j`` (a win is 1 point, a tie 1/2), so a lead of 200 Elo is an expected score of 0.76 and
400 one of 0.91.  Given the points each pair scored and the games it played, :func:`fit`
finds the ratings that make the results most likely, with some ratings held fixed (the
anchor of a ladder, or every rung of a published ladder when one new agent is rated), and
their 95 % intervals from the curvature of the likelihood (the observed Fisher
information).  Ties count as half a win each way, which is Bradley-Terry's usual reading of
a draw; seats are not modelled (schedules rotate them).

A maximum-likelihood rating is finite only when the results link it both ways to the fixed
ones: an agent that won every game, or lost every game, has no finite estimate.  A
``prior_sd`` adds a Gaussian prior centred on ``prior_mean`` to every free rating (a
maximum a posteriori fit), which keeps such a rating finite; :func:`fit` without a prior
refuses such results with a ``ValueError`` that names the agents.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)   # Elo points per unit of the natural-log strength
Z95 = 1.959963984540054


def expected_score(rating_a, rating_b):
    """A's expected share of the points against B (ties as half)."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))


def elo_difference(score):
    """The rating lead that gives an expected ``score`` in (0, 1)."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"score must lie strictly between 0 and 1, got {score!r}")
    return 400.0 * math.log10(score / (1.0 - score))


@dataclass
class Fit:
    """Ratings of ``labels`` (in Elo), each with a 95 % half-width (0 for a fixed rating)."""

    labels: list
    ratings: np.ndarray
    halfwidths: np.ndarray
    covariance: np.ndarray       # of the free ratings, in Elo squared (fixed rows are zero)
    iterations: int

    def rating(self, label):
        return float(self.ratings[self.labels.index(label)])

    def interval(self, label):
        i = self.labels.index(label)
        return float(self.ratings[i] - self.halfwidths[i]), float(self.ratings[i] + self.halfwidths[i])

    def halfwidth(self, label):
        return float(self.halfwidths[self.labels.index(label)])


def _check_matrices(points, games):
    points = np.asarray(points, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    if points.ndim != 2 or points.shape[0] != points.shape[1] or games.shape != points.shape:
        raise ValueError(f"points and games must be square matrices of one shape, got "
                         f"{points.shape} and {games.shape}")
    if not (np.isfinite(points).all() and np.isfinite(games).all()):
        raise ValueError("points and games must be finite")
    if (games < 0).any() or not np.allclose(games, games.T):
        raise ValueError("games must be a symmetric matrix of counts >= 0")
    if (points < -1e-9).any() or (points > games + 1e-9).any():
        raise ValueError("points[i, j] must lie between 0 and games[i, j]")
    if not np.allclose(points + points.T, games):
        raise ValueError("points[i, j] + points[j, i] must equal games[i, j] (a game's point is shared)")
    return points, games


def _unlinked(points, games, free, fixed):
    """Free agents whose estimate would be infinite: those that cannot reach a fixed agent
    through scored points in both directions (``i`` reaches ``j`` when ``i`` scored a
    point against ``j``, or through a chain of such)."""
    n = len(free)

    def reach(edge):
        seen = fixed.copy()
        changed = True
        while changed:
            changed = False
            for i in range(n):
                if not seen[i] and any(edge[i, j] > 0 and seen[j] for j in range(n)):
                    seen[i] = changed = True
        return seen

    beats = reach(points)          # i scored against someone linked to a fixed rating
    beaten = reach(points.T)       # someone linked scored against i
    return [i for i in range(n) if free[i] and not (beats[i] and beaten[i])]


def fit(labels, points, games, fixed, prior_sd=None, prior_mean=None, tol=1e-10, max_iter=200):
    """Maximum-likelihood (with ``prior_sd``: maximum a posteriori) Bradley-Terry ratings.

    ``labels``: agent names; ``points[i][j]``: points agent ``i`` scored against ``j``
    (win 1, tie 1/2); ``games[i][j]``: games they played (symmetric); ``fixed``: ``{label:
    rating}`` held fixed, at least one.  ``prior_sd``/``prior_mean``: a Gaussian prior (Elo)
    on every free rating; ``prior_mean`` defaults to the mean of the fixed ratings.
    Returns a :class:`Fit`.  ``ValueError`` for inconsistent input, or when, without a
    prior, some rating has no finite estimate."""
    labels = list(labels)
    points, games = _check_matrices(points, games)
    n = len(labels)
    if points.shape[0] != n:
        raise ValueError(f"{n} labels for {points.shape[0]}x{points.shape[0]} matrices")
    if not fixed:
        raise ValueError("fixed must hold at least one rating (the anchor)")
    unknown = [k for k in fixed if k not in labels]
    if unknown:
        raise ValueError(f"fixed names agents that are not among the labels: {unknown}")
    if prior_sd is not None and not (prior_sd > 0 and math.isfinite(prior_sd)):
        raise ValueError(f"prior_sd must be a positive number or None, got {prior_sd!r}")
    is_fixed = np.array([lab in fixed for lab in labels])
    free = ~is_fixed
    theta = np.zeros(n)
    for lab, value in fixed.items():
        theta[labels.index(lab)] = float(value) / ELO_PER_NAT
    if prior_mean is None:
        prior_mean = float(np.mean([float(v) for v in fixed.values()]))
    mu = prior_mean / ELO_PER_NAT
    precision = 0.0 if prior_sd is None else (ELO_PER_NAT / prior_sd) ** 2
    if prior_sd is None:
        bad = _unlinked(points, games, free, is_fixed)
        if bad:
            raise ValueError("no finite rating for " + ", ".join(labels[i] for i in bad)
                             + ": they won (or lost) every game that links them to the anchor")
    theta[free] = mu if prior_sd is not None else float(np.mean(theta[is_fixed]))
    idx = np.flatnonzero(free)

    def objective(t):
        d = t[:, None] - t[None, :]
        log_p = -np.logaddexp(0.0, -d)
        value = float(np.sum(points * log_p))
        return value - 0.5 * precision * float(np.sum((t[idx] - mu) ** 2))

    iterations = 0
    value = objective(theta)
    for iterations in range(1, max_iter + 1):
        d = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        grad = (points - games * p).sum(axis=1) - precision * (theta - mu)
        w = games * p * (1.0 - p)
        hess = np.diag(w.sum(axis=1) + precision) - w      # the negative Hessian
        g, h = grad[idx], hess[np.ix_(idx, idx)]
        if g.size == 0:
            break
        step = np.linalg.solve(h + 1e-12 * np.eye(len(idx)), g)
        scale = 1.0
        while True:        # a damped Newton step: never lower the objective
            trial = theta.copy()
            trial[idx] += scale * step
            new_value = objective(trial)
            if new_value >= value - 1e-12 or scale < 1e-6:
                break
            scale *= 0.5
        theta, value = trial, new_value
        if np.max(np.abs(scale * step)) < tol:
            break
    d = theta[:, None] - theta[None, :]
    p = 1.0 / (1.0 + np.exp(-d))
    w = games * p * (1.0 - p)
    hess = np.diag(w.sum(axis=1) + precision) - w
    cov = np.zeros((n, n))
    if len(idx):
        cov[np.ix_(idx, idx)] = np.linalg.inv(hess[np.ix_(idx, idx)]) * ELO_PER_NAT ** 2
    half = Z95 * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return Fit(labels=labels, ratings=theta * ELO_PER_NAT, halfwidths=half, covariance=cov,
               iterations=iterations)


def tally(labels, results):
    """``(points, games)`` matrices from two-seat ``results``: ``(label_a, label_b,
    score_a)`` triples, ``score_a`` 1 (A ahead), 1/2 (tied) or 0."""
    index = {lab: i for i, lab in enumerate(labels)}
    n = len(labels)
    points, games = np.zeros((n, n)), np.zeros((n, n))
    for a, b, score in results:
        i, j = index[a], index[b]
        if i == j:
            continue
        points[i, j] += score
        points[j, i] += 1.0 - score
        games[i, j] += 1
        games[j, i] += 1
    return points, games


def wilson_interval(successes, n, z=1.96):
    """95 % Wilson score interval of a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
