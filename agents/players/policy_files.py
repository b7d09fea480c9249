"""Policy files that load without unpickling: ``policy.json`` beside a model's weights.

A stable-baselines3 ``.zip`` keeps part of its metadata (the policy class, the spaces, the
learning-rate schedule) as pickled Python, and ``MaskablePPO.load`` unpickles it before
checking anything: loading a crafted file runs whatever code it holds.  So cityzoo never
unpickles a policy file unless told to (``trust_pickle=True``, ``--trust-pickle`` on the
command lines).  Instead ``train.py`` writes, next to its models, ``policy.json``: what
it takes to build the network again --

``format``          ``"cityzoo-policy"``; ``version``: 1
``game``            the game id; ``rules``: the revision of its rules trained on (a record:
                    a policy plays a revised game as well as it can)
``options``         the game options of the training env (the observation's layout)
``network``         ``"mlp"``, ``"expancity"``, ``"board"`` or ``"values"`` (the ``--policy``
                    names of ``train.py``: :mod:`agents.players.networks`)
``policy_kwargs``   ``net_arch`` and ``features_extractor_kwargs`` of the network

-- and the weights are read from the zip's ``policy.pth`` with ``torch.load(...,
weights_only=True)``, which accepts tensors and plain containers only.  The numpy actors
(``.npz``, :func:`agents.players.policy.export_numpy_actor`) are read with
``numpy.load(allow_pickle=False)`` and need no ``policy.json``.

A model's ``policy.json`` is looked for in the model's directory, then in its parent (a
run's ``checkpoints/`` and ``pool/`` share the run's).  A model saved without one (a run of
an older ``train.py``) is converted once, by unpickling it -- only for a file you trust::

    python -m agents.players.policy convert runs/kingdomino_duel_v0/final_model.zip --trust-pickle
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import zipfile

from envs import safe_json

CONFIG_NAME = "policy.json"
FORMAT, VERSION = "cityzoo-policy", 1
# --policy name -> class name in agents.players.networks (None: sb3-contrib's MLP policy)
NETWORKS = {"mlp": None, "expancity": "ExpancityPolicy", "board": "BoardPolicy",
            "values": "ActionValuesPolicy"}
POLICY_KWARGS = ("net_arch", "features_extractor_kwargs")
MAX_CONFIG_BYTES = 1 << 20

CONVERT = "python -m agents.players.policy convert {path} --trust-pickle"
WHY = ("a stable-baselines3 zip stores part of its metadata as pickled Python, and unpickling "
       "a crafted file runs its code")


def network_class(name):
    """The policy class of a ``network`` name (:data:`NETWORKS`)."""
    if name not in NETWORKS:
        raise ValueError(f"network must be one of {sorted(NETWORKS)}, got {name!r}")
    if NETWORKS[name] is None:
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        return MaskableActorCriticPolicy
    from agents.players import networks
    return getattr(networks, NETWORKS[name])


def network_name(policy):
    """The ``network`` name of a torch policy object (its exact class)."""
    for name in NETWORKS:
        if type(policy) is network_class(name):
            return name
    raise ValueError(f"{type(policy).__name__} is not one of cityzoo's networks {sorted(NETWORKS)}")


# ------------------------------------------------------------------ config
def _plain(value):
    """``value`` as JSON would give it back (tuples become lists)."""
    return json.loads(json.dumps(value, allow_nan=False))


def make_config(game, options, network, policy_kwargs):
    """A checked ``policy.json`` dict (see the module docstring)."""
    from envs.registry import spec_for

    config = {"format": FORMAT, "version": VERSION, "game": game,
              "rules": spec_for(game).rules_revision if isinstance(game, str) else None,
              "options": _plain({k: v for k, v in dict(options or {}).items() if k != "render_mode"}),
              "network": network,
              "policy_kwargs": _plain({k: v for k, v in dict(policy_kwargs or {}).items()
                                       if k in POLICY_KWARGS})}
    return check_config(config)


def config_from_model(model, game, options):
    """The ``policy.json`` dict of an sb3 ``model`` (or its policy) trained on ``game`` with
    the env ``options``."""
    policy = getattr(model, "policy", model)
    kwargs = getattr(model, "policy_kwargs", None) or {}
    return make_config(game, options, network_name(policy), kwargs)


def check_config(config, where="the policy config"):
    """``config`` if it is a well-formed ``policy.json``; else ``ValueError`` naming the field."""
    from envs.registry import GAMES

    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise ValueError(f"{where} is not a cityzoo policy config (its 'format' is not {FORMAT!r})")
    version = config.get("version")
    if version != VERSION or isinstance(version, bool):
        raise ValueError(f"{where}: 'version' {version!r} is not {VERSION}, the version this cityzoo reads")
    game = config.get("game")
    if not isinstance(game, str) or game not in GAMES:
        raise ValueError(f"{where}: 'game' must be one of {list(GAMES)}, got {game!r:.80}")
    rules = config.get("rules", 1)   # recorded; a policy still plays a revised game
    if not isinstance(rules, int) or isinstance(rules, bool) or rules < 1:
        raise ValueError(f"{where}: 'rules' must be a rules revision (an integer >= 1), got {rules!r:.20}")
    if not isinstance(config.get("options"), dict):
        raise ValueError(f"{where}: 'options' must be an object of game options")
    safe_json.check_plain(config["options"], f"{where}: 'options'", 8)
    if config.get("network") not in NETWORKS:
        raise ValueError(f"{where}: 'network' must be one of {sorted(NETWORKS)}, "
                         f"got {config.get('network')!r:.80}")
    kwargs = config.get("policy_kwargs")
    if not isinstance(kwargs, dict) or set(kwargs) - set(POLICY_KWARGS):
        raise ValueError(f"{where}: 'policy_kwargs' must be an object with at most the keys "
                         f"{list(POLICY_KWARGS)}")
    safe_json.check_plain(kwargs, f"{where}: 'policy_kwargs'", 8)
    extractor = kwargs.get("features_extractor_kwargs", {})
    if not isinstance(extractor, dict):
        raise ValueError(f"{where}: 'policy_kwargs.features_extractor_kwargs' must be an object")
    return config


def write_config(directory, config):
    """Write ``config`` as ``directory/policy.json`` (atomically); returns the path."""
    check_config(config)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, CONFIG_NAME)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(config, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return path


def read_config(path):
    """The checked config of a ``policy.json`` file (``ValueError`` naming it otherwise)."""
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read the policy config {str(path)!r}: {exc.strerror}") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise ValueError(f"{str(path)!r} is larger than a policy config can be")
    return check_config(safe_json.loads(text, repr(str(path)), 16), repr(str(path)))


def find_config(model_path):
    """The ``policy.json`` of ``model_path``: in its directory, else in its parent; or None."""
    folder = os.path.dirname(os.path.abspath(model_path))
    for directory in (folder, os.path.dirname(folder)):
        candidate = os.path.join(directory, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
    return None


# ------------------------------------------------------------------ network
def spaces(config):
    """``(observation space, action space)`` of the config's game and options: the flat view
    the policy was trained on.  Options naming files are refused (the config came with the
    policy file, from anyone)."""
    import envs
    from envs.options import refuse_file_options
    from envs.registry import spec_for
    from envs.shell import flat_observation_space

    options = dict(config["options"])
    refuse_file_options(spec_for(config["game"]).options, options, "a policy config",
                        "make the env yourself and pass the policy in with model=")
    try:
        env = envs.make(config["game"], **options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the policy config's options do not make a {config['game']} game: {exc}") from None
    first = env.possible_agents[0]
    return flat_observation_space(env.observation_space(first)), env.action_space(first)


def build_policy(config, device="cpu"):
    """A new (untrained) torch policy of the architecture ``config`` describes."""
    observation_space, action_space = spaces(config)
    cls = network_class(config["network"])
    kwargs = dict(config["policy_kwargs"])
    try:
        policy = cls(observation_space, action_space, lambda _: 0.0, **kwargs)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the policy config's network does not build: {exc}") from None
    return policy.to(device)


def _torch_load(archive, name, where):
    import pickle

    import torch

    try:
        with archive.open(name) as f:
            data = f.read()
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, ValueError, EOFError, AttributeError,
            TypeError, KeyError, zipfile.BadZipFile) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{where}: {name} holds more than weights (tensors and plain "
                         f"containers), so it is not read: {first}") from None


class LoadedPolicy:
    """A policy read from an sb3 zip without unpickling: ``policy`` (the torch policy, weights
    loaded, in eval mode), ``config``, ``optimizer_state`` (or None), ``num_timesteps``
    and ``n_updates`` (from the zip's JSON metadata, 0 when absent)."""

    def __init__(self, policy, config, optimizer_state, num_timesteps, n_updates):
        self.policy = policy
        self.config = config
        self.optimizer_state = optimizer_state
        self.num_timesteps = num_timesteps
        self.n_updates = n_updates


def _plain_field(data, name):
    value = data.get(name, 0) if isinstance(data, dict) else 0
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def load_zip(path, device="cpu", config=None):
    """A :class:`LoadedPolicy` from an sb3 ``.zip``: the architecture from ``config`` (a
    ``policy.json`` path or dict; default: :func:`find_config`), the weights from the zip's
    ``policy.pth`` read with ``weights_only=True``.  Nothing in the zip is unpickled: its
    pickled metadata is never read.  ``ValueError`` explains a missing config."""
    path = str(path)
    if config is None:
        found = find_config(path)
        if found is None:
            raise ValueError(
                f"{path!r} has no {CONFIG_NAME} (in its directory or the one above) to build its "
                f"network from, and cityzoo does not unpickle policy files by default: {WHY}. "
                f"train.py writes {CONFIG_NAME} beside its models; for a model you trust, convert "
                f"it once with: {CONVERT.format(path=path)} (or pass trust_pickle=True, on the "
                "command line --trust-pickle)")
        config = read_config(found)
    elif not isinstance(config, dict):
        config = read_config(config)
    else:
        config = check_config(config)
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"cannot read the policy file {path!r}: {exc}") from None
    with archive:
        names = set(archive.namelist())
        if "policy.pth" not in names:
            raise ValueError(f"{path!r} is not a stable-baselines3 model (no policy.pth)")
        state = _torch_load(archive, "policy.pth", repr(path))
        optimizer = (_torch_load(archive, "policy.optimizer.pth", repr(path))
                     if "policy.optimizer.pth" in names else None)
        data = {}
        if "data" in names:   # plain JSON; its pickled entries are left as text
            try:
                data = json.loads(archive.read("data").decode("utf-8"))
            except (ValueError, RecursionError, UnicodeDecodeError):
                data = {}
    if not isinstance(state, dict):
        raise ValueError(f"{path!r}: policy.pth is not a state dict")
    policy = build_policy(config, device)
    try:
        policy.load_state_dict(state)
    except (RuntimeError, TypeError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise ValueError(f"the weights of {path!r} do not fit the network of its {CONFIG_NAME} "
                         f"({config['network']}, {config['game']}): {first}") from None
    policy.set_training_mode(False)
    return LoadedPolicy(policy, config, optimizer, _plain_field(data, "num_timesteps"),
                        _plain_field(data, "_n_updates"))
