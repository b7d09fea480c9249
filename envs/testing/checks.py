"""The contract checks of the kit (see :mod:`envs.testing`).

Each check takes a registered game id and its options (or an environment), plays what it
needs with a seeded generator, and raises ``AssertionError`` saying what broke; it returns
what it measured (moves played, ...) so that a test can also check it did something.  Only
the package's runtime dependencies are imported (PettingZoo's own tests included: PettingZoo
is one of them); pytest is not needed.
"""
import numpy as np

from envs import registry


def _spec_config(game, options):
    spec = registry.spec_for(game)
    return spec, spec.configure(**dict(options or {}))


def new_kernel_state(game, options=None, seed=0):
    """``(spec, cfg, state)``: a new game's kernel state, set up by the kernel's ``init``."""
    spec, cfg = _spec_config(game, options)
    state = np.zeros(cfg.state_size, dtype=np.int64)
    spec.kernel.init(state, cfg.config, seed)
    return spec, cfg, state


def game_part(state, cfg):
    """The slots that hold the game (the scratch tail carries no game information)."""
    return state[:cfg.state_size - cfg.scratch]


def play_kernel(spec, state, seed, *, after_move=None, max_steps=None):
    """Play the kernel state to its end with uniformly random legal actions drawn from
    ``numpy.random.default_rng(seed)``; ``after_move(state, step, action)``.  Returns the actions."""
    kernel = spec.kernel
    rng = np.random.default_rng(seed)
    mask = np.zeros(spec.num_actions, dtype=np.int8)
    limit = spec.max_steps if max_steps is None else max_steps
    actions = []
    while kernel.current_player(state) >= 0:
        kernel.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        assert legal.size, f"{spec.game_id}: the seat to move has no legal action"
        action = int(legal[rng.integers(legal.size)])
        kernel.step(state, action)
        actions.append(action)
        if after_move is not None:
            after_move(state, len(actions) - 1, action)
        assert len(actions) <= limit, f"{spec.game_id}: the game exceeds its step bound ({limit})"
    return actions


# ------------------------------------------------------------------------- determinism
def check_determinism_and_copy(game, options=None, seed=0, copy_at=30):
    """The same seed gives the same game; the same actions replay it slot for slot (the
    scratch tail aside); a copy of the state taken after ``copy_at`` moves continues
    identically.  Returns the number of moves of the game."""
    spec, cfg, a = new_kernel_state(game, options, seed)
    _, _, b = new_kernel_state(game, options, seed)
    assert np.array_equal(a, b), f"{game}: init with the same seed gave two different states"
    copy = {}

    def after_move(state, step, action):
        if step + 1 == copy_at:
            copy["state"], copy["from"] = state.copy(), step + 1

    actions = play_kernel(spec, a, seed, after_move=after_move)
    for action in actions:
        spec.kernel.step(b, action)
    assert np.array_equal(game_part(a, cfg), game_part(b, cfg)), \
        f"{game}: the same seed and actions gave a different game"
    if "state" in copy:
        c = copy["state"]
        for action in actions[copy["from"]:]:
            spec.kernel.step(c, action)
        assert np.array_equal(game_part(a, cfg), game_part(c, cfg)), \
            f"{game}: a copy taken after {copy_at} moves continued differently"
    assert spec.kernel.current_player(b) == -1
    return len(actions)


# ---------------------------------------------------------------------- declared layouts
def check_declared_layout(game, options=None):
    """The kernel declares its state, observation and actions (:mod:`kernels.layout`) and the
    adapter reads them: sizes agree, every action id decodes to a declared block, the
    observation's named parts add up to its size and its bounds have that size.  Returns the
    observation's parts."""
    spec, cfg = _spec_config(game, options)
    kernel = spec.kernel
    for name in ("STATE", "OBS", "ACTIONS"):
        assert hasattr(kernel, name), f"{game}: the kernel declares no {name} layout (kernels.layout)"
    assert kernel.STATE.size == cfg.state_size, \
        f"{game}: state size {cfg.state_size} is not the declared {kernel.STATE.size}"
    assert kernel.STATE.scratch_size == cfg.scratch, \
        f"{game}: scratch {cfg.scratch} is not the declared {kernel.STATE.scratch_size}"
    actions = kernel.ACTIONS
    assert actions.num_actions == spec.num_actions, \
        f"{game}: num_actions {spec.num_actions} is not the declared {actions.num_actions}"
    for action in range(spec.num_actions):
        block, index = actions.decode(action)
        assert block in actions.names() and actions.offset(block) + index == action \
            and 0 <= index < actions.size(block), f"{game}: action {action} decodes to {block}[{index}]"
    parts = spec.observation_layout(cfg)
    sizes = [int(np.prod(shape)) for _, shape in parts]
    assert len({n for n, _ in parts}) == len(parts), f"{game}: observation parts share a name"
    assert sum(sizes) == cfg.obs_size, \
        f"{game}: observation parts add up to {sum(sizes)}, not obs_size {cfg.obs_size}"
    low, high = (np.broadcast_to(np.asarray(b, dtype=np.float32), (cfg.obs_size,))
                 for b in spec.observation_bounds(cfg))
    assert np.all(low <= high), f"{game}: observation bounds with low > high"
    return parts


def check_observations_split_into_declared_parts(env, seed=0, max_steps=200):
    """Along a random game, ``split_observation`` cuts every observation into the declared
    parts (names and shapes, in order) and every value lies within its part's bounds."""
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    parts = raw.spec.observation_layout(raw.cfg)
    low, high = (np.broadcast_to(np.asarray(b, dtype=np.float32), (raw.cfg.obs_size,))
                 for b in raw.spec.observation_bounds(raw.cfg))
    steps = 0
    while not all(env.terminations.values()) and steps < max_steps:
        for agent in env.possible_agents:
            flat = env.observe(agent)["observation"]
            split = raw.split_observation(flat)
            assert [(n, tuple(v.shape)) for n, v in split.items()] == [(n, tuple(s)) for n, s in parts], \
                f"{raw.spec.game_id}: split_observation does not give the declared parts"
            outside = np.flatnonzero((flat < low) | (flat > high))
            assert outside.size == 0, \
                f"{raw.spec.game_id}: observation values outside their bounds at {outside[:8].tolist()}"
        legal = raw.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps


# ------------------------------------------------------------------ the all-zero state
def check_unstarted_state_refused(game, options=None):
    """Nothing is computed from the all-zero state (what the env holds before ``reset()``):
    the spec's descriptions, pictures and re-draws raise ``AssertionError`` naming reset,
    and write nothing into it."""
    from envs.spec import NEEDS_STARTED_STATE
    spec, cfg = _spec_config(game, options)
    zero = np.zeros(cfg.state_size, dtype=np.int64)
    calls = {"phase_name": lambda: spec.phase_name(zero, cfg),
             "action_label": lambda: spec.action_label(zero, cfg, 0),
             "render_ansi": lambda: spec.render_ansi(zero, cfg),
             "private_text": lambda: spec.private_text(zero, cfg, 0),
             "picture": lambda: spec.picture(zero, cfg),
             "reseed": lambda: spec.reseed(zero, cfg, 1),
             "determinize": lambda: spec.determinize(zero, cfg, 0, 1)}
    assert set(calls) == set(NEEDS_STARTED_STATE)
    for name, call in calls.items():
        try:
            call()
        except AssertionError as err:
            assert "reset" in str(err), f"{game}: {name} on the all-zero state: {err}"
        else:
            raise AssertionError(f"{game}: {name} worked on the all-zero state (reset never ran)")
        assert not zero.any(), f"{game}: {name} wrote into the all-zero state"
    return len(calls)


# -------------------------------------------------------------- one compilation each
_COMPILE_PROBE = """
import json, sys
import numpy as np
from numba.core.registry import CPUDispatcher
import envs
from envs import registry
for game_id, adapter in REGISTERED:
    if game_id not in registry.ADAPTERS:
        registry.register(game_id, adapter)
spec = registry.spec_for(GAME)
K = spec.kernel
for options in OPTIONS:
    env = envs.make(GAME, **options)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    raw = env.unwrapped
    while not all(env.terminations.values()):
        for a in env.possible_agents:
            env.observe(a)
        for seat in range(raw.cfg.num_players):
            spec.evaluate(raw.kernel_state, raw.cfg, seat)
        legal = raw.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
    env.reset(seed=2)
    raw.determinize(0, 2 ** 70).reseed(-5)
print(json.dumps({n: [str(s) for s in f.signatures] for n, f in vars(K).items()
                  if isinstance(f, CPUDispatcher) and f.__module__ == K.__name__}))
"""


def compiled_specialisations(game, options_list, cache_dir, timeout=1200):
    """``{function name: [signature, ...]}`` of the game's kernel module after a fresh
    interpreter (numba cache in the empty directory ``cache_dir``) played one random game of
    each option set -- env, every seat's observation, ``evaluate``, determinize, reseed."""
    import json
    import os
    import subprocess
    import sys
    registered = [(g, registry.ADAPTERS[g]) for g in registry.GAMES]
    code = (f"GAME = {game!r}\nOPTIONS = {list(options_list)!r}\nREGISTERED = {registered!r}\n"
            + _COMPILE_PROBE)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env["PYTHONPATH"] = os.pathsep.join([root, os.getcwd()] + ([env["PYTHONPATH"]] if "PYTHONPATH" in env else []))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_compiles_once(game, options_list, cache_dir):
    """Internal calls pass consistent types (int64 values, never int literals), so whole games
    compile exactly one numba specialisation of each kernel function.  Returns the names of
    the functions that were compiled."""
    compiled = compiled_specialisations(game, options_list, cache_dir)
    several = {n: sig for n, sig in compiled.items() if len(sig) > 1}
    assert not several, f"{game}: kernel functions compiled more than once: {several}"
    return sorted(n for n, sig in compiled.items() if sig)


# --------------------------------------------------------------- the AEC environment
def check_pettingzoo_api(env, num_cycles=200):
    """PettingZoo's own ``api_test`` on ``env`` (a fresh AEC environment)."""
    from pettingzoo.test import api_test
    api_test(env, num_cycles=num_cycles)


def check_seed_and_render(make_env, num_cycles=200):
    """PettingZoo's ``seed_test`` and ``render_test``; ``make_env(render_mode=None)`` makes a
    fresh environment."""
    from pettingzoo.test import render_test, seed_test
    seed_test(lambda: make_env(), num_cycles=num_cycles)
    render_test(lambda render_mode=None: make_env(render_mode=render_mode))


def check_random_game(env, seed, *, hidden_every=7, max_steps=None):
    """One random game (``numpy.random.default_rng(seed)``) with the contract checked at every
    step: every observation is finite and inside its space; the mover's mask is non-empty and
    equals ``legal_actions()``, every other seat's is empty; the phase is a snake_case name;
    every legal action has a label.  Every ``hidden_every`` steps: a re-seeded clone shows every
    seat the same observation, and a copy determinized for the mover shows it the same
    observation and mask.  At the end: observations handed out earlier never changed, and a
    clone taken mid-game replays the rest of the game identically (state, rewards, infos).
    Returns the number of moves."""
    import re
    raw = env.unwrapped
    agents = env.possible_agents
    space = env.observation_space(agents[0])
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    limit = raw.spec.max_steps if max_steps is None else max_steps
    kept = []
    twin, twin_actions = None, []
    twin_at = int(np.random.default_rng(seed).integers(0, 40))
    steps = 0
    while not all(env.terminations.values()):
        mover = env.agent_selection
        obs = {a: env.observe(a) for a in agents}
        for a in agents:
            o = obs[a]
            assert space.contains(o), f"{a}: observation outside its space"
            assert np.isfinite(o["observation"]).all(), f"{a}: observation not finite"
            if a != mover:
                assert not o["action_mask"].any(), f"{a} has legal actions but {mover} is to move"
        mask = obs[mover]["action_mask"]
        assert np.flatnonzero(mask).tolist() == raw.legal_actions(), "the mask is not legal_actions()"
        assert re.fullmatch(r"[a-z][a-z0-9_]*", raw.phase), \
            f"phase names a decision in snake_case, got {raw.phase!r}"
        if steps % hidden_every == 0:
            c = raw.clone()
            c.reseed(int(rng.integers(1 << 31)))
            for a in agents:
                assert np.array_equal(c.observe(a)["observation"], obs[a]["observation"]), \
                    f"reseed changed what {a} sees"
            d = raw.determinize(mover, int(rng.integers(1 << 31)))
            mine = d.observe(mover)
            assert np.array_equal(mine["observation"], obs[mover]["observation"]), \
                "determinize changed the observer's view"
            assert np.array_equal(mine["action_mask"], mask), "determinize changed the observer's mask"
        if steps == twin_at:
            twin = raw.clone()
        kept.append((obs[mover], {k: v.copy() for k, v in obs[mover].items()}))
        legal = np.asarray(raw.legal_actions(), dtype=np.int64)
        assert legal.size > 0, f"{mover} has no legal action in phase {raw.phase}"
        action = int(legal[rng.integers(legal.size)])
        label = raw.action_label(action)
        assert isinstance(label, str) and label, f"action {action} has no label"
        env.step(action)
        if twin is not None:
            twin_actions.append(action)
        steps += 1
        assert steps <= limit, f"the game exceeds its step bound ({limit})"
    for given, copy in kept:
        assert all(np.array_equal(given[k], copy[k]) for k in copy), "a stored observation changed"
    if twin is not None:
        for a in twin_actions:
            twin.step(a)
        assert np.array_equal(twin.game_state(), raw.game_state()), "a mid-game clone ended elsewhere"
        assert _paid(twin) == _paid(raw), "a mid-game clone was paid otherwise"
        assert twin.infos == raw.infos, "a mid-game clone ended with other infos"
    return steps


def check_pickle_continues(env, seed=21, moves=15):
    """An environment pickled after ``moves`` random moves continues identically (observations,
    rewards, infos), bound to the kernel module's own compiled functions."""
    import pickle
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(moves):
        if all(env.terminations.values()):
            break
        env.step(int(rng.choice(raw.legal_actions())))
    copy = pickle.loads(pickle.dumps(env))
    kernel = raw.spec.kernel
    if hasattr(kernel, "advance"):
        assert copy._k_advance is kernel.advance, "the unpickled env holds a fresh, uncompiled dispatcher"
    played = 0
    while not all(env.terminations.values()):
        a = int(rng.choice(raw.legal_actions()))
        env.step(a)
        copy.step(a)
        played += 1
        assert np.array_equal(env.observe(env.agent_selection)["observation"],
                              copy.observe(copy.agent_selection)["observation"]), \
            "the unpickled env's observation differs"
    assert env.infos == copy.infos, "the unpickled env ended with other infos"
    assert _paid(raw) == _paid(copy), "the unpickled env was paid otherwise"
    return played


# ---------------------------------------------------------------------- allocations
_ALLOCATION_CHILD = '''
import json
import os
import numpy as np
from numba import njit
from numba.core.runtime import rtsys
import envs
from envs import registry
for game_id, adapter in REGISTERED:       # games registered in the parent
    if game_id not in registry.ADAPTERS:
        registry.register(game_id, adapter)

def random_steps(kernel):
    step, legal_mask, observe, mover = kernel.step, kernel.legal_mask, kernel.observe, kernel.current_player

    @njit
    def run(start, state, mask, out, n, seed):
        np.random.seed(seed)
        state[:] = start
        moves = 0
        for _ in range(n):
            legal_mask(state, mask)
            observe(state, mover(state), out)
            k = 0
            for a in range(mask.shape[0]):
                k += mask[a] != 0
            if k == 0:            # the game is over: a new one
                state[:] = start
                continue
            r = np.random.randint(k)
            for a in range(mask.shape[0]):
                if mask[a] != 0:
                    if r == 0:
                        step(state, a)
                        break
                    r -= 1
            moves += 1
        return moves
    return run

result = {}
runs = {}     # one compiled loop per kernel module, shared by its cases
for case_id, game, options in CASES:
    env = envs.make(game, **options)
    env.reset(seed=0)
    raw = env.unwrapped
    start = raw.kernel_state.copy()
    state = start.copy()
    mask = np.zeros(raw.spec.num_actions, dtype=np.int8)
    out = np.zeros(env.observation_space(env.agents[0])["observation"].shape[0], dtype=np.float32)
    kernel = raw.spec.kernel
    if kernel.__name__ not in runs:
        runs[kernel.__name__] = random_steps(kernel)
    run = runs[kernel.__name__]
    run(start, state, mask, out, 5, 0)          # compile
    before = rtsys.get_allocation_stats().alloc
    moves = run(start, state, mask, out, MOVES, 1)
    result[case_id] = [rtsys.get_allocation_stats().alloc - before, moves]
print(json.dumps(result), flush=True)
# With NRT statistics on, the interpreter's teardown sometimes crashes inside numba
# (signal 11, after the counts are printed): leave without it.
os._exit(0)
'''


def count_allocations(cases, moves=3000, timeout=900):
    """``{case id: [allocations, moves]}``: numba's runtime allocations while a jitted loop
    plays ``moves`` random moves of each case through the kernel's ``legal_mask``, ``observe``
    and ``step`` (the contract: they allocate nothing; their working space is the state's
    scratch tail).  Counted in a child interpreter, since numba's statistics must be switched
    on before numba starts."""
    import json
    import os
    import subprocess
    import sys
    listed = [(c.id, c.game, c.options) for c in cases]
    registered = [(g, registry.ADAPTERS[g]) for g in registry.GAMES]
    code = f"CASES = {listed!r}\nREGISTERED = {registered!r}\nMOVES = {int(moves)}\n" + _ALLOCATION_CHILD
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    env["PYTHONPATH"] = os.pathsep.join([root, os.getcwd()] + ([env["PYTHONPATH"]] if "PYTHONPATH" in env else []))
    # With NRT statistics on, numba's runtime sometimes dies of signal 11 (in about one child
    # in four, at varying points), so a child killed by a signal is run again, at most three
    # times; faulthandler shows where it died.
    for _ in range(3):
        done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], env=env,
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode >= 0:
            break
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_no_allocations(cases, moves=3000, allowed=8):
    """:func:`count_allocations`: a handful for the loop's own arguments, none per move."""
    result = count_allocations(cases, moves)
    for case_id, (allocations, played) in result.items():
        assert played > moves * 2 // 3, f"{case_id}: only {played} of {moves} steps were moves"
        assert allocations <= allowed, f"{case_id}: {allocations} allocations in {played} moves"
    return result


# ---------------------------------------------------------------- hidden information
def check_determinize_every_seat(env, seed, every=5):
    """Along a random game, every ``every`` moves and for every seat: a copy determinized for
    that seat shows it the same observation and mask, keeps whose turn it is and gives the
    mover a legal action; a re-seeded clone shows every seat the same observation.  Returns
    the number of copies checked."""
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    checked = 0
    steps = 0
    while not all(env.terminations.values()):
        if steps % every == 0:
            views = {a: env.observe(a) for a in env.possible_agents}
            for seat, agent in enumerate(env.possible_agents):
                copy = raw.determinize(seat, int(rng.integers(1 << 40)))
                seen = copy.observe(agent)
                assert np.array_equal(seen["observation"], views[agent]["observation"]), \
                    f"determinize({agent}) changed its observation"
                assert np.array_equal(seen["action_mask"], views[agent]["action_mask"]), \
                    f"determinize({agent}) changed its mask"
                assert copy.agent_selection == env.agent_selection, \
                    f"determinize({agent}) changed whose turn it is"
                assert copy.legal_actions(), f"determinize({agent}) left the mover without a legal action"
                checked += 1
            reseeded = raw.clone()
            reseeded.reseed(int(rng.integers(1 << 40)))
            for agent in env.possible_agents:
                assert np.array_equal(reseeded.observe(agent)["observation"],
                                      views[agent]["observation"]), f"reseed changed what {agent} sees"
        legal = raw.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return checked


def _paid(raw):
    """Every agent's reward collected since it last acted (the shell's public accessor)."""
    return {a: raw.cumulative_reward(a) for a in raw.possible_agents}
