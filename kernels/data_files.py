"""Per-game data files (``kernels/data/<game>.yaml``) and numba cache hygiene.

Every table a game needs lives in one YAML file next to this module, each entry with
its provenance, so a user holding the physical game can correct a value without
touching code.  Kernels turn the YAML into numpy tables at import; numba freezes
global arrays into the compiled code and keys its on-disk cache on the *source*
file only, so :func:`load` drops a kernel module's cached machine code whenever its
data file changed since the cache was written.
"""
import hashlib
import os
from pathlib import Path

import yaml

DATA_DIR = Path(__file__).resolve().parent / "data"


def load(game, kernel_file):
    """Return the parsed data of ``game``; invalidate ``kernel_file``'s numba cache if stale."""
    path = DATA_DIR / f"{game}.yaml"
    raw = path.read_bytes()
    _drop_stale_cache(Path(kernel_file), hashlib.sha256(raw).hexdigest())
    return yaml.safe_load(raw)


def _drop_stale_cache(kernel_file, digest):
    cache_dir = kernel_file.parent / "__pycache__"
    stamp = cache_dir / f"{kernel_file.stem}.datahash"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        cache_dir.mkdir(exist_ok=True)
        for f in cache_dir.glob(f"{kernel_file.stem}.*.nb[ic]"):
            f.unlink()
        stamp.write_text(digest)
        # numba compares the source file's mtime with its index; touching the module
        # forces a rebuild even of cache files another process is about to write.
        os.utime(kernel_file)
    except OSError:  # read-only install: numba then compiles in memory every run
        pass


# ------------------------------------------------------------------ schema checks
class DataError(ValueError):
    """A data file breaks its game's schema; the message names the field."""


_MISSING = object()


class Checker:
    """Checks one game's parsed data file field by field.

    Fields are named by paths such as ``"dice[2].faces[3][1]"``; every method returns the
    checked value and raises :class:`DataError` naming the path and what was expected, so a
    user correcting a data file learns which entry is wrong.  Kernels call their
    ``check_data(data)`` at import (and, where a game takes a ``data_path`` option, on the
    user's file) before any table reaches compiled code.
    """

    def __init__(self, data, game):
        self.data = data
        self.game = game

    def fail(self, path, message):
        raise DataError(f"{self.game} data, field {path!r}: {message}")

    def get(self, path, default=_MISSING):
        node = self.data
        for key in _split_path(path):
            try:
                if isinstance(key, int):
                    if not isinstance(node, list):
                        self.fail(path, f"expected a list, got {type(node).__name__}")
                    node = node[key]
                else:
                    if not isinstance(node, dict):
                        self.fail(path, f"expected a mapping, got {type(node).__name__}")
                    node = node[key]
            except (KeyError, IndexError):
                if default is not _MISSING:
                    return default
                self.fail(path, "missing")
        return node

    def integer(self, path, lo=None, hi=None, default=_MISSING):
        """An int (not a bool, not a float) in ``[lo, hi]``."""
        v = self.get(path, default)
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(path, f"expected an integer, got {v!r}")
        if lo is not None and v < lo:
            self.fail(path, f"must be >= {lo}, got {v}")
        if hi is not None and v > hi:
            self.fail(path, f"must be <= {hi}, got {v}")
        return v

    def boolean(self, path, default=_MISSING):
        v = self.get(path, default)
        if not isinstance(v, bool):
            self.fail(path, f"expected true or false, got {v!r}")
        return v

    def string(self, path, choices=None, default=_MISSING):
        v = self.get(path, default)
        if not isinstance(v, str):
            self.fail(path, f"expected a string, got {v!r}")
        if choices is not None and v not in choices:
            self.fail(path, f"must be one of {sorted(choices)}, got {v!r}")
        return v

    def sequence(self, path, length=None, min_len=None, max_len=None, default=_MISSING):
        """A list, optionally of a fixed or bounded length."""
        v = self.get(path, default)
        if not isinstance(v, list):
            self.fail(path, f"expected a list, got {v!r}")
        if length is not None and len(v) != length:
            self.fail(path, f"expected {length} entries, got {len(v)}")
        if min_len is not None and len(v) < min_len:
            self.fail(path, f"expected at least {min_len} entries, got {len(v)}")
        if max_len is not None and len(v) > max_len:
            self.fail(path, f"expected at most {max_len} entries, got {len(v)}")
        return v

    def mapping(self, path, default=_MISSING):
        v = self.get(path, default)
        if not isinstance(v, dict):
            self.fail(path, f"expected a mapping, got {v!r}")
        return v

    def require(self, condition, path, message):
        """A cross-field rule (totals, uniqueness, references) that must hold."""
        if not condition:
            self.fail(path, message)


def _split_path(path):
    """``"a.b[2][0].c"`` -> ``["a", "b", 2, 0, "c"]``."""
    out = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if name:
            out.append(name)
        while rest:
            index, _, rest = rest.partition("]")
            out.append(int(index))
            rest = rest[1:] if rest.startswith("[") else rest
    return out
