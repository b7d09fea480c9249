"""Rate one agent on a game's stored ladder: :func:`rate` (and ``python -m agents.scorecard``).

Two seats (``mode="table"``): the agent plays batches of games against single rungs, seats
alternating.  Before each batch the rung is chosen from the results so far: the one whose
games are expected to narrow the rating most per second of play -- a rung near the
agent's current estimate (expected score near 1/2) that plays fast.  After each batch the
agent's rating is fitted with every rung's rating held at its published value
(:mod:`agents.rating.elo`), and play stops once the 95 % interval is within ``target`` Elo
either side (or at ``max_games`` / ``max_seconds``).  The interval is conditional on the
published rung ratings: they *are* the scale.

Solo (``mode="solo"``): the agent plays the game seeds every rung played when the ladder
was built, in an order drawn from ``seed``, and each of its games is compared with every
rung's result on the same seed; the interval comes from a bootstrap over the seeds
played.  The card adds the solo yardsticks (:mod:`agents.yardstick`).

Results depend on ``seed`` and ``batch`` only -- not on ``workers`` or the backend --
except for agents that think by the clock.
"""
from __future__ import annotations

import math
import secrets
import time

import numpy as np

from agents.rating import elo, ladder as ladders

PRIOR_SD = 800.0     # keeps the estimate finite while every game so far was won (or lost)
MIN_BATCHES = 2


def _agent_label(agent):
    return agent if isinstance(agent, str) else type(agent).__name__


def _expected_info(diff):
    p = elo.expected_score(diff, 0.0)
    return p * (1.0 - p)


class _Player:
    """The rated agent as a job entry (a SPEC the workers build) or an object played here."""

    def __init__(self, agent, options):
        from agents import specs

        if isinstance(agent, str):
            specs.check(agent)              # one clear line now, not in a worker
            self.entry = {"spec": agent, "options": dict(options or {})}
            self.local = None
        elif callable(getattr(agent, "act", None)) or callable(getattr(agent, "act_batch", None)):
            self.entry = None
            self.local = agent if callable(getattr(agent, "act", None)) else specs.BatchActor(agent)
        else:
            raise ValueError(f"agent must be a SPEC string or an object with act(env, agent) or "
                             f"act_batch(observations, masks), got {type(agent).__name__}")


def rate(game, agent, *, mode="table", agent_options=None, seed=None, workers=1, backend="process",
         target=50.0, max_games=600, max_seconds=None, batch=8, progress=False, log=None,
         ladder=None):
    """Rate ``agent`` on the stored ladder of ``game`` (see the module docstring).

    ``agent``: a SPEC (:mod:`agents.specs`: an agent name, ``module:factory``, or a
    ``train.py`` run / policy file), with ``agent_options`` for its constructor; or an
    object with ``act(env, agent)`` or ``act_batch(observations, masks)``, played in this
    process.  ``seed``: None draws a fresh one (reported).  Returns a JSON-ready dict:
    ``rating``, ``interval`` ([low, high], 95 %), ``halfwidth``, ``games``, ``seconds``,
    ``rungs`` (per rung played: its rating, games, the agent's score), ``stopped``,
    ``ladder``, ``seed``; ``ladder_rating`` when the agent is one of the ladder's own rungs
    (its published rating); ``yardstick`` in solo mode."""
    if not isinstance(target, (int, float)) or isinstance(target, bool) or not target > 0:
        raise ValueError(f"target must be a number > 0, got {target!r}")
    for name, value in (("max_games", max_games), ("batch", batch), ("workers", workers)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if max_seconds is not None and not (isinstance(max_seconds, (int, float)) and max_seconds > 0):
        raise ValueError(f"max_seconds must be a number > 0 or None, got {max_seconds!r}")
    lad = ladder if ladder is not None else ladders.load(game, mode)
    player = _Player(agent, agent_options)
    seed = secrets.randbits(63) if seed is None else int(seed)
    log = log or (lambda *_: None)
    start = time.perf_counter()
    if lad.spec.mode == "table":
        card = _rate_table(lad, player, seed, workers, backend, target, max_games, max_seconds,
                           batch, progress, log, start)
    else:
        card = _rate_solo(lad, player, seed, workers, backend, target, max_games, max_seconds,
                          batch, progress, log, start)
    card.update({"game": lad.spec.game, "mode": lad.spec.mode, "ladder": lad.spec.name,
                 "ladder_version": lad.spec.version, "agent": _agent_label(agent),
                 "agent_options": dict(agent_options or {}), "seed": seed, "target": target,
                 "seconds": round(time.perf_counter() - start, 1)})
    if isinstance(agent, str):
        rung = lad.rung_matching(agent, agent_options)
        if rung is not None:
            card["ladder_rating"] = lad.rating(rung.label)
            card["ladder_rung"] = rung.label
    return card


def _job(lad, player, rung, k, seed, round_no, seats_first):
    entries = [player.entry or {"spec": "local"}, {"spec": rung.agent, "options": dict(rung.options)}]
    labels = ["agent", rung.label]
    if not seats_first:
        entries, labels = entries[::-1], labels[::-1]
    return {"game": lad.spec.game, "options": dict(lad.spec.options), "players": entries,
            "labels": labels,
            "env_seed": ladders.agent_seed(seed, round_no, k, 0),
            "agent_seeds": [ladders.agent_seed(seed, round_no, k, 1), ladders.agent_seed(seed, round_no, k, 2)]}


def _play(jobs, player, runner, lad):
    """Results of ``jobs``: in the workers, or here when the agent is a local object."""
    if player.local is None:
        try:
            return runner.map(ladders.play_match, jobs)
        except ValueError as exc:
            raise ValueError(f"agent {player.entry['spec']!r}: {exc}") from None
    import envs
    from agents import specs
    from agents.loop import play_game
    from agents.yardstick import solo_outcome

    out = []
    for job in jobs:
        env = envs.make(job["game"], **job["options"])
        bots = [player.local if p["spec"] == "local" else specs.build(p["spec"], p.get("options"), s, job["game"])
                for p, s in zip(job["players"], job["agent_seeds"])]
        record = play_game(env, bots, seed=job["env_seed"])
        res = {"ranks": [int(r) for r in record.info["ranks"]],
               "scores": [int(s) for s in record.info["scores"]],
               "moves": list(record.moves), "think": [float(t) for t in record.think_seconds]}
        if len(bots) == 1:
            res["outcome"] = solo_outcome(env, record)
            res["result"] = ladders.solo_result(res["outcome"])
        out.append(res)
    return out


def _estimate(lad, tally):
    """The agent's rating and 95 % half-width from ``tally`` (rung label -> [points,
    games]), rungs fixed; a weak prior only while the results leave it unbounded."""
    labels = [lab for lab, (_, g) in tally.items() if g] + ["agent"]
    n = len(labels)
    points, games = np.zeros((n, n)), np.zeros((n, n))
    for i, lab in enumerate(labels[:-1]):
        p, g = tally[lab]
        points[-1, i], points[i, -1] = p, g - p
        games[-1, i] = games[i, -1] = g
    fixed = {lab: lad.rating(lab) for lab in labels[:-1]}
    total_p, total_g = float(points[-1].sum()), float(games[-1].sum())
    bounded = 0.0 < total_p < total_g
    fit = elo.fit(labels, points, games, fixed, prior_sd=None if bounded else PRIOR_SD,
                  prior_mean=ladders.ANCHOR_RATING)
    return float(fit.rating("agent")), float(fit.halfwidth("agent")), bounded


def _choose_rung(lad, estimate, agent_spm, games_played):
    """The rung whose next games narrow the estimate most per second of play."""
    best, best_value = None, -1.0
    for rung in lad.spec.rungs:
        spm = lad.seconds_per_move.get(rung.label) or 0.0
        cost = 1e-3 + spm + agent_spm
        value = _expected_info(estimate - lad.rating(rung.label)) / cost
        if value > best_value:
            best, best_value = rung, value
    return best


def _rate_table(lad, player, seed, workers, backend, target, max_games, max_seconds, batch,
                progress, log, start):
    from agents.runner import Runner

    batch += batch % 2
    tally = {r.label: [0.0, 0] for r in lad.spec.rungs}
    think = [0.0, 0]
    estimate, halfwidth, bounded = ladders.ANCHOR_RATING, float("inf"), False
    stopped = "game cap"
    round_no = 0
    with Runner(workers=workers if player.local is None else 1, backend=backend) as runner:
        while True:
            played = sum(g for _, g in tally.values())
            if played >= max_games:
                break
            if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                stopped = "time cap"
                break
            agent_spm = think[0] / think[1] if think[1] else 0.0
            rung = _choose_rung(lad, estimate, agent_spm, played)
            n = min(batch, max_games - played)
            jobs = [_job(lad, player, rung, k, seed, round_no, k % 2 == 0) for k in range(n)]
            results = _play(jobs, player, runner, lad)
            for job, res in zip(jobs, results):
                seat = job["labels"].index("agent")
                tally[rung.label][0] += ladders.table_points(res, seat)
                tally[rung.label][1] += 1
                think[0] += res["think"][seat]
                think[1] += res["moves"][seat]
            round_no += 1
            estimate, halfwidth, bounded = _estimate(lad, tally)
            log(f"  {played + n} games: {estimate:.0f} ± {halfwidth:.0f} (last batch against {rung.label})")
            if bounded and halfwidth <= target and round_no >= MIN_BATCHES:
                stopped = "interval"
                break
    rungs = [{"label": lab, "rating": lad.rating(lab), "games": g, "score": p / g}
             for lab, (p, g) in tally.items() if g]
    return {"rating": round(estimate, 1), "halfwidth": round(halfwidth, 1),
            "interval": [round(estimate - halfwidth, 1), round(estimate + halfwidth, 1)],
            "bounded": bounded, "games": int(sum(g for _, g in tally.values())),
            "stopped": stopped, "rungs": rungs,
            "agent_seconds_per_move": think[0] / think[1] if think[1] else None}


def _rate_solo(lad, player, seed, workers, backend, target, max_games, max_seconds, batch,
               progress, log, start):
    from agents.runner import Runner
    from agents.yardstick import yardstick

    labels = lad.labels()
    order = np.random.default_rng(seed).permutation(len(lad.seeds))
    results, seeds_used, outcomes = [], [], []
    stopped = "seeds" if len(order) <= max_games else "game cap"
    estimate, halfwidth = ladders.ANCHOR_RATING, float("inf")
    with Runner(workers=workers if player.local is None else 1, backend=backend) as runner:
        pos = 0
        round_no = 0
        while pos < min(len(order), max_games):
            if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                stopped = "time cap"
                break
            chunk = order[pos:pos + min(batch, max_games - pos)]
            jobs = [{"game": lad.spec.game, "options": dict(lad.spec.options),
                     "players": [player.entry or {"spec": "local"}], "labels": ["agent"],
                     "env_seed": lad.seeds[int(k)],
                     "agent_seeds": [ladders.agent_seed(seed, round_no, int(k))]} for k in chunk]
            for k, res in zip(chunk, _play(jobs, player, runner, lad)):
                results.append(res["result"])
                outcomes.append(res["outcome"])
                seeds_used.append(int(k))
            pos += len(chunk)
            round_no += 1
            per = {lab: [lad.seed_results[lab][k] for k in seeds_used] for lab in labels}
            per["agent"] = results
            fixed = {lab: lad.rating(lab) for lab in labels}
            fit, half = ladders.solo_fit(labels + ["agent"], per, fixed, bootstrap=200, seed=seed,
                                         prior_sd=PRIOR_SD)
            estimate, halfwidth = fit.rating("agent"), float(half[-1])
            log(f"  {len(results)} games: {estimate:.0f} ± {halfwidth:.0f}")
            if halfwidth <= target and round_no >= MIN_BATCHES:
                stopped = "interval"
                break
    per_rung = []
    for lab in labels:
        theirs = np.array([lad.seed_results[lab][k] for k in seeds_used], dtype=float)
        both = ~np.isnan(theirs)                 # the seeds the rung played (a dear rung: fewer)
        mine = np.array(results, dtype=float)[both]
        if mine.size:
            per_rung.append({"label": lab, "rating": lad.rating(lab), "games": int(mine.size),
                             "score": float(np.mean((mine > theirs[both]) + 0.5 * (mine == theirs[both])))})
    return {"rating": round(estimate, 1), "halfwidth": round(halfwidth, 1),
            "interval": [round(estimate - halfwidth, 1), round(estimate + halfwidth, 1)],
            "bounded": True, "games": len(results), "stopped": stopped, "rungs": per_rung,
            "yardstick": yardstick(outcomes) if outcomes else None}


def format_card(card):
    """The card as a few lines of text."""
    head = (f"{card['ladder']} ladder v{card['ladder_version']} (greedy = "
            f"{ladders.ANCHOR_RATING:.0f} Elo): {card['agent']}")
    lo, hi = card["interval"]
    lines = [head,
             f"rating {card['rating']:.0f} ± {card['halfwidth']:.0f} (95%: {lo:.0f} to {hi:.0f}) after "
             f"{card['games']} games in {_duration(card['seconds'])}; stopped: {card['stopped']}"]
    if not card.get("bounded", True):
        lines.append("the agent won (or lost) every game: the rating is a bound, not an estimate")
    if "ladder_rating" in card:
        lines.append(f"published rating of rung {card['ladder_rung']}: {card['ladder_rating']:.0f}")
    lines.append(f"{'rung':<16}{'rating':>8}{'games':>7}{'score':>8}")
    for r in sorted(card["rungs"], key=lambda r: r["rating"]):
        lines.append(f"{r['label']:<16}{r['rating']:>8.0f}{r['games']:>7}{r['score']:>8.3f}")
    if card.get("yardstick"):
        lines.append("yardstick: " + yardstick_words(card["yardstick"]))
    return "\n".join(lines)


def yardstick_words(ys):
    """A solo card's yardstick in words: mean score, win rate and margin against the
    automata, Tiny Towns' titles, Between Two Cities' wins by level and highest beaten."""
    parts = [f"mean score {ys['mean_score']:.1f}"]
    if ys.get("win_rate") is not None:
        parts.append(f"win rate {ys['win_rate']:.2f}, mean margin {ys['mean_margin']:+.1f}")
    if ys.get("titles"):
        parts.append("titles " + ", ".join(f"{t} {n}" for t, n in ys["titles"].items() if n))
    if ys.get("level_win_rates"):
        rates = ", ".join(f"{lv} {rate:.0%}" for lv, rate in sorted(ys["level_win_rates"].items(),
                                                                     key=lambda kv: int(kv[0])))
        top = ys["highest_level_beaten"]
        parts.append(f"wins by level {rates}; highest level beaten in more than half: {top or 'none'}")
    return "; ".join(parts)


def _duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"


def plot_card(card, lad, path):
    """A chart: every rung's rating with its interval, and the agent's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rungs = lad.sorted_rungs()
    y = np.arange(len(rungs))
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rungs) + 1.6))
    ax.errorbar([lad.rating(r.label) for r in rungs], y,
                xerr=[lad.halfwidths[r.label] for r in rungs], fmt="o", color="tab:gray", capsize=3)
    ax.axvspan(*card["interval"], color="tab:orange", alpha=0.25)
    ax.axvline(card["rating"], color="tab:orange", label=f"{card['agent']}: {card['rating']:.0f}")
    ax.set_yticks(y, [r.label for r in rungs])
    ax.set_xlabel("Elo (greedy = 1000)")
    ax.set_title(f"{card['ladder']} ladder v{card['ladder_version']}")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def interval_is_finite(card):
    return math.isfinite(card["halfwidth"])
