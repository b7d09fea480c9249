"""The kernel contract (envs.spec): ``step``, ``legal_mask`` and ``observe`` allocate
nothing; working space lives in the state's scratch tail.  Counted with numba's runtime
statistics (NRT allocations) in a child interpreter, by the conformance kit
(``envs.testing.checks.count_allocations``), for every case of the case table."""
from envs import testing
from envs.testing import checks


def test_step_mask_and_observe_allocate_nothing():
    result = checks.check_no_allocations(testing.cases(), moves=3000)
    assert sorted(result) == sorted(c.id for c in testing.cases())
