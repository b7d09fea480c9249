"""One PettingZoo AEC environment for every game: :class:`CityEnv` drives a game kernel.

The shell owns everything that is the same in all games -- agents, the AEC
bookkeeping (rewards, terminations, truncations, infos, dead steps), seeding, action
checking, rewards at the end, rendering dispatch, ``clone``/``reseed``/``determinize``
-- and asks the game's :class:`envs.spec.GameSpec` adapter and kernel for the rest.

It enforces by itself what PettingZoo's classic wrappers (order enforcing, bounds
checking, illegal-move termination) would add: stacking those wrappers costs several
times the run time of a fast kernel.

Options every game takes (besides its own, see the game module's docstring):

``render_mode``
    ``None``, ``"ansi"`` (``render()`` returns the whole table as text, every seat's hidden
    holdings included), ``"human"`` (prints that text) or ``"rgb_array"`` (``render()``
    returns an ``HxWx3`` ``uint8`` picture of the whole table, drawn by :mod:`envs.pictures`).
    Whatever the mode, ``svg(observer, clickable)`` returns the same picture as SVG and
    ``text(observer)`` the text, everything or one seat's view.
``reward_mode``
    Rewards arrive only when the game ends.  ``"rank"`` (default): a seat ranked ``r``
    among ``M`` participants (automata included) gets ``1 - 2 (r - 1) / (M - 1)``, so
    +1 for the winner and -1 for the last; participants tied after every tie-break --
    seats and automata alike -- share the average of the places they occupy
    (:mod:`kernels.outcome`).  A solo game without automata (a lone participant: Tiny
    Towns solo) has no place to win, so it pays the final score in both modes.
    ``"score"``: the seat's final score minus the mean final score of the other seats
    (a lone seat gets its score).  ``"win_loss"`` and ``"score_diff"`` are accepted as
    aliases of these two.
``action_values``
    ``False`` (default) or ``True``: the observation gains ``"action_values"``, a float32
    vector over the actions -- for the agent to move, how far each legal action's one-ply
    value (:mod:`kernels.greedy`: the margin of score plus potential after it, on a
    determinization seeded by the observation itself) lies below the best one's: 0 for the
    best, negative for the others, floored at ``kernels.greedy.VALUE_FLOOR``; zeros
    everywhere else and for an agent not to move.  It depends only on what the agent knows.
``illegal_action``
    ``"raise"`` (default): an illegal action raises ``ValueError`` and changes nothing.
    ``"terminate"``: the game ends at once, the offender gets -1 and the others 0, and
    every agent is both terminated and truncated (PettingZoo's ``TerminateIllegalWrapper``
    semantics).

Infos: every agent's ``infos`` holds ``scores``, ``winners``, ``ranks`` and ``end_reason``
from ``reset()`` on -- zeros, ``[]`` and ``""`` until the game ends (libraries such as
TorchRL build their info specs from the first infos they see) -- plus, at the end, the
game's own extras (e.g. Tiny Towns' solo ``title``).  ``numeric_infos=True`` keeps only
fixed-shape numbers, for libraries that turn every info into a tensor (TorchRL,
Tianshou): ``scores``, ``ranks`` (one per seat) and ``won`` (this agent won).

``state()`` / ``state_space``: a privileged global view for centralised critics -- every
seat's observation concatenated in seat order, hidden hands and secret choices included --
never part of ``observe()``.

Out-of-range or non-integer actions always raise ``ValueError``; using the env before
``reset()`` raises ``AssertionError``, as PettingZoo's order-enforcing wrapper does.

Seeds (``reset``, ``reseed``, ``determinize``) may be any Python or numpy integer,
negative or beyond 64 bits: the kernel receives ``seed mod 2**63``, so seeds that agree
modulo ``2**63`` give the same game.  Anything else (a float, a string, a bool) raises
``ValueError`` and changes nothing.  Every public method checks its arguments before any
of them reaches a numba kernel.
"""
from __future__ import annotations

import copy
import functools
import warnings

import gymnasium
import numpy as np
from pettingzoo import AECEnv

# The shell's own options are declared with the game options (RENDER_MODES etc. re-exported).
from envs.options import (ILLEGAL_ACTION_MODES, RENDER_MODES, REWARD_MODES,  # noqa: F401
                          SHELL_OPTIONS, split_options)
from envs import spaces as game_spaces
# flat_observation(_space) live in envs.spaces; imported from here by older code.
from envs.spaces import flat_observation, flat_observation_space  # noqa: F401
from envs.spec import GameSpec, as_seed
from kernels import greedy, outcome, rng

_MASK63 = (1 << 63) - 1


def _advance_in_three_calls(kernel, state, action, mask):
    """``kernel.advance`` for a kernel that lacks it (see :mod:`envs.spec`)."""
    kernel.step(state, action)
    player = kernel.current_player(state)
    if player >= 0:
        kernel.legal_mask(state, mask)
    return player


class CityEnv(AECEnv):
    """PettingZoo AEC environment running the kernel of ``spec``.  See module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "cityzoo", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, spec: GameSpec, **options):
        """``options``: the shell's own (:data:`envs.options.SHELL_OPTIONS`, see the module
        docstring) and the game's (``spec.options``); ``ValueError`` naming a bad one."""
        super().__init__()
        shell, game_options = split_options(SHELL_OPTIONS, options, spec.game_id)
        render_mode = shell["render_mode"]
        action_values = shell["action_values"]
        self.action_values = bool(action_values)
        self.spec = spec
        self.cfg = spec.configure(**game_options)
        self.numeric_infos = shell["numeric_infos"]
        self.render_mode = render_mode
        self.reward_mode = shell["reward_mode"]
        self.illegal_action = shell["illegal_action"]
        self.metadata = dict(self.metadata, name=spec.game_id)

        self._bind_kernel()

        n = self.cfg.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = game_spaces.observation_space(spec, self.cfg, self.action_values)
        self._values_work = None
        # One space object per agent, created once (api_test checks identity across calls);
        # separate objects, so seeding one agent's space leaves the others' samples alone.
        self.observation_spaces = {a: copy.deepcopy(obs_space) for a in self.possible_agents}
        self.action_spaces = {a: game_spaces.action_space(spec) for a in self.possible_agents}
        # The privileged global view (see state()): every seat's observation, in seat order.
        self.state_space = game_spaces.state_space(spec, self.cfg)

        self._state = np.zeros(self.cfg.state_size, dtype=np.int64)
        self._mask = np.zeros(spec.num_actions, dtype=np.int8)
        self._no_mask = np.zeros(spec.num_actions, dtype=np.int8)
        self._ready = False
        self._over = False
        self._next_reset_seed = None
        self.agents = []
        self.agent_selection = None

    def _bind_kernel(self):
        kernel = self.spec.kernel
        # A kernel without the optional ``advance`` is stepped in three calls instead of one.
        self._k_advance = getattr(kernel, "advance", None) or functools.partial(_advance_in_three_calls, kernel)
        self._k_mask = kernel.legal_mask
        self._k_player = kernel.current_player
        self._k_observe = kernel.observe
        self._k_values = None     # compiled on first use (action_values option or observe_action_values)

    # The kernel's dispatchers are looked up again after unpickling: pickled by value they
    # would come back as fresh, uncached dispatchers that recompile on first use.
    _KERNEL_FIELDS = ("_k_advance", "_k_mask", "_k_player", "_k_observe", "_k_values")

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in self._KERNEL_FIELDS}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._bind_kernel()

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- reset
    def reset(self, seed=None, options=None):
        """Start a new game.  ``seed`` makes it reproducible; without one, a seed is taken
        from the sequence started by the last seeded reset (or from OS entropy).
        ``options`` (``None`` or a dict) is accepted for API compatibility and ignored:
        game options go to the constructor."""
        if seed is None:
            seed = (self._next_reset_seed if self._next_reset_seed is not None
                    else int(np.random.SeedSequence().entropy) & _MASK63)
        seed = as_seed(seed)   # checked before anything changes
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be None or a dict, got {options!r}")
        self._next_reset_seed = int(rng.next_seed(seed))
        self.spec.kernel.init(self._state, self.cfg.config, seed)
        self._ready = True
        self._over = False
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        # The end-of-game keys are there from the start, with neutral values, so libraries
        # that build their info specs from reset() (TorchRL) see them.
        self.infos = {a: self._neutral_infos() for a in self.agents}
        self._skip_agent_selection = None
        self.num_moves = 0
        self._after_move()

    def _neutral_infos(self):
        n = self.cfg.num_players
        if self.numeric_infos:
            return {"scores": [0] * n, "ranks": [0] * n, "won": False}
        return {"scores": [0] * n, "winners": [], "ranks": [0] * n, "end_reason": ""}

    def _end_infos(self, agent, final, winners, ranks, **extras):
        """``agent``'s infos at the end; with ``numeric_infos`` only fixed-shape numbers."""
        if self.numeric_infos:
            return {"scores": list(final), "ranks": list(ranks), "won": agent in winners}
        return {"scores": list(final), "winners": list(winners), "ranks": list(ranks), **extras}

    def _after_move(self, player=None):
        """Hand the turn to the seat to move, or end the game.  ``player``: that seat as the
        kernel's ``advance`` returned it, mask written (negative: the game is over); None:
        read both from the state (after ``reset`` or an edit of the state)."""
        if player is None:
            player = self._k_player(self._state)
            if player >= 0:
                self._k_mask(self._state, self._mask)
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        else:
            self._finish()

    def _finish(self):
        self._over = True
        n = self.cfg.num_players
        # Every participant's rank (automata after the seats), so ties with them count.
        ranks = np.zeros(max(self.cfg.num_participants, n), dtype=np.int64)
        self.spec.kernel.ranks(self._state, ranks)
        final = self.scores()
        rewards = self._end_rewards(ranks, final)
        winners = [self.possible_agents[p] for p in outcome.winning_seats(ranks, n)]
        extras = self.spec.end_infos(self._state, self.cfg)
        for i, agent in enumerate(self.possible_agents):
            self.rewards[agent] = rewards[i]
            self.terminations[agent] = True
            self.infos[agent] = self._end_infos(agent, final, winners, [int(r) for r in ranks[:n]],
                                                end_reason="game_over", **extras)
        self._accumulate_rewards()
        self._mask[:] = 0
        # The last mover is not necessarily first to see the end: start dead steps at seat 0.
        self.agent_selection = self.agents[0]

    def _end_rewards(self, ranks, final):
        """Per-seat rewards from every participant's ``ranks`` and the seats' ``final`` scores."""
        out = np.zeros(self.cfg.num_players)
        outcome.end_rewards(ranks, np.asarray(final, dtype=np.int64), self.cfg.num_players,
                            self.reward_mode == "score", out)
        return [float(r) for r in out]

    # ------------------------------------------------------------------ step
    def step(self, action):
        if not self._ready:
            raise AssertionError("reset() needs to be called before step()")
        if not self.agents:
            raise ValueError("step() called after the game ended and every agent was removed; "
                             "call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"step({action!r}) after the game ended: {agent} is done, "
                                 "the only valid action is None (or call reset())")
            self._was_dead_step(action)
            return
        a = self._as_action(action)
        if not self._mask[a]:
            if self.illegal_action == "terminate":
                self._terminate_illegal(agent, a)
                return
            raise ValueError(f"illegal action {a} ({self.spec.action_label(self._state, self.cfg, a)}) "
                             f"for {agent} in phase {self.spec.phase_name(self._state, self.cfg)}; "
                             f"legal actions: {np.flatnonzero(self._mask).tolist()}")
        self._cumulative_rewards[agent] = 0.0
        # One kernel call: apply, advance to the next decision, write its mask, name its seat.
        player = self._k_advance(self._state, a, self._mask)
        self.num_moves += 1
        self._after_move(player)

    def _as_action(self, action):
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            a = int(action)
        elif (isinstance(action, np.ndarray) and action.size == 1
              and np.issubdtype(action.dtype, np.integer)):
            a = int(action.reshape(()))
        else:
            raise ValueError(f"action must be an integer in [0, {self.spec.num_actions}), got "
                             f"{action!r} of type {type(action).__name__} "
                             f"(phase {self.spec.phase_name(self._state, self.cfg)})")
        if not 0 <= a < self.spec.num_actions:
            raise ValueError(f"action {a} is out of range [0, {self.spec.num_actions}) "
                             f"(phase {self.spec.phase_name(self._state, self.cfg)})")
        return a

    def _terminate_illegal(self, agent, action):
        warnings.warn(f"illegal move by {agent}: the game is terminated", stacklevel=3)
        self._over = True
        self._mask[:] = 0
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        # As at a normal end: scores so far, nobody won, the offender ranked last.
        n = self.cfg.num_players
        final = self.scores()
        ranks = [n if a == agent else 1 for a in self.possible_agents]
        for a in self.possible_agents:
            self.infos[a] = self._end_infos(a, final, [], ranks, end_reason="illegal_action",
                                            offender=agent, illegal_action=int(action))
        self._accumulate_rewards()
        self._deads_step_first()

    # --------------------------------------------------------------- observe
    def observe(self, agent):
        """``{"observation": float32 vector, "action_mask": int8 vector}``: fresh arrays the
        caller may keep.  The mask is all-zero for an agent that is not to move."""
        if not self._ready:
            raise AssertionError("reset() needs to be called before observe()")
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):
            raise ValueError(f"agent must be one of {self.possible_agents}, got {agent!r}") from None
        # Written straight into the array handed out (every kernel's observe writes all of
        # it): copying an 8k-value observation would cost as much as writing it.
        observation = np.empty(self.cfg.obs_size, dtype=np.float32)
        self._k_observe(self._state, seat, observation)
        acting = not self._over and agent == self.agent_selection
        out = {"observation": observation, "action_mask": (self._mask if acting else self._no_mask).copy()}
        if self.action_values:
            out["action_values"] = self._action_values(seat, observation, acting)
        return out

    def observe_action_values(self, agent):
        """What the ``action_values`` option adds to ``observe(agent)``, whether or not this
        env hands it out (for agents trained with it, playing in an env made without it)."""
        observation = self.observe(agent)["observation"]
        acting = not self._over and agent == self.agent_selection
        return self._action_values(self._seat[agent], observation, acting)

    def _action_values(self, seat, observation, acting):
        values = np.zeros(self.spec.num_actions, dtype=np.float32)
        if acting:
            if self._k_values is None:
                self._k_values = greedy.action_value_features_function(self.spec.kernel)
            if self._values_work is None:
                self._values_work = greedy.Work(self.cfg.state_size, self.spec.num_actions,
                                                max(self.cfg.num_participants, self.cfg.num_players))
            self._k_values(self._state, self._mask, seat, self.cfg.num_players, observation, values,
                           *self._values_work.args())
        return values

    def state(self):
        """A privileged global view of the whole game for centralised critics (MAPPO and
        the like): every seat's observation, concatenated in seat order -- so every hidden
        hand and secret choice is in it.  Future chance nobody knows (deck order, dice to
        come) is not.  It is never part of :meth:`observe`; ``state_space`` describes it.
        A fresh array the caller may keep."""
        self._require_reset("state()")
        size = self.cfg.obs_size
        out = np.empty(self.cfg.num_players * size, dtype=np.float32)
        for p in range(self.cfg.num_players):
            self._k_observe(self._state, p, out[p * size:(p + 1) * size])
        return out

    def split_observation(self, observation):
        """The named parts of a flat observation (views), as documented by the game.

        ``observation`` is one flat vector (``obs_size`` values) or a batch of them (any
        leading dimensions); each part keeps the leading dimensions."""
        if not hasattr(observation, "shape") or not hasattr(observation, "reshape"):
            try:
                observation = np.asarray(observation, dtype=np.float32)
            except (TypeError, ValueError):
                raise ValueError(f"observation must be an array of {self.cfg.obs_size} values, "
                                 f"got {type(observation).__name__}") from None
        shape = tuple(observation.shape)
        if len(shape) == 0 or shape[-1] != self.cfg.obs_size:
            raise ValueError(f"observation must have {self.cfg.obs_size} values in its last "
                             f"dimension, got shape {shape}")
        lead = shape[:-1]
        out, pos = {}, 0
        for name, part in self.spec.observation_layout(self.cfg):
            size = int(np.prod(part))
            out[name] = observation[..., pos:pos + size].reshape(lead + tuple(part))
            pos += size
        return out

    # ---------------------------------------------------------------- render
    def render(self):
        if not self._ready:
            raise AssertionError("reset() needs to be called before render()")
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the env")
            return None
        if self.render_mode == "rgb_array":
            return self.spec.picture(self._state, self.cfg).to_rgb()
        text = self.text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def text(self, observer=None) -> str:
        """The table as text: what every seat sees, then the hidden holdings of ``observer``
        (agent name or seat) -- or of every seat when ``observer`` is None, as
        ``render()`` in ``"ansi"`` mode shows it."""
        self._require_reset("text()")
        seats = range(self.cfg.num_players) if observer is None else [self._as_seat(observer)]
        parts = [self.spec.render_ansi(self._state, self.cfg)]
        for seat in seats:
            lines = self.spec.private_text(self._state, self.cfg, seat)
            if lines:
                parts.append("Only you know:" if observer is not None
                             else f"Only {self.possible_agents[seat]} knows:")
                parts.extend("  " + line for line in lines)
        return "\n".join(parts)

    def svg(self, observer=None, clickable=False) -> str:
        """The table as an SVG document: everything when ``observer`` is None, else only what
        ``observer`` (agent name or seat) sees at the table.  ``clickable=True`` marks the
        shapes that play a legal action (``class="cz-action" data-action="N"``); nothing is
        clickable once the game is over."""
        self._require_reset("svg()")
        seat = None if observer is None else self._as_seat(observer)
        if not isinstance(clickable, (bool, np.bool_)):
            raise ValueError(f"clickable must be True or False, got {clickable!r}")
        live = bool(clickable) and not self._over
        return self.spec.picture(self._state, self.cfg, seat, live).to_svg()

    def close(self):
        pass

    # ---------------------------------------------------- search and analysis
    def _require_reset(self, what):
        if not self._ready:
            raise AssertionError(f"reset() needs to be called before {what}")

    def _as_seat(self, observer, name="observer"):
        """A seat index from an agent name or a seat number, checked."""
        if isinstance(observer, str):
            if observer not in self._seat:
                raise ValueError(f"{name} must be one of {self.possible_agents} or a seat in "
                                 f"[0, {self.cfg.num_players}), got {observer!r}")
            return self._seat[observer]
        if isinstance(observer, (bool, np.bool_)) or not isinstance(observer, (int, np.integer)) \
                or not 0 <= int(observer) < self.cfg.num_players:
            raise ValueError(f"{name} must be one of {self.possible_agents} or a seat in "
                             f"[0, {self.cfg.num_players}), got {observer!r}")
        return int(observer)

    @property
    def phase(self) -> str:
        self._require_reset("phase")
        return self.spec.phase_name(self._state, self.cfg) if not self._over else "game_over"

    def legal_actions(self):
        """Legal action ids of the agent to move (empty once the game is over)."""
        self._require_reset("legal_actions()")
        return np.flatnonzero(self._mask).tolist()

    def action_label(self, action, observer=None) -> str:
        """A short description of ``action`` (any id in ``[0, num_actions)``) in the current state.

        With ``observer`` (agent name or seat): the move as that seat knows it when the seat
        to move plays it -- the full label, except for a secret move of another seat (a
        kept card, a pick; the game's ``secret_phases``), which shows as its public phase
        only, e.g. ``"(pick)"``.  Whether a move is secret depends on the phase alone, never
        on the action, so the choice of text reveals nothing."""
        self._require_reset("action_label()")
        label = self.spec.action_label(self._state, self.cfg, self._as_action(action))
        if observer is None:
            return label
        seat = self._as_seat(observer)
        if self._over or seat == self._seat[self.agent_selection]:
            return label
        public = self.spec.secret_phases.get(self.phase)
        return label if public is None else f"({public})"

    def scores(self):
        self._require_reset("scores()")
        out = np.zeros(self.cfg.num_players, dtype=np.int64)
        self.spec.kernel.scores(self._state, out)
        return [int(s) for s in out]

    @property
    def kernel_state(self):
        """The live kernel state (``np.int64``, ``cfg.state_size`` slots), for search and
        analysis code that calls the game's jitted functions itself (greedy, MCTS, AlphaZero,
        feature extraction).

        It is the environment's own array, not a copy, so reading it costs nothing:

        * read it, and pass it to kernel functions that only read it (``observe``,
          ``scores``, ``ranks``, ``current_player``, the evaluation of :mod:`kernels.outcome`);
        * do not write to it or step it in place: the environment's mask, turn and rewards
          would no longer match it, and a search would play on the real game.  Search on a
          copy (``kernel_state.copy()`` into your own buffer, or ``clone()`` /
          ``determinize(observer, seed)`` and that copy's ``kernel_state``);
        * it holds hidden information (every hand, the deck order): an agent that must not
          cheat reads it from ``determinize(observer, seed)``, not from the real game;
        * keep no reference across ``reset()``/``step()`` expecting it to stay put: it is
          overwritten in place.  Its layout is the kernel's declared ``STATE`` layout and the
          last ``cfg.scratch`` slots are scratch; ``game_state()`` is a stable copy without them.
        """
        self._require_reset("kernel_state")
        return self._state

    def current_seat(self) -> int:
        """The seat (0-based) the kernel asks for the next decision, ``-1`` once the game is
        over (``agent_selection`` keeps naming an agent through the dead steps)."""
        self._require_reset("current_seat()")
        return int(self._k_player(self._state))

    def cumulative_reward(self, agent) -> float:
        """The reward ``agent`` has collected since it last acted: what ``last()`` returns
        when ``agent`` is to move (0 for an agent already removed at the end)."""
        self._require_reset("cumulative_reward()")
        if not isinstance(agent, str) or agent not in self._seat:
            raise ValueError(f"agent must be one of {self.possible_agents}, got {agent!r}")
        return float(self._cumulative_rewards.get(agent, 0.0))

    def game_state(self):
        """A copy of the kernel state without its scratch tail: equal for equal games."""
        self._require_reset("game_state()")
        return self._state[: self.cfg.state_size - self.cfg.scratch].copy()

    def clone(self):
        """An independent copy of the whole game (and of the AEC bookkeeping)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._state = self._state.copy()
        new._mask = self._mask.copy()
        new.agents = list(self.agents)
        if self._ready:
            new.rewards = dict(self.rewards)
            new._cumulative_rewards = dict(self._cumulative_rewards)
            new.terminations = dict(self.terminations)
            new.truncations = dict(self.truncations)
            new.infos = {a: {k: (list(v) if isinstance(v, list) else v) for k, v in i.items()}
                         for a, i in self.infos.items()}
        return new

    def reseed(self, seed):
        """Re-draw the chance nobody has seen yet; no agent's observation changes.
        ``seed``: any integer (reduced modulo ``2**63``)."""
        self._require_reset("reseed()")
        seed = as_seed(seed)
        self.spec.reseed(self._state, self.cfg, seed)
        if not self._over:
            self._k_mask(self._state, self._mask)

    def determinize(self, observer, seed):
        """A copy in which everything ``observer`` (agent name or seat) cannot see is
        re-drawn at random, consistently with what it has seen.  ``seed``: any integer."""
        self._require_reset("determinize()")
        seat = self._as_seat(observer)
        seed = as_seed(seed)
        new = self.clone()
        self.spec.determinize(new._state, new.cfg, seat, seed)
        if not new._over:
            new._k_mask(new._state, new._mask)
        return new

    def __str__(self):
        return self.spec.game_id
