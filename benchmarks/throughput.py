"""Random-play throughput: cityzoo games against PettingZoo's (and OpenSpiel's) connect_four.

    python -m benchmarks.throughput [--seconds 2] [--rounds 3] [--games kingdomino_duel_v0 ...]

Every AEC environment is driven by the same loop (``last()``, a uniformly random legal
action from the mask, ``step()``), so the ratios compare environments, not loops.  The
rule-less game of :mod:`benchmarks.floor_game` through the same shell is the floor of that
loop: each game's AEC figure is also given as a share of it, and as a share of the same
rule-less game with the game's own shapes (its number of actions, observation size and
seats: ``FloorSpec(num_actions, obs_size, num_players)``), which costs what any
environment of that interface costs in this loop, the pick from a larger mask and the
handing out of a larger observation included.  The
pure-kernel column plays the same random games inside numba
(:func:`kernels.playout.random_playout`) on one core.  Every row is measured ``--rounds``
times, the rows taking turns, and keeps its best round, so that a shared machine's slow
spells do not land on one row (the floor above all, which every share divides by).

``--breakdown`` adds where an AEC step's time goes, in microseconds per decision: in
``last()`` (the observation and mask handed out), in the loop's own pick of a random legal
action (``np.flatnonzero`` over the mask and a draw: the user's cost, which grows with the
number of actions), in ``step()`` (one kernel call), and the rest (the loop, dead steps
and resets), for the floor and each game.
"""
import functools
import time

import numpy as np

import envs
from envs import cli
from kernels.playout import random_playout
from kernels.rng import new_generator

# Player count measured for each game (the reference configuration).
BENCH_PLAYERS = {"kingdomino_duel_v0": 2, "tiny_towns_v0": 4, "between_two_cities_v0": 5,
                 "expancity_v0": 4, "smartphone_inc_v0": 4}


def best_of(rounds, measures):
    """Run every callable of ``measures`` once per round, in turn; each one's best result
    (the first element decides for tuples)."""
    best = [None] * len(measures)
    for _ in range(rounds):
        for i, measure in enumerate(measures):
            result = measure()
            if best[i] is None or result > best[i]:
                best[i] = result
    return best


def aec_random_play(env, seconds, seed=0):
    """Steps/s and games/s of random legal play through the AEC API."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
        env.reset(seed=seed + games)
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def aec_step_breakdown(env, seconds, seed=0):
    """Microseconds per decision of the same loop as :func:`aec_random_play`, split into
    ``last()``, the random pick, ``step()`` and the rest: ``(last, pick, step, rest)``.
    The clock reads add about 0.1 µs to each part."""
    clock = time.perf_counter
    rng = np.random.default_rng(seed)
    last = pick = stepping = 0.0
    steps = games = 0
    env.reset(seed=seed)
    start = clock()
    deadline = start + seconds
    while True:
        for agent in env.agent_iter():
            t0 = clock()
            obs, _, term, trunc, _ = env.last()
            t1 = clock()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(legal.size)])
            t2 = clock()
            env.step(action)
            t3 = clock()
            last += t1 - t0
            pick += t2 - t1
            stepping += t3 - t2
            steps += 1
        games += 1
        if clock() >= deadline:
            break
        env.reset(seed=seed + games)
    total = clock() - start
    parts = [1e6 * t / steps for t in (last, pick, stepping)]
    return tuple(parts) + (1e6 * total / steps - sum(parts),)


def breakdown_table(game_ids, seconds, rounds=1):
    """A markdown table of :func:`aec_step_breakdown` for the floor and each game (each part
    the best of ``rounds``), with each game's excess over the floor."""
    from benchmarks.floor_game import FloorSpec
    from envs.shell import CityEnv

    named = [("rule-less floor (same shell)", CityEnv(FloorSpec()))]
    for gid in game_ids:
        n = BENCH_PLAYERS.get(gid) if gid != "kingdomino_duel_v0" else None
        named.append((gid, envs.make(gid, **({"num_players": n} if n else {}))))
    for _, env in named:
        aec_step_breakdown(env, 0.2)    # compile and warm up
    best = [None] * len(named)
    for _ in range(rounds):
        for i, (_, env) in enumerate(named):
            parts = aec_step_breakdown(env, seconds)
            best[i] = parts if best[i] is None else tuple(map(min, best[i], parts))
    floor = best[0]
    lines = ["| environment | actions | observation values | last() µs | pick µs | step() µs | rest µs "
             "| total µs | over the floor: last / pick / step / rest µs |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (name, env), parts in zip(named, best):
        over = " / ".join(f"{p - f:+.2f}" for p, f in zip(parts, floor)) if parts is not floor else "—"
        lines.append(f"| {name} | {env.spec.num_actions} | {env.cfg.obs_size} | "
                     + " | ".join(f"{p:.2f}" for p in parts) + f" | {sum(parts):.2f} | {over} |")
    return "\n".join(lines)


def kernel_random_play(game_id, seconds, num_players=None, seed=0):
    """Steps/s and games/s of the same random play entirely inside numba."""
    env = envs.make(game_id, **({"num_players": num_players} if num_players else {}))
    k, cfg = env.spec.kernel, env.cfg
    state = np.zeros(cfg.state_size, dtype=np.int64)
    mask = np.zeros(env.spec.num_actions, dtype=np.int8)
    gen = new_generator(seed)
    k.init(state, cfg.config, seed)
    random_playout(k.step, k.legal_mask, k.current_player, state, mask, gen, 10)  # compile
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        k.init(state, cfg.config, seed + games)
        steps += random_playout(k.step, k.legal_mask, k.current_player, state, mask, gen,
                                env.spec.max_steps)
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def openspiel_connect_four(seconds, seed=0):
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def shaped_floor(env):
    """The rule-less game with ``env``'s number of actions, observation size and seats."""
    from benchmarks.floor_game import FloorSpec
    from envs.shell import CityEnv
    return CityEnv(FloorSpec(env.spec.num_actions, env.cfg.obs_size, env.cfg.num_players))


def measure(game_ids, seconds, rounds=1):
    """``(rows, connect_four steps/s, floor steps/s)``; a row is ``(name, players, AEC
    (steps/s, games/s) or None, kernel (steps/s, games/s) or None, steps/s of the floor of
    the game's shapes or None)``."""
    from pettingzoo.classic import connect_four_v3

    from benchmarks.floor_game import FloorSpec
    from envs.shell import CityEnv

    floor_env = CityEnv(FloorSpec())
    c4_env = connect_four_v3.env()
    rows = [("rule-less floor (same shell)", 2, lambda: aec_random_play(floor_env, seconds), None, None),
            ("pettingzoo connect_four_v3", 2, lambda: aec_random_play(c4_env, seconds), None, None)]
    spiel = openspiel_connect_four(seconds)
    for gid in game_ids:
        n = BENCH_PLAYERS.get(gid) if gid != "kingdomino_duel_v0" else None
        env = envs.make(gid, **({"num_players": n} if n else {}))
        floor = shaped_floor(env)
        for warm in (env, floor):
            aec_random_play(warm, 0.2)  # compile and warm up
        kernel_random_play(gid, 0.2, num_players=n)
        rows.append((gid, env.cfg.num_players, functools.partial(aec_random_play, env, seconds),
                     functools.partial(kernel_random_play, gid, seconds, num_players=n),
                     functools.partial(aec_random_play, floor, seconds)))
    aec_random_play(floor_env, 0.2)
    measures = [m for row in rows for m in row[2:] if m is not None]
    results = iter(best_of(rounds, measures))
    out = []
    for name, n, *measured in rows:
        aec, kern, floor = [next(results) if m is not None else None for m in measured]
        out.append((name, n, aec, kern, floor[0] if floor else None))
    if spiel:
        out.insert(2, ("open_spiel connect_four", 2, None, spiel, None))
    return out, out[1][2][0], out[0][2][0]


def table(rows, c4_steps, floor_steps):
    lines = ["| environment | players | AEC steps/s | AEC games/s | x connect_four (AEC) | share of the floor "
             "| share of the floor of its shapes | kernel steps/s | kernel games/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, n, aec, kern, shaped in rows:
        a = (f"{aec[0]:,.0f} | {aec[1]:,.1f} | {aec[0] / c4_steps:.1f}x | {aec[0] / floor_steps:.0%}"
             if aec else "— | — | — | —")
        own = f"{aec[0] / shaped:.0%} of {shaped:,.0f}" if shaped else "—"
        k = f"{kern[0]:,.0f} | {kern[1]:,.1f}" if kern else "— | —"
        lines.append(f"| {name} | {n} | {a} | {own} | {k} |")
    return "\n".join(lines)


def main(argv=None):
    p = cli.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__)
    p.add_argument("--seconds", type=cli.positive_float, default=2.0, help="measuring time per row and round")
    p.add_argument("--rounds", type=cli.positive_int, default=3, help="rounds per row (the best one counts)")
    p.add_argument("--games", nargs="*", type=cli.game_id, default=list(envs.GAMES), help="game ids (default: all)")
    p.add_argument("--breakdown", action="store_true",
                   help="also split an AEC step's time into last(), the pick, step() and the rest")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    rows, c4, floor = measure(args.games, args.seconds, args.rounds)
    print(table(rows, c4, floor))
    if args.breakdown:
        print("\nWhere an AEC step's time goes (µs per decision):\n")
        print(breakdown_table(args.games, args.seconds, args.rounds))


if __name__ == "__main__":
    main()
