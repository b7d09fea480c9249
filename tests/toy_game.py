"""A tiny race game: the worked example of adding a game (docs/adding_a_game.md).

Seats take turns adding 1, 2 or 3 to a shared counter; whoever reaches ``target`` or
more scores 1 and the game ends.  Each seat also holds a secret die roll (hidden
information) that ``determinize`` redraws.  An optional automaton takes part in the
ranking only: it always loses (``automaton="loses"``) or ties with the winner (``"ties"``).

A real game is laid out the same way, in three files -- here they share this one:

* the kernel (``kernels/<game>.py``): the state, observation and actions *declared* with
  :mod:`kernels.layout`, and the rule functions of the contract in :mod:`envs.spec`
  (``init``, ``current_player``, ``legal_mask``, ``step``, ``observe``, ``scores``,
  ``ranks``, ``reseed``, ``determinize``) as ``@njit(cache=True)`` functions on the state;
* the data file (``kernels/data/<game>.yaml``): every number of the rulebook (this game
  has only its die);
* the adapter (``envs/<game>.py``): a :class:`envs.spec.GameSpec` with the option table,
  labels and rendering, plus a line in ``envs/registry.py``.
"""
import numpy as np
from numba import njit

from envs.options import Option
from envs.spec import GameConfig, GameSpec
from kernels import rng
from kernels.layout import ActionBlocks, Layout

MAX_PLAYERS = 4
DIE_SIDES = 6
AUTOMATON_MODES = {None: 0, "loses": 1, "ties": 2}

# ----------------------------------------------------------------------------- state
STATE = Layout("toy race state")
RNG = STATE.add("rng", (rng.RNG_SLOTS,))
N = STATE.add("num_players")
TARGET = STATE.add("target")
COUNTER = STATE.add("counter")
TO_MOVE = STATE.add("to_move")
OVER = STATE.add("over")
WINNER = STATE.add("winner")
SECRET = STATE.add("secrets", (MAX_PLAYERS,))
AUTOMATON = STATE.add("automaton")
STATE_SIZE = STATE.size

# ----------------------------------------------------------------------- observation
OBS = Layout("toy race observation")
OBS_PROGRESS = OBS.add("progress")            # counter / target, capped at 1
OBS_SECRET = OBS.add("my_secret")             # my die roll / 6
OBS_SIZE = OBS.size

# --------------------------------------------------------------------------- actions
ACTIONS = ActionBlocks("toy race actions", [("add", 3)])
A_ADD = ACTIONS.offset("add")                 # add 1 + index
NUM_ACTIONS = ACTIONS.num_actions


@njit(cache=True)
def init(state, config, seed):
    state[:] = 0
    rng.seed_rng(state, RNG, seed)
    state[N] = config[0]
    state[TARGET] = config[1]
    state[WINNER] = -1
    state[AUTOMATON] = config[2]
    for p in range(state[N]):
        state[SECRET + p] = rng.randint(state, RNG, DIE_SIDES)


@njit(cache=True)
def current_player(state):
    return -1 if state[OVER] else state[TO_MOVE]


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 1


@njit(cache=True)
def step(state, action):
    state[COUNTER] += action - A_ADD + 1
    if state[COUNTER] >= state[TARGET]:
        state[OVER] = 1
        state[WINNER] = state[TO_MOVE]
    else:
        state[TO_MOVE] = (state[TO_MOVE] + 1) % state[N]


@njit(cache=True)
def observe(state, player, out):
    out[OBS_PROGRESS] = min(state[COUNTER], state[TARGET]) / state[TARGET]
    out[OBS_SECRET] = state[SECRET + player] / DIE_SIDES


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


@njit(cache=True)
def reseed(state, seed):
    """Nobody has seen future chance: a new generator is all it takes."""
    rng.seed_rng(state, RNG, seed)


@njit(cache=True)
def determinize(state, observer, seed):
    """Redraw every secret but ``observer``'s (the only hidden information)."""
    rng.seed_rng(state, RNG, seed)
    for p in range(state[N]):
        if p != observer:
            state[SECRET + p] = rng.randint(state, RNG, DIE_SIDES)


class ToySpec(GameSpec):
    game_id = "toy_race_v0"
    num_actions = NUM_ACTIONS
    player_counts = (1, 2, 3, 4)
    variant_options = ("automaton",)
    options = (
        Option("num_players", "int", 2, "seats", low=1, high=MAX_PLAYERS),
        Option("target", "int", 10, "the count that wins", low=1, high=1000),
        Option("automaton", "choice", None, "an automaton that loses or ties in the ranking",
               choices=tuple(AUTOMATON_MODES)),
    )

    @property
    def kernel(self):
        # this module under its package name, whichever way it was imported (a property,
        # not an attribute: a spec holding a module could not be pickled with its env)
        import tests.toy_game as kernel
        return kernel

    def build_config(self, opts):
        n = opts["num_players"]
        return GameConfig(n, [n, opts["target"], AUTOMATON_MODES[opts["automaton"]]],
                          state_size=STATE_SIZE, obs_size=OBS_SIZE, options=opts,
                          num_participants=n + (opts["automaton"] is not None))

    def observation_layout(self, cfg):
        return OBS.parts()

    def observation_bounds(self, cfg):
        return OBS.bounds()

    def phase_name(self, state, cfg):
        return "add"

    def action_label(self, state, cfg, action):
        block, index = ACTIONS.decode(action)
        return f"{block} {index + 1}"

    def render_ansi(self, state, cfg):
        return f"counter {state[COUNTER]}/{state[TARGET]}"

    def picture(self, state, cfg, observer=None, clickable=False):
        from envs.pictures.canvas import Canvas
        pic = Canvas(220, 80)
        phase = "game_over" if state[OVER] else self.phase_name(state, cfg)
        pic.text(8, 20, f"{self.render_ansi(state, cfg)} ({phase})", size=14)
        points = np.zeros(cfg.num_players, dtype=np.int64)
        scores(state, points)
        pic.text(8, 40, "scores " + " ".join(str(p) for p in points), size=14)
        # the moves, clickable for the seat to move (or in the omniscient picture)
        playable = clickable and not state[OVER] and observer in (None, state[TO_MOVE])
        for i in range(ACTIONS.size("add")):
            pic.button(8 + 50 * i, 50, 44, 22, f"+{i + 1}", action=A_ADD + i if playable else None)
        return pic
