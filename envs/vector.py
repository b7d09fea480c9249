"""Batched games: ``num_envs`` games of one game stepped by one jitted call.

    venv = envs.make_vec("tiny_towns_v0", 1024, num_players=2)
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

Observations are fresh arrays (``copy=True``, the default) that the caller may keep;
``copy=False`` returns the batch's own buffers, which the next ``step`` overwrites -- faster
for a training loop that consumes them at once.
"""
import gymnasium
import numpy as np

from envs.registry import spec_for
from envs.shell import REWARD_MODES
from envs.spec import as_seed
from kernels import batch, rng


class VecGame:
    """``num_envs`` games of one game and option set; see the module docstring."""

    def __init__(self, game_id, num_envs, *, reward_mode="rank", copy=True, **options):
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if not isinstance(reward_mode, str) or reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {sorted(REWARD_MODES)}, got {reward_mode!r}")
        if not isinstance(copy, (bool, np.bool_)):
            raise ValueError(f"copy must be True or False, got {copy!r}")
        self.game_id = game_id
        self.spec = spec_for(game_id)
        self.cfg = self.spec.configure(**options)
        self.num_envs = n = int(num_envs)
        self.num_players = self.cfg.num_players
        self.num_actions = self.spec.num_actions
        self.obs_size = self.cfg.obs_size
        self.copy = bool(copy)
        self._score_mode = REWARD_MODES[reward_mode] == "score"
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
        self._rows = np.arange(n)
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
        self._step_fn(self._states, actions, self.cfg.config, self._seeds, self._score_mode,
                      self._players, self._masks, self._obs, self._rewards, self._terminated,
                      self._final_scores, self._final_ranks)
        rewards = self._rewards.copy()
        terminated = self._terminated.copy()
        info = self._info()
        if terminated.any():
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
        if not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        bad = np.flatnonzero((a < 0) | (a >= self.num_actions))
        if bad.size:
            raise ValueError(f"action {a[bad[0]]!r} of game {bad[0]} is out of range [0, {self.num_actions})")
        a = a.astype(np.int64, copy=False)
        illegal = np.flatnonzero(self._masks[self._rows, a] == 0)
        if illegal.size:
            i = int(illegal[0])
            raise ValueError(f"illegal action {int(a[i])} in game {i} (seat {int(self._players[i])} to move; "
                             f"legal: {np.flatnonzero(self._masks[i]).tolist()})")
        return np.ascontiguousarray(a)

    def _observation(self):
        if self.copy:
            return {"observation": self._obs.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._obs, "action_mask": self._masks}

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


class VecSeatGame(VecGame):
    """One learning seat (``seat``) in each of ``num_envs`` games; the other seats are
    played inside the same numba call by ``opponents``: ``"random"`` or ``"greedy"`` for
    every other seat, or a list with one of them per other seat (in seat order).

    ``step(actions)`` takes the learner's action in every game and returns ``(obs, rewards,
    terminated, truncated, info)`` with ``rewards`` of shape ``(N,)``: the learner's end
    reward in games that ended (then restarted at once; see :mod:`envs.vector`).  The
    opponents of game ``i`` draw from generators seeded at ``reset`` with
    :func:`opponent_seed`\ ``(info["seeds"][i], seat)``."""

    def __init__(self, game_id, num_envs, *, opponents="random", seat=0, **options):
        super().__init__(game_id, num_envs, **options)
        n = self.num_players
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) \
                or not 0 <= seat < n:
            raise ValueError(f"seat must be an integer in [0, {n}), got {seat!r}")
        self.seat = int(seat)
        others = [s for s in range(n) if s != self.seat]
        if isinstance(opponents, str):
            opponents = [opponents] * len(others)
        if not isinstance(opponents, (list, tuple)) or len(opponents) != len(others):
            raise ValueError(f"opponents must be 'random', 'greedy' or a list of {len(others)} of them "
                             f"(one per other seat), got {opponents!r}")
        self.kinds = np.zeros(n, dtype=np.int64)
        for s, name in zip(others, opponents):
            if not isinstance(name, str) or name not in batch.OPPONENT_KINDS:
                raise ValueError(f"opponents: unknown in-kernel opponent {name!r} "
                                 f"(choose from {sorted(batch.OPPONENT_KINDS)})")
            self.kinds[s] = batch.OPPONENT_KINDS[name]
        self.opponents = list(opponents)
        (self._advance,) = batch.seat_functions(self.spec.kernel)
        m = self._final_ranks.shape[1]
        N, S, A = self.num_envs, self.cfg.state_size, self.num_actions
        self._gens = np.zeros((N, n, rng.RNG_SLOTS), dtype=np.int64)
        self._seat_rewards = np.zeros((N, n), dtype=np.float64)
        self._final_obs = np.zeros((N, self.obs_size), dtype=np.float32)
        self._learner_rewards = np.zeros(N, dtype=np.float64)
        self._no_actions = np.full(N, -1, dtype=np.int64)
        self._work = (np.zeros((N, S), np.int64), np.zeros((N, S), np.int64), np.zeros((N, A), np.int8),
                      np.zeros((N, m), np.int64), np.zeros((N, m), np.float64), np.zeros((N, m), np.int64),
                      np.zeros((N, A), np.float64))

    def reset(self, seed=None):
        super().reset(seed)
        for i in range(self.num_envs):
            for s in range(self.num_players):
                rng.seed_rng(self._gens[i, s], 0, opponent_seed(self._seeds[i], s))
        self._run(self._no_actions)
        return self._observation(), self._info()

    def step(self, actions):
        if not self._ready:
            raise AssertionError("reset() needs to be called before step()")
        actions = self._check_actions(actions)
        self._run(actions)
        terminated = self._terminated.copy()
        info = self._info()
        if terminated.any():
            info["final_scores"] = self._final_scores.copy()
            info["final_ranks"] = self._final_ranks.copy()
            info["final_obs"] = self._final_obs.copy()
        return (self._observation(), self._learner_rewards.copy(), terminated,
                np.zeros(self.num_envs, dtype=np.bool_), info)

    def _run(self, actions):
        self._advance(self._states, actions, self.cfg.config, self._seeds, self._gens, self.kinds,
                      self.seat, self._score_mode, self._masks, self._obs, self._learner_rewards,
                      self._terminated, self._final_scores, self._final_ranks, self._final_obs,
                      self._seat_rewards,
                      *self._work)
        self._players[:] = self.seat

    def __repr__(self):
        return (f"VecSeatGame({self.game_id!r}, num_envs={self.num_envs}, seat={self.seat}, "
                f"opponents={self.opponents}, options={self.cfg.options})")


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
        spec, cfg = self.game.spec, self.game.cfg
        low, high = spec.observation_bounds(cfg)
        self.single_observation_space = gymnasium.spaces.Box(
            np.broadcast_to(np.float32(low), (cfg.obs_size,)), np.broadcast_to(np.float32(high), (cfg.obs_size,)),
            shape=(cfg.obs_size,), dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(spec.num_actions)
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
        return self._obs["observation"], info

    def step(self, actions):
        self._obs, rewards, terminated, truncated, info = self.game.step(actions)
        info["action_mask"] = self._obs["action_mask"]
        if "final_obs" in info:
            info["_final_obs"] = terminated.copy()
        return self._obs["observation"], rewards, terminated, truncated, info

    def action_masks(self):
        """``(num_envs, num_actions)`` bool: the learner's legal actions in each game."""
        if self._obs is None:
            raise AssertionError("reset() needs to be called before action_masks()")
        return self._obs["action_mask"].astype(bool)

    def close_extras(self, **kwargs):
        pass
