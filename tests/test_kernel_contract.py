"""The kernel contract (envs/spec.py) for every case of the case table (envs.testing): the same
seed and actions give the same game and a copied state continues identically; the state,
observation and actions are declared (kernels.layout) and the adapter reads them; nothing is
computed from the all-zero state; whole games compile one numba specialisation per function."""
import pytest

import envs
from envs import testing
from envs.testing import checks

CASES = testing.cases()


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_determinism_and_copy(case):
    moves = checks.check_determinism_and_copy(case.game, case.options, seed=5, copy_at=30)
    assert moves > 0


@pytest.mark.slow
@pytest.mark.parametrize("case", **testing.params(testing.default_cases()))
def test_playouts_from_a_copy_are_determined_by_their_generator(case):
    """Two jitted random playouts (kernels.playout) from copies of one mid-game state, with
    generators of the same seed, end in the same game.  (Slow stage: the playout loop takes
    the kernel's functions as arguments, so numba compiles it anew in every process, about
    10 s per game.)"""
    import numpy as np

    from kernels import playout
    from kernels.rng import new_generator
    spec, cfg, state = checks.new_kernel_state(case.game, case.options, seed=1)
    kept = []
    checks.play_kernel(spec, state, seed=1,
                       after_move=lambda st, step, a: step + 1 == 40 and kept.append(st.copy()))
    assert kept, "the game ended before move 40"
    mask = np.zeros(spec.num_actions, dtype=np.int8)
    ends = []
    for copy in (kept[0].copy(), kept[0].copy()):
        k = spec.kernel
        playout.random_playout(k.step, k.legal_mask, k.current_player, copy, mask,
                               new_generator(5), 100_000)
        assert k.current_player(copy) == -1
        ends.append(checks.game_part(copy, cfg))
    assert np.array_equal(*ends)


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_layouts_are_declared(case):
    parts = checks.check_declared_layout(case.game, case.options)
    assert parts
    assert checks.check_observations_split_into_declared_parts(case.make(), seed=2, max_steps=30) > 0


@pytest.mark.parametrize("case", **testing.params(testing.default_cases()))
def test_nothing_is_computed_from_the_all_zero_state(case):
    assert checks.check_unstarted_state_refused(case.game, case.options) == 7
    env = case.make()
    env.reset(seed=3)
    assert len(env.unwrapped.scores()) == len(env.possible_agents)


def test_the_checks_find_what_they_check(monkeypatch):
    """Each check fails on a game that breaks what it checks (the toy game, spoilt)."""
    from envs import registry
    from tests import toy_game
    registered_here = "toy_race_v0" not in registry.ADAPTERS
    if registered_here:
        registry.register("toy_race_v0", "tests.toy_game:ToySpec")
    try:
        assert checks.check_determinism_and_copy("toy_race_v0", {"target": 40}, seed=1, copy_at=3) > 3
        checks.check_declared_layout("toy_race_v0")
        checks.check_unstarted_state_refused("toy_race_v0")
        counted = checks.check_no_allocations(testing.cases(["toy_race_v0"]), moves=300)
        assert sorted(counted) == sorted(c.id for c in testing.cases(["toy_race_v0"]))
        # a spec that computes a label from a state that was never set up
        monkeypatch.setattr(toy_game.ToySpec, "action_label", lambda self, state, cfg, action: "?")
        with pytest.raises(AssertionError, match="action_label worked on the all-zero state"):
            checks.check_unstarted_state_refused("toy_race_v0")
        counted = checks.check_no_allocations(testing.cases(["toy_race_v0"]), moves=300)
        assert sorted(counted) == sorted(c.id for c in testing.cases(["toy_race_v0"]))
        monkeypatch.undo()
        # an observation declared with fewer parts than the kernel writes
        monkeypatch.setattr(toy_game.ToySpec, "observation_layout", lambda self, cfg: [("progress", (1,))])
        with pytest.raises(AssertionError, match="add up to 1, not obs_size 2"):
            checks.check_declared_layout("toy_race_v0")
        monkeypatch.undo()
        # a step that depends on something else than the state: two replays part
        calls = []
        real_step = toy_game.step

        def step_with_memory(state, action):
            calls.append(action)
            real_step(state, (action + 1) % 3 if len(calls) == 2 else action)

        monkeypatch.setattr(toy_game, "step", step_with_memory)
        with pytest.raises(AssertionError, match="different game|continued differently"):
            checks.check_determinism_and_copy("toy_race_v0", {"target": 40}, seed=1, copy_at=3)
    finally:
        monkeypatch.undo()
        if registered_here:
            registry.unregister("toy_race_v0")


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("game", envs.GAMES)
def test_every_kernel_function_compiles_once(game, tmp_path):
    """Cold start (issue 15): internal calls pass int64 values, never int literals, so whole
    games of every case of the game -- env, observations, evaluation, determinize, reseed --
    compile exactly one numba specialisation of each kernel function.  Fresh cache directory:
    functions loaded from a cache do not list what their callers compiled."""
    options = [case.options for case in testing.cases([game])]
    compiled = checks.check_compiles_once(game, options, tmp_path)
    assert {"step", "legal_mask", "observe"} <= set(compiled)
