"""The one random-game driver of the test suite.

``play(env, seed)`` plays a game of an AEC environment to its end with uniformly random
legal actions drawn from ``numpy.random.default_rng(seed)`` (or with ``choose(env, legal,
rng) -> action``), calling ``before_move(env, step, rng)`` before each move and
``after_move(env, step, action)`` after it; it checks on the way that the mover has a legal
action and that the game ends within its step bound.  ``play_kernel(kernel, state, seed)`` is the
same loop on a bare kernel state, for rule tests against a plain-Python reference.  Every
game test builds its per-step checks on these instead of writing its own loop.
"""
import numpy as np


def uniform(env, legal, rng):
    return int(legal[rng.integers(legal.size)])


def play(env, seed, *, reset=True, choose=uniform, before_move=None, after_move=None, max_steps=None):
    """Play ``env`` to the end; returns the number of moves made."""
    rng = np.random.default_rng(seed)
    if reset:
        env.reset(seed=seed)
    raw = env.unwrapped
    limit = raw.spec.max_steps if max_steps is None else max_steps
    steps = 0
    while not all(env.terminations.values()):
        if before_move is not None:
            before_move(env, steps, rng)
        legal = np.asarray(raw.legal_actions(), dtype=np.int64)
        assert legal.size > 0, f"{env.agent_selection} has no legal action in phase {raw.phase}"
        action = choose(env, legal, rng)
        env.step(action)
        if after_move is not None:
            after_move(env, steps, action)
        steps += 1
        assert steps <= limit, f"the game exceeds its step bound ({limit})"
    return steps



def play_kernel(kernel, state, seed, *, choose=None, before_move=None, after_move=None, max_steps=100_000):
    """The same loop on a bare kernel state (no environment), for rule tests that check a
    kernel against its plain-Python reference at every step: ``before_move(state, step,
    mask, rng)``, ``choose(state, legal, rng) -> action`` (default: uniform), ``after_move
    (state, step, action)``.  ``state`` must be initialised; returns the number of moves."""
    rng = np.random.default_rng(seed)
    mask = np.zeros(kernel.NUM_ACTIONS, dtype=np.int8)
    steps = 0
    while kernel.current_player(state) >= 0:
        kernel.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, "the player to move has no legal action"
        if before_move is not None:
            before_move(state, steps, mask, rng)
        action = int(legal[rng.integers(legal.size)]) if choose is None else int(choose(state, legal, rng))
        kernel.step(state, action)
        if after_move is not None:
            after_move(state, steps, action)
        steps += 1
        assert steps <= max_steps, f"the game exceeds its step bound ({max_steps})"
    return steps


def positions(env, seeds, every=1):
    """``(observation, action_mask as bool)`` of the seat to move, every ``every`` moves of
    one random game (:func:`play`) per seed: positions of real play for network tests."""
    out = []

    def keep(env, step, rng):
        if step % every == 0:
            ob = env.observe(env.agent_selection)
            out.append((ob["observation"], ob["action_mask"].astype(bool)))

    for seed in seeds:
        play(env, seed, before_move=keep)
    return out


def mid_game(env, start):
    """Reset ``env`` with seed ``start`` and play ``start`` moves of ``agents.RandomAgent(seed=start)``
    (fewer if the game ends): the agent to move then, or None if the game is over."""
    import agents
    env.reset(seed=start)
    bot = agents.make("random", seed=start)
    for _ in range(start):
        if env.terminations[env.agent_selection]:
            break
        env.step(bot.act(env, env.agent_selection))
    who = env.agent_selection
    return None if env.terminations[who] else who
