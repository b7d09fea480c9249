"""Smartphone Inc.: Steve's strength against a company's (``docs/rules/smartphone_inc.md``,
ruling 43), on paper and by play.

    python -m benchmarks.steve_strength [--games 200] [--seed 0] [--workers 1]
        [--out benchmarks/results/steve_strength.md]

* On paper: the means over a company's 480 tile-less pad plans of its goods (C + CHEAP),
  research, logistics and price, and Steve's values in each round with no technologies
  (goods from his pad C + PROD + CHEAP, research, logistics, price, phase 4).  Ruling 43 asks
  for his goods, research and logistics each at least the company mean and his price at
  most the company mean, in every round.
* By play: ``--games`` games of 3 companies, two ``greedy`` agents and Steve
  (``num_players=2, steve=True``, game seeds ``--seed``, ``--seed + 1``, ...).  Ruling 43
  asks Steve to finish first about as often as each greedy company: within 1/3 +- 0.10.  A
  first place shared counts as first for every company in it.

The report (markdown) goes to ``--out``; :func:`measure` returns the figures for the test
that checks them (``tests/test_smartphone_inc.py``, marked slow).
"""
from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "steve_strength.md"
TARGET, BAND = 1.0 / 3.0, 0.10


def company_means():
    """Means over a company's 480 tile-less pad plans: ``goods`` (C + CHEAP), ``research``,
    ``logistics``, ``price`` (5 + price shift, kept within the price bounds)."""
    from kernels import smartphone_inc as K
    rows = K.PAD_ROWS
    price = np.clip(K.START_PRICE + rows[:, K.PO_PRICE_SHIFT], K.PRICE_MIN, K.PRICE_MAX)
    return {"goods": float((rows[:, K.PO_GOODS] + rows[:, K.PO_PROD]).mean()),
            "research": float(rows[:, K.PO_RES].mean()), "logistics": float(rows[:, K.PO_LOG].mean()),
            "price": float(price.mean())}


def steve_rounds():
    """Steve's plan in each round, no technologies: a dict per round with the covered
    ``cell`` (row, column) and its ``icon``, ``price``, ``goods`` from his pad (1 covered
    cell + active PROD and CHEAP), ``research``, ``logistics`` and ``phase4`` ("tile",
    "token" or None in a round without phase 4)."""
    from kernels import smartphone_inc as K
    out = []
    for rd in range(1, K.ROUNDS + 1):
        cov = int(K.STEVE_CYCLE[(rd - 1) % len(K.STEVE_CYCLE)])
        active = [int(K.STEVE_PAD[v]) for v in range(K.NUM_STEVE_CELLS) if v != cov]
        shift = active.count(K.PRICE_UP) - active.count(K.PRICE_DOWN) - active.count(K.CHEAP)
        out.append({"round": rd, "cell": divmod(cov, K.STEVE_COLS), "icon": K.ICON_NAMES[K.STEVE_PAD[cov]],
                    "price": min(max(K.START_PRICE + shift, K.PRICE_MIN), K.PRICE_MAX),
                    "goods": 1 + active.count(K.PROD) + active.count(K.CHEAP),
                    "research": active.count(K.RES), "logistics": active.count(K.LOG),
                    "phase4": None if not K.IMP_ROUND[rd] else ("tile" if K.IMP in active else "token")})
    return out


def play_one(seed):
    """One game of two greedy agents and Steve: the final score and rank of each company
    (seat 0, seat 1, Steve)."""
    import agents
    import envs
    env = envs.make("smartphone_inc_v0", num_players=2, steve=True)
    bots = [agents.make("greedy", seed=2 * seed), agents.make("greedy", seed=2 * seed + 1)]
    info = agents.play_game(env, bots, seed=seed).info
    return {"seed": seed, "scores": [int(x) for x in info["scores"]] + [int(info["steve_score"])],
            "ranks": [int(x) for x in info["ranks"]] + [int(info["steve_rank"])]}


def measure(games=200, seed=0, workers=1):
    """Play ``games`` games (:func:`play_one`); returns ``games``, ``first`` (games each of
    seat 0, seat 1 and Steve finished first, shared included), ``rates`` (those / games),
    ``mean_scores`` and ``results`` (one per game)."""
    seeds = list(range(seed, seed + games))
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(play_one, seeds, chunksize=4))
    else:
        results = [play_one(s) for s in seeds]
    first = [sum(r["ranks"][k] == 1 for r in results) for k in range(3)]
    return {"games": games, "first": first, "rates": [f / games for f in first],
            "mean_scores": [float(np.mean([r["scores"][k] for r in results])) for k in range(3)],
            "results": results}


def report(play, command, seconds):
    means = company_means()
    lines = ["# Smartphone Inc.: Steve's strength", "",
             f"Made by `{command}` in {seconds / 60:.1f} min.", "",
             "## On paper (no technologies)", "",
             "A company's 480 tile-less pad plans, mean: goods (C + CHEAP) "
             f"{means['goods']:.3f}, research {means['research']:.3f}, logistics "
             f"{means['logistics']:.3f}, price {means['price']:.3f}.", "",
             "| round | covered cell | icon covered | price | goods from the pad | research | logistics | phase 4 |",
             "| ---: | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for r in steve_rounds():
        lines.append(f"| {r['round']} | {r['cell']} | {r['icon']} | {r['price']} | {r['goods']} | "
                     f"{r['research']} | {r['logistics']} | {r['phase4'] or '--'} |")
    if play is not None:
        n = play["games"]
        names = ("greedy seat 0", "greedy seat 1", "Steve")
        lines += ["", f"## By play: {n} games, 2 greedy companies + Steve", "",
                  f"Target (ruling 43): each finishes first in {TARGET:.3f} +- {BAND:.2f} of the games "
                  "(a shared first place counts for each company in it).", "",
                  "| company | finished first | rate | mean final score |", "| --- | ---: | ---: | ---: |"]
        for k in range(3):
            lines.append(f"| {names[k]} | {play['first'][k]}/{n} | {play['rates'][k]:.3f} | "
                         f"{play['mean_scores'][k]:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    from envs import cli

    p = cli.ArgumentParser(prog="python -m benchmarks.steve_strength", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=cli.non_negative_int, default=200, help="games played (default 200; 0: on paper only)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    p.add_argument("--workers", type=cli.positive_int, default=1)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    start = time.time()
    play = measure(args.games, args.seed, args.workers) if args.games else None
    command = "python -m benchmarks.steve_strength " + " ".join(sys.argv[1:] if argv is None else argv)
    text = report(play, command.strip(), time.time() - start)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
