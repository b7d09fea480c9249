"""Every registered game, every player count: PettingZoo's own tests plus per-step invariants.

Per step (OpenSpiel-style random simulation): the observation is finite and inside its
space, the mask of the agent to move is non-empty and every other agent's is empty,
observations handed out earlier never change, re-seeding future chance and
determinizing for the mover leave its view unchanged, a clone taken mid-game replays
the rest of the game identically, and the game ends within the spec's step bound.
"""
import re

import numpy as np
import pytest

import envs
from envs import testing
from envs.testing import checks

# The case table (envs.testing): every registered game x player count, and its variants.
CASES = testing.cases(kinds=("players",))
VARIANTS = testing.cases(kinds=("variant", "extra"))
GAMES_PER_CASE = 4
GAMES_PER_VARIANT = 1
# The shell's own options that change what an agent observes, on each game's default case.
SHELL_VARIANTS = [(case, {"action_values": True}) for case in testing.default_cases()]


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_pettingzoo_api_test_every_player_count(case):
    """The one place PettingZoo's api_test runs: every game at every player count."""
    checks.check_pettingzoo_api(case.make(), num_cycles=200)


@pytest.mark.parametrize("case", **testing.params(VARIANTS))
def test_pettingzoo_api_test_variants(case):
    checks.check_pettingzoo_api(case.make(), num_cycles=200)


@pytest.mark.parametrize("case,shell_options", SHELL_VARIANTS,
                         ids=[f"{c.id}-{'-'.join(o)}" for c, o in SHELL_VARIANTS])
def test_pettingzoo_api_test_shell_options(case, shell_options):
    checks.check_pettingzoo_api(case.make(**shell_options), num_cycles=200)


@pytest.mark.parametrize("game", envs.GAMES)
def test_pettingzoo_seed_and_render(game):
    checks.check_seed_and_render(lambda render_mode=None: envs.make(game, render_mode=render_mode))


@pytest.mark.parametrize("game", envs.registry.SHIPPED_GAMES)
def test_versioned_module_entry_points(game):
    import importlib
    mod = importlib.import_module(f"envs.{game}")
    for ctor in (mod.env, mod.raw_env):
        e = ctor()
        e.reset(seed=0)
        assert e.unwrapped is e and str(e) == game


def play_checked(env, seed):
    """A random game with the conformance checks at every step (envs.testing.checks)."""
    return checks.check_random_game(env, seed)


@pytest.mark.parametrize("case", **testing.params(CASES + VARIANTS))
def test_random_games_keep_invariants(case):
    env, n = case.make(), case.num_players
    for g in range(GAMES_PER_CASE if case.kind == "players" else GAMES_PER_VARIANT):
        play_checked(env, seed=1000 * n + g)
        info = env.infos[env.possible_agents[0]]
        assert info["scores"] == env.unwrapped.scores()
        assert set(info["winners"]) <= set(env.possible_agents)
        rewards = list(env._cumulative_rewards.values())
        if env.unwrapped.cfg.num_participants > 1:
            assert all(-1.0 <= r <= 1.0 for r in rewards)
        else:   # a lone participant (no one to beat) is paid its final score
            assert rewards == [float(s) for s in info["scores"]]
        for a in env.possible_agents:
            assert env.infos[a] == info
        while env.agents:
            env.step(None)


@pytest.mark.parametrize("game", envs.GAMES)
def test_bad_input_is_refused_and_changes_nothing(game):
    env = envs.make(game)
    with pytest.raises(AssertionError):
        env.step(0)
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    before = env._state.copy()
    for illegal in np.flatnonzero(mask == 0)[:1].tolist():     # (a game may allow every action)
        with pytest.raises(ValueError, match=rf"illegal action {illegal} .*phase"):
            env.step(illegal)
    for bad in (len(mask), -1, 0.5, "0", [0]):
        with pytest.raises(ValueError):
            env.step(bad)
    assert np.array_equal(env._state, before)
    with pytest.raises(ValueError):
        envs.make(game, no_such_option=1)
    with pytest.raises(ValueError):
        envs.make(game, num_players=99)
    with pytest.raises(ValueError):
        envs.make(game, reward_mode="elo")
    with pytest.raises(ValueError):
        envs.make("no_such_game_v0")


@pytest.mark.parametrize("game", envs.GAMES)
def test_same_seed_same_game_different_seed_different_game(game):
    def trajectory(seed):
        env = envs.make(game)
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(30):
            if all(env.terminations.values()):
                break
            o = env.observe(env.agent_selection)
            out.append(o["observation"].tobytes())
            legal = np.flatnonzero(o["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
        return out

    assert trajectory(5) == trajectory(5)
    assert trajectory(5) != trajectory(6)


# ----------------------------------------------------------------------------------------------
# What the player to move knows, and what whose turn it is reveals.

def _rng_slot(env):
    """State slots that move when chance is drawn (the game generator's draw counter) or
    when hidden choices become public at once (a kernel's ``REVEAL_SLOTS``, e.g. Smartphone
    Inc.'s plan reveal): from there a determinized copy may differ openly."""
    kernel = env.unwrapped.spec.kernel
    reveals = [int(s) for s in getattr(kernel, "REVEAL_SLOTS", ())]
    for name in ("RNG", "G_RNG", "H_RNG"):
        if hasattr(kernel, name):
            return np.array([int(getattr(kernel, name)) + 1] + reveals)
    raise AssertionError(f"{kernel.__name__} names no generator slot")


def _seen(env, agent):
    o = env.observe(agent)
    return o["observation"].tobytes() + o["action_mask"].tobytes()


def _game_test_attribute(game, name):
    import importlib
    try:
        module = importlib.import_module("test_" + game.rsplit("_v", 1)[0])
    except ModuleNotFoundError:      # a game without a test module of its own declares nothing
        return None
    return getattr(module, name, None)


def _indistinguishable(game):
    """A game's test module may declare ``SUBSTEP_INDISTINGUISHABLE = (predicate, reason)``:
    pairs of sub-step results that differ as states yet look the same to the mover because
    the rules make them so (``predicate(state_a, state_b)`` is true for such a pair)."""
    return _game_test_attribute(game, "SUBSTEP_INDISTINGUISHABLE")


def _revealed(game):
    """A game's test module may declare ``TURN_ORDER_REVEALED = (predicate, reason)``: true
    for a real game and a determinized copy once secrets re-drawn in the copy have been
    revealed to everyone (from there the two may differ openly, turn order included)."""
    return _game_test_attribute(game, "TURN_ORDER_REVEALED")

SUBSTEP_GAMES_PER_CASE = 2


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_mover_observation_tells_its_own_substeps_apart(case):
    """Wherever the same player acts again after an action, every two results of its legal
    actions that differ as games must differ in what it observes (observation or mask)."""
    game, n = case.game, case.num_players
    env = case.make()
    allowed = _indistinguishable(game)
    checked = 0
    for g in range(SUBSTEP_GAMES_PER_CASE):
        env.reset(seed=7000 + 100 * n + g)
        rng = np.random.default_rng(g)
        while not all(env.terminations.values()):
            mover = env.agent_selection
            legal = env.unwrapped.legal_actions()
            seen = {}
            for a in legal:
                c = env.unwrapped.clone()
                c.step(a)
                if all(c.terminations.values()) or c.agent_selection != mover:
                    continue
                key = _seen(c, mover)
                state = c.game_state()
                for b, other in seen.get(key, ()):
                    if np.array_equal(other, state):
                        continue
                    if allowed is not None and allowed[0](other, state):
                        continue
                    diff = np.flatnonzero(other != state)[:12].tolist()
                    raise AssertionError(
                        f"{game} n={n}: {mover} cannot tell {env.unwrapped.action_label(b)!r} from "
                        f"{env.unwrapped.action_label(a)!r} in phase {env.unwrapped.phase} "
                        f"(states differ at slots {diff})")
                seen.setdefault(key, []).append((a, state))
                checked += 1
            env.step(int(legal[rng.integers(len(legal))]))
    if checked == 0 and game not in envs.registry.SHIPPED_GAMES:
        pytest.skip("the same player never acts twice in a row in this game")
    assert checked > 0, "no position where the same player acts twice was checked"


TURN_ORDER_GAMES_PER_CASE = 2
TURN_ORDER_HORIZON = 40


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_whose_turn_depends_only_on_public_information(case):
    """For every seat o: determinize(o) keeps o's view and gives a playable copy; continuing
    the real game and the copy with actions legal in both, until chance is drawn, asks the
    same seats to act -- so a seat's secret never shows in the turn order."""
    game, n = case.game, case.num_players
    env = case.make()
    slot = _rng_slot(env)
    revealed = _revealed(game)
    compared = 0
    for g in range(TURN_ORDER_GAMES_PER_CASE):
        env.reset(seed=9000 + 100 * n + g)
        rng = np.random.default_rng(100 + g)
        steps = 0
        while not all(env.terminations.values()):
            if steps % 5 == 0:
                for o in env.possible_agents:
                    d = env.unwrapped.determinize(o, int(rng.integers(1 << 40)))
                    assert _seen(d, o) == _seen(env, o), f"determinize({o}) changed its view"
                    if n > 1:
                        assert d.legal_actions(), \
                            f"determinize({o}) left {d.agent_selection} without a legal action"
                    real = env.unwrapped.clone()
                    seed = int(rng.integers(1 << 40))
                    real.reseed(seed)
                    d.reseed(seed)
                    r0, d0 = real._state[slot].copy(), d._state[slot].copy()
                    for _ in range(TURN_ORDER_HORIZON):
                        if (real._state[slot] != r0).any() or (d._state[slot] != d0).any():
                            break     # chance was drawn: from here the copies may differ openly
                        if revealed is not None and revealed[0](real.game_state(), d.game_state()):
                            break     # re-drawn secrets were revealed: the copies part openly
                        over_r, over_d = all(real.terminations.values()), all(d.terminations.values())
                        assert over_r == over_d, f"the game ends in one copy only ({o}'s secret)"
                        if over_r:
                            break
                        assert real.agent_selection == d.agent_selection, (
                            f"{game} n={n}: after determinize({o}) {d.agent_selection} acts in the "
                            f"copy but {real.agent_selection} in the real game")
                        common = np.flatnonzero(np.array(real._mask) & np.array(d._mask))
                        if common.size == 0:
                            break
                        a = int(common[rng.integers(common.size)])
                        if real.action_label(a) != d.action_label(a):
                            break     # the same id does a different thing: the copies part openly
                        real.step(a)
                        d.step(a)
                        compared += 1
            legal = env.unwrapped.legal_actions()
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    assert compared > 0, "no step of a determinized copy was compared"


# ----------------------------------------------------------------------------- pickling
@pytest.mark.parametrize("game", envs.GAMES)
def test_pickled_env_continues_identically_with_the_module_kernels(game):
    checks.check_pickle_continues(envs.make(game), seed=21, moves=15)


def test_unpickling_in_a_new_process_compiles_nothing(tmp_path):
    """The first step after ``pickle.load`` in a fresh process runs from numba's cache."""
    import pickle
    import subprocess
    import sys
    env = envs.make("kingdomino_duel_v0")
    env.reset(seed=1)
    env.step(env.unwrapped.legal_actions()[0])
    path = tmp_path / "env.pkl"
    path.write_bytes(pickle.dumps(env))
    probe = f"""
import pickle, sys
env = pickle.loads(open({str(path)!r}, "rb").read())
env.step(env.unwrapped.legal_actions()[0])
env.observe(env.agent_selection)
k = env.unwrapped.spec.kernel
bound = (env._k_advance, env._k_mask, env._k_player, env._k_observe)
assert bound == (k.advance, k.legal_mask, k.current_player, k.observe), "fresh dispatchers"
misses = sum(len(f.stats.cache_misses) for f in bound)
hits = sum(len(f.stats.cache_hits) for f in bound)
print(misses, hits > 0)
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0 True", out.stdout + out.stderr


@pytest.mark.parametrize("game", envs.GAMES)
def test_each_agent_has_its_own_spaces(game):
    env = envs.make(game)
    a, b = env.possible_agents[:2] if len(env.possible_agents) > 1 else (None, None)
    if a is None:
        pytest.skip("one seat")
    assert env.action_space(a) is not env.action_space(b)
    assert env.observation_space(a) is not env.observation_space(b)
    assert env.action_space(a) is env.action_space(a)
    env.action_space(b).seed(4)
    first = [env.action_space(b).sample() for _ in range(20)]
    env.action_space(b).seed(4)
    env.action_space(a).seed(3)            # seeding a must not touch b's generator
    assert [env.action_space(b).sample() for _ in range(20)] == first
