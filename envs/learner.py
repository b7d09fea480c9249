"""The learner-seat options, parsed in one place for :class:`envs.SingleAgentEnv` and the
one-seat batch (:class:`envs.vector.VecSeatGame`, ``SeatVectorEnv``, ``SB3SeatVecEnv``).

Every value means the same in both:

``seat``
    An integer in ``[0, num_players)`` (Python or numpy; not a bool, not a float): the
    learner plays that seat in every game.  ``"random"``, or ``None``: a seat drawn at the
    start of every game from the env's seeded generator.  ``"rotate"``: seat 0 in the first
    game, then the next seat in each new game (the batch starts game ``i`` at seat
    ``i % num_players``; ``SingleAgentEnv`` restarts the rotation at a seeded ``reset``).
    The defaults differ and are documented with each class: ``SingleAgentEnv`` draws a
    random seat, the batch plays seat 0 (the public contract of ``envs.make_vec``).
``shaping``
    A finite real number ``>= 0`` (an ``int`` or ``float``, Python or numpy; not a bool or a
    string): the weight of the potential-based shaping; ``0`` (default) turns it off.
``reward_scale``
    A finite real number ``> 0`` (same types): a factor on every reward; default ``1``.
``opponents``
    ``"random"`` (the default) or ``None``: uniformly random legal moves.  Any other entry is
    one opponent for every other seat: an agent name (``"greedy"``...), an agent or policy
    object.  A list or tuple gives one entry per other seat, in seat order with the
    learner's seat skipped.  A callable that is none of those (it has no ``act``,
    ``act_batch`` or ``batch_kind``) is a factory called at the start of every game --
    with the env's seeded ``numpy.random.Generator`` when it takes a positional argument --
    and returns an entry or a list.  Unordered containers (sets) are refused.  Which
    entries each class can play: ``SingleAgentEnv`` plays agents (``act(env, agent)``) and
    builds names with its ``agent_factory`` ("random" needs none); the batch plays
    ``"random"`` and ``"greedy"`` inside numba and frozen policies (``act_batch``).

Every refusal is a ``ValueError`` naming the option.
"""
import inspect
import math
from dataclasses import dataclass

import numpy as np

from envs.options import Option

SEAT_MODES = ("random", "rotate")
DEFAULT_OPPONENT = "random"


def _check_number(name, low, strict):
    def check(value):
        ok = (isinstance(value, (int, float, np.integer, np.floating))
              and not isinstance(value, (bool, np.bool_)) and math.isfinite(float(value))
              and (float(value) > low if strict else float(value) >= low))
        if not ok:
            raise ValueError(f"{name} must be a finite number {'>' if strict else '>='} {low:g}, "
                             f"got {value!r}")
        return float(value)
    return check


def _check_seat(value):
    if value is None or (isinstance(value, str) and value in SEAT_MODES):
        return "random" if value is None else str(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= 0:
        return int(value)
    raise ValueError(f"seat must be {_SEAT_WORDS}, got {value!r}")


_SEAT_WORDS = "a seat number (an integer >= 0), 'random', 'rotate' or None"

# The learner-seat options as a declared table (validation here, documentation in docs/api.md).
LEARNER_OPTIONS = (
    Option("seat", "custom", None, doc=_SEAT_WORDS + " (None = 'random')", check=_check_seat,
           none_ok=True),
    Option("shaping", "custom", 0.0, doc="a finite number >= 0", check=_check_number("shaping", 0, False)),
    Option("reward_scale", "custom", 1.0, doc="a finite number > 0",
           check=_check_number("reward_scale", 0, True)),
)
_TABLE = {o.name: o for o in LEARNER_OPTIONS}


def is_player(entry):
    """Whether ``entry`` is one opponent (a name, an agent or a policy) rather than a factory."""
    return isinstance(entry, str) or any(hasattr(entry, a) for a in ("act", "act_batch", "batch_kind"))


@dataclass
class LearnerOptions:
    """The parsed learner-seat options of one env (see the module docstring)."""

    num_players: int
    seat: object            # an int, "random" or "rotate"
    shaping: float
    reward_scale: float
    opponents: object       # an entry, a list of num_players - 1 entries, or a factory
    factory: object = None  # ``opponents`` when it is a factory
    _factory_takes_rng: bool = False

    def first_seat(self, rng, game_index=0):
        """The learner's seat in the first game (game ``game_index`` of a batch)."""
        if self.seat == "rotate":
            return game_index % self.num_players
        return self.next_seat(None, rng)

    def next_seat(self, previous, rng):
        """The learner's seat in a new game after one played at seat ``previous``."""
        if self.seat == "random":
            return int(rng.integers(self.num_players))
        if self.seat == "rotate":
            return (previous + 1) % self.num_players
        return self.seat

    def deal(self, rng):
        """One entry per other seat for a new game (calls the factory, if any, with ``rng``)."""
        dealt = self.opponents
        if self.factory is not None:
            dealt = self.factory(rng) if self._factory_takes_rng else self.factory()
            dealt = _check_entries(dealt, self.num_players, allow_factory=False)
        if isinstance(dealt, list):
            return list(dealt)
        return [dealt] * (self.num_players - 1)


def _check_entries(opponents, num_players, allow_factory=True):
    others = num_players - 1
    if opponents is None:       # the default: "random" (kept as None: SingleAgentEnv's own draw)
        return None
    if isinstance(opponents, (set, frozenset, dict)):
        raise ValueError(f"opponents must be an entry, a list of {others} entries (one per other "
                         f"seat) or a factory, got a {type(opponents).__name__}")
    if isinstance(opponents, (list, tuple)):
        if len(opponents) != others:
            raise ValueError(f"opponents must be one entry or a list of {others} (one per other seat), "
                             f"got {len(opponents)}: {opponents!r}")
        return list(opponents)
    if opponents is None or is_player(opponents):
        return opponents
    if callable(opponents) and allow_factory:
        return opponents
    raise ValueError(f"opponents: {opponents!r} is neither an agent name, an agent or policy, a list "
                     "of them nor a factory")


def _takes_rng(factory):
    try:
        params = [p for p in inspect.signature(factory).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return True
    return bool(params)


def parse_learner_options(num_players, *, seat, shaping, reward_scale, opponents):
    """The learner-seat options checked and normalised (``ValueError`` naming a bad one)."""
    seat = _TABLE["seat"].validate(seat)
    if isinstance(seat, int) and not seat < num_players:
        raise ValueError(f"seat must be a seat in [0, {num_players}), 'random', 'rotate' or None, "
                         f"got {seat!r}")
    shaping = _TABLE["shaping"].validate(shaping)
    reward_scale = _TABLE["reward_scale"].validate(reward_scale)
    opponents = _check_entries(opponents, num_players)
    factory = opponents if callable(opponents) and not is_player(opponents) \
        and not isinstance(opponents, list) else None
    return LearnerOptions(num_players, seat, shaping, reward_scale, opponents, factory,
                          _takes_rng(factory) if factory is not None else False)
