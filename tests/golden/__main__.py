"""``python -m tests.golden [--regen] [NAME ...]``: check (default) or regenerate the golden
playthroughs of ``tests/golden`` (see its ``__init__``)."""
import argparse
import sys

from envs.testing.golden import check_playthrough
from tests.golden import PLAYTHROUGHS, path_of, regenerate


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__)
    p.add_argument("--regen", action="store_true", help="write the files anew (then review git diff)")
    p.add_argument("names", nargs="*", help="only these playthroughs (file names without .txt)")
    args = p.parse_args(argv)
    known = [name for name, *_ in PLAYTHROUGHS]
    unknown = sorted(set(args.names) - set(known))
    if unknown:
        p.error(f"unknown playthroughs {unknown}; known: {', '.join(known)}")
    names = args.names or known
    if args.regen:
        for path in regenerate(names):
            print(f"wrote {path}")
        return 0
    failed = 0
    for name in names:
        try:
            check_playthrough(path_of(name))
            print(f"ok      {name}")
        except (AssertionError, FileNotFoundError) as err:
            failed += 1
            print(f"DIFFERS {name}\n{err}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
