"""Build a game's rating ladder: the round robin that rates its reference agents.

    python -m benchmarks.ladder --game GAME [--solo] [--games 100] [--seeds 200]
        [--workers 2] [--backend process|ray] [--seed 0] [--max-games 20000] [--resume]
        [--checkpoint DIR] [--games-file FILE.jsonl] [--max-seeds N]

Writes the ladder into the package (``agents/rating/ladders/<ladder>.json``, which the
scorecard reads) and its report into ``benchmarks/results/ladder/<ladder>/``: ``table.md``
(ratings, intervals, seconds a move, every pairing's score) and ``ladder.png``.  Two-seat
tables start with ``--games`` games between neighbouring rungs (fewer between distant
ones), then add games between neighbours until every rung's 95 % interval is within ±30
Elo (±50 for rungs slower than 0.3 s a move).  Solo ladders play ``--seeds`` game seeds
with every rung (``--games-file`` keeps their games and reuses them), and with
``--max-seeds`` add seeds while some interval is over target, played by the rungs it hangs
on.  ``--backend ray``
plays on a Ray cluster.  ``--resume`` goes on from the stored ladder's games (say, with a
larger ``--max-games``) instead of starting again; ``--checkpoint DIR`` writes the two-seat
ladder so far into DIR after every round of games and, run again, goes on from it, so a long
build survives an interruption (the package's ladder is written only at the end).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "ladder"
DEFAULT_MAX_GAMES = 20000     # a two-seat build stops adding games here


def rebuild_command(lad):
    """The command that builds ``lad`` again: a solo ladder names the seeds its rungs played
    (every rung the same number, or the fewest and the most when the build added seeds for
    some), a two-seat one a game cap above the default when it holds more games."""
    words = ["python -m benchmarks.ladder", f"--game {lad.spec.game}"]
    if lad.spec.mode == "solo":
        played = [sum(v is not None for v in results) for results in lad.seed_results.values()]
        words += ["--solo", f"--seeds {min(played)}"]
        if max(played) > min(played):
            words.append(f"--max-seeds {max(played)}")
    elif lad.meta["games"] > DEFAULT_MAX_GAMES:
        words.append(f"--max-games {lad.meta['games']}")
    return " ".join(words)


def write_report(lad, out_dir):
    """``table.md`` and ``ladder.png`` of a built ladder."""
    from agents.rating import ladder as ladders

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    meta = lad.meta
    hours = meta["seconds"] / 3600.0
    core = meta.get("core_seconds")
    # The wall time is the last run's only: a build that went on from stored games (or a
    # solo games file) did not replay them, so the core-hours are the ladder's cost.
    cost = (f"{core / 3600.0:.2f} core-hours of play; the last run took {hours:.2f} h"
            if core else f"core-hours not recorded, the build predates it; it took {hours:.2f} h")
    rows = [f"# Rating ladder {lad.spec.name} (v{lad.spec.version})", "",
            f"Game options: `{lad.spec.options}`; mode: {lad.spec.mode}; anchor: "
            f"{ladders.ANCHOR} = {ladders.ANCHOR_RATING:.0f} Elo.",
            f"{meta['games']} games ({cost}) on {meta['machine']}; revision "
            f"{meta['revision']}, {meta['date']}, rules revision {meta['rules_revision']}, seed "
            f"{meta['seed']}.  Rebuild: `{rebuild_command(lad)}`."
            + (f"  Note: {meta['note']}." if meta.get("note") else ""), "",
            "| rung | agent | options | Elo | 95% | s/move |", "|---|---|---|---|---|---|"]
    for r in lad.sorted_rungs()[::-1]:
        spm = lad.seconds_per_move.get(r.label)
        rows.append(f"| {r.label} | {r.agent} | `{r.options}` | {lad.rating(r.label):.0f} | "
                    f"±{lad.halfwidths[r.label]:.0f} | {'-' if spm is None else f'{spm:.3f}'} |")
    order = lad.sorted_rungs()
    if len(order) > 1:
        rows += ["", "Neighbours (weakest first): " + "; ".join(
            f"{b.label} − {a.label} = {lad.rating(b.label) - lad.rating(a.label):.0f}"
            for a, b in zip(order, order[1:]))]
    if lad.pairs:
        rows += ["", "Pairings: the first rung's score against the second (ties 1/2), games.", "",
                 "| rung | against | score | games |", "|---|---|---|---|"]
        for p in lad.pairs:
            rows.append(f"| {p['a']} | {p['b']} | {p['points'] / p['games']:.3f} | {p['games']} |")
    (out / "table.md").write_text("\n".join(rows) + "\n")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.45 * len(order) + 1.4))
    ax.errorbar([lad.rating(r.label) for r in order], range(len(order)),
                xerr=[lad.halfwidths[r.label] for r in order], fmt="o", capsize=3)
    ax.set_yticks(range(len(order)), [r.label for r in order])
    ax.set_xlabel(f"Elo ({ladders.ANCHOR} = {ladders.ANCHOR_RATING:.0f}), 95% intervals")
    ax.set_title(f"{lad.spec.name} ladder v{lad.spec.version}")
    fig.tight_layout()
    fig.savefig(out / "ladder.png", dpi=100)
    plt.close(fig)
    return out


def main(argv=None):
    from envs import cli

    p = cli.ArgumentParser(prog="python -m benchmarks.ladder", description=__doc__.split("\n\n")[0],
                           epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    p.add_argument("--game", required=True, type=cli.game_id)
    p.add_argument("--solo", action="store_true", help="the game's solo ladder")
    p.add_argument("--games", type=cli.positive_int, default=100, help="first-round games between neighbours")
    p.add_argument("--seeds", type=cli.positive_int, default=200, help="solo: game seeds every rung plays")
    p.add_argument("--max-seeds", type=cli.positive_int, default=None,
                   help="solo: add seeds up to this many while some interval is over target "
                        "(played by the rungs it hangs on)")
    p.add_argument("--workers", type=cli.positive_int, default=os.cpu_count() or 1)
    p.add_argument("--backend", choices=["process", "ray"], default="process")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-games", type=cli.positive_int, default=DEFAULT_MAX_GAMES)
    p.add_argument("--out", default=None, help="report folder (default benchmarks/results/ladder/...)")
    p.add_argument("--ladder-dir", default=None, help="where to write the ladder file (default: the package)")
    p.add_argument("--games-file", default=None,
                   help="solo: a .jsonl file that keeps every finished game; games already in it are not played again")
    p.add_argument("--resume", action="store_true",
                   help="two seats: go on from the stored ladder's games (same rungs and seed)")
    p.add_argument("--checkpoint", metavar="DIR", default=None,
                   help="two seats: write the ladder so far into DIR after every round of games, "
                        "and go on from DIR's ladder when there is one (an interrupted build resumes)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    from agents.rating import ladder as ladders

    try:
        spec = ladders.spec_for(args.game, "solo" if args.solo else "table")
    except ValueError as exc:
        cli.fail(exc, p.prog)
    if spec.mode == "solo" and args.checkpoint:
        cli.fail("--checkpoint: two-seat builds only; a solo build keeps its games with --games-file", p.prog)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    if spec.mode == "table":
        previous = None
        saved = Path(args.checkpoint) / ladders.path_for(spec.name).name if args.checkpoint else None
        if saved is not None and saved.exists():
            try:
                previous = ladders.load(args.game, "table", directory=args.checkpoint, rungs_added=True)
            except ValueError as exc:
                cli.fail(f"--checkpoint: {exc}", p.prog)
            log(f"going on from {saved} ({previous.meta.get('games')} games)")
        elif args.resume:
            try:
                previous = ladders.load(args.game, "table", directory=args.ladder_dir, rungs_added=True)
            except ValueError as exc:
                cli.fail(f"--resume: {exc}", p.prog)
        keep = (lambda so_far: ladders.save(so_far, args.checkpoint)) if args.checkpoint else None
        try:
            lad = ladders.build_table(spec, base_games=args.games, seed=args.seed,
                                      workers=args.workers, backend=args.backend,
                                      max_games=args.max_games, progress=not args.no_progress,
                                      log=log, previous=previous, checkpoint=keep)
        except ValueError as exc:
            cli.fail(exc, p.prog)
    else:
        try:
            lad = ladders.build_solo(spec, seeds=args.seeds, seed=args.seed, workers=args.workers,
                                     backend=args.backend, progress=not args.no_progress, log=log,
                                     games_file=args.games_file, max_seeds=args.max_seeds)
        except ValueError as exc:
            cli.fail(exc, p.prog)
    path = ladders.save(lad, args.ladder_dir)
    # The report shows the stored (rounded) figures, the ones the scorecard and README use.
    lad = ladders.load(spec.game, spec.mode, directory=path.parent)
    out = write_report(lad, args.out or RESULTS / spec.name.replace("/", "-"))
    print((out / "table.md").read_text())
    print(f"ladder written to {path}; report in {out}/")
    return lad


if __name__ == "__main__":
    main()
