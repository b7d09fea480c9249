"""The learned search's network in torch (training); :mod:`agents.players.az_net` evaluates
the same arrays in numba (play).  :meth:`AZNet.export_arrays` is the bridge, and
:func:`agents.players.az_net.batch_forward` is checked against :meth:`AZNet.forward` by the
tests."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.players.features import VALUE_CLIP
from agents.players.az_net import KIND


def observation_scale(spec, cfg):
    """A fixed per-value divisor bringing every observation value into [-1, 1] (as the PPO
    policies' :func:`agents.players.networks._obs_scale`)."""
    low, high = spec.observation_bounds(cfg)
    low = np.broadcast_to(np.asarray(low, np.float64), (cfg.obs_size,))
    high = np.broadcast_to(np.asarray(high, np.float64), (cfg.obs_size,))
    bound = np.maximum(np.abs(low), np.abs(high))
    return np.where(np.isfinite(bound) & (bound > 1.0), bound, 1.0).astype(np.float32)


class AZNet(nn.Module):
    """Observation (+ greedy's action values) -> masked policy logits and per-seat values
    (relative to the observer, tanh).  See :mod:`agents.players.az_net` for the layout.

    At the start the policy is greedy's judgement softened (the mix head's bias ``greedy_lean``
    on both action-value inputs, the learned head at zero) and the values are 0."""

    def __init__(self, n_obs, n_actions, n_players, hidden=(256, 128), scale=None, value_scale=5.0,
                 greedy_lean=2.0):
        super().__init__()
        h1, h2 = hidden
        self.hidden = (int(h1), int(h2))
        self.value_scale = float(value_scale)
        self.register_buffer("scale", torch.as_tensor(np.ones(n_obs, np.float32) if scale is None else scale))
        self.l1 = nn.Linear(n_obs, h1)
        self.l2 = nn.Linear(h1, h2)
        self.policy = nn.Linear(h2, n_actions)
        self.mix = nn.Linear(h2, 2)
        self.value = nn.Linear(h2, n_players)
        with torch.no_grad():
            for layer in (self.policy, self.mix, self.value):
                layer.weight.mul_(0.1)
                layer.bias.zero_()
            self.mix.bias.fill_(float(greedy_lean))

    def forward(self, obs, action_values, mask):
        h = torch.relu(self.l1(obs / self.scale))
        h = torch.relu(self.l2(h))
        mix = self.mix(h)
        f1 = (action_values / self.value_scale).clamp(-VALUE_CLIP, 0.0)
        f2 = (action_values >= -1e-6).float()
        logits = self.policy(h) + mix[:, :1] * f1 + mix[:, 1:2] * f2
        logits = logits.masked_fill(~mask, -1e9)
        return logits, torch.tanh(self.value(h))

    def export_arrays(self):
        """``{name: float32 array}`` as :mod:`agents.players.az_net` reads them, plus ``kind``."""
        def a(t):
            return t.detach().cpu().numpy().astype(np.float32)
        return {"kind": np.array(KIND), "scale": a(self.scale), "w1t": np.ascontiguousarray(a(self.l1.weight).T),
                "b1": a(self.l1.bias), "w2": a(self.l2.weight), "b2": a(self.l2.bias),
                "wp": a(self.policy.weight), "bp": a(self.policy.bias), "wm": a(self.mix.weight),
                "bm": a(self.mix.bias), "wv": a(self.value.weight), "bv": a(self.value.bias)}
