"""A rule-less game: the floor of the AEC loop in ``benchmarks.throughput``.

Two seats alternate; every one of 64 actions is always legal, the observation is 64
zeros, and a game lasts 100 moves.  Driving it through the shell costs only the shell and
the benchmark's loop, so a real game's AEC figure divided by this one is the share of the
floor that game reaches.
"""
import numpy as np
from numba import njit

from envs.options import Option
from envs.spec import GameConfig, GameSpec
from kernels.layout import ActionBlocks, Layout

STATE = Layout("floor state")
MOVES = STATE.add("moves")
STATE_SIZE = STATE.size
OBS = Layout("floor observation")
OBS.add("nothing", (64,))
ACTIONS = ActionBlocks("floor actions", [("any", 64)])
NUM_ACTIONS = ACTIONS.num_actions
GAME_LENGTH = 100


@njit(cache=True)
def init(state, config, seed):
    state[MOVES] = 0


@njit(cache=True)
def current_player(state):
    return -1 if state[MOVES] >= GAME_LENGTH else state[MOVES] % 2


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
    num_actions = NUM_ACTIONS
    max_steps = GAME_LENGTH
    options = (Option("num_players", "int", 2, "seats", low=2, high=2),)

    def __init__(self):
        import benchmarks.floor_game as kernel
        self.kernel = kernel

    def build_config(self, opts):
        return GameConfig(2, np.zeros(1, dtype=np.int64), state_size=STATE_SIZE, obs_size=OBS.size,
                          options=opts)

    def observation_layout(self, cfg):
        return OBS.parts()

    def observation_bounds(self, cfg):
        return OBS.bounds()

    def phase_name(self, state, cfg):
        return "any"
