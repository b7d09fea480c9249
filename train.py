"""Masked self-play training of a cityzoo game with sb3-contrib's MaskablePPO.

    python train.py --game kingdomino_duel_v0                      # the game's default budget
    python train.py --game kingdomino_duel_v0 --timesteps 200000 --opponents mix --out runs/kd

The command line only: it checks every argument before any work (a bad one is refused
with one line on stderr and exit status 2), prints the plan of the run, then trains.
The machinery is :mod:`agents.learning.training` (``python train.py --help`` describes
every setting; :func:`agents.learning.training.run.train` runs a
:class:`~agents.learning.training.config.TrainConfig` from Python).
"""
from __future__ import annotations

import importlib.util
import os
import sys


def _check_import_names():
    """One line and exit status 2 when a module of the user's named ``agents``, ``envs`` or
    ``kernels`` hides ours (envs/import_names.py, loaded by its path: ``envs`` may be the
    hidden name)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "envs", "import_names.py")
    spec = importlib.util.spec_from_file_location("cityzoo_import_names", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check(("agents", "envs", "kernels"), command=__name__ == "__main__")


_check_import_names()

from agents.learning.training import command  # noqa: E402


def main(argv=None):
    """Train as the command line ``argv`` says; returns the run's summary."""
    try:
        cfg, given, notes = command.parse_command(argv)
        command.check(cfg)
    except ValueError as exc:
        print(f"train.py: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if cfg.verbose:
        command.report_plan(cfg, given, notes)
    # imported only now: torch and stable-baselines3 take seconds to import, and a refused
    # command must not wait for them
    from agents.learning.training.run import train

    return train(cfg)


if __name__ == "__main__":
    main()
