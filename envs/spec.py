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
    (``GameConfig.obs_size`` long): every value of it, as ``out`` may arrive
    uninitialised.  Only what that player could see at the table.
``scores(state, out)``
    Current score of every seat into ``out`` (``int64``, one per seat).
``ranks(state, out)``
    At the end: 1-based rank of every seat among all participants (automata
    included), tie-breaks applied; seats still tied share the better rank.  Every game
    writes its keys (score, then its tie-breaks) into a scratch view of the state and
    calls :func:`kernels.outcome.ranks_lexicographic`.
``advance(state, action, mask) -> int`` (optional)
    One AEC step in one call: ``step``, then ``current_player`` and, while the game runs,
    ``legal_mask`` into ``mask``; returns the seat to move (``-1`` at the end).  Written
    out in each kernel (numba caches a function that calls these three directly, not one
    that receives them as arguments); without it the shell makes the three calls itself,
    and each call from Python costs about as much as a small kernel's whole step.
``reseed(state, seed)``
    Re-draw, in place, the chance nobody has seen yet (deck or bag order, future dice).
    No observation changes.
``determinize(state, observer, seed)``
    Re-draw, in place, everything ``observer`` cannot see, consistently with what it has
    seen: future chance, the other seats' hidden cards (re-dealt from the cards the
    observer has not seen) and their committed but unrevealed choices (replaced by random
    legal ones).  The observer's observation and whose turn it is do not change.  Pools are
    drawn from in a fixed (sorted) order, so the result depends only on ``seed`` and on what
    the observer knows -- never on the hidden values it replaces -- and a search on such
    copies cannot learn a secret.  A determinized state is a legal game and determinizes
    again like any other.

Every layout is declared with :mod:`kernels.layout` (state ``STATE``, observation ``OBS``
with its bounds, actions ``ACTIONS``) so that sizes, offsets and names come from one place.

The kernel never allocates in ``step``/``legal_mask``/``observe``: its working space
lives in the last ``GameConfig.scratch`` slots of the state, which carry no game
information (two states are the same game when all slots before them agree).
``tests/test_allocations.py`` counts numba's allocations over random games to hold every
kernel to it.  ``kernels.playout`` drives these functions from
jitted code for pure-kernel loops (benchmarks, MCTS playouts).
"""
import functools
from dataclasses import dataclass, field

import numpy as np

from envs.options import Option, validate  # noqa: F401  (Option: for the games' tables)
from kernels import outcome


SEED_MODULUS = 1 << 63


def as_seed(seed, name="seed"):
    """``seed`` reduced into the kernels' range ``[0, 2**63)``; ``ValueError`` unless it is
    an integer (Python or numpy, not a bool)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {seed!r} of type {type(seed).__name__}")
    return int(seed) % SEED_MODULUS


def as_seat(seat, num_players, name="observer"):
    """``seat`` as an int in ``[0, num_players)``; ``ValueError`` naming ``name`` otherwise
    (a seat out of range must never reach a kernel: it indexes the state with it)."""
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) \
            or not 0 <= int(seat) < num_players:
        raise ValueError(f"{name} must be a seat in [0, {num_players}), got {seat!r}")
    return int(seat)


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


# The spec methods that read a game: given a state ``init`` never set up (all zeros, as the
# env's before ``reset()``) they raise instead of describing or re-drawing a game that is not
# there (an all-zero state reads as a board of one colour, scores and all).  Wrapped for every
# subclass by :meth:`GameSpec.__init_subclass__`.
NEEDS_STARTED_STATE = ("phase_name", "action_label", "render_ansi", "private_text", "picture",
                       "reseed", "determinize")


def _refusing_unstarted(method):
    @functools.wraps(method)
    def guarded(self, state, *args, **kwargs):
        if not state.any():
            raise AssertionError(f"reset() needs to be called first: {method.__name__} was given an "
                                 "all-zero state, which init never set up")
        return method(self, state, *args, **kwargs)
    guarded.refuses_unstarted = True
    return guarded


class GameSpec:
    """What the shell needs from one game.  Subclass once per game.

    Class attributes to set: ``game_id`` (also PettingZoo's ``metadata["name"]``),
    ``kernel`` (the kernel module), ``num_actions``, ``player_counts`` (allowed seat
    counts), ``max_steps`` and the ``options`` table.
    """

    game_id = ""
    kernel = None
    num_actions = 0
    player_counts = (2,)
    max_steps = 100_000   # hard bound on agent steps of one game (tests check it)
    # Raised whenever the same seed and actions give a different game (a rule changes).
    # Game ids keep their ``_v0`` suffix (the public contract names them); records and
    # shipped policies carry the revision they were made under, and a replay refuses a
    # record of another revision instead of replaying a different game.
    rules_revision = 1

    # The game's options (``num_players`` and the variants of its rules): a tuple of
    # :class:`envs.options.Option` rows -- name, type, allowed values, default, doc.
    options = ()

    # Names of the options of the table that are variants of the rules: the case table of
    # :mod:`envs.testing` (which every generic test suite reads) adds a case for each
    # non-default value of each, besides one case per player count.  ``test_options``: further
    # option sets worth a case of their own (e.g. an option that changes the observation).
    variant_options = ()
    test_options = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in NEEDS_STARTED_STATE:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "refuses_unstarted", False):
                setattr(cls, name, _refusing_unstarted(method))

    # ---------------------------------------------------------------- options
    def configure(self, **options) -> GameConfig:
        """Validate ``options`` against the :attr:`options` table (``ValueError`` naming the
        option for an unknown name, a wrong type or a value out of range), then build the
        game's configuration with :meth:`build_config`."""
        return self.build_config(validate(self.options, options, self.game_id))

    def build_config(self, opts) -> GameConfig:
        """From ``opts`` (every option, validated one by one, defaults filled in) check what
        involves several options at once and build the kernel's option vector."""
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

    # Squares of a board the terminal table numbers (0 .. board_squares - 1); 0: none.
    board_squares = 0

    def action_square(self, state, cfg, action):
        """The board square that ``action`` names and nothing else (a number as the terminal
        table prints it, below :attr:`board_squares`), or None.  Terminal play lists such a
        move under its square's number."""
        return None

    def render_ansi(self, state, cfg) -> str:
        """The table as text: what every seat sees (nothing hidden; see :meth:`private_text`)."""
        raise NotImplementedError

    # Phases whose moves the other seats do not see (hidden commitments), each with the name
    # they see instead ("planning" for every step of a secret plan): the label of such a
    # move is shown to its mover only (``CityEnv.action_label(action, observer)``).
    secret_phases: dict = {}

    def private_text(self, state, cfg, seat) -> list:
        """Lines of text with what ``seat`` knows and the table does not show (its hidden hand,
        secret cards, its own choices of a decision not yet revealed); ``[]`` when it holds
        nothing hidden.  ``CityEnv.text(observer)`` puts them under :meth:`render_ansi`."""
        return []

    def picture(self, state, cfg, observer=None, clickable=False):
        """The table as an :class:`envs.pictures.canvas.Canvas` (SVG and RGB from one drawing):
        everything when ``observer`` is None, else only what seat ``observer`` sees; with
        ``clickable`` the shapes that play a legal action carry it.  Games implement it by
        calling their ``envs/pictures/<game>.py:draw``."""
        raise NotImplementedError

    # ------------------------------------------------------- hidden information
    def reseed(self, state, cfg, seed) -> None:
        """Re-draw, in place, the chance nobody has seen yet: the kernel's ``reseed``, after
        checking ``seed`` (any integer, reduced modulo 2**63)."""
        self.kernel.reseed(state, as_seed(seed))

    def determinize(self, state, cfg, observer, seed) -> None:
        """Re-draw, in place, everything ``observer`` cannot see, consistently with what it
        has seen: the kernel's ``determinize``, after checking both arguments.  A kernel
        may return False when no re-deal fits the public record (``ValueError``)."""
        seat, seed = as_seat(observer, cfg.num_players), as_seed(seed)
        if self.kernel.determinize(state, seat, seed) is False:
            raise ValueError("no deal of the hidden information is consistent with the public record")

    # --------------------------------------------------------------- game end
    def end_infos(self, state, cfg) -> dict:
        """Extra entries for every agent's ``infos`` at the end (e.g. a solo title)."""
        return {}

    # ------------------------------------------------------------- baselines
    def evaluate(self, state, cfg, seat) -> float:
        """``seat``'s margin in ``state``: its score plus the points the position promises
        (the kernel's optional ``potential``), minus the mean of every other participant's
        (automata included); see :mod:`kernels.outcome`.  Greedy play, MCTS's cut-off
        playouts and reward shaping all use it."""
        return outcome.evaluate(self.kernel, state, seat, cfg.num_players, cfg.num_participants)


for _name in NEEDS_STARTED_STATE:     # the defaults too (reseed, determinize, ...)
    setattr(GameSpec, _name, _refusing_unstarted(getattr(GameSpec, _name)))
