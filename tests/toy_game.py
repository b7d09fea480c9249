"""A tiny race game used to test the shell alone.

Seats take turns adding 1, 2 or 3 to a shared counter; whoever reaches ``target`` or
more scores 1 and the game ends.  Each seat also holds a secret die roll (hidden
information) redrawn by ``determinize``.  An optional automaton takes part in the ranking
only: it always loses (``automaton="loses"``) or ties with the winner (``"ties"``).
State: [rng key, rng ctr, n, target, counter, to_move, over, winner, secret_0..secret_5,
automaton mode].
"""
import numpy as np
from numba import njit

from envs.spec import GameConfig, GameSpec
from kernels import rng

N, TARGET, COUNTER, TO_MOVE, OVER, WINNER, SECRET = 2, 3, 4, 5, 6, 7, 8
AUTOMATON = SECRET + 6
AUTOMATON_MODES = {None: 0, "loses": 1, "ties": 2}


@njit(cache=True)
def init(state, config, seed):
    state[:] = 0
    rng.seed_rng(state, 0, seed)
    state[N] = config[0]
    state[TARGET] = config[1]
    state[WINNER] = -1
    state[AUTOMATON] = config[2]
    for p in range(state[N]):
        state[SECRET + p] = rng.randint(state, 0, 6)


@njit(cache=True)
def current_player(state):
    return -1 if state[OVER] else state[TO_MOVE]


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 1


@njit(cache=True)
def step(state, action):
    state[COUNTER] += action + 1
    if state[COUNTER] >= state[TARGET]:
        state[OVER] = 1
        state[WINNER] = state[TO_MOVE]
    else:
        state[TO_MOVE] = (state[TO_MOVE] + 1) % state[N]


@njit(cache=True)
def observe(state, player, out):
    out[0] = min(state[COUNTER], state[TARGET]) / state[TARGET]
    out[1] = state[SECRET + player] / 6.0


@njit(cache=True)
def scores(state, out):
    for p in range(state[N]):
        out[p] = 1 if state[WINNER] == p else 0


@njit(cache=True)
def ranks(state, out):
    # competition ranking: a loser comes after the winner and an automaton tied with it
    loser = 3 if state[AUTOMATON] == 2 else 2
    for p in range(state[N]):
        out[p] = 1 if state[WINNER] == p else loser
    if state[AUTOMATON] != 0 and out.shape[0] > state[N]:
        out[state[N]] = 2 if state[AUTOMATON] == 1 else 1


class ToySpec(GameSpec):
    game_id = "toy_race_v0"
    num_actions = 3
    player_counts = (1, 2, 3, 4)

    def __init__(self):
        import tests.toy_game as kernel
        self.kernel = kernel

    def configure(self, num_players=2, target=10, automaton=None, **unknown):
        if unknown:
            raise ValueError(f"unknown option(s): {sorted(unknown)}")
        if num_players not in self.player_counts:
            raise ValueError(f"num_players must be one of {self.player_counts}")
        if automaton not in AUTOMATON_MODES:
            raise ValueError(f"automaton must be one of {list(AUTOMATON_MODES)}")
        return GameConfig(num_players, [num_players, target, AUTOMATON_MODES[automaton]],
                          state_size=AUTOMATON + 1, obs_size=2,
                          num_participants=num_players + (automaton is not None))

    def phase_name(self, state, cfg):
        return "ADD"

    def action_label(self, state, cfg, action):
        return f"add {action + 1}"

    def render_ansi(self, state, cfg):
        return f"counter {state[COUNTER]}/{state[TARGET]}"

    def render_rgb(self, state, cfg):
        return np.zeros((4, 4, 3), np.uint8)

    def reseed(self, state, cfg, seed):
        rng.seed_rng(state, 0, seed)

    def determinize(self, state, cfg, observer, seed):
        rng.seed_rng(state, 0, seed)
        for p in range(cfg.num_players):
            if p != observer:
                state[SECRET + p] = rng.randint(state, 0, 6)
