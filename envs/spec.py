"""The contract between a game and the shared AEC shell (:mod:`envs.shell`).

A game is three files:

* ``kernels/<game>.py``      -- the rules as ``@njit(cache=True)`` functions on a flat state;
* ``kernels/data/<game>.yaml`` -- every table of the game, with provenance;
* ``envs/<game>.py``         -- a thin adapter: a :class:`GameSpec` subclass plus the
  public pure helpers of API.md (``score_kingdom`` ...), and the PettingZoo-style docstring.

Kernel module contract
----------------------
State is one ``np.int64`` array of ``GameConfig.state_size`` slots.  Options (player
count, variants) are copied into it by ``init`` so every other function needs only
the state.  All randomness comes from a :mod:`kernels.rng` generator stored in the state.

``init(state, config, seed)``
    Set up a new game from the option vector ``config`` (``int64``, built by
    :meth:`GameSpec.configure`) and an integer seed, then run every automatic event
    (deal, roll...) up to the first decision.
``current_player(state) -> int``
    Seat (0-based) that owes the next decision, ``-1`` once the game is over.
``legal_mask(state, mask)``
    Write the legal actions of the current decision into ``mask`` (``int8``, 0/1,
    ``num_actions`` long).  Never all-zero while the game runs: a forced move is
    shown as a one-action mask rather than skipped silently, unless the rules
    reference says the environment applies it.
``step(state, action)``
    Apply a legal ``action`` (the shell has checked it against the mask) and then every
    automatic event, up to the next decision or the end.
``observe(state, player, out)``
    Write ``player``'s view into the flat ``float32`` vector ``out``
    (``GameConfig.obs_size`` long).  Only what that player could see at the table.
``scores(state, out)``
    Current score of every seat into ``out`` (``int64``, one per seat).
``ranks(state, out)``
    At the end: 1-based rank of every seat among all participants (automata
    included), tie-breaks applied; seats still tied share the better rank.

The kernel never allocates in ``step``/``legal_mask``/``observe`` beyond tiny scratch:
scratch space lives in the last ``GameConfig.scratch`` slots of the state, which carry
no game information (two states are the same game when all slots before them agree).  ``kernels.playout`` drives these functions from
jitted code for pure-kernel loops (benchmarks, MCTS playouts).
"""
from dataclasses import dataclass, field

import numpy as np


@dataclass
class GameConfig:
    """A validated set of options for one game."""

    num_players: int
    config: np.ndarray            # int64 option vector handed to ``kernel.init``
    state_size: int
    obs_size: int
    options: dict = field(default_factory=dict)   # normalised game options, for display
    num_participants: int = 0     # seats + automata (0 -> num_players)
    scratch: int = 0              # trailing state slots that are only scratch space

    def __post_init__(self):
        self.config = np.asarray(self.config, dtype=np.int64)
        if not self.num_participants:
            self.num_participants = self.num_players


class GameSpec:
    """What the shell needs from one game.  Subclass once per game.

    Class attributes to set: ``game_id``, ``kernel`` (the kernel module),
    ``num_actions``, ``player_counts`` (allowed seat counts),
    ``default_num_players``, ``metadata_name`` (PettingZoo ``metadata["name"]``).
    """

    game_id = ""
    kernel = None
    num_actions = 0
    player_counts = (2,)
    default_num_players = 2
    max_steps = 100_000   # hard bound on agent steps of one game (tests check it)

    # ---------------------------------------------------------------- options
    def configure(self, **options) -> GameConfig:
        """Validate game options (``num_players`` and the variants of the rules
        reference) and build the kernel's option vector.  Raise ``ValueError`` naming
        the option for an unknown option or an impossible value."""
        raise NotImplementedError

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        """``[(name, shape), ...]``: the named parts of the flat observation, in order.
        Their sizes add up to ``cfg.obs_size``."""
        return [("features", (cfg.obs_size,))]

    def observation_bounds(self, cfg):
        """``(low, high)`` of the observation Box (scalars or arrays)."""
        return 0.0, 1.0

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg) -> str:
        """Name of the decision the current player faces (used in error messages)."""
        return "?"

    def action_label(self, state, cfg, action) -> str:
        return str(action)

    def render_ansi(self, state, cfg) -> str:
        raise NotImplementedError

    def render_rgb(self, state, cfg) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------- hidden information
    def reseed(self, state, cfg, seed) -> None:
        """Re-draw, in place, the chance nobody has seen yet (deck/bag order, dice)."""
        raise NotImplementedError

    def determinize(self, state, cfg, observer, seed) -> None:
        """Re-draw, in place, everything ``observer`` cannot see, consistently with
        what it has seen (see API.md).  Default: the game hides only future chance."""
        self.reseed(state, cfg, seed)

    # --------------------------------------------------------------- game end
    def winners(self, state, cfg, ranks):
        """Seats that won.  Default: every seat ranked first."""
        return [p for p in range(cfg.num_players) if ranks[p] == 1]

    def end_infos(self, state, cfg) -> dict:
        """Extra entries for every agent's ``infos`` at the end (e.g. a solo title)."""
        return {}

    # ------------------------------------------------------------- baselines
    # Weight of ``kernel.potential`` in :meth:`evaluate` (see there).
    potential_weight = 1.0
    # MCTSAgent's default playout: with mcts_playout_depth None, random moves to the end of
    # the game; with an integer d, d moves of the mcts_playout policy ("heuristic": random
    # moves, "greedy": every seat's greedy move), then the position is scored with the
    # evaluation below as tanh(margin / margin_scale) (margin_scale: a score lead that
    # nearly decides a game).
    mcts_playout = "heuristic"
    mcts_playout_depth = None
    margin_scale = 10.0

    def evaluate(self, state, cfg, seat) -> float:
        """A cheap estimate of ``seat``'s prospects in score points, for greedy play.

        Each seat's value is its score plus, while the game runs and when the kernel
        defines ``potential(state, player) -> float`` (points the position promises but
        the score does not count yet, documented in the kernel), ``potential_weight``
        times that potential.  The result is ``seat``'s value minus the mean of the
        others' values (its own value when it plays alone)."""
        n = cfg.num_players
        out = np.zeros(n, dtype=np.int64)
        self.kernel.scores(state, out)
        values = out.astype(np.float64)
        potential = getattr(self.kernel, "potential", None)
        if potential is not None and self.kernel.current_player(state) >= 0:
            for p in range(n):
                values[p] += self.potential_weight * float(potential(state, p))
        if n == 1:
            return float(values[0])
        return float(values[seat] - (values.sum() - values[seat]) / (n - 1))
