"""The learning curve of a run (``learning_curve.png``): win rates and rewards (or the solo
yardstick), and, when the evaluations were rated on the game's ladder, a third panel with
the rating and its 95 % interval."""
from __future__ import annotations

import json

import numpy as np

from agents.rating.ladder import ANCHOR, ANCHOR_RATING


def plot_learning_curve(history, path, title):
    # imported here: selecting the Agg backend must not happen at import time of the package
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rated = [r for r in history if _finite(r.get("ladder_rating"))]
    fig, axes = plt.subplots(1, 3 if rated else 2, figsize=(16.5 if rated else 11, 4))
    ax1, ax2 = axes[:2]
    if rated:
        plot_ladder_rating(rated, axes[2])
    if history and history[0]["opponent"].startswith("solo"):
        plot_solo_curve(history, ax1, ax2, title)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return
    periodic = [r for r in history if "(final)" not in r["opponent"]]
    names = list(dict.fromkeys(r["opponent"].replace(" (final)", "") for r in history))
    colors = {name: f"C{i}" for i, name in enumerate(names)}
    for name in names:
        rows = [r for r in periodic if r["opponent"] == name]
        if not rows:
            continue
        ax1.plot([r["timesteps"] for r in rows], [r["win_rate"] for r in rows], "o-",
                 color=colors[name], label=f"vs {name}")
        ax2.plot([r["timesteps"] for r in rows], [r["mean_reward"] for r in rows], "o-",
                 color=colors[name], label=f"eval vs {name}")
    first = list(dict.fromkeys(r["opponent"] for r in periodic))[:1]
    rows = [r for r in periodic if r["opponent"] in first and np.isfinite(r["train_reward"])]
    if rows:
        ax2.plot([r["timesteps"] for r in rows], [r["train_reward"] for r in rows], "k--",
                 label="training episodes")
    for r in history:
        if "(final)" in r["opponent"]:
            name = r["opponent"].replace(" (final)", "")
            ax1.plot([r["timesteps"]], [r["win_rate"]], "*", markersize=13, color=colors[name],
                     markeredgecolor="k", label=f"final vs {name} ({r['games']} games)")
    ax1.set(xlabel="timesteps", ylabel="win rate", ylim=(-0.02, 1.02), title=f"{title}: win rate")
    ax2.set(xlabel="timesteps", ylabel="mean reward", title="mean reward")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _finite(value):
    try:
        return value is not None and bool(np.isfinite(float(value)))
    except (TypeError, ValueError):   # an empty CSV cell
        return False


def plot_ladder_rating(rated, ax):
    """The learner's rating on the ladder scale at each evaluation, with its 95 % interval
    (one point per evaluation: every row of an evaluation holds the same rating)."""
    periodic, final = {}, None
    for r in rated:
        point = (r["timesteps"], float(r["ladder_rating"]), float(r["ladder_halfwidth"]))
        if "(final)" in r["opponent"]:
            final = point
        else:
            periodic.setdefault(r["timesteps"], point)
    if periodic:
        steps, ratings, halves = zip(*periodic.values())
        ax.errorbar(steps, ratings, yerr=halves, fmt="o-", color="C3", capsize=3,
                    label="rating, 95 % interval")
    if final:
        ax.errorbar([final[0]], [final[1]], yerr=[final[2]], fmt="*", markersize=13, color="C3",
                    markeredgecolor="k", capsize=3, label="final")
    ax.axhline(ANCHOR_RATING, color="k", lw=0.8, alpha=0.4)     # the anchor of every ladder
    ax.set(xlabel="timesteps", ylabel=f"Elo ({ANCHOR} = {ANCHOR_RATING:.0f})",
           title="rating on the ladder scale")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def plot_solo_curve(history, ax1, ax2, title):
    """A solo run's curve: the mean eval score (left); the win rate and margin against the
    automata, or without automata the share of each rating title (right)."""
    periodic = [r for r in history if "(final)" not in r["opponent"]]
    final = [r for r in history if "(final)" in r["opponent"]]
    steps = [r["timesteps"] for r in periodic]
    ax1.errorbar(steps, [r["mean_score"] for r in periodic],
                 yerr=[r["score_se"] or 0.0 for r in periodic], fmt="o-", color="C0", capsize=3,
                 label="eval (deterministic)")
    for r in final:
        ax1.plot([r["timesteps"]], [r["mean_score"]], "*", markersize=13, color="C0",
                 markeredgecolor="k", label=f"final ({r['games']} games)")
    ax1.set(xlabel="timesteps", ylabel="mean score", title=f"{title} solo: mean score")
    if periodic and periodic[0]["win_rate"] is not None:
        ax2.plot(steps, [r["win_rate"] for r in periodic], "o-", color="C1", label="win rate")
        for r in final:
            ax2.plot([r["timesteps"]], [r["win_rate"]], "*", markersize=13, color="C1",
                     markeredgecolor="k", label="final win rate")
        ax2.set(xlabel="timesteps", ylabel="win rate", ylim=(-0.02, 1.02),
                title="against the automata")
        twin = ax2.twinx()
        twin.plot(steps, [r["mean_margin"] for r in periodic], "s--", color="C2",
                  label="margin over the best automaton")
        twin.axhline(0.0, color="C2", lw=0.8, alpha=0.5)
        twin.set_ylabel("mean margin")
        twin.legend(fontsize=8, loc="lower right")
    elif periodic and periodic[0]["titles"]:
        counts = [json.loads(r["titles"]) for r in periodic]
        names = list(counts[0])
        shares = [[c[t] / r["games"] for c, r in zip(counts, periodic)] for t in names]
        ax2.stackplot(steps, shares, labels=names, alpha=0.8)
        ax2.set(xlabel="timesteps", ylabel="share of games", ylim=(0, 1),
                title="rating titles (best first)")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper left")
