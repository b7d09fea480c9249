"""The ``"pretrained"`` agent: the trained policy shipped with the package for a game.

>>> import agents
>>> bot = agents.make("pretrained", game="smartphone_inc_v0")
>>> action = bot.act(env, env.agent_selection)

Each game's policy is a numpy file ``agents/pretrained/models/<game>.npz`` (the actor's
weights only, played with numpy alone: no torch) next to ``<game>.json``, the record of
how it was made: the exact training config (fields of
:class:`agents.learning.training.config.TrainConfig`, resolved), the fields that differ from
the game's recipe (:data:`agents.learning.training.recipes.GAME_DEFAULTS`: ``overridden``), the game options, the
final evaluation of the run, library versions, and ``weights_sha256``, a hash of the arrays
themselves (names, dtypes, shapes and bytes; a zip archive's timestamps would make a file
hash change at every export).  The agent reads only ``env.observe(agent)``, as a player
who sees the table (a policy trained with action values reads them there too; from an env
made without the ``action_values`` option it asks for the same values,
:func:`agents.base.policy_observation`).  Without ``game=`` it plays the game of the environment it is given.

Regenerate a file from a training run (``train.py`` or ``benchmarks.training_report``)
with :mod:`agents.learning.training.export`:

    python -m agents.pretrained export runs/training_report/kingdomino_duel_v0
"""
from __future__ import annotations

import hashlib
import json
import os

import numpy as np

from agents.base import Agent, policy_observation, register
from agents.players.policy import numpy_actor_layers
from agents.pretrained import board_numpy, expancity_numpy, values_numpy

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
MLP = "mlp"
ROW_SCALE = "__row_scale"    # suffix of the per-row scales of a matrix stored in int8
# a structured network's --policy name -> (torch model -> arrays, arrays -> numpy actor)
NUMPY_TWINS = {twin.KIND: (twin.export_arrays, actor) for twin, actor in (
    (expancity_numpy, expancity_numpy.ExpancityActor), (board_numpy, board_numpy.BoardActor),
    (values_numpy, values_numpy.ActionValuesActor))}


# Files of the learned search's networks (agents.players.az) share the folder, the record
# and the hash check; their names start with this prefix and they are no "pretrained" policy.
AZ_PREFIX = "az_"


def available_games(directory=MODELS_DIR, prefix=""):
    """The game ids that have a shipped policy (both its ``.npz`` and its ``.json``); with
    ``prefix`` (:data:`AZ_PREFIX`), the games of the files named ``<prefix><game>``."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    files = [n[:-4] for n in names if n.endswith(".npz") and n[:-4] + ".json" in names]
    if prefix:
        return sorted(n[len(prefix):] for n in files if n.startswith(prefix))
    return sorted(n for n in files if not n.startswith(AZ_PREFIX))


def _paths(game, directory=MODELS_DIR, prefix=""):
    games = available_games(directory, prefix)
    if game not in games:
        what = "network of the learned search" if prefix == AZ_PREFIX else "pretrained policy"
        raise ValueError(f"no {what} for game {game!r}; games with one: "
                         f"{', '.join(games) or 'none'}")
    base = os.path.join(directory, prefix + game)
    return base + ".npz", base + ".json"


def load_record(game, directory=MODELS_DIR, prefix=""):
    """The JSON record of ``game``'s shipped policy (how it was trained, its evaluation, hash)."""
    with open(_paths(game, directory, prefix)[1]) as f:
        return json.load(f)


def weights_sha256(arrays):
    """sha256 of a ``{name: array}`` mapping: every array's name, dtype, shape and bytes, in
    name order -- the same weights always give the same hash, however they were saved."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        value = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{value.dtype.str}|{value.shape}|".encode())
        digest.update(value.tobytes())
    return digest.hexdigest()


def as_float32(arrays):
    """A policy file's arrays as the actors compute with them: an int8 matrix times its
    per-row scale (``name + ROW_SCALE``, see :func:`agents.learning.training.export.int8_rows`),
    float16 widened, the rest as it is; the scales themselves dropped."""
    out = {}
    for name, value in arrays.items():
        if name.endswith(ROW_SCALE):
            continue
        if value.dtype == np.int8:
            scale = arrays.get(name + ROW_SCALE)
            if scale is None or scale.shape != value.shape[:1]:
                raise ValueError(f"int8 array {name!r} has no {value.shape[0]} row scales "
                                 f"{name + ROW_SCALE!r}")
            rows = value.reshape(value.shape[0], -1).astype(np.float32) * scale[:, None]
            out[name] = rows.reshape(value.shape)
        elif value.dtype == np.float16:
            out[name] = value.astype(np.float32)
        else:
            out[name] = value
    return out


def load_arrays(game, directory=MODELS_DIR, prefix=""):
    """``{name: array}`` of ``game``'s shipped policy file."""
    with np.load(_paths(game, directory, prefix)[0], allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def checked_arrays(game, directory=MODELS_DIR, prefix=""):
    """``(arrays, record)`` of ``game``'s shipped file, after checking the arrays against the
    hash in its record (``ValueError`` when they differ)."""
    npz, _ = _paths(game, directory, prefix)
    record = load_record(game, directory, prefix)
    arrays = load_arrays(game, directory, prefix)
    if weights_sha256(arrays) != record["weights_sha256"]:
        raise ValueError(f"the file of {prefix + game!r} does not match the hash in its record ({npz}): "
                         f"re-export it")
    return arrays, record


class _MlpActor:
    """A flat MLP actor (:func:`agents.players.policy.export_numpy_actor`'s arrays)."""

    def __init__(self, arrays):
        self.layers, self.n_obs, self.n_actions = numpy_actor_layers(arrays)

    def batch_logits(self, obs):
        x = np.asarray(obs, dtype=np.float32)
        for weight, bias, act in self.layers:
            x = x @ weight.T + bias
            if act is not None:
                x = act(x)
        return x


_ACTORS = {}


def clear_cache():
    """Forget the loaded actors (after a policy file was rewritten)."""
    _ACTORS.clear()


def load_actor(game, directory=MODELS_DIR):
    """The actor of ``game``'s shipped policy, with ``batch_logits(obs) -> (B, n_actions)``,
    ``n_obs`` and ``n_actions``; its weights are checked against the recorded hash.  Cached."""
    key = (os.path.abspath(directory), game)
    if key not in _ACTORS:
        arrays, _ = checked_arrays(game, directory)
        _ACTORS[key] = actor_from_arrays(arrays)
    return _ACTORS[key]


def actor_from_arrays(arrays):
    """The numpy actor of a policy file's arrays (its ``kind`` names the network)."""
    kind = str(arrays.get("kind", MLP))
    arrays = as_float32(arrays)
    return NUMPY_TWINS[kind][1](arrays) if kind in NUMPY_TWINS else _MlpActor(arrays)


@register("pretrained")
class PretrainedAgent(Agent):
    """Plays the policy shipped with the package for ``game``, from the observation alone.

    Parameters
    ----------
    game:
        The game id; ``None`` plays the game of the environment handed to :meth:`act`
        (``env.metadata["name"]``), so a tournament can enter ``pretrained`` by name.
    deterministic:
        ``True``: the most likely legal action; ``False``: sample from the masked
        distribution (softened by ``temperature``) with the agent's seeded generator.
    """

    def __init__(self, game=None, deterministic=True, temperature=1.0, seed=None):
        super().__init__(seed)
        self.deterministic = bool(deterministic)
        self.temperature = float(temperature)
        if self.temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature!r}")
        self.game = None
        self.actor = None
        if game is not None:
            self._bind(game)

    def _bind(self, game):
        self.actor = load_actor(game)
        self.game = game

    def _check_sizes(self, n_obs, n_actions):
        if getattr(self.actor, "needs_action_values", False) and n_actions == self.actor.n_actions \
                and n_obs == self.actor.n_obs - n_actions:
            raise ValueError(
                f"the pretrained {self.game} policy reads each observation followed by its action "
                f"values: pass envs.shell.flat_observation(...) of an environment made with "
                f"action_values=True (act() does this by itself)")
        if (n_obs, n_actions) != (self.actor.n_obs, self.actor.n_actions):
            options = load_record(self.game).get("options", {})
            raise ValueError(
                f"the pretrained {self.game} policy was trained with the options {options} "
                f"({self.actor.n_obs} observation values, {self.actor.n_actions} actions); this "
                f"game gives {n_obs} and {n_actions}: make the environment with those options")

    def batch_logits(self, observations, masks):
        """Masked logits (``-inf`` on illegal actions) for observations ``(B, obs_size)``."""
        if self.actor is None:
            raise ValueError("this pretrained agent has no game yet: build it with game=...")
        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks).astype(bool, copy=False)
        if obs.ndim != 2 or masks.ndim != 2 or masks.shape[0] != obs.shape[0]:
            raise ValueError(f"observations and masks must be (B, n) arrays with the same B, got "
                             f"{obs.shape} and {masks.shape}")
        self._check_sizes(obs.shape[1], masks.shape[1])
        if not masks.any(axis=1).all():
            raise ValueError("a row of masks has no legal action")
        logits = self.actor.batch_logits(obs).astype(np.float64)
        logits[~masks] = -np.inf
        return logits

    def act_batch(self, observations, masks):
        """One action per row, so the batched games (:mod:`envs.vector`) can call it once for
        every game waiting on it."""
        logits = self.batch_logits(observations, masks)
        if not self.deterministic:   # Gumbel-max: a draw from softmax(logits / temperature)
            logits = logits / self.temperature + self.rng.gumbel(size=logits.shape)
        return np.argmax(logits, axis=1)

    def act(self, env, agent) -> int:
        game = env.metadata.get("name")
        if self.game is None:
            self._bind(game)
        elif game != self.game:
            raise ValueError(f"this agent plays the pretrained {self.game} policy, not {game!r}")
        observation, mask = policy_observation(env, agent, self.actor.n_obs)
        return int(self.act_batch(observation[None], mask[None])[0])

    def __repr__(self):
        return f"PretrainedAgent(game={self.game!r}, deterministic={self.deterministic})"
