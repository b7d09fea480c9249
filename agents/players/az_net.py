"""The policy/value network of the learned search, as arrays numba can evaluate.

One architecture for every game (an MLP; torch's twin for training is
:class:`agents.learning.alphazero.network.AZNet`, whose ``export_arrays`` gives these arrays):

* the observation divided by a fixed per-value ``scale`` -> ``h1`` (ReLU) -> ``h2`` (ReLU);
  the first layer is stored transposed (``w1t``: one row per observation value) and
  skips the zeros of the observation (Kingdomino Duel's 872 values hold about 130
  non-zeros, so this is 7x fewer multiplications than a dense product);
* policy: ``logits[a] = wp[a] . h2 + bp[a] + mix0 * f1[a] + mix1 * f2[a]`` with
  ``(mix0, mix1) = wm . h2 + bm`` and ``f1, f2`` the two action-value inputs of
  :func:`agents.players.features.action_value_features` (greedy's one-ply value of each legal action
  below the best one, as the env's ``action_values`` option gives them): the network starts
  from greedy's judgement and learns when to lean on it and how to correct it;
  only the legal actions' logits are computed;
* value: ``tanh(wv . h2 + bv)``, one output per seat *relative to the observer* (entry ``k``
  is seat ``(observer + k) % num_players``): each seat's expected final outcome on the
  scale of :func:`outcome_targets` (two or more seats: rank reward mixed with the squashed
  score margin; one seat: its squashed solo value).

:data:`NET_ARRAYS` names the arrays; :func:`as_tuple` orders them as the jitted code takes
them.  Stored files use :mod:`agents.pretrained`'s forms (int8 rows, float16) and loader.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from agents.players.features import VALUE_CLIP

KIND = "az_mlp"
NET_ARRAYS = ("scale", "w1t", "b1", "w2", "b2", "wp", "bp", "wm", "bm", "wv", "bv")


def as_tuple(arrays):
    """The network's float32 arrays in :data:`NET_ARRAYS` order (C-contiguous), as the
    jitted forward pass takes them."""
    missing = [n for n in NET_ARRAYS if n not in arrays]
    if missing:
        raise ValueError(f"network arrays lack {missing}")
    return tuple(np.ascontiguousarray(arrays[n], dtype=np.float32) for n in NET_ARRAYS)


def describe(arrays):
    """``(n_obs, n_actions, num_players, hidden)`` of a network's arrays."""
    return (int(arrays["w1t"].shape[0]), int(arrays["wp"].shape[0]), int(arrays["wv"].shape[0]),
            (int(arrays["w1t"].shape[1]), int(arrays["w2"].shape[0])))


@njit(cache=True)
def forward(net, obs, action_values, legal, value_scale, h1, h2, logits, value):
    """Evaluate the network: masked ``logits`` (``-inf`` off ``legal``; computed for legal
    actions only) and the relative per-seat ``value`` (tanh).  ``action_values``: each
    legal action's one-ply value below the best one (0 for the best; all zeros when the
    network is used without them, which adds the same ``mix1`` to every logit).
    ``h1``/``h2``: scratch of the hidden sizes."""
    scale, w1t, b1, w2, b2, wp, bp, wm, bm, wv, bv = net
    n1 = h1.shape[0]
    n2 = h2.shape[0]
    for j in range(n1):
        h1[j] = b1[j]
    for i in range(obs.shape[0]):
        x = obs[i]
        if x != 0.0:
            x = x / scale[i]
            row = w1t[i]
            for j in range(n1):
                h1[j] += x * row[j]
    for j in range(n1):
        if h1[j] < 0.0:
            h1[j] = 0.0
    for k in range(n2):
        s = b2[k]
        row = w2[k]
        for j in range(n1):
            s += row[j] * h1[j]
        h2[k] = s if s > 0.0 else 0.0
    mix0 = bm[0]
    mix1 = bm[1]
    for k in range(n2):
        mix0 += wm[0, k] * h2[k]
        mix1 += wm[1, k] * h2[k]
    for a in range(legal.shape[0]):
        if legal[a] == 0:
            logits[a] = -np.inf
            continue
        s = bp[a]
        row = wp[a]
        for k in range(n2):
            s += row[k] * h2[k]
        av = action_values[a]
        f1 = min(max(av / value_scale, -VALUE_CLIP), 0.0)
        f2 = 1.0 if av >= -1e-6 else 0.0
        logits[a] = s + mix0 * f1 + mix1 * f2
    for p in range(value.shape[0]):
        s = bv[p]
        for k in range(n2):
            s += wv[p, k] * h2[k]
        value[p] = np.tanh(s)


@njit(cache=True)
def masked_softmax(logits, legal, out):
    """Softmax of ``logits`` over the ``legal`` entries into ``out`` (0 elsewhere)."""
    top = -np.inf
    for a in range(logits.shape[0]):
        if legal[a] != 0 and logits[a] > top:
            top = logits[a]
    total = 0.0
    for a in range(logits.shape[0]):
        if legal[a] != 0:
            out[a] = np.exp(logits[a] - top)
            total += out[a]
        else:
            out[a] = 0.0
    if total > 0.0:
        for a in range(logits.shape[0]):
            out[a] /= total


def batch_forward(arrays, obs, action_values, masks, value_scale):
    """numpy twin of :func:`forward` over a batch (tests and checks): ``(logits, values)``."""
    from agents.players.features import action_value_features
    x = np.asarray(obs, np.float32) / arrays["scale"]
    h = np.maximum(x @ arrays["w1t"] + arrays["b1"], 0.0)
    h = np.maximum(h @ arrays["w2"].T + arrays["b2"], 0.0)
    mix = h @ arrays["wm"].T + arrays["bm"]
    f1, f2 = action_value_features(np.asarray(action_values, np.float32), value_scale)
    logits = h @ arrays["wp"].T + arrays["bp"] + mix[:, :1] * f1 + mix[:, 1:2] * f2
    logits = np.where(np.asarray(masks) != 0, logits, -np.inf)
    return logits, np.tanh(h @ arrays["wv"].T + arrays["bv"])


def random_arrays(n_obs, n_actions, num_players, hidden=(64, 32), seed=0, scale=None):
    """A randomly initialised network (tests; the start of training is torch's own init)."""
    rs = np.random.default_rng(seed)
    h1, h2 = hidden

    def w(*shape):
        return (rs.standard_normal(shape) / np.sqrt(shape[-1] if len(shape) > 1 else 1)).astype(np.float32)

    return {"scale": np.ones(n_obs, np.float32) if scale is None else np.asarray(scale, np.float32),
            "w1t": (rs.standard_normal((n_obs, h1)) / np.sqrt(n_obs)).astype(np.float32),
            "b1": np.zeros(h1, np.float32), "w2": w(h2, h1), "b2": np.zeros(h2, np.float32),
            "wp": w(n_actions, h2), "bp": np.zeros(n_actions, np.float32),
            "wm": w(2, h2), "bm": np.array([1.0, 1.0], np.float32),
            "wv": w(num_players, h2), "bv": np.zeros(num_players, np.float32)}
