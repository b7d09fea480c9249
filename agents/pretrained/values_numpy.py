"""The action-values policy network (:class:`agents.players.networks.ActionValuesPolicy`) in numpy.

A shipped policy plays without torch, so its actor's forward pass is written here a second
time: the MLP over the scaled observation, its logits, and the two weighted features of
each action's one-ply value.  ``export_arrays`` (torch side) and :class:`ActionValuesActor`
(numpy side) agree on the array names; the export checks that both give the same logits.
"""
from __future__ import annotations

import numpy as np

from agents.players.features import action_value_features
from agents.pretrained.numpy_layers import relu

KIND = "values"


def export_arrays(policy):
    """``{name: array}`` of the actor of an ``ActionValuesPolicy`` (or a MaskablePPO model
    holding one)."""
    policy = getattr(policy, "policy", policy)
    fx = policy.features_extractor
    arrays = {"scale": fx.scale.detach().cpu().numpy().astype(np.float32),
              "value_scale": np.array(fx.value_scale, dtype=np.float32),
              "n_actions": np.array(fx.n_actions)}
    for prefix in ("body", "head", "mix"):
        for name, p in getattr(fx, prefix).state_dict().items():
            arrays[f"{prefix}.{name}"] = p.detach().cpu().numpy().astype(np.float32)
    return arrays


class ActionValuesActor:
    """Unmasked action logits ``(B, n_actions)`` of an exported action-values policy, from
    flat observations ``(B, n_obs)``: the observation followed by its action values."""

    needs_action_values = True

    def __init__(self, arrays):
        self.w = {name: np.asarray(value, dtype=np.float32) for name, value in arrays.items()
                  if name not in ("kind", "n_actions")}
        self.n_actions = int(arrays["n_actions"])
        self.n_obs = self.w["scale"].shape[0] + self.n_actions
        self.value_scale = float(self.w["value_scale"])
        self._body = sorted({int(n.split(".")[1]) for n in self.w if n.startswith("body.")})

    def batch_logits(self, obs):
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.n_obs:
            raise ValueError(f"observations must have shape (B, {self.n_obs}), got {obs.shape}")
        w = self.w
        n = w["scale"].shape[0]
        g = obs[:, :n] / w["scale"]
        for i in self._body:   # Linear, ReLU pairs
            g = relu(g @ w[f"body.{i}.weight"].T + w[f"body.{i}.bias"])
        f1, f2 = action_value_features(obs[:, n:], self.value_scale)
        mix = g @ w["mix.weight"].T + w["mix.bias"]
        return g @ w["head.weight"].T + w["head.bias"] + mix[:, :1] * f1 + mix[:, 1:2] * f2
