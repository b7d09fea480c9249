"""``python -m agents.pretrained export RUN_DIR`` / ``restore GAME NPZ`` / ``list``: see
:mod:`agents.learning.training.export`."""
import argparse
import sys

from agents.pretrained import MODELS_DIR, available_games, load_record


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m agents.pretrained",
                                description="Export a training run's final policy as the package's "
                                            "pretrained policy of its game.")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write <game>.npz and <game>.json from RUN_DIR")
    e.add_argument("run_dir", help="a train.py output directory (summary.json, final model)")
    e.add_argument("--to", default=MODELS_DIR, help="destination directory")
    e.add_argument("--note", default="", help="free text appended to the provenance")
    e.add_argument("--check-games", type=int, default=10,
                   help="games against greedy in which a stored form's moves are compared with "
                        "the trained actor's (default 10)")
    r = sub.add_parser("restore", help="store GAME's shipped policy again from its trained float32 "
                                       "arrays (after a change of the stored forms)")
    r.add_argument("game")
    r.add_argument("trained_npz", help="the run's float32 arrays (hash: trained_weights_sha256)")
    r.add_argument("--to", default=MODELS_DIR, help="the models directory")
    r.add_argument("--check-games", type=int, default=10)
    sub.add_parser("list", help="the games with a shipped policy and their recorded figures")
    args = p.parse_args(argv)
    if args.command in ("export", "restore"):
        from agents.learning.training import export as exporting
        if args.command == "export":
            record = exporting.export(args.run_dir, args.to, args.note, args.check_games)
        else:
            record = exporting.restore(args.game, args.trained_npz, args.to, args.check_games)
        check = record["storage_checks"].get(record["storage"])
        agreement = (f": the same move in {check['same_move']} of {check['decisions']} decisions"
                     if check else "")
        print(f"{record['game']}: sha256 {record['weights_sha256'][:16]}..., final win rates "
              f"{record['final_evaluation']['win_rates']}, overridden {record['overridden']}; "
              f"stored in {record['storage']}{agreement}")
    else:
        for game in available_games():
            r = load_record(game)
            print(f"{game}: {r['timesteps']:,} steps, seed {r['seed']}, stored in {r['storage']}, "
                  f"win rates {r['final_evaluation']['win_rates']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
