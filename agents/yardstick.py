"""The solo yardsticks of a finished game, as the rulebooks state them: the seat's score,
Tiny Towns' rating title, and against automata (Between Two Cities' two, Smartphone Inc.'s
Steve) whether the seat won and by how much.  ``benchmarks/solo.py`` and ``train.py``'s
evaluation of a solo game both report them."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np


def _titles():
    """Tiny Towns' rating titles, best first (the game data's ``solo.ratings`` table)."""
    from kernels import tiny_towns
    return tuple(r["title"] for r in tiny_towns.DATA["solo"]["ratings"])


TITLES = _titles()


def solo_outcome(env, record):
    """The yardstick figures of one finished solo game: ``env`` the AEC environment it was
    played on, ``record`` its :class:`agents.loop.GameOutcome`.  Returns ``score`` (the
    seat's final score), ``automata`` (every automaton's final score; empty in Tiny Towns),
    ``won`` (first place, shared or alone, among seat and automata; None without
    automata, where a lone player always "wins"), ``margin`` (score minus the best
    automaton's: >= 0 is needed to win; None without automata), ``title`` (Tiny Towns'
    rating, else None), ``deep_learning_city`` (Between Two Cities: that city's score,
    difficulty adjustment included, else None) and ``levels_won`` (Between Two Cities:
    ``{level: won}`` for every difficulty level, else None)."""
    info = record.info
    score, automata = int(info["scores"][0]), _automata_scores(env)
    return {"score": score, "automata": automata,
            "won": bool(info["winners"]) if automata else None,
            "margin": score - max(automata) if automata else None,
            "title": info.get("title"),
            "deep_learning_city": info["city_scores"][1] if "city_scores" in info else None,
            "levels_won": _levels_won(env)}


def _levels_won(env):
    """Whether the seat would have won the same game at each difficulty level: a level only
    adjusts the Deep Learning City's final score, so the finished state is ranked again by
    the kernel with the level changed (the moves stay those played at the game's level; an
    agent that observes the level might have played others).  None without levels."""
    raw = env.unwrapped
    kernel = raw.spec.kernel
    adjustment = getattr(kernel, "DIFFICULTY_ADJUSTMENT", None)
    if adjustment is None or int(raw.cfg.num_participants) < 2:
        return None
    state = raw.kernel_state.copy()
    ranks = np.zeros(int(raw.cfg.num_participants), dtype=np.int64)
    won = {}
    for level in range(1, adjustment.shape[0]):
        state[kernel.DIFFICULTY] = level
        kernel.ranks(state, ranks)
        won[level] = bool(ranks[0] == 1)
    return won


def _automata_scores(env):
    """Every automaton's final score (participants after the seat), from the kernel."""
    raw = env.unwrapped
    scores = np.zeros(max(int(raw.cfg.num_participants), 1), dtype=np.int64)
    raw.spec.kernel.scores(raw.kernel_state, scores)
    return [int(s) for s in scores[1:]]


def yardstick(outcomes):
    """What the results of :func:`solo_outcome` say: ``games``, ``mean_score`` and its
    standard error ``score_se``, ``win_rate`` and ``mean_margin`` over the best automaton
    (None without automata), ``titles`` (``{title: games}`` in the rulebook's order,
    Tiny Towns only, else None), and for Between Two Cities ``level_win_rates``
    (``{level: share of games won}``, from :func:`solo_outcome`'s ``levels_won``) and
    ``highest_level_beaten`` (the highest level won in more than half the games; 0 for
    none), else None."""
    n = len(outcomes)
    if n == 0:
        raise ValueError("outcomes must hold at least one game")
    scores = np.array([o["score"] for o in outcomes], dtype=float)
    with_automata = outcomes[0]["automata"] != []
    titled = outcomes[0]["title"] is not None
    counts = Counter(o["title"] for o in outcomes)
    levels = None
    if outcomes[0].get("levels_won"):
        levels = {int(lv): float(np.mean([o["levels_won"][lv] for o in outcomes]))
                  for lv in outcomes[0]["levels_won"]}
    return {"games": n, "mean_score": float(scores.mean()),
            "score_se": float(scores.std(ddof=1) / math.sqrt(n)) if n > 1 else None,
            "win_rate": float(np.mean([o["won"] for o in outcomes])) if with_automata else None,
            "mean_margin": float(np.mean([o["margin"] for o in outcomes])) if with_automata else None,
            "titles": {t: counts.get(t, 0) for t in TITLES} if titled else None,
            "level_win_rates": levels,
            "highest_level_beaten": None if levels is None else max(
                (lv for lv, rate in levels.items() if rate > 0.5), default=0)}
