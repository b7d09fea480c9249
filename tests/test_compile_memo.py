"""Specialised jitted functions (kernels.compile_memo): one per kernel, cached on disk, so a
new process (a test worker, a training or tournament worker) loads them instead of compiling."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit

import kernels.between_two_cities as between_two_cities
import kernels.kingdomino_duel as kingdomino_duel
from kernels import compile_memo, outcome

ROOT = Path(__file__).resolve().parents[1]

# A fresh process builds Kingdomino Duel's value function, calls it on a new game, and
# reports its name and numba's cache statistics for it.
_CHILD = """
import json
import numpy as np
import envs
from kernels import outcome
env = envs.make("kingdomino_duel_v0")
env.reset(seed=7)
values = outcome.value_function(env.spec.kernel)
out = np.zeros(2)
values(env._state, 2, np.zeros(2, dtype=np.int64), out)
print(json.dumps({"name": values.py_func.__qualname__, "hits": sum(values.stats.cache_hits.values()),
                  "misses": sum(values.stats.cache_misses.values())}))
"""


def _child():
    done = subprocess.run([sys.executable, "-c", _CHILD], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_specialised_function_is_loaded_from_the_disk_cache_in_a_new_process():
    _child()                     # compiles and caches it if no earlier run did
    again = _child()
    assert again["hits"] == 1 and again["misses"] == 0, again
    # the same name in every process, and the one this process builds
    assert again["name"] == outcome.value_function(kingdomino_duel).py_func.__qualname__


def test_each_kernel_and_option_gets_its_own_specialisation():
    # Between Two Cities has a feature potential: features=True binds another function there
    names = {(k.__name__, f): outcome.value_function(k, f).py_func.__qualname__
             for k in (kingdomino_duel, between_two_cities) for f in (False, True)}
    assert len(set(names.values())) == 3 and all(n.startswith("_values__") for n in names.values())
    # the same bindings are one specialisation (Kingdomino Duel has no feature potential)
    assert names["kernels.kingdomino_duel", False] == names["kernels.kingdomino_duel", True]
    # built once per process: asking again returns the same dispatcher
    assert outcome.value_function(between_two_cities) is outcome.value_function(between_two_cities, False)


@njit(cache=True)
def _double(x):
    return x * 2.0


def _reads_g(x):
    return g(x) + 1.0      # noqa: F821 -- bound by specialise


def _reads_k(x):
    return x + k           # noqa: F821 -- bound by specialise


def test_specialise_binds_functions_and_numbers_as_constants():
    plus_one = compile_memo.specialise(_reads_g, g=_double)
    assert plus_one(2.0) == 5.0 and plus_one.py_func.__qualname__.startswith("_reads_g__")
    five, six = compile_memo.specialise(_reads_k, k=5.0), compile_memo.specialise(_reads_k, k=6.0)
    assert five(1.0) == 6.0 and six(1.0) == 7.0
    assert five.py_func.__qualname__ != six.py_func.__qualname__
    assert compile_memo.specialise(_reads_k, k=5.0).py_func.__qualname__ == five.py_func.__qualname__


def test_specialise_refuses_what_it_cannot_name():
    with pytest.raises(TypeError, match=r"reads no global named \['h'\]"):
        compile_memo.specialise(_reads_k, k=1.0, h=2.0)

    def nested(x):
        return x + k       # noqa: F821

    with pytest.raises(TypeError, match="must be defined at module level"):
        compile_memo.specialise(nested, k=1.0)
    with pytest.raises(TypeError, match="cannot bind list"):
        compile_memo.specialise(_reads_k, k=[1.0])
    with pytest.raises(TypeError, match="cannot bind a nested function"):
        compile_memo.specialise(_reads_g, g=njit(nested))



def test_the_name_follows_the_sources_of_the_functions_a_template_calls(monkeypatch):
    # numba checks only the template's own file.  The learned search's evaluation calls the
    # network's forward pass, a global imported from another module: an edit there must
    # change the name, or the stale compiled copy would be loaded from the cache.
    from agents.players import az_net, az_search
    from kernels import greedy

    def name():
        return compile_memo.specialise(
            az_search._evaluate, k_observe=kingdomino_duel.observe,
            features=greedy.action_value_features_function(kingdomino_duel)).py_func.__qualname__

    before = name()
    assert name() == before
    real = compile_memo._file_digest
    monkeypatch.setattr(compile_memo, "_file_digest",
                        lambda path: b"edited" if path == az_net.__file__ else real(path))
    assert name() != before


@pytest.mark.parametrize("probe", ["agents", "training"])
def test_the_cold_start_probes_run(probe):
    # benchmarks.cold_start times these in fresh processes (here with the usual cache)
    from benchmarks import cold_start
    wall, cpu = cold_start.timed_run("kingdomino_duel_v0", None, probe)
    assert wall > 0 and cpu > 0
