"""Play many independent games in worker processes or on a Ray cluster.

:class:`Runner` keeps its workers between calls, so a caller that decides its next games
from the last ones' results (the scorecard's adaptive schedule) pays for starting
processes and loading compiled kernels once.  Results always come back in the order of the
jobs, whatever finished first, so nothing computed from them depends on the number of
workers or the backend.

``backend="process"``: a pool of spawned processes (safe with numba and threads; a crashed
worker raises instead of hanging).  ``backend="ray"``: Ray tasks, on the cluster
``ray.init`` finds (a local one of ``workers`` CPUs when none is running; needs the
optional extra ``ray``).  ``workers=1`` plays in this process.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

BACKENDS = ("process", "ray")
_REPO_ROOT = str(Path(__file__).resolve().parent.parent)


def progress_bar(total, desc, enabled):
    """A tqdm bar on stderr (a no-op when ``enabled`` is false)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="game", disable=not enabled, file=sys.stderr)


class Runner:
    """Runs ``function(job)`` for picklable jobs; see the module docstring.

    >>> with Runner(workers=2) as runner:
    ...     results = runner.map(play_one, jobs)
    """

    def __init__(self, workers=1, backend="process"):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
        self.workers = workers
        self.backend = backend
        self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def map(self, function, jobs, bar=None):
        """``[function(job) for job in jobs]``, computed by the workers; ``bar`` (optional)
        is updated once per finished job."""
        jobs = list(jobs)
        if self.backend == "ray":
            return self._map_ray(function, jobs, bar)
        if self.workers <= 1 or len(jobs) <= 1:
            out = []
            for job in jobs:
                out.append(function(job))
                if bar is not None:
                    bar.update(1)
            return out
        from concurrent.futures import as_completed

        pool = self._process_pool()
        futures = {pool.submit(function, job): i for i, job in enumerate(jobs)}
        out = [None] * len(jobs)
        try:
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                if bar is not None:
                    bar.update(1)
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        return out

    def _process_pool(self):
        if self._pool is None:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=mp.get_context("spawn"))
        return self._pool

    def _map_ray(self, function, jobs, bar):
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise RuntimeError("the ray backend needs ray: pip install 'cityzoo[ray]'") from exc
        if not ray.is_initialized():
            path = os.pathsep.join(p for p in [_REPO_ROOT, os.environ.get("PYTHONPATH", "")] if p)
            ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": path}})
        remote = ray.remote(function)
        refs = [remote.remote(job) for job in jobs]
        index = {ref: i for i, ref in enumerate(refs)}
        out = [None] * len(jobs)
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                out[index[ref]] = ray.get(ref)
            if bar is not None:
                bar.update(len(done))
        return out
