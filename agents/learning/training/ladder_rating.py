"""The learner's rating on its game's ladder scale, fitted from its evaluation games.

A run's evaluation opponents that are rungs of the game's stored ladder
(:mod:`agents.rating.ladder`: same agent name and options) keep their published ratings,
and the learner's rating is fitted from its games against them with a weak prior, as
:func:`agents.rating.ladder.rate_tournament` rates a tournament's other agents.  A ladder
rates its own table only, so there is no rating (and :func:`scale_for` says why) when:

* the game has no stored ladder, or the stored one is out of date;
* the run plays another table: not two seats, or other game options (variants) than the
  ladder's (``reward_mode`` and the other options of the environment shell do not change
  the game and are not compared);
* no evaluation opponent is a rung;
* the run is solo: the solo ladder compares rungs seed by seed on the ladder's own game
  seeds, which the training evaluation does not play (``python -m agents.scorecard
  --solo`` rates a solo policy on that scale).
"""
from __future__ import annotations

from dataclasses import dataclass

from agents.rating import elo, ladder as ladders
from agents.rating.scorecard import PRIOR_SD

LEARNER = "learner"


@dataclass(frozen=True)
class LadderScale:
    """A stored ladder and the evaluation opponents that are its rungs (opponent name ->
    :class:`~agents.rating.ladder.Rung`)."""

    ladder: ladders.Ladder
    rungs: dict

    @property
    def name(self):
        return self.ladder.spec.name

    def describe(self):
        """``"greedy (1000), random (412)"``: the anchoring opponents and their ratings."""
        return ", ".join(f"{name} ({self.ladder.rating(r.label):.0f})" for name, r in self.rungs.items())


def game_options(game, options):
    """``options`` reduced to ``game``'s own options, defaults filled in (the shell's,
    such as ``reward_mode``, dropped): what decides which game is played."""
    from envs.options import SHELL_OPTIONS, split_options, validate
    from envs.registry import spec_for

    _, own = split_options(SHELL_OPTIONS, dict(options), game)
    return validate(spec_for(game).options, own, game)


def scale_for(game, options, opponents, directory=None):
    """``(LadderScale, None)`` when the games of a learner against ``opponents`` (``[(agent
    name, options)]``) at ``game``'s table with ``options`` can be rated on a stored ladder
    (read from ``directory``, default the package's), else ``(None, reason)``."""
    table = game_options(game, options)
    seats = table.get("num_players")
    if seats == 1:
        return None, (f"a solo run's evaluation plays its own game seeds, while the solo ladder "
                      f"{game}/solo compares agents seed by seed on its own; rate the final model "
                      f"with python -m agents.scorecard --game {game} --solo --agent <run folder>")
    if seats != 2:
        return None, f"the ladders rate the two-seat table of {game}; this run plays {seats} seats"
    try:
        lad = ladders.load(game, "table", directory=directory)
    except (ValueError, KeyError, OSError) as exc:    # no ladder, or one out of date: no rating
        return None, str(exc).strip("'\"")
    wanted = game_options(game, lad.spec.options)
    if wanted != table:
        differ = sorted(k for k in wanted if wanted[k] != table.get(k))
        return None, (f"ladder {lad.spec.name} is played with "
                      + ", ".join(f"{k}={wanted[k]!r}" for k in differ) + "; this run with "
                      + ", ".join(f"{k}={table.get(k)!r}" for k in differ))
    rungs = {}
    for name, opts in opponents:
        rung = lad.rung_matching(name, opts)
        if rung is not None:
            rungs[name] = rung
    if not rungs:
        have = ", ".join(f"{r.agent} {r.options}" if r.options else r.agent for r in lad.spec.rungs)
        named = ", ".join(name for name, _ in opponents) or "none"
        return None, (f"no evaluation opponent ({named}) is a rung of ladder {lad.spec.name} "
                      f"(rungs: {have})")
    return LadderScale(lad, rungs), None


def rate(scale, games):
    """The learner's rating on ``scale`` from ``games``: ``{opponent name: [the learner's
    points in each game: 1 ahead, 1/2 tied, 0 behind]}`` (opponents that are not rungs are
    ignored).  Returns ``{"ladder", "ladder_version", "rating", "halfwidth", "interval",
    "games", "bounded", "rungs"}`` -- ``bounded`` False when the learner won (or lost)
    every game, so that only the prior keeps the rating finite -- or None without games
    against a rung."""
    triples = [(LEARNER, scale.rungs[name].label, float(p))
               for name, points in games.items() if name in scale.rungs for p in points]
    if not triples:
        return None
    labels = [LEARNER] + list(dict.fromkeys(b for _, b, _ in triples))
    points, played = elo.tally(labels, triples)
    fixed = {lab: scale.ladder.rating(lab) for lab in labels[1:]}
    fit = elo.fit(labels, points, played, fixed, prior_sd=PRIOR_SD,
                  prior_mean=ladders.ANCHOR_RATING)
    rating, half = fit.rating(LEARNER), fit.halfwidth(LEARNER)
    total = float(sum(p for _, _, p in triples))
    return {"ladder": scale.name, "ladder_version": scale.ladder.spec.version,
            "rating": round(rating, 1), "halfwidth": round(half, 1),
            "interval": [round(rating - half, 1), round(rating + half, 1)],
            "games": len(triples), "bounded": 0.0 < total < len(triples),
            "rungs": {lab: fixed[lab] for lab in labels[1:]}}


def rating_line(result):
    """The console words of a ladder rating."""
    bound = "" if result["bounded"] else " (a bound: every game won or lost)"
    return (f"ladder rating {result['rating']:.0f} ± {result['halfwidth']:.0f} on "
            f"{result['ladder']}{bound}")
