"""Hostile input into every public entry point of every game, and chains of copies.

Contract (issue: nothing a user passes crashes the interpreter or corrupts a game): a bad
value raises ``ValueError`` (``AssertionError`` before ``reset``) naming what is wrong, never
another exception and never a crash, and a refused call leaves the game exactly as it was.
Copies made by ``clone``/``determinize``/``reseed``, and copies of copies, are legal games
that play to their end.  The default run samples each case lightly; the slow stage (CI's
second step) runs many more games.
"""

import numpy as np
import pytest

import agents
import envs
from envs import testing
from envs.registry import spec_for
from tests import driver

# The case table (envs.testing): every registered game at every player count.
CASES = testing.cases(kinds=("players",))

JUNK = [None, -1, 0, 1, 2, 7, 50, 10**6, 2**63, -(2**70), 1.5, float("nan"), float("inf"), "x", "",
        "7", True, False, [], [1], [[1]], [["red"], "blue"], (1, 2), {"a": 1}, {"gps": ["front"]},
        {1, 2}, frozenset({"a"}), b"7", np.int64(3), np.float32(2.0), np.array([1, 2]), object()]


def make(case, **kw):
    return case.make(**kw)


def snapshot(env):
    raw = env.unwrapped
    return (raw._state.copy(), raw._mask.copy(), raw.agent_selection,
            dict(raw._cumulative_rewards), dict(raw.terminations))


def same(a, b):
    return (np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2:] == b[2:])


def refused(call, what):
    """``call()`` either works or raises ValueError; True when it was refused."""
    try:
        call()
    except ValueError:
        return True
    except Exception as exc:  # noqa: BLE001 - the point is to catch every other kind
        raise AssertionError(f"{what}: {type(exc).__name__} instead of ValueError: {exc}") from exc
    return False


# --------------------------------------------------------------------------- entry points
def attack_entry_points(env, rng, values=JUNK):
    raw = env.unwrapped
    n = raw.cfg.num_players
    for bad in values:
        before = snapshot(env)
        for what, call, must_refuse in [
            ("step", lambda: env.step(bad), True),
            ("reseed", lambda: raw.reseed(bad), not isinstance(bad, (int, np.integer))
             or isinstance(bad, bool)),
            ("determinize observer", lambda: raw.determinize(bad, 1), not (
                isinstance(bad, (int, np.integer)) and not isinstance(bad, bool) and 0 <= bad < n)),
            ("determinize seed", lambda: raw.determinize(0, bad), not isinstance(bad, (int, np.integer))
             or isinstance(bad, bool)),
            ("action_label", lambda: raw.action_label(bad), not (
                isinstance(bad, (int, np.integer)) and not isinstance(bad, bool)
                and 0 <= bad < raw.spec.num_actions)),
            ("split_observation", lambda: raw.split_observation(bad), True),
            ("observe", lambda: env.observe(bad), True),
        ]:
            if what == "step" and not raw._mask.any():
                continue
            if what == "step" and isinstance(bad, (int, np.integer)) and not isinstance(bad, bool) \
                    and 0 <= bad < raw.spec.num_actions and raw._mask[int(bad)]:
                continue     # a legal action: not an attack
            was_refused = refused(call, f"{raw.spec.game_id} {what}({bad!r})")
            if must_refuse:
                assert was_refused, f"{raw.spec.game_id} {what}({bad!r}) was accepted"
            if what in ("step", "reseed") and not was_refused:
                return       # the game moved on legitimately; stop attacking this position
            assert same(snapshot(env), before), f"{raw.spec.game_id} {what}({bad!r}) changed the game"
    # a refused reset changes nothing, not even the sequence of unseeded resets
    for bad in values:
        if bad is None or (isinstance(bad, (int, np.integer)) and not isinstance(bad, bool)):
            continue
        before = snapshot(env)
        assert refused(lambda: env.reset(seed=bad), f"reset(seed={bad!r})")
        assert same(snapshot(env), before)


def play_attacked(case, seed, every):
    env = make(case)

    def attack(env, step, rng):
        if step % every == 0:
            attack_entry_points(env, rng)

    driver.play(env, seed, before_move=attack)
    attack_entry_points(env, np.random.default_rng(seed))   # after the end too


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_bad_values_into_every_entry_point(case):
    play_attacked(case, seed=case.num_players, every=40)


@pytest.mark.slow
@pytest.mark.parametrize("case", **testing.params(CASES))
def test_bad_values_into_every_entry_point_many_games(case):
    for g in range(4):
        play_attacked(case, seed=1000 + g, every=7)


@pytest.mark.parametrize("game", envs.GAMES)
def test_before_reset_every_method_asserts(game):
    env = envs.make(game, render_mode="ansi")
    raw = env.unwrapped
    for call in (lambda: raw.phase, raw.scores, raw.legal_actions, lambda: raw.action_label(0),
                 lambda: raw.reseed(1), lambda: raw.determinize(0, 1), raw.game_state, raw.render,
                 lambda: env.observe(env.possible_agents[0]), lambda: env.step(0)):
        with pytest.raises(AssertionError, match="reset"):
            call()
    assert not raw._state.any()


# ------------------------------------------------------------------------------ options
def option_names(game):
    return [o.name for o in spec_for(game).options]


@pytest.mark.parametrize("game", envs.GAMES)
def test_bad_option_values_raise_value_error(game):
    names = option_names(game) + ["reward_mode", "illegal_action", "render_mode", "no_such_option"]
    for name in names:
        for bad in JUNK:
            try:
                env = envs.make(game, **{name: bad})
            except ValueError:
                continue
            except Exception as exc:  # noqa: BLE001
                raise AssertionError(f"{game} {name}={bad!r}: {type(exc).__name__}: {exc}") from exc
            assert not isinstance(bad, (set, frozenset)), f"{game} took unordered {name}={bad!r}"
            # accepted: the game must work, and the same seed must give the same game
            assert name != "no_such_option"
            env.reset(seed=3)
            twin = envs.make(game, **{name: bad})
            twin.reset(seed=3)
            assert np.array_equal(env.unwrapped._state, twin.unwrapped._state)
            space = env.observation_space(env.agent_selection)
            assert space.contains(env.observe(env.agent_selection))


# ---------------------------------------------------------------- chains of copies
def random_finish(env, rng, limit):
    space = env.observation_space(env.possible_agents[0])

    def check(env, step, rng):
        assert space.contains(env.observe(env.agent_selection)), "a copy's observation left the space"

    driver.play(env, int(rng.integers(1 << 31)), reset=False, before_move=check, max_steps=limit)


def chain_games(case, seeds, depth, stops):
    n = case.num_players
    for seed in seeds:
        env = make(case)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        raw = env.unwrapped
        step = 0
        while not all(env.terminations.values()):
            if step % stops == 0:
                copy = raw
                for _ in range(depth):
                    op = rng.integers(3)
                    if op == 0:
                        copy = copy.clone()
                    elif op == 1:
                        observer = int(rng.integers(n))
                        seen = copy.observe(copy.possible_agents[observer])["observation"]
                        big = int(rng.integers(2**62)) - 2**65 * int(rng.integers(-9, 9))
                        copy = copy.determinize(observer, big)
                        assert np.array_equal(copy.observe(copy.possible_agents[observer])
                                              ["observation"], seen), "determinize changed the view"
                    else:
                        copy = copy.clone()
                        copy.reseed(int(rng.integers(2**62)))
                    if n > 1 and not copy._over:
                        assert copy.legal_actions()
                if not copy._over and copy.agent_selection == copy.possible_agents[0]:
                    # the greedy agent determinizes too; it must cope with a copy
                    a = agents.make("greedy", seed=seed).act(copy, copy.agent_selection)
                    assert a in copy.legal_actions()
                random_finish(copy, rng, limit=10_000)
            legal = raw.legal_actions()
            env.step(int(legal[rng.integers(len(legal))]))
            step += 1


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_chains_of_clone_determinize_reseed(case):
    chain_games(case, seeds=[case.num_players], depth=3, stops=25)


@pytest.mark.slow
@pytest.mark.parametrize("case", **testing.params(CASES))
def test_chains_of_clone_determinize_reseed_many_games(case):
    chain_games(case, seeds=range(100, 106), depth=4, stops=5)


# --------------------------------------------------------------------------- data files
# Every registered game whose kernel checks a data file (``check_data``, kernels/data/<game>.yaml).
KERNELS = [spec_for(g).kernel.__name__.rsplit(".", 1)[1] for g in envs.GAMES
           if hasattr(spec_for(g).kernel, "check_data")]


def _leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, path + (i,))
    else:
        yield path, node


def _with(data, path, value=None, delete=False):
    import copy
    new = copy.deepcopy(data)
    node = new
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return new


def _data_cases(game):
    import importlib

    import yaml

    from kernels import data_files
    kernel = importlib.import_module(f"kernels.{game}")
    data = yaml.safe_load((data_files.DATA_DIR / f"{game}.yaml").read_text())
    return kernel.check_data, data, data_files.DataError


def _check_data_mutations(game, sample, seed):
    check, data, DataError = _data_cases(game)
    check(data)      # the shipped file passes
    rng = np.random.default_rng(seed)
    leaves = [(p, v) for p, v in _leaves(data) if p]
    ints = [(p, v) for p, v in leaves if isinstance(v, int) and not isinstance(v, bool)]
    # a field that is null somewhere in the shipped file (e.g. "no phase") may be null
    nullable = {p[-1] for p, v in leaves if v is None}
    assert ints, f"{game}: no integer fields found"
    picks = rng.choice(len(ints), size=min(sample, len(ints)), replace=False)
    for i in picks:
        path, value = ints[i]
        for wrong in ("x", value + 0.5, [value]) + (() if path[-1] in nullable else (None,)):
            try:
                check(_with(data, path, wrong))
            except DataError as err:
                assert str(path[-1]) in str(err), f"{game}: {err} does not name {path}"
            else:
                raise AssertionError(f"{game}: field {path} = {wrong!r} was accepted")
    # arbitrary mutations: accepted, or refused with DataError -- nothing else
    for i in rng.choice(len(leaves), size=min(sample, len(leaves)), replace=False):
        path, value = leaves[i]
        for mutated in (_with(data, path, delete=True), _with(data, path, -(10**9)),
                        _with(data, path, 10**12), _with(data, path, {"k": 1})):
            try:
                check(mutated)
            except DataError:
                pass


@pytest.mark.parametrize("game", KERNELS)
def test_data_file_mutations_are_refused_by_field(game):
    _check_data_mutations(game, sample=25, seed=0)


@pytest.mark.slow
@pytest.mark.parametrize("game", KERNELS)
def test_data_file_mutations_are_refused_by_field_every_field(game):
    _check_data_mutations(game, sample=10**6, seed=1)


# ---------------------------------------------------------------- pure scoring helpers
def _scoring_calls():
    from envs import between_two_cities, expancity, kingdomino_duel, tiny_towns
    grid = [[-1] * 7 for _ in range(5)]
    crosses = [[0] * 7 for _ in range(5)]
    city = ["sfop", "h123", "4sfo", "phsf"]
    town = [". . . .", ". . . .", ". . . .", ". . . ."]
    return [
        ("score_kingdom", kingdomino_duel.score_kingdom, (grid, crosses), {"bonus_family": None},
         ["families", "crosses", "bonus_family"]),
        ("score_city", between_two_cities.score_city, (city, "most"), {}, ["rows", "factory_rank"]),
        ("score_cities", between_two_cities.score_cities, ([city, city],), {}, ["cities"]),
        ("score_town", tiny_towns.score_town, (town,), {"warehouse_cubes": 0, "right_feast_halls": 0,
                                                      "solo": False, "shrine_value": None,
                                                      "starloom_place": None},
         ["rows", "warehouse_cubes", "right_feast_halls", "solo", "shrine_value", "starloom_place"]),
        ("building_score", expancity.building_score, ("residential", 2, ["none"] * 4), {},
         ["kind", "floors", "neighbours"]),
    ]


JUNK_ARGS = JUNK + [[[9] * 7] * 5, [[-5] * 7] * 5, [[1] * 3] * 2, ["abcd"] * 4, ["zzzz"] * 4,
                    ["s f o p"] * 4, ["cottage cottage cottage cottage"] * 3,
                    ["nonsense . . ."] * 4, ["none"] * 3, ["dragon"] * 4, -3, 10**9]


@pytest.mark.parametrize("name,func,args,kwargs,params", _scoring_calls(),
                         ids=[c[0] for c in _scoring_calls()])
def test_scoring_helpers_refuse_bad_arguments(name, func, args, kwargs, params):
    func(*args, **kwargs)    # the valid call works
    call_args = dict(zip(params, args))
    call_args.update(kwargs)
    for param in params:
        for bad in JUNK_ARGS:
            trial = dict(call_args, **{param: bad})
            try:
                result = func(**trial)
            except ValueError as err:
                assert param in str(err) or param.rstrip("s") in str(err), \
                    f"{name}({param}={bad!r}): {err} does not name {param}"
                continue
            except Exception as exc:  # noqa: BLE001
                raise AssertionError(f"{name}({param}={bad!r}): {type(exc).__name__}: {exc}") from exc
            assert result is not None
