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
