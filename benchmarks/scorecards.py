"""The scorecard checked against the ladders: rate rungs as if they were a user's agents.

    python -m benchmarks.scorecards [--game GAME ...] [--solo] [--workers 2] [--also SPEC ...]

For each ladder (default: every stored one), ``greedy`` and one other rung (the second
named by ``SECOND``) are rated by :func:`agents.scorecard.rate` with a fresh seed, as any
agent would be; the card should land within ±50 Elo of the rung's published rating, in
at most 10 minutes on a 2-core machine.  Results are merged into
``benchmarks/results/ladder/scorecards.json`` (one entry per ladder and agent, with the
revision, date and machine) and the table ``scorecards.md`` is written from it.
``--also SPEC ...`` rates further agents that are not rungs (say ``pretrained``) the same
way; the README's ratings of the shipped agents come from these cards.
"""
from __future__ import annotations

import datetime
import json
import os
import secrets
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "ladder"
WITHIN = 50.0          # Elo: how close a card must land to the published rating
MINUTES = 10.0         # how long a card may take on the 2-core machine


def second_rung(lad):
    """The other rung checked: the one just below greedy (a noisy greedy in every ladder)."""
    order = lad.sorted_rungs()
    k = [r.label for r in order].index("greedy")
    return order[k - 1] if k > 0 else order[k + 1]


def check(game, mode, workers, log, also=()):
    """Cards of greedy, the rung below it and the agents ``also``, each with a fresh seed;
    a rung's card is compared with its published rating (the card's ``ladder_rating``)."""
    from agents.rating import ladder as ladders
    from agents.rating.scorecard import rate

    lad = ladders.load(game, mode)
    agents = [(r.agent, dict(r.options)) for r in (lad.spec.rung("greedy"), second_rung(lad))]
    rows = []
    for agent, options in agents + [(spec, {}) for spec in also]:
        seed = secrets.randbits(63)
        card = rate(game, agent, mode=mode, agent_options=options, seed=seed, workers=workers)
        published = card.get("ladder_rating")
        off = None if published is None else round(card["rating"] - published, 1)
        rows.append({"ladder": lad.spec.name, "rung": card.get("ladder_rung"), "agent": agent,
                     "options": options, "seed": seed, "published": published,
                     "rating": card["rating"], "halfwidth": card["halfwidth"], "off": off,
                     "within": None if off is None else abs(off) <= WITHIN,
                     "games": card["games"], "seconds": card["seconds"], "stopped": card["stopped"],
                     "yardstick": card.get("yardstick")})
        versus = "" if off is None else f" (published {published:.0f}, off {off:+.0f})"
        log(f"{lad.spec.name} {card.get('ladder_rung') or agent}: {card['rating']:.0f} ± "
            f"{card['halfwidth']:.0f}{versus} in {card['seconds']:.0f} s, {card['games']} games")
    return rows


def write(entries, out):
    from agents.rating.ladder import machine

    lines = ["# The scorecard against the ladders", "",
             "Each rung below was rated by `python -m agents.scorecard` as if it were a user's "
             f"agent (fresh seed, 2 workers): the card should land within ±{WITHIN:.0f} Elo of the "
             f"rung's published rating, in at most {MINUTES:.0f} minutes on the 2-core machine. "
             "Regenerate with `python -m benchmarks.scorecards`.", "",
             "| ladder | rung | published | card | off | within ±50 | games | time | date, revision |",
             "|---|---|---|---|---|---|---|---|---|"]
    checked = [e for e in entries if e["rung"] is not None]
    others = [e for e in entries if e["rung"] is None]
    for e in sorted(checked, key=lambda e: (e["ladder"], e["rung"] != "greedy")):
        lines.append(f"| {e['ladder']} | {e['rung']} | {e['published']:.0f} | {e['rating']:.0f} ± "
                     f"{e['halfwidth']:.0f} | {e['off']:+.0f} | {'yes' if e['within'] else 'no'} | "
                     f"{e['games']} | {e['seconds'] / 60:.1f} min | {e['date']}, {e['revision']} |")
    if others:
        lines += ["", "Other agents, rated the same way:", "",
                  "| ladder | agent | card | games | time | date, revision |", "|---|---|---|---|---|---|"]
        for e in sorted(others, key=lambda e: (e["ladder"], e["agent"])):
            lines.append(f"| {e['ladder']} | {e['agent']} | {e['rating']:.0f} ± {e['halfwidth']:.0f} | "
                         f"{e['games']} | {e['seconds'] / 60:.1f} min | {e['date']}, {e['revision']} |")
    solo = [e for e in entries if e.get("yardstick")]
    if solo:
        from agents.rating.scorecard import yardstick_words
        lines += ["", "The solo yardsticks of the solo cards' games:", ""]
        for e in sorted(solo, key=lambda e: (e["ladder"], e["rung"] or e["agent"])):
            lines.append(f"- {e['ladder']} {e['rung'] or e['agent']}: {yardstick_words(e['yardstick'])}")
    machines = sorted({e["machine"] for e in entries})
    lines += ["", "Machine: " + "; ".join(machines or [machine()]) + "."]
    (out / "scorecards.md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    from envs import cli
    from agents.rating import ladder as ladders

    p = cli.ArgumentParser(prog="python -m benchmarks.scorecards", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", nargs="*", type=cli.game_id, default=None)
    p.add_argument("--solo", action="store_true", help="the solo ladders instead of the two-seat ones")
    p.add_argument("--workers", type=cli.positive_int, default=os.cpu_count() or 1)
    p.add_argument("--also", nargs="*", default=[], metavar="SPEC", help="more agents to rate (not rungs)")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args(argv)
    mode = "solo" if args.solo else "table"
    games = args.game or sorted({s.game for s in ladders.SPECS.values() if s.mode == mode})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "scorecards.json"
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    stamp = {"date": datetime.date.today().isoformat(), "revision": ladders._revision(),
             "machine": ladders.machine()}
    for game in games:
        try:
            rows = check(game, mode, args.workers, log, args.also)
        except ValueError as exc:
            cli.fail(exc, p.prog, status=1)
        spec = ladders.spec_for(game, mode)
        keys = {(r["ladder"], r["rung"], r["agent"]) for r in rows}
        entries = json.loads(path.read_text()) if path.exists() else []   # as it is now
        # a card replaces the last of the same agent; cards of an older version of the
        # ladder (another scale) go
        entries = [e for e in entries if (e["ladder"], e["rung"], e["agent"]) not in keys
                   and not (e["ladder"] == spec.name and e.get("ladder_version", 1) != spec.version)] \
            + [{**r, **stamp, "ladder_version": spec.version} for r in rows]
        path.write_text(json.dumps(entries, indent=1) + "\n")
        write(entries, out)
    print((out / "scorecards.md").read_text())


if __name__ == "__main__":
    main()
