"""Random-play throughput: cityzoo games against PettingZoo's (and OpenSpiel's) connect_four.

    python -m benchmarks.throughput [--seconds 2] [--rounds 3] [--games kingdomino_duel_v0 ...]

Every AEC environment is driven by the same loop (``last()``, a uniformly random legal
action from the mask, ``step()``), so the ratios compare environments, not loops.  The
rule-less game of :mod:`benchmarks.floor_game` through the same shell is the floor of that
loop: each game's AEC figure is also given as a share of it.  The
pure-kernel column plays the same random games inside numba
(:func:`kernels.playout.random_playout`) on one core.  Every row is measured ``--rounds``
times, the rows taking turns, and keeps its best round, so that a shared machine's slow
spells do not land on one row (the floor above all, which every share divides by).
"""
import argparse
import functools
import time

import numpy as np

import envs
from kernels.playout import new_generator, random_playout

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


def measure(game_ids, seconds, rounds=1):
    from pettingzoo.classic import connect_four_v3

    from benchmarks.floor_game import FloorSpec
    from envs.shell import CityEnv

    floor_env = CityEnv(FloorSpec())
    c4_env = connect_four_v3.env()
    rows = [("rule-less floor (same shell)", 2, lambda: aec_random_play(floor_env, seconds), None),
            ("pettingzoo connect_four_v3", 2, lambda: aec_random_play(c4_env, seconds), None)]
    spiel = openspiel_connect_four(seconds)
    for gid in game_ids:
        n = BENCH_PLAYERS.get(gid) if gid != "kingdomino_duel_v0" else None
        env = envs.make(gid, **({"num_players": n} if n else {}))
        aec_random_play(env, 0.2)  # compile and warm up
        kernel_random_play(gid, 0.2, num_players=n)
        rows.append((gid, env.cfg.num_players, functools.partial(aec_random_play, env, seconds),
                     functools.partial(kernel_random_play, gid, seconds, num_players=n)))
    aec_random_play(floor_env, 0.2)
    measures = [m for _, _, aec, kern in rows for m in (aec, kern) if m is not None]
    results = iter(best_of(rounds, measures))
    out = [(name, n, next(results), next(results) if kern else None) for name, n, _, kern in rows]
    if spiel:
        out.insert(2, ("open_spiel connect_four", 2, None, spiel))
    return out, out[1][2][0], out[0][2][0]


def table(rows, c4_steps, floor_steps):
    lines = ["| environment | players | AEC steps/s | AEC games/s | x connect_four (AEC) | share of the floor | kernel steps/s | kernel games/s |",
             "|---|---|---|---|---|---|---|---|"]
    for name, n, aec, kern in rows:
        a = (f"{aec[0]:,.0f} | {aec[1]:,.1f} | {aec[0] / c4_steps:.1f}x | {aec[0] / floor_steps:.0%}"
             if aec else "— | — | — | —")
        k = f"{kern[0]:,.0f} | {kern[1]:,.1f}" if kern else "— | —"
        lines.append(f"| {name} | {n} | {a} | {k} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=2.0, help="measuring time per row and round")
    p.add_argument("--rounds", type=int, default=3, help="rounds per row (the best one counts)")
    p.add_argument("--games", nargs="*", default=list(envs.GAMES), help="game ids (default: all)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    rows, c4, floor = measure(args.games, args.seconds, args.rounds)
    print(table(rows, c4, floor))


if __name__ == "__main__":
    main()
