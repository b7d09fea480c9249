"""The ``"policy"`` agent: plays a masked policy saved by ``train.py`` (sb3-contrib MaskablePPO).

Policy files are read without unpickling (:mod:`agents.players.policy_files`): a ``.zip`` needs its
run's ``policy.json``, unless ``trust_pickle=True`` is given for a file you trust.

>>> import agents
>>> bot = agents.make("policy", path="runs/kingdomino_duel_v0/final_model.zip")
>>> action = bot.act(env, env.agent_selection)

It reads ``env.observe(agent)`` (the flat ``"observation"`` vector and the ``"action_mask"``,
plus the ``"action_values"`` for a policy trained with them: :func:`agents.base.policy_observation`)
and plays the most likely legal action (``deterministic=True``, the default) or samples
one from the masked policy distribution with its own seeded generator
(``deterministic=False``).  torch, stable-baselines3 and sb3-contrib are imported only
when a policy is loaded, so ``import agents`` works without them (``pip install
cityzoo[train]``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from agents.base import Agent, policy_observation, register
from agents.players import policy_files   # light: the file format, torch only when loading


_MODEL_CACHE = {}
_MODEL_CACHE_SIZE = 16


def load_model(path, device="cpu", trust_pickle=False, config=None):
    """The model saved at ``path`` (a ``.zip`` of ``train.py`` or ``model.save``), read
    without unpickling: the network from its ``policy.json`` (``config``: another one, a
    path or a dict), the weights with ``torch.load(weights_only=True)``; an object with
    ``.policy`` (:class:`agents.players.policy_files.LoadedPolicy`).  ``trust_pickle=True`` loads
    the whole MaskablePPO model with ``MaskablePPO.load`` instead, which unpickles the zip's
    metadata and so runs any code a crafted file holds: only for files you trust
    (:mod:`agents.players.policy_files` says why and how to convert an old file once).

    Loaded models are cached by (path, modification time, device, how): tournaments build
    a fresh agent for every game, and the agents only read the model."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:   # pragma: no cover - depends on the install
        raise ImportError("the policy agent needs the training extras: pip install 'cityzoo[train]' "
                          "(torch, stable-baselines3, sb3-contrib)") from exc

    path = str(path)
    if not os.path.exists(path) and os.path.exists(path + ".zip"):
        path += ".zip"
    if not os.path.isfile(path):
        raise ValueError(f"no policy file {path!r}")
    if not trust_pickle and config is None:
        config = policy_files.find_config(path)
    config_key = (json.dumps(config, sort_keys=True) if isinstance(config, dict) else
                  None if config is None else (os.path.abspath(config), os.path.getmtime(config)))
    key = (os.path.abspath(path), os.path.getmtime(path), str(device), bool(trust_pickle), config_key)
    model = _MODEL_CACHE.get(key)
    if model is None:
        if trust_pickle:
            model = MaskablePPO.load(path, device=device)
        else:
            model = policy_files.load_zip(path, device=device, config=config)
        if len(_MODEL_CACHE) >= _MODEL_CACHE_SIZE:
            _MODEL_CACHE.pop(next(iter(_MODEL_CACHE)))
        _MODEL_CACHE[key] = model
    return model


def _relu(x):
    return np.maximum(x, 0.0)


def _numpy_actor(policy):
    """``[(W, b, activation), ...]`` of a flatten + MLP actor + linear head, or None."""
    try:
        import torch.nn as nn
        from stable_baselines3.common.torch_layers import FlattenExtractor
    except ImportError:   # pragma: no cover
        return None
    acts = {nn.Tanh: np.tanh, nn.ReLU: _relu}
    extractor = getattr(policy, "pi_features_extractor", None)
    mlp = getattr(getattr(policy, "mlp_extractor", None), "policy_net", None)
    head = getattr(policy, "action_net", None)
    if not isinstance(extractor, FlattenExtractor) or mlp is None or not isinstance(head, nn.Linear):
        return None
    layers = []
    for module in list(mlp) + [head]:
        if isinstance(module, nn.Linear):
            layers.append([module.weight.detach().cpu().numpy().astype(np.float32),
                           module.bias.detach().cpu().numpy().astype(np.float32), None])
        elif type(module) in acts and layers and layers[-1][2] is None:
            layers[-1][2] = acts[type(module)]
        else:
            return None
    return [tuple(layer) for layer in layers]


_ACTIVATIONS = {"tanh": np.tanh, "relu": _relu}


def export_numpy_actor(policy, path):
    """Write the actor of ``policy`` (a MaskablePPO model or policy with a flat MLP actor) to
    ``path`` as a small ``.npz`` that :class:`PolicyAgent` plays without torch.  Written to a
    temporary file first and renamed, so readers never see a partial file."""
    policy = getattr(policy, "policy", policy)
    layers = _numpy_actor(policy)
    if layers is None:
        raise ValueError("only sb3 MLP actors (Tanh/ReLU) can be exported to numpy")
    names = {np.tanh: "tanh", _relu: "relu"}
    arrays = {"n_obs": np.array(int(np.prod(policy.observation_space.shape))),
              "n_actions": np.array(int(policy.action_space.n)),
              "num_layers": np.array(len(layers))}
    for i, (w, b, act) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        arrays[f"act{i}"] = np.array(names.get(act, ""))
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
    os.replace(tmp, path)


def numpy_actor_layers(arrays):
    """``(layers, n_obs, n_actions)`` from the arrays :func:`export_numpy_actor` writes (any
    mapping of them, an open ``.npz`` included); the weights are computed in float32."""
    layers = []
    for i in range(int(arrays["num_layers"])):
        act = str(arrays[f"act{i}"])
        layers.append((np.asarray(arrays[f"w{i}"], dtype=np.float32),
                       np.asarray(arrays[f"b{i}"], dtype=np.float32), _ACTIVATIONS.get(act)))
    return layers, int(arrays["n_obs"]), int(arrays["n_actions"])


def load_numpy_actor(path):
    """``(layers, n_obs, n_actions)`` from a file written by :func:`export_numpy_actor`, read
    with ``allow_pickle=False`` (an array that needs unpickling is refused, not run)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return numpy_actor_layers(data)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"{str(path)!r} is not a numpy policy file that loads without unpickling "
                         f"(a numpy actor of train.py): {exc}") from None


@register("policy")
class PolicyAgent(Agent):
    """Plays a trained MaskablePPO policy.

    Parameters
    ----------
    path:
        A model saved by ``train.py`` (``final_model.zip``, a checkpoint: MaskablePPO ``.zip``,
        loaded with its run's ``policy.json`` and without unpickling) or a numpy actor
        (``final_model.npz``, a self-play pool snapshot: played without torch).
    model:
        An in-memory MaskablePPO model (or its policy) instead of ``path``; the agent then
        follows the model as it keeps training.
    deterministic:
        ``True``: the most likely legal action; ``False``: sample from the masked distribution.
    seed:
        Seed of the sampling generator (used only when ``deterministic=False``).
    device:
        torch device for loading (``"cpu"``).
    trust_pickle:
        ``True`` loads a ``.zip`` with ``MaskablePPO.load``, which unpickles its metadata and
        so runs any code a crafted file holds -- only for a file you trust, saved without
        ``policy.json``; see :mod:`agents.players.policy_files`.  Default ``False``: never unpickle.
    config:
        The ``policy.json`` (path or dict) of a ``.zip``, when it is not beside the file.
    """

    def __init__(self, path=None, model=None, deterministic=True, seed=None, device="cpu",
                 temperature=1.0, trust_pickle=False, config=None):
        if (path is None) == (model is None):
            raise ValueError("give exactly one of path= or model=")
        self.path = None if path is None else str(path)
        self.deterministic = bool(deterministic)
        self.temperature = float(temperature)
        super().__init__(seed)
        self._layers = None
        if model is None and self.path.endswith(".npz"):
            self.model = self.policy = None
            self._layers, self.n_obs, self.n_actions = load_numpy_actor(self.path)
            return
        self.model = (load_model(path, device=device, trust_pickle=trust_pickle, config=config)
                      if model is None else model)
        self.policy = getattr(self.model, "policy", self.model)
        self.n_obs = int(np.prod(self.policy.observation_space.shape))
        self.n_actions = int(self.policy.action_space.n)
        self.refresh()

    def refresh(self):
        """Copy the actor's weights for the fast numpy forward pass (done at construction;
        call again if the model given with ``model=`` has trained since).  Architectures
        other than sb3's flat MLP actor use torch at every call instead."""
        if self.policy is not None:
            self._layers = _numpy_actor(self.policy)

    def logits(self, observation, mask):
        """Masked action logits (``-inf`` on illegal actions) for one observation."""
        obs = np.asarray(observation, dtype=np.float32).reshape(-1)
        mask = np.asarray(mask).astype(bool, copy=False)
        if obs.size != self.n_obs or mask.size != self.n_actions:
            raise ValueError(f"this policy expects {self.n_obs} observation values and "
                             f"{self.n_actions} actions, the game gives {obs.size} and {mask.size}: "
                             "was it trained on this game with the same options?")
        if self._layers is not None:
            x = obs
            for weight, bias, act in self._layers:
                x = weight @ x + bias
                if act is not None:
                    x = act(x)
            logits = x.astype(np.float64)
            logits[~mask] = -np.inf
            return logits
        import torch

        policy = self.policy
        with torch.no_grad():
            t = torch.as_tensor(obs, device=policy.device).reshape(1, -1)
            features = policy.extract_features(t, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            logits = policy.action_net(latent)[0].cpu().numpy().astype(np.float64)
        logits[~mask] = -np.inf
        return logits

    def batch_logits(self, observations, masks):
        """Masked logits ``(B, num_actions)`` for a batch of observations ``(B, obs_size)``."""
        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks).astype(bool, copy=False)
        if obs.ndim != 2 or obs.shape[1] != self.n_obs or masks.shape != (obs.shape[0], self.n_actions):
            raise ValueError(f"this policy expects observations (B, {self.n_obs}) and masks "
                             f"(B, {self.n_actions}), got {obs.shape} and {masks.shape}")
        if self._layers is not None:
            x = obs
            for weight, bias, act in self._layers:
                x = x @ weight.T + bias
                if act is not None:
                    x = act(x)
            logits = x.astype(np.float64)
        else:
            import torch
            policy = self.policy
            with torch.no_grad():
                t = torch.as_tensor(obs, device=policy.device)
                features = policy.extract_features(t, policy.pi_features_extractor)
                latent = policy.mlp_extractor.forward_actor(features)
                logits = policy.action_net(latent).cpu().numpy().astype(np.float64)
        logits[~masks] = -np.inf
        return logits

    def act_batch(self, observations, masks):
        """One action per row: the most likely legal one, or (``deterministic=False``) one
        sampled from the masked distribution -- how the batched games
        (:class:`envs.vector.VecSeatGame`) call a frozen policy once for many games."""
        logits = self.batch_logits(observations, masks)
        if not np.isfinite(logits.max(axis=1)).all():
            raise ValueError("a row of masks has no legal action")
        if not self.deterministic:   # Gumbel-max: a draw from softmax(logits / temperature)
            logits = logits / max(self.temperature, 1e-8) + self.rng.gumbel(size=logits.shape)
        return np.argmax(logits, axis=1)

    def action_probabilities(self, observation, mask):
        logits = self.logits(observation, mask) / max(self.temperature, 1e-8)
        z = np.exp(logits - logits.max())
        return z / z.sum()

    def act(self, env, agent) -> int:
        observation, mask = policy_observation(env, agent, self.n_obs)
        mask = mask.astype(bool)
        if not mask.any():
            raise ValueError(f"{agent} has no legal action (is it the agent to move?)")
        if self.deterministic:
            return int(np.argmax(self.logits(observation, mask)))
        p = self.action_probabilities(observation, mask)
        return int(self.rng.choice(p.size, p=p))

    def __repr__(self):
        src = self.path if self.path is not None else "<model>"
        return f"PolicyAgent(path={src!r}, deterministic={self.deterministic})"


SNAPSHOT_PREFIX = "snapshot_"


def snapshot_steps(path):
    """The training step count encoded in a snapshot file name (``snapshot_<steps>.zip``)."""
    name = os.path.basename(str(path))
    try:
        return int(name[len(SNAPSHOT_PREFIX):].split(".")[0])
    except ValueError:
        return -1


class SnapshotPool:
    """Self-play opponents drawn from frozen snapshots of the learner saved in ``directory``.

    An instance is a picklable opponent factory for :class:`envs.SingleAgentEnv`: it is
    called at every ``reset`` with the env's generator and returns one agent per other seat.
    The snapshots are ``snapshot_<steps>.npz`` numpy actors (or MaskablePPO ``.zip``) written
    atomically by ``train.py``;
    the directory is re-listed at every call, so env worker processes see new snapshots
    without any message passing.  Loaded snapshots are cached (``max_cached`` newest).

    Each seat independently gets: with probability ``baseline_prob`` a baseline agent
    (names in ``baselines``, e.g. ``("random", "greedy")``); otherwise the newest snapshot
    with probability ``latest_prob``, else one of the ``window`` newest, uniformly; while
    the directory holds no snapshot, the ``fallback`` agent.  Snapshots play sampled
    (``deterministic=False``) for variety, each from a generator seeded with its step count.
    """

    def __init__(self, directory, num_opponents=1, latest_prob=0.5, window=20, baselines=(),
                 baseline_prob=0.0, deterministic=False, fallback="random", max_cached=8,
                 torch_threads=1):
        self.directory = str(directory)
        self.num_opponents = int(num_opponents)
        self.latest_prob = float(latest_prob)
        self.window = max(1, int(window))
        self.baselines = tuple(baselines)
        self.baseline_prob = float(baseline_prob) if self.baselines else 0.0
        self.deterministic = bool(deterministic)
        self.fallback = fallback
        self.max_cached = max(1, int(max_cached))
        self.torch_threads = torch_threads
        self._cache = {}
        self._baseline_agents = {}

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_cache"] = {}
        state["_baseline_agents"] = {}
        return state

    def snapshots(self):
        """Snapshot paths, oldest first."""
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return []
        files = [os.path.join(self.directory, n) for n in names
                 if n.startswith(SNAPSHOT_PREFIX) and n.endswith((".npz", ".zip"))]
        return sorted(files, key=snapshot_steps)

    def _baseline(self, name):
        if name not in self._baseline_agents:
            from agents.base import make
            self._baseline_agents[name] = make(name)
        return self._baseline_agents[name]

    def _load(self, path):
        agent = self._cache.get(path)
        if agent is None:
            if self.torch_threads and not path.endswith(".npz"):
                import torch
                torch.set_num_threads(int(self.torch_threads))
            # Seeded by the snapshot: batched games ask one agent for many games at once
            # and never reseed it, so an unseeded one would make runs irreproducible.
            agent = PolicyAgent(path=path, deterministic=self.deterministic,
                                seed=max(snapshot_steps(path), 0))
            self._cache[path] = agent
            while len(self._cache) > self.max_cached:
                oldest = min(self._cache, key=snapshot_steps)
                del self._cache[oldest]
        return agent

    def __call__(self, rng):
        files = self.snapshots()
        out = []
        for _ in range(self.num_opponents):
            if self.baseline_prob and rng.random() < self.baseline_prob:
                out.append(self._baseline(self.baselines[int(rng.integers(len(self.baselines)))]))
            elif not files:
                out.append(self._baseline(self.fallback))
            elif rng.random() < self.latest_prob:
                out.append(self._load(files[-1]))
            else:
                recent = files[-self.window:]
                out.append(self._load(recent[int(rng.integers(len(recent)))]))
        return out

    def __repr__(self):
        return (f"SnapshotPool({self.directory!r}, latest_prob={self.latest_prob}, "
                f"baselines={self.baselines}, baseline_prob={self.baseline_prob})")


# ------------------------------------------------------------------ convert
# An sb3 zip saved without policy.json (an older train.py run) gets one, by unpickling it once.
def _run_summary(model_path):
    folder = os.path.dirname(os.path.abspath(model_path))
    for directory in (folder, os.path.dirname(folder)):
        candidate = os.path.join(directory, "summary.json")
        if os.path.isfile(candidate):
            with open(candidate) as f:
                return json.load(f)
    return None


def convert(path, game=None, options=None, trust_pickle=False):
    """Write the ``policy.json`` (and, for a flat MLP, the numpy actor ``<name>.npz``) of an
    sb3 zip saved without one, by unpickling it once: ``trust_pickle`` must be True, as a
    crafted file runs code when unpickled.  ``game``/``options`` default to the run's
    ``summary.json`` (in the model's directory or the one above).  Returns the paths written."""
    if not trust_pickle:
        raise ValueError(f"converting {str(path)!r} unpickles it ({policy_files.WHY}): pass trust_pickle=True "
                         "(--trust-pickle) for a file you trust")
    model = load_model(path, trust_pickle=True)
    summary = _run_summary(path) or {}
    game = game or summary.get("game")
    if game is None:
        raise ValueError(f"which game was {str(path)!r} trained on? pass --game (no summary.json found)")
    if options is None:
        options = dict(summary.get("options") or {})
    options = dict(options)
    network = policy_files.network_name(model.policy)
    if network == "values":   # that network reads the env's action values after the observation
        options.setdefault("action_values", True)
    config = policy_files.config_from_model(model, game, options)
    space = policy_files.spaces(config)[0]
    trained = model.policy.observation_space
    if space.shape != trained.shape or not (np.array_equal(space.low, trained.low)
                                            and np.array_equal(space.high, trained.high)):
        raise ValueError(f"{game} with the options {options} does not give the observation "
                         f"{str(path)!r} was trained on: pass its --game and --env-options")
    written = [policy_files.write_config(os.path.dirname(os.path.abspath(str(path))), config)]
    npz = os.path.splitext(str(path))[0] + ".npz"
    try:
        export_numpy_actor(model, npz)
        written.append(npz)
    except ValueError:   # a structured network: its zip and policy.json are what loads it
        pass
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m agents.players.policy",
        description="Convert a policy saved without policy.json (an older train.py run) so "
                    "that it loads without unpickling.")
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", help="unpickle a trusted sb3 zip once and write its policy.json")
    conv.add_argument("path", help="the model's .zip")
    conv.add_argument("--trust-pickle", action="store_true", required=True,
                      help="required: converting unpickles the file, which runs any code it holds")
    conv.add_argument("--game", default=None, help="the game id (default: from the run's summary.json)")
    conv.add_argument("--env-options", default=None,
                      help="JSON: the game options of training (default: from summary.json)")
    args = parser.parse_args(argv)
    try:
        options = None if args.env_options is None else json.loads(args.env_options)
        if options is not None and not isinstance(options, dict):
            raise ValueError("--env-options must be a JSON object")
        written = convert(args.path, game=args.game, options=options, trust_pickle=args.trust_pickle)
    except (ValueError, json.JSONDecodeError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    print("wrote " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
