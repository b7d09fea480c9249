"""``"az"``: a learned policy/value network guiding an information-set search, and
``"az_policy"``: the same network's policy played without search.

>>> import agents
>>> bot = agents.make("az", game="kingdomino_duel_v0")            # shipped network + search
>>> raw = agents.make("az_policy", game="kingdomino_duel_v0")     # its policy alone

The network of a game is ``agents/pretrained/models/az_<game>.npz`` with its record
``az_<game>.json`` (training config, search settings, curve, ``weights_sha256``), loaded and
hash-checked by :mod:`agents.pretrained`'s loader; ``path=`` plays another file (a training
checkpoint's export: ``<run>/generations/gen_NNN.npz``).  numpy and numba only: no torch.
The search is :mod:`agents.players.az_search` (PUCT over determinizations from the mover's
point of view, leaves valued by the network mixed with the game's heuristic); the network is
:mod:`agents.players.az_net`.  Training: :mod:`agents.learning.alphazero`.
"""
from __future__ import annotations

import json
import os
import time

import numpy as np

from agents.base import Agent, legal_actions, most_visited, register
from agents.players import az_net
from agents.players.az_search import Workspace, default_params, root_stats, search_functions
from agents.pretrained import AZ_PREFIX, MODELS_DIR, as_float32, checked_arrays, weights_sha256
from kernels.rng import new_generator

# Play-time budget of "az" when neither simulations nor seconds is given: simulations that
# fit in under 1 s a move on the 2-core reference machine with the game's shipped network,
# at the slowest of the positions its speed was measured on
# (benchmarks/results/az/<game>/figures.json, az_speed.per_position), rounded down, and at
# most 3,000: the tree takes (simulations + 2) x (actions + 1) nodes of 80 bytes.  The
# speed depends on the network, not only its sizes: the warm-started
# networks of Tiny Towns, Between Two Cities and Smartphone Inc. were also re-measured on the
# idle machine, and the slower of the two measurements counts.
DEFAULT_SIMULATIONS = {"kingdomino_duel_v0": 800, "tiny_towns_v0": 1300, "between_two_cities_v0": 1400,
                       "expancity_v0": 3000, "smartphone_inc_v0": 600}
FALLBACK_SIMULATIONS = 200     # a network of a game not in the table (path=)


def default_simulations(game):
    """``az``'s default simulations a move in ``game`` (:data:`DEFAULT_SIMULATIONS`)."""
    return DEFAULT_SIMULATIONS.get(game, FALLBACK_SIMULATIONS)

_NETWORKS = {}
_WARM = set()


def load_network(game=None, path=None, directory=MODELS_DIR):
    """``(arrays, record)`` of a network: the shipped one of ``game``, or the file ``path``
    (an ``.npz``; its record is the ``.json`` beside it when there is one, and then its hash
    is checked).  Arrays are float32 (int8/float16 forms widened).  Cached per file."""
    if path is None and game is None:
        raise ValueError("give game= (the shipped network) or path= (a network file)")
    key = (os.path.abspath(path) if path else None, game, os.path.abspath(directory))
    if key not in _NETWORKS:
        if path is None:
            arrays, record = checked_arrays(game, directory, AZ_PREFIX)
        else:
            if not os.path.exists(path):
                raise ValueError(f"path: no network file {path!r}")
            with np.load(path) as data:
                arrays = {name: data[name] for name in data.files}
            record = {}
            side = os.path.splitext(path)[0] + ".json"
            if os.path.exists(side):
                with open(side) as f:
                    record = json.load(f)
                if "weights_sha256" in record and weights_sha256(arrays) != record["weights_sha256"]:
                    raise ValueError(f"path: {path!r} does not match the hash in {side}")
        _NETWORKS[key] = ({k: v for k, v in as_float32(arrays).items() if k in az_net.NET_ARRAYS}, record)
    return _NETWORKS[key]


class _Network:
    """A network bound to one game and seat count: its arrays, search parameters, jitted
    functions and scratch."""

    def __init__(self, raw, arrays, record, overrides):
        spec, cfg = raw.spec, raw.cfg
        n_obs, n_actions, n_players, hidden = az_net.describe(arrays)
        # Fewer seats than the network was trained for are allowed: the policy head is per
        # action and the value head is relative to the mover (entry k: seat mover + k), so a
        # table of p seats reads its first p entries.  A two-seat network at a solo table
        # values the seat's standing against one rival (Smartphone Inc.: against Steve).
        if (n_obs, n_actions) != (cfg.obs_size, spec.num_actions) or cfg.num_players > n_players:
            raise ValueError(
                f"the network reads {n_obs} observation values, {n_actions} actions and values "
                f"for up to {n_players} seats; this game has {cfg.obs_size}, {spec.num_actions} "
                f"and {cfg.num_players} seats (the network's game options {record.get('options', {})})")
        for key in ("search", "play_search"):
            if not isinstance(record.get(key, {}), dict):
                raise ValueError(f"the network's record: {key!r} must be an object of search parameters")
        trained = dict(record.get("search", {}))
        if cfg.num_players == n_players:
            # at the table it was trained and measured at: the settings matches after
            # training chose to play it with, where they differ from the trained ones
            trained.update(record.get("play_search", {}))
        if n_players > 1 and cfg.num_players == 1:
            # solo values never entered this network's training: the game's own solo scale
            # (agents.players.az_search.SOLO_SCALES) values the search's leaves
            for name in ("solo_center", "solo_scale"):
                trained.pop(name, None)
        self.params = default_params(spec.game_id, **{**trained, **overrides})
        self.vector = self.params.vector()
        self.net = az_net.as_tuple(arrays)
        self.fns = search_functions(spec.kernel)
        self.ws = Workspace(cfg, spec.num_actions, hidden)
        self.sig = np.zeros(spec.num_actions)
        self.improved = np.zeros(spec.num_actions)
        self.game_id = spec.game_id
        self.shape = (cfg.obs_size, spec.num_actions, cfg.num_players)


class _AZBase(Agent):
    def __init__(self, game=None, path=None, seed=None, search_options=None):
        super().__init__(seed)
        if search_options is not None and not isinstance(search_options, dict):
            raise ValueError(f"search_options must be a dict or None, got {search_options!r}")
        self.game = game
        self.path = path
        self.search_options = dict(search_options or {})
        if game is not None or path is not None:
            self.arrays, self.record = load_network(game, path)
        self.network = None

    def bind(self, env):
        """Bind the network to ``env``'s game now (``ValueError`` when the game has no
        network, or its options give other sizes than the network's)."""
        self._bind(env)

    def _bind(self, env):
        raw = env.unwrapped
        game = env.metadata.get("name")
        if self.game is None and self.path is None:
            self.game = game
            self.arrays, self.record = load_network(game)
        elif self.game is not None and game != self.game:
            raise ValueError(f"this agent plays the {self.game} network, not {game!r}")
        shape = (raw.cfg.obs_size, raw.spec.num_actions, raw.cfg.num_players)
        if self.network is None or self.network.shape != shape or self.network.game_id != game:
            self.network = _Network(raw, self.arrays, self.record, self.search_options)
        return raw, self.network


@register("az_policy")
class AZPolicyAgent(_AZBase):
    """The learned network's policy without search: the most likely legal action
    (``deterministic``) or a draw from the masked softmax at ``temperature``.  It reads the
    observation and greedy's one-ply action values, both functions of what the seat knows."""

    def __init__(self, game=None, path=None, deterministic=True, temperature=1.0, seed=None,
                 search_options=None):
        super().__init__(game, path, seed, search_options)
        if not (isinstance(temperature, (int, float)) and temperature > 0):
            raise ValueError(f"temperature must be > 0, got {temperature!r}")
        self.deterministic = bool(deterministic)
        self.temperature = float(temperature)

    def logits(self, env, agent):
        """Masked logits (``-inf`` off the legal actions) of ``agent`` (the agent to move)."""
        raw, nw = self._bind(env)
        obs = env.observe(agent)
        mask = np.ascontiguousarray(obs["action_mask"], dtype=np.int8)
        observation = np.ascontiguousarray(obs["observation"], dtype=np.float32)
        values = (np.asarray(raw.observe_action_values(agent), dtype=np.float32)
                  if nw.params.use_action_values else np.zeros(mask.size, np.float32))
        ws = nw.ws
        az_net.forward(nw.net, observation, values, mask, nw.params.value_scale, ws.h1, ws.h2,
                       ws.logits, ws.value)
        return ws.logits.astype(np.float64)

    def act(self, env, agent) -> int:
        legal = legal_actions(env, agent)
        if legal.size == 1:
            return int(legal[0])
        logits = self.logits(env, agent)
        if not self.deterministic:
            logits = logits / self.temperature + self.rng.gumbel(size=logits.shape)
        return int(np.argmax(logits))

    def __repr__(self):
        return f"AZPolicyAgent(game={self.game!r}, path={self.path!r}, deterministic={self.deterministic})"


@register("az")
class AZAgent(_AZBase):
    """The learned network guiding an information-set search (PUCT over determinizations
    drawn from the mover's point of view; :mod:`agents.players.az_search`).

    ``simulations``: simulations a move (default: :func:`default_simulations` of the game,
    under 1 s a move here); ``seconds``: a time budget a move instead.  ``root``: ``"puct"`` (default)
    plays the most visited root action; ``"gumbel"`` runs Gumbel sequential halving over
    ``gumbel_m`` sampled candidates, as self-play does (``simulations`` only).
    ``search_options``: overrides of :class:`agents.players.az_search.SearchParams` (e.g.
    ``{"heuristic_mix": 0.3, "c_puct": 2.0}``); the network's record gives the rest (its
    ``play_search``, where matches after training chose other settings, over the ``search``
    it was trained with; ``play_search`` only at a table of the network's own seat count,
    where the matches were played).
    """

    CHUNK = 64   # simulations per jitted call between clock reads

    def __init__(self, game=None, path=None, simulations=None, seconds=None, root="puct", gumbel_m=16,
                 seed=None, search_options=None):
        super().__init__(game, path, seed, search_options)
        if root not in ("puct", "gumbel"):
            raise ValueError(f"root must be 'puct' or 'gumbel', got {root!r}")
        for name, value in (("simulations", simulations), ("gumbel_m", gumbel_m)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                                      or value < 1):
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
            raise ValueError(f"seconds must be a number > 0 or None, got {seconds!r}")
        if root == "gumbel" and seconds is not None:
            raise ValueError("root='gumbel' runs a fixed number of simulations: give simulations, not seconds")
        self.simulations = simulations      # None with seconds None: the game's default, at play
        self.seconds = seconds
        self.root = root
        self.gumbel_m = int(gumbel_m)
        self.last_simulations = 0

    def _simulations(self, nw):
        """The simulations of a move: the given number; None under a time budget; else the
        default of the network's game."""
        if self.simulations is not None or self.seconds is not None:
            return self.simulations
        return default_simulations(nw.game_id)

    def warm_up(self, env):
        """Compile the search for ``env``'s game now (once per process, with a generator of
        its own: this agent's stream is untouched), so a move's clock excludes compilation."""
        raw, nw = self._bind(env)
        if raw.current_seat() < 0 or (raw.spec.kernel.__name__, "az") in _WARM:
            return
        ws = nw.ws
        ws.grow(4 * (raw.spec.num_actions + 1))
        nw.fns.puct(raw.kernel_state, raw.current_seat(), 2, 0, nw.net, nw.vector, new_generator(0),
                    ws.scratch(), ws.work.args(), *ws.tree())
        _WARM.add((raw.spec.kernel.__name__, "az"))

    def search(self, env, agent):
        """Search from ``agent``'s information set; ``{action: (visits, summed value)}`` of the
        root's children (PUCT root) -- the move is the most visited legal one."""
        raw, nw = self._bind(env)
        seat = raw.possible_agents.index(agent)
        ws = nw.ws
        root = raw.kernel_state
        sims = self._simulations(nw)
        need = ((sims or self.CHUNK) + 2) * (raw.spec.num_actions + 1)
        ws.grow(need)
        n_nodes = 0
        done = 0
        deadline = None if self.seconds is None else time.perf_counter() + float(self.seconds)
        while True:
            k = self.CHUNK if sims is None else min(self.CHUNK, sims - done)
            if k <= 0:
                break
            if ws.capacity < n_nodes + (k + 2) * (raw.spec.num_actions + 1):
                ws.grow(2 * ws.capacity + k * (raw.spec.num_actions + 1))
            n_nodes = nw.fns.puct(root, seat, k, n_nodes, nw.net, nw.vector, self.gen, ws.scratch(),
                                  ws.work.args(), *ws.tree())
            done += k
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_simulations = done
        return root_stats(ws)

    def act(self, env, agent) -> int:
        legal = legal_actions(env, agent)
        if legal.size == 1:
            self.last_simulations = 0
            return int(legal[0])
        if self.root == "gumbel":
            raw, nw = self._bind(env)
            ws = nw.ws
            sims = self._simulations(nw)
            ws.grow((sims + 2) * (raw.spec.num_actions + 1))
            self.last_simulations = sims
            return int(nw.fns.gumbel(raw.kernel_state, raw.possible_agents.index(agent), sims,
                                     self.gumbel_m, nw.net, nw.vector, self.gen, ws.scratch(),
                                     ws.work.args(), *ws.tree(), nw.improved, nw.sig))
        return most_visited(legal, self.search(env, agent))

    def __repr__(self):
        budget = f"seconds={self.seconds!r}" if self.seconds is not None else f"simulations={self.simulations!r}"
        return f"AZAgent(game={self.game!r}, path={self.path!r}, {budget}, root={self.root!r})"
