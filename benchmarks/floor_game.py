"""A rule-less game: the floor of the AEC loop in ``benchmarks.throughput``.

Two seats alternate; every one of 64 actions is always legal, the observation is 64
zeros, and a game lasts 100 moves.  Driving it through the shell costs only the shell and
the benchmark's loop, so a real game's AEC figure divided by this one is the share of the
floor that game reaches.  ``FloorSpec(num_actions, obs_size, num_players)`` gives the same
game with a real game's shapes (seats in turn, every action legal): the floor of an
environment with that interface.
"""
import numpy as np
from numba import njit

from envs.options import Option
from envs.spec import GameConfig, GameSpec
from kernels.layout import Layout

STATE = Layout("floor state")
MOVES = STATE.add("moves")
SEATS = STATE.add("seats")
STATE_SIZE = STATE.size
OBS_SIZE = 64
NUM_ACTIONS = 64
GAME_LENGTH = 100


@njit(cache=True)
def init(state, config, seed):
    state[MOVES] = 0
    state[SEATS] = config[0]


@njit(cache=True)
def current_player(state):
    return -1 if state[MOVES] >= GAME_LENGTH else state[MOVES] % state[SEATS]


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 1


@njit(cache=True)
def step(state, action):
    state[MOVES] += 1


@njit(cache=True)
def advance(state, action, mask):
    step(state, action)
    player = current_player(state)
    if player >= 0:
        legal_mask(state, mask)
    return player


@njit(cache=True)
def observe(state, player, out):
    out[:] = 0.0


@njit(cache=True)
def scores(state, out):
    out[:] = 0


@njit(cache=True)
def ranks(state, out):
    out[:] = 1


@njit(cache=True)
def reseed(state, seed):
    pass


@njit(cache=True)
def determinize(state, observer, seed):
    pass


class FloorSpec(GameSpec):
    game_id = "floor_v0"
    max_steps = GAME_LENGTH

    def __init__(self, num_actions=NUM_ACTIONS, obs_size=OBS_SIZE, num_players=2):
        import benchmarks.floor_game as kernel
        for name, value, least in (("num_actions", num_actions, 1), ("obs_size", obs_size, 1),
                                   ("num_players", num_players, 2)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
        self.kernel = kernel
        self.num_actions = int(num_actions)
        self.obs_size = int(obs_size)
        self.player_counts = (int(num_players),)
        self.options = (Option("num_players", "int", int(num_players), "seats",
                               low=int(num_players), high=int(num_players)),)

    def build_config(self, opts):
        n = opts["num_players"]
        return GameConfig(n, np.array([n], dtype=np.int64), state_size=STATE_SIZE,
                          obs_size=self.obs_size, options=opts)

    def observation_layout(self, cfg):
        return [("nothing", (self.obs_size,))]

    def observation_bounds(self, cfg):
        return 0.0, 1.0

    def phase_name(self, state, cfg):
        return "any"
