"""Is ``agents`` / ``envs`` / ``kernels`` ours?  cityzoo's packages have short, common names,
and a project's own ``agents.py``, ``envs/`` folder or ``kernels.py`` earlier on
``sys.path`` (the current folder comes first under ``python -m``) hides ours; without this
check the failure is an ``AttributeError`` far from its cause.

:func:`check` runs when a package of ours is imported, before it imports the others, and
turns such a clash into one line: on stderr with exit status 2 when a command
(``python -m agents.tournament``, ``python -m benchmarks.solo``, ...) is starting, an
``ImportError`` otherwise.  This module imports nothing of cityzoo, so that it works
whichever name is hidden: packages other than ``envs`` load it by its file path (see
``agents/__init__.py``).  See docs/getting_started.md, "Import names".
"""
from __future__ import annotations

import importlib.util
import os
import sys

# A file only our package has, per top-level name.
MARKERS = {"agents": "specs.py", "envs": "registry.py", "kernels": "rng.py"}
DOC = "docs/getting_started.md, \"Import names\""


def where(name):
    """Where ``import name`` finds its module: a folder or file path, or None if nowhere."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None) if module is not None else None
    if spec is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return list(spec.submodule_search_locations)[0]
    return spec.origin


def is_ours(name):
    """Does ``import name`` find cityzoo's package (a folder holding its marker file)?"""
    module = sys.modules.get(name)
    locations = getattr(module, "__path__", None) if module is not None else None
    if locations is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return False
        locations = (spec.submodule_search_locations or []) if spec is not None else []
    return any(os.path.isfile(os.path.join(folder, MARKERS[name])) for folder in locations)


def clash_message(name):
    """One line: which ``name`` Python finds instead of ours, and what to do."""
    found = where(name)
    return (f"cityzoo cannot start: 'import {name}' finds {found!r}, not cityzoo's {name} package "
            f"(a module or folder of your own named {name} hides it); rename yours, or run from "
            f"another folder (see {DOC})")


def check(names, command=None):
    """Refuse to go on when one of ``names`` is not ours: one line and exit status 2 when a
    command is starting, else ``ImportError`` with the same line.  ``command``: None
    detects a ``python -m`` command (runpy imports its packages with ``sys.argv[0] ==
    "-m"``); a script such as ``train.py`` passes ``command=__name__ == "__main__"``."""
    if command is None:
        command = sys.argv[:1] == ["-m"]
    for name in names:
        if not is_ours(name):
            message = clash_message(name)
            if command:
                print(message, file=sys.stderr, flush=True)
                raise SystemExit(2)
            raise ImportError(message)


