"""Batched games: ``num_envs`` games of one game stepped by one jitted call.

    venv = envs.make_vec("tiny_towns_v0", 256, num_players=2)
    obs, info = venv.reset(seed=0)
    while ...:
        actions = my_policy(obs["observation"], obs["action_mask"], info["current_player"])
        obs, rewards, terminated, truncated, info = venv.step(actions)

The caller acts for whoever is to move in each game (self-play, Pgx style):
``obs["observation"]`` ``(N, obs_size)`` float32 and ``obs["action_mask"]``
``(N, num_actions)`` int8 are those of the seat to move, ``info["current_player"]`` ``(N,)``
says which seat that is, and ``rewards`` ``(N, num_players)`` pays every seat at the end
of its game, exactly as the AEC environment does (``reward_mode="rank"`` or ``"score"``).

Autoreset (Gymnasium's "same-step" mode): when game ``i`` ends in a ``step``,
``terminated[i]`` is True, ``rewards[i]`` holds the final rewards, ``info["final_scores"][i]``
and ``info["final_ranks"][i]`` the final scores and every participant's ranks, and the game
has already restarted: its observation, mask and player are the new game's first.  The new
game's seed is the next of game ``i``'s sequence (``info["seeds"][i]``), the seed an AEC
environment would take for a ``reset()`` without a seed.

Determinism: ``reset(seed=s)`` gives game ``i`` the seed ``s + i`` (reduced modulo 2**63,
as everywhere); game ``i`` is then the game ``envs.make(game_id, **options)`` plays after
``reset(seed=info["seeds"][i])``, and the same actions give the same observations.

``action_values=True`` adds ``obs["action_values"]`` ``(N, num_actions)``: for the seat to
move in each game, what the AEC environment's ``action_values`` option gives it.

Observations are fresh arrays (``copy=True``, the default) that the caller may keep;
``copy=False`` returns the batch's own buffers, which the next ``step`` overwrites -- faster
for a training loop that consumes them at once.
"""
import gymnasium
import numpy as np

from envs.registry import spec_for
from envs.learner import parse_learner_options
from envs.options import BATCH_OPTIONS, SHELL_OPTIONS, split_options
from envs.spaces import flat_observation, seat_spaces
from envs.spec import as_seed
from kernels import batch, greedy, rng, seat_batch


class VecGame:
    """``num_envs`` games of one game and option set; see the module docstring."""

    def __init__(self, game_id, num_envs, **options):
        """``options``: the batch's own (:data:`envs.options.BATCH_OPTIONS`: ``reward_mode``,
        ``action_values``, ``copy``) and the game's; ``ValueError`` naming a bad one."""
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        own, options = split_options(BATCH_OPTIONS, options, "the batch", refused=SHELL_OPTIONS)
        self.game_id = game_id
        self.spec = spec_for(game_id)
        self.cfg = self.spec.configure(**options)
        self.num_envs = n = int(num_envs)
        self.num_players = self.cfg.num_players
        self.num_actions = self.spec.num_actions
        self.obs_size = self.cfg.obs_size
        self.copy = own["copy"]
        self._score_mode = own["reward_mode"] == "score"
        self._reset_fn, self._step_fn = batch.batch_functions(self.spec.kernel)
        participants = max(self.cfg.num_participants, self.num_players)
        self._states = np.zeros((n, self.cfg.state_size), dtype=np.int64)
        self._seeds = np.zeros(n, dtype=np.int64)
        self._players = np.zeros(n, dtype=np.int64)
        self._masks = np.zeros((n, self.num_actions), dtype=np.int8)
        self._obs = np.zeros((n, self.obs_size), dtype=np.float32)
        self._rewards = np.zeros((n, self.num_players), dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._final_scores = np.zeros((n, self.num_players), dtype=np.int64)
        self._final_ranks = np.zeros((n, participants), dtype=np.int64)
        self.action_values = own["action_values"]
        if self.action_values:
            self._values = np.zeros((n, self.num_actions), dtype=np.float32)
            self._values_fn = greedy.batch_action_value_features_function(self.spec.kernel)
            self._values_work = greedy.Work(self.cfg.state_size, self.num_actions, participants,
                                            rows=batch.max_threads())
        self._ready = False

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        """Start every game: game ``i`` from seed ``seed + i``; ``seed=None`` draws one."""
        if seed is None:
            seed = int(np.random.SeedSequence().entropy)
        base = as_seed(seed)
        self._seeds[:] = (base + np.arange(self.num_envs, dtype=np.uint64)) % (1 << 63)
        self._reset_fn(self._states, self.cfg.config, self._seeds, self._players, self._masks, self._obs)
        self._terminated[:] = False
        self._rewards[:] = 0.0
        self._ready = True
        return self._observation(), self._info()

    def step(self, actions):
        """Play ``actions[i]`` in game ``i`` (for its seat to move).  A wrong shape, a
        non-integer or an illegal action in any game raises ``ValueError`` naming the game,
        and no game changes."""
        if not self._ready:
            raise AssertionError("reset() needs to be called before step()")
        actions = self._check_actions(actions)
        ended = self._step_fn(self._states, actions, self.cfg.config, self._seeds, self._score_mode,
                              self._players, self._masks, self._obs, self._rewards, self._terminated,
                              self._final_scores, self._final_ranks)
        rewards = self._rewards.copy()
        terminated = self._terminated.copy()
        info = self._info()
        if ended:
            info["final_scores"] = self._final_scores.copy()
            info["final_ranks"] = self._final_ranks.copy()
        return self._observation(), rewards, terminated, np.zeros(self.num_envs, dtype=np.bool_), info

    def states(self):
        """A copy of every game's kernel state, ``(num_envs, state_size)``."""
        return self._states.copy()

    # --------------------------------------------------------------- helpers
    def _check_actions(self, actions):
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":     # signed or unsigned integers (np.issubdtype costs a microsecond)
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        checked = np.ascontiguousarray(a, dtype=np.int64)
        # one jitted pass over the batch (numpy's several passes cost more than a small batch's step)
        i = batch.first_bad_action(checked, self._masks)
        if i >= 0 and (a[i] < 0 or a[i] >= self.num_actions):
            raise ValueError(f"action {a[i]!r} of game {i} is out of range [0, {self.num_actions})")
        if i >= 0:
            raise ValueError(f"illegal action {int(a[i])} in game {i} (seat {int(self._players[i])} to move; "
                             f"legal: {np.flatnonzero(self._masks[i]).tolist()})")
        return checked

    def _observation(self):
        out = {"observation": self._obs, "action_mask": self._masks}
        if self.action_values:
            self._values_fn(self._states, self._masks, self._players, self.num_players, self._obs,
                            self._values, *self._values_work.args())
            out["action_values"] = self._values
        if self.copy:
            return {k: v.copy() for k, v in out.items()}
        return out

    def _info(self):
        return {"current_player": self._players.copy(), "seeds": self._seeds.copy()}

    def __repr__(self):
        return f"VecGame({self.game_id!r}, num_envs={self.num_envs}, options={self.cfg.options})"


_SEAT_STREAM = 0x632BE59BD9B4E019


def opponent_seed(game_seed, seat):
    """The seed of seat ``seat``'s in-kernel opponent in the batch game that starts from
    ``game_seed``: that opponent plays exactly as ``agents.GreedyAgent(seed=...)`` (or
    ``agents.RandomAgent(seed=...)``) built with this seed."""
    return int(rng.next_seed((int(game_seed) + _SEAT_STREAM * (int(seat) + 1)) % (1 << 63)))


IN_KERNEL = {"random": seat_batch.RANDOM, "greedy": seat_batch.GREEDY}


def _opponent_kind(entry):
    """``(kind, policy)`` of one opponent: a name or agent played inside numba, or a frozen
    policy with ``act_batch`` called from Python once per batch."""
    if entry is None:       # the default opponent
        entry = "random"
    if isinstance(entry, str):
        if entry not in IN_KERNEL:
            raise ValueError(f"opponents: unknown in-kernel opponent {entry!r} (choose from "
                             f"{sorted(IN_KERNEL)}, or pass a policy with act_batch)")
        return IN_KERNEL[entry], None
    kind = getattr(entry, "batch_kind", None)
    if kind in IN_KERNEL:      # agents.RandomAgent / GreedyAgent: the same choice in numba
        return IN_KERNEL[kind], None
    if callable(getattr(entry, "act_batch", None)):
        return seat_batch.EXTERNAL, entry
    raise ValueError(f"opponents: {entry!r} is neither 'random'/'greedy' nor a policy with "
                     "act_batch(observations, masks) -> actions")


class VecSeatGame(VecGame):
    """One learning seat in each of ``num_envs`` games; the other seats are played by
    ``opponents`` inside the same call.

    ``opponents``
        ``"random"`` (the default; ``None`` means the same) or ``"greedy"`` (played inside
        numba) for every other seat; a list with one entry per other seat (seat order, the
        learner's skipped); an entry may also be a frozen policy -- any object with
        ``act_batch(observations, masks) -> actions`` (e.g. :class:`agents.players.policy.PolicyAgent`)
        -- which is called once per batch for all the games waiting on it; or a callable
        ``factory(rng) -> entry or list`` called with the batch's seeded ``numpy`` generator at
        the start of every game (how :class:`agents.players.policy.SnapshotPool` deals self-play
        opponents).
    ``seat``
        The learner's seat (an integer in ``[0, num_players)``, default 0); ``"random"`` or
        ``None``: a seat drawn from the batch's seeded generator at the start of every game;
        ``"rotate"``: game ``i`` starts with seat ``i % num_players`` and each new game of it
        moves to the next seat.
    ``shaping``, ``reward_scale``
        As :class:`envs.SingleAgentEnv`: potential-based shaping by the learner's margin (a
        finite number >= 0), and a factor on every reward (a finite number > 0).

    These four mean the same as in :class:`envs.SingleAgentEnv`: one parser reads them
    (:mod:`envs.learner`).

    ``step(actions)`` takes the learner's action in every game and returns ``(obs, rewards,
    terminated, truncated, info)`` with ``rewards`` of shape ``(N,)``: the learner's reward
    (at the end of a game; with shaping, at every step).  A game that ends is restarted at
    once (see :mod:`envs.vector`); ``info["final_obs"]``, ``info["final_scores"]``,
    ``info["final_ranks"]`` and ``info["final_seat"]`` (the learner's seat in it) describe it.
    In-kernel opponents of game ``i`` draw from generators seeded at the start of each game
    with :func:`opponent_seed` (of the game seed and the seat)."""

    def __init__(self, game_id, num_envs, *, opponents="random", seat=0, shaping=0.0,
                 reward_scale=1.0, **options):
        super().__init__(game_id, num_envs, **options)
        n = self.num_players
        self.learner_options = parse_learner_options(n, seat=seat, shaping=shaping,
                                                     reward_scale=reward_scale, opponents=opponents)
        self.seat = self.learner_options.seat          # an int, "random" or "rotate"
        self.shaping, self.reward_scale = self.learner_options.shaping, self.learner_options.reward_scale
        # Opponents without a factory are the same in every game: check them once.
        self._dealt = (None if self.learner_options.factory is not None
                       else [_opponent_kind(e) for e in self.learner_options.deal(None)])
        self.opponents = opponents
        (self._advance,) = seat_batch.seat_functions(self.spec.kernel)
        m = self._final_ranks.shape[1]
        N, S, A = self.num_envs, self.cfg.state_size, self.num_actions
        self._learners = np.zeros(N, dtype=np.int64)
        self._kinds = np.zeros((N, n), dtype=np.int64)
        self._policies = [[None] * n for _ in range(N)]
        self._gens = np.zeros((N, n, rng.RNG_SLOTS), dtype=np.int64)
        self._status = np.zeros(N, dtype=np.int64)
        self._pending = np.zeros(N, dtype=np.int64)
        self._potentials = np.full(N, np.nan)
        self._seat_rewards = np.zeros((N, n), dtype=np.float64)
        self._final_obs = np.zeros((N, self.obs_size), dtype=np.float32)
        self._final_seat = np.zeros(N, dtype=np.int64)
        self._learner_rewards = np.zeros(N, dtype=np.float64)
        self._np_random = np.random.default_rng(0)
        self._work = (np.zeros((N, S), np.int64), np.zeros((N, S), np.int64), np.zeros((N, A), np.int8),
                      np.zeros((N, m), np.int64), np.zeros((N, m), np.float64), np.zeros((N, m), np.int64),
                      np.zeros((N, A), np.float64))

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        super().reset(seed)
        self._np_random = np.random.default_rng(int(self._seeds[0]))
        self._potentials[:] = np.nan
        for i in range(self.num_envs):
            self._learners[i] = self.learner_options.first_seat(self._np_random, i)
            self._start_game(i)
        self._pending[:] = seat_batch.NO_ACTION
        self._run(self._pending)
        self._terminated[:] = False
        self._learner_rewards[:] = 0.0
        return self._observation(), self._info()

    def step(self, actions):
        if not self._ready:
            raise AssertionError("reset() needs to be called before step()")
        actions = self._check_actions(actions)
        ended = self._run(actions)
        terminated = self._terminated.copy()
        info = self._info()
        if ended:
            info["final_scores"] = self._final_scores.copy()
            info["final_ranks"] = self._final_ranks.copy()
            info["final_obs"] = self._final_obs.copy()
            info["final_seat"] = self._final_seat.copy()
        rewards = self._learner_rewards * self.reward_scale
        return (self._observation(), rewards, terminated, np.zeros(self.num_envs, dtype=np.bool_), info)

    # --------------------------------------------------------------- helpers
    def _start_game(self, i):
        """Deal game ``i``'s opponents and seed their generators (its state is a new game)."""
        learner = int(self._learners[i])
        resolved = (self._dealt if self._dealt is not None
                    else [_opponent_kind(e) for e in self.learner_options.deal(self._np_random)])
        others = [s for s in range(self.num_players) if s != learner]
        for s, (kind, policy) in zip(others, resolved):
            self._kinds[i, s] = kind
            self._policies[i][s] = policy
        self._policies[i][learner] = None
        seed = int(self._seeds[i])
        for s in range(self.num_players):
            rng.seed_rng(self._gens[i, s], 0, opponent_seed(seed, s))

    def _run(self, actions):
        """Advance every game to its learner's next decision: restarted games get their new
        opponents, frozen policies answer for all the games waiting on each at once.
        Returns whether any game ended."""
        fresh, ended = True, False
        while True:
            waiting, restarted = self._advance(
                self._states, actions, self.cfg.config, self._seeds, self._gens, self._kinds,
                self._learners, self._score_mode, self.shaping, fresh, self._status, self._players,
                self._masks, self._obs, self._learner_rewards, self._terminated, self._final_scores,
                self._final_ranks, self._final_obs, self._potentials, self._seat_rewards, *self._work)
            fresh, ended = False, ended or restarted > 0
            if not (waiting or restarted):
                return ended
            actions = self._pending
            actions[:] = seat_batch.SKIP
            if restarted:
                for i in np.flatnonzero(self._status == seat_batch.RESTARTED):
                    self._final_seat[i] = self._learners[i]
                    self._learners[i] = self.learner_options.next_seat(int(self._learners[i]), self._np_random)
                    self._start_game(i)
                    actions[i] = seat_batch.NO_ACTION
            if waiting:
                self._ask_policies(np.flatnonzero(self._status == seat_batch.WAITING), actions)

    def _ask_policies(self, rows, actions):
        groups = {}
        for i in rows:
            policy = self._policies[i][self._players[i]]
            groups.setdefault(id(policy), (policy, []))[1].append(i)
        for policy, members in groups.values():
            members = np.asarray(members)
            observations = self._obs[members]
            if self.action_values:   # a frozen policy sees what the learner sees
                values = np.zeros((members.size, self.num_actions), dtype=np.float32)
                self._values_fn(self._states[members], self._masks[members], self._players[members],
                                self.num_players, observations, values, *self._values_work.args())
                observations = np.concatenate([observations, values], axis=1)
            chosen = np.asarray(policy.act_batch(observations, self._masks[members]))
            if chosen.shape != (members.size,) or not np.issubdtype(chosen.dtype, np.integer):
                raise ValueError(f"{policy!r}.act_batch returned {chosen!r}: expected {members.size} "
                                 "integer actions")
            ok = (chosen >= 0) & (chosen < self.num_actions)
            ok[ok] = self._masks[members[ok], chosen[ok]] != 0
            if not ok.all():
                j = int(np.flatnonzero(~ok)[0])
                raise ValueError(f"{policy!r} chose illegal action {int(chosen[j])} in game {int(members[j])}")
            actions[members] = chosen

    def __repr__(self):
        return (f"VecSeatGame({self.game_id!r}, num_envs={self.num_envs}, seat={self.seat!r}, "
                f"opponents={self.opponents!r}, options={self.cfg.options})")


def make_vec(game_id, num_envs, *, opponents=None, **options):
    """``num_envs`` batched games of ``game_id`` (see :mod:`envs.vector`): with
    ``opponents=None`` the caller plays every seat (:class:`VecGame`); otherwise the caller
    plays ``seat`` (option, default 0) and ``opponents`` the others (:class:`VecSeatGame`)."""
    if opponents is None:
        return VecGame(game_id, num_envs, **options)
    return VecSeatGame(game_id, num_envs, opponents=opponents, **options)


class SeatVectorEnv(gymnasium.vector.VectorEnv):
    """A :class:`VecSeatGame` as a Gymnasium ``VectorEnv``: flat ``Box`` observations of the
    learning seat (as :class:`envs.SingleAgentEnv`), ``Discrete`` actions, the legal mask
    from ``action_masks()`` and in ``info["action_mask"]``.

    Autoreset is Gymnasium's same-step mode (``metadata["autoreset_mode"]``): a game that
    ends is restarted within the step; ``info["final_obs"]`` holds the learner's last
    observation of it (rows of games that did not end are zero; ``info["_final_obs"]`` marks
    the rows that are set), ``info["final_scores"]``/``info["final_ranks"]`` its result."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, game_id, num_envs, *, opponents="random", seat=0, **options):
        self.game = VecSeatGame(game_id, num_envs, opponents=opponents, seat=seat, **options)
        self.num_envs = self.game.num_envs
        self.single_observation_space, self.single_action_space = seat_spaces(
            self.game.spec, self.game.cfg, self.game.action_values)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._obs = None

    def reset(self, *, seed=None, options=None):
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be None or a dict, got {options!r}")
        if isinstance(seed, (list, tuple, np.ndarray)):
            raise ValueError("seed must be one integer (game i starts from seed + i) or None")
        self._obs, info = self.game.reset(seed)
        info["action_mask"] = self._obs["action_mask"]
        return flat_observation(self._obs), info

    def step(self, actions):
        self._obs, rewards, terminated, truncated, info = self.game.step(actions)
        info["action_mask"] = self._obs["action_mask"]
        if "final_obs" in info:
            info["_final_obs"] = terminated.copy()
            if self.game.action_values:   # a finished game asks nothing: its values are zeros
                info["final_obs"] = flat_observation({"observation": info["final_obs"],
                                                      "action_values": np.zeros_like(self._obs["action_values"])})
        return flat_observation(self._obs), rewards, terminated, truncated, info

    def action_masks(self):
        """``(num_envs, num_actions)`` bool: the learner's legal actions in each game."""
        if self._obs is None:
            raise AssertionError("reset() needs to be called before action_masks()")
        return self._obs["action_mask"].astype(bool)

    def close_extras(self, **kwargs):
        pass
