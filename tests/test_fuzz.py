"""Hostile input into every public entry point of every game, and chains of copies.

Contract (issue: nothing a user passes crashes the interpreter or corrupts a game): a bad
value raises ``ValueError`` (``AssertionError`` before ``reset``) naming what is wrong, never
another exception and never a crash, and a refused call leaves the game exactly as it was.
Copies made by ``clone``/``determinize``/``reseed``, and copies of copies, are legal games
that play to their end.  The default run samples each case lightly; the slow stage (CI's
second step) runs many more games.
"""
import inspect

import numpy as np
import pytest

import agents
import envs
from envs.registry import spec_for

CASES = [(g, n) for g in envs.GAMES for n in spec_for(g).player_counts]

JUNK = [None, -1, 0, 1, 2, 7, 50, 10**6, 2**63, -(2**70), 1.5, float("nan"), float("inf"), "x", "",
        "7", True, False, [], [1], [[1]], [["red"], "blue"], (1, 2), {"a": 1}, {"gps": ["front"]},
        {1, 2}, frozenset({"a"}), b"7", np.int64(3), np.float32(2.0), np.array([1, 2]), object()]


def make(game, n, **kw):
    if len(spec_for(game).player_counts) > 1:
        kw["num_players"] = n
    return envs.make(game, **kw)


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


def play_attacked(game, n, seed, every):
    env = make(game, n)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not all(env.terminations.values()):
        if step % every == 0:
            attack_entry_points(env, rng)
        legal = env.unwrapped.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
        step += 1
    attack_entry_points(env, rng)   # after the end too


@pytest.mark.parametrize("game,n", CASES)
def test_bad_values_into_every_entry_point(game, n):
    play_attacked(game, n, seed=n, every=40)


@pytest.mark.slow
@pytest.mark.parametrize("game,n", CASES)
def test_bad_values_into_every_entry_point_many_games(game, n):
    for g in range(4):
        play_attacked(game, n, seed=1000 + g, every=7)


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
    params = inspect.signature(spec_for(game).configure).parameters.values()
    return [p.name for p in params if p.kind is p.KEYWORD_ONLY or p.kind is p.POSITIONAL_OR_KEYWORD
            if p.name != "self"]


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
    steps = 0
    while not all(env.terminations.values()):
        legal = env.legal_actions()
        assert legal, f"{env.agent_selection} has no legal action in a copy"
        o = env.observe(env.agent_selection)
        assert space.contains(o), "a copy's observation left the space"
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        assert steps <= limit, "a copy does not end"


def chain_games(game, n, seeds, depth, stops):
    for seed in seeds:
        env = make(game, n)
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


@pytest.mark.parametrize("game,n", CASES)
def test_chains_of_clone_determinize_reseed(game, n):
    chain_games(game, n, seeds=[n], depth=3, stops=25)


@pytest.mark.slow
@pytest.mark.parametrize("game,n", CASES)
def test_chains_of_clone_determinize_reseed_many_games(game, n):
    chain_games(game, n, seeds=range(100, 106), depth=4, stops=5)
