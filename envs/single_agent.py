"""One seat of any cityzoo game as a single-agent :class:`gymnasium.Env`.

>>> import envs, agents
>>> env = envs.SingleAgentEnv("kingdomino_duel_v0", opponents=agents.RandomAgent(seed=0))
>>> obs, info = env.reset(seed=0)
>>> mask = env.action_masks()            # bool, for sb3-contrib's MaskablePPO
>>> obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

The learner plays seat ``seat`` (a seat drawn at random from the env's seeded generator at
every ``reset`` when ``seat`` is ``None``); every other seat is played *inside* the env by
opponent agents (anything with ``act(env, agent) -> int`` on the AEC environment: the
baselines of :mod:`agents`, a frozen snapshot of the learner such as
``agents.make("policy", path=...)``...).  ``step(action)`` plays the learner's action, then
the opponents' moves until the learner is to move again or the game ends.

Spaces: ``observation_space`` is the game's flat ``float32`` ``Box`` (the ``"observation"``
part of the AEC observation, followed by its ``"action_values"`` with the option
``action_values=True``), ``action_space`` is ``Discrete(num_actions)``.  The action
space's ``sample()`` draws a *legal* action of the current position when no mask is given,
so random play and Gymnasium's ``check_env`` work on games whose masks are sparse; a copied
or unpickled env keeps that (the space pickled on its own becomes a plain ``Discrete``).

Rewards are those of the shell's ``reward_mode`` (default ``"rank"``: +1 win ... -1 last),
given when the game ends (``terminated=True``).  ``shaping=c > 0`` adds potential-based
shaping for denser learning signals: every step also pays ``c * (phi(after) - phi(before))``
where ``phi`` is the game's greedy evaluation of the learner's seat
(``spec.evaluate``: score margin plus the positional potential, the bare score margin once
the game is over).  Over a game the shaping adds up to ``c`` times the final score margin
minus the initial evaluation, so the learner is paid for winning and, a little, for the
margin.  ``reward_scale=s`` multiplies every reward the env returns (terminal and shaping), e.g.
to bring score-margin rewards of tens of points to the unit scale PPO's defaults expect.  An illegal learner action ends the game
with -1 for the learner (``terminated=True``), like PettingZoo's classic environments
(``TerminateIllegalWrapper``); this is the game option ``illegal_action="terminate"``, the
default here so that Gymnasium tools which step actions chosen without a mask (such as
``check_env``) work.  Pass ``illegal_action="raise"`` to get the shell's ``ValueError``
instead (the state is then left unchanged).  Out-of-range and non-integer actions always
raise ``ValueError``.  ``info`` holds ``"action_mask"`` (int8), ``"seat"``, and at the end the shell's
``"scores"``, ``"winners"``, ``"ranks"`` plus ``"won"`` (the learner is among the winners).

The constructor arguments are plain picklable values, so the env works in stable-baselines3's
``SubprocVecEnv``; ``opponents`` may be an agent name (``"random"``, ``"greedy"``...) to keep
them trivially picklable, together with ``agent_factory`` (name -> agent, e.g.
``agents.make``): ``envs`` never imports the agents that play it.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from envs.learner import parse_learner_options
from envs.spaces import flat_observation, flat_observation_space

__all__ = ["SingleAgentEnv", "MaskedDiscrete"]


class MaskedDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws among the legal actions that
    ``mask_fn()`` reports.  Pickled alone it becomes a plain :class:`gymnasium.spaces.Discrete`
    (:class:`SingleAgentEnv` rebuilds its own after a copy)."""

    def __init__(self, n, mask_fn, seed=None):
        super().__init__(n, seed=seed)
        self._mask_fn = mask_fn

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._mask_fn is not None:
            legal = self._mask_fn()
            if legal is not None and legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self):
        return (spaces.Discrete, (int(self.n), None, int(self.start)))

    def __repr__(self):
        return f"Discrete({self.n})"


def _resolve_agent(spec, named=None, factory=None):
    """An agent from an agent instance or an agent name (built once per name and env by
    ``factory``)."""
    if isinstance(spec, str):
        if named is not None and spec in named:
            return named[spec]
        if factory is None:
            raise ValueError(f"opponent {spec!r} is a name: pass agent_factory= (e.g. agents.make) "
                             "to build agents from names, or pass agent objects")
        agent = factory(spec)
        if named is not None:
            named[spec] = agent
        return agent
    if not hasattr(spec, "act"):
        raise TypeError(f"an opponent must be an agent (with act(env, agent)) or an agent name, "
                        f"got {spec!r}")
    return spec


class _UniformOpponent:
    """The default opponent: a uniformly random legal action, drawn as ``agents.RandomAgent``
    draws it (``envs`` does not import ``agents``)."""

    def __init__(self):
        self.rng = np.random.default_rng()

    def act(self, env, agent):
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        return int(legal[self.rng.integers(legal.size)])


def _seed_agent(agent, seed):
    """Re-seed an agent's own generator so seeded resets are reproducible."""
    if hasattr(agent, "set_seed"):
        agent.set_seed(seed)
    elif isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)


class SingleAgentEnv(gymnasium.Env):
    """One seat of a cityzoo game; the other seats are played by ``opponents``.

    Parameters
    ----------
    game_id:
        A registered id (``envs.GAMES``), or a zero-argument callable returning a fresh
        AEC environment (e.g. a test game built on :class:`envs.CityEnv`).
    opponents:
        ``None`` or ``"random"`` (the default: uniformly random legal moves), an agent or agent
        name (plays every other seat), a list with one agent/name per other seat (in seat
        order, the learner's seat skipped), or a callable returning one of those.  A callable
        is called at every ``reset``, with the env's seeded ``numpy.random.Generator`` when it
        takes an argument; that is how a self-play pool hands out fresh snapshots.  Names
        other than ``"random"`` need ``agent_factory``.
    agent_factory:
        A callable ``name -> agent`` (e.g. ``agents.make``) that builds named opponents;
        ``envs`` never imports the agents that play it.
    seat:
        The learner's seat (an integer in ``[0, num_players)``), ``"random"`` or ``None``
        (the default: a seat drawn from the env's seeded generator each episode), or
        ``"rotate"`` (seat 0, then the next seat each episode; a seeded ``reset`` starts
        again at seat 0).
    shaping:
        Weight of the potential-based reward shaping (see the module docstring), a finite
        number >= 0; 0 = off.
    reward_scale:
        Factor applied to every returned reward, a finite number > 0 (default 1).

    ``seat``, ``shaping``, ``reward_scale`` and ``opponents`` mean the same as in the batch
    (:class:`envs.vector.VecSeatGame`): one parser reads them (:mod:`envs.learner`).
    **options:
        Game options for ``envs.make`` (``num_players``, ``reward_mode``, variants...).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, game_id, opponents=None, seat=None, render_mode=None, shaping=0.0,
                 reward_scale=1.0, agent_factory=None, **options):
        super().__init__()
        if agent_factory is not None and not callable(agent_factory):
            raise ValueError(f"agent_factory must be a callable name -> agent, got {agent_factory!r}")
        self.agent_factory = agent_factory
        self._uniform = _UniformOpponent()
        self._phi = 0.0
        if callable(game_id) and not isinstance(game_id, str):
            if options:
                raise ValueError("game options cannot be combined with an env factory; "
                                 "put them in the factory")
            self._aec = game_id() if render_mode is None else game_id(render_mode=render_mode)
        else:
            from envs.registry import make
            options.setdefault("illegal_action", "terminate")
            self._aec = make(game_id, render_mode=render_mode, **options)
        self.game_id = getattr(getattr(self._aec, "spec", None), "game_id", str(game_id))
        self.render_mode = render_mode
        self.possible_agents = list(self._aec.possible_agents)
        self.num_players = len(self.possible_agents)
        self.learner_options = parse_learner_options(self.num_players, seat=seat, shaping=shaping,
                                                     reward_scale=reward_scale, opponents=opponents)
        self.shaping = self.learner_options.shaping
        self.reward_scale = self.learner_options.reward_scale
        # an int, "random" or "rotate" (None is read as "random")
        self.seat_mode = self.learner_options.seat
        self.fixed_seat = self.seat_mode if isinstance(self.seat_mode, int) else None
        self.opponents = opponents
        first = self.possible_agents[0]
        self.observation_space = flat_observation_space(self._aec.observation_space(first))
        n = int(self._aec.action_space(first).n)
        self._mask = np.zeros(n, dtype=bool)
        self.action_space = MaskedDiscrete(n, self.action_masks)
        self.seat = 0
        self.learner = first
        self._seat_agents = {}
        self._named = {}
        self._done = True
        self._last_seat = None
        self.episode_steps = 0

    # A pickled or copied env gets its masked action space back (the space alone pickles as
    # a plain Discrete, so a saved model does not carry the env with it).
    def __getstate__(self):
        state = dict(self.__dict__)
        space = state.pop("action_space")
        state["_action_space_rng"] = space.np_random.bit_generator.state \
            if space._np_random is not None else None
        return state

    def __setstate__(self, state):
        rng_state = state.pop("_action_space_rng")
        self.__dict__.update(state)
        self.action_space = MaskedDiscrete(self._mask.shape[0], self.action_masks)
        if rng_state is not None:
            self.action_space.np_random.bit_generator.state = rng_state

    # ------------------------------------------------------------ properties
    @property
    def aec_env(self):
        """The underlying PettingZoo AEC environment."""
        return self._aec

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the game is over)."""
        return self._mask.copy()

    # --------------------------------------------------------------- helpers
    def _draw_opponents(self):
        dealt = self.learner_options.deal(self.np_random)
        others = [a for a in self.possible_agents if a != self.learner]
        chosen = [self._resolve(entry) for entry in dealt]
        self._seat_agents = dict(zip(others, chosen))
        seen = set()
        for agent in chosen:
            if id(agent) in seen:
                continue
            seen.add(id(agent))
            _seed_agent(agent, int(self.np_random.integers(2**63 - 1)))
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset()

    def _resolve(self, entry):
        """The agent for one opponent entry.  ``None`` (the default) is the built-in uniform
        opponent, and so is "random" without ``agent_factory`` (with it, the factory's
        random agent: the same play, drawn by ``agents.RandomAgent``)."""
        if entry is None or (isinstance(entry, str) and entry == "random" and self.agent_factory is None):
            return self._uniform
        return _resolve_agent(entry, self._named, self.agent_factory)

    def _game_over(self):
        aec = self._aec
        return (not aec.agents or aec.terminations[self.learner] or aec.truncations[self.learner])

    def _play_opponents(self):
        aec = self._aec
        while not self._game_over() and aec.agent_selection != self.learner:
            who = aec.agent_selection
            action = self._seat_agents[who].act(aec, who)
            aec.step(int(action))

    def _potential(self):
        """Shaping potential of the learner's seat (0 when shaping is off)."""
        if not self.shaping:
            return 0.0
        raw = self._aec.unwrapped
        return self.shaping * float(raw.spec.evaluate(raw.kernel_state, raw.cfg, self.seat))

    def _observe(self):
        if self._game_over():
            self._mask[:] = False
            return flat_observation(self._aec.observe(self.learner)), None
        out = self._aec.observe(self.learner)
        self._mask[:] = out["action_mask"].astype(bool)
        return flat_observation(out), out["action_mask"]

    def _info(self, mask):
        info = {"seat": self.seat}
        if mask is not None:
            info["action_mask"] = mask
        else:
            src = self._aec.infos.get(self.learner, {})
            info.update({k: (list(v) if isinstance(v, list) else v) for k, v in src.items()})
            info["won"] = self.learner in info.get("winners", ())
        return info

    # ------------------------------------------------------------ gym API
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:        # a seeded reset restarts the seat sequence ("rotate")
            self._last_seat = None
        for _attempt in range(100):
            self.seat = (self.learner_options.first_seat(self.np_random) if self._last_seat is None
                         else self.learner_options.next_seat(self._last_seat, self.np_random))
            self._last_seat = self.seat
            self.learner = self.possible_agents[self.seat]
            self._draw_opponents()
            self._aec.reset(seed=int(self.np_random.integers(2**63 - 1)))
            self._play_opponents()
            if not self._game_over():
                break
        else:
            raise RuntimeError(f"{self.game_id}: the game keeps ending before {self.learner} moves")
        self._done = False
        self.episode_steps = 0
        self._phi = self._potential()
        obs, mask = self._observe()
        return obs, self._info(mask)

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished game: call reset() first")
        aec = self._aec
        if (isinstance(action, np.ndarray) and action.size == 1
                and np.issubdtype(action.dtype, np.integer)):
            action = int(action.reshape(()))
        aec.step(action)   # the shell ends the game on an illegal action (or raises), and
                           # refuses out-of-range / non-integer ones
        self.episode_steps += 1
        self._play_opponents()
        reward = aec.cumulative_reward(self.learner)
        if self.shaping:
            phi = self._potential()
            reward += phi - self._phi
            self._phi = phi
        reward *= self.reward_scale
        terminated = bool(self._game_over())
        truncated = False
        if not terminated:
            max_steps = getattr(getattr(aec, "spec", None), "max_steps", None)
            truncated = bool(max_steps is not None and self.episode_steps >= max_steps)
        self._done = terminated or truncated
        obs, mask = self._observe()
        info = self._info(mask)
        if truncated:
            info["won"] = False
        return obs, reward, terminated, truncated, info

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return self._aec.render()

    def close(self):
        self._aec.close()
