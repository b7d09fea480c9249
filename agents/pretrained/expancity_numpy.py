"""Expancity's structured policy network (:class:`agents.players.networks.ExpancityPolicy`) in numpy.

The pretrained Expancity policy ships as plain arrays and plays without torch, so its
forward pass is written here a second time, operation for operation: the crop's
convolutions, the per-cell action scores read at the cell each pointing action points to,
the kind biases and the six other actions' logits (the critic is not needed to play).
``export_arrays`` (torch side, used when a trained model is exported) and
:class:`ExpancityActor` (numpy side) agree on the array names; ``tests/test_pretrained.py``
checks that both passes give the same logits.
"""
from __future__ import annotations

import numpy as np

from agents.pretrained.numpy_layers import conv1x1, conv3x3, relu
from kernels import expancity as EK

KIND = "expancity"


def export_arrays(policy):
    """``{name: float32 array}`` of the actor of an ``ExpancityPolicy`` (or a MaskablePPO
    model holding one): the per-value observation scale and every layer the logits use."""
    policy = getattr(policy, "policy", policy)
    fx = policy.features_extractor

    def grab(prefix, module):
        return {f"{prefix}.{name}": p.detach().cpu().numpy().astype(np.float32)
                for name, p in module.state_dict().items()}

    arrays = {"scale": fx.scale.detach().cpu().numpy().astype(np.float32),
              "n_obs": np.array(int(np.prod(policy.observation_space.shape))),
              "n_actions": np.array(int(policy.action_space.n))}
    for prefix in ("cells", "table", "context", "cell_head", "other_logits", "kind_bias"):
        arrays.update(grab(prefix, getattr(fx, prefix)))
    return arrays


class ExpancityActor:
    """Unmasked action logits ``(B, 616)`` of an exported Expancity policy."""

    def __init__(self, arrays):
        self.w = {name: np.asarray(value, dtype=np.float32) for name, value in arrays.items()
                  if name not in ("n_obs", "n_actions", "kind")}
        self.n_obs = int(arrays["n_obs"])
        self.n_actions = int(arrays["n_actions"])
        planes = len(EK.WIN_PLANES)
        k2, rest = divmod(self.n_obs - EK.OBS.size - EK.WINDOW_INFO.size, planes)
        win = int(round(np.sqrt(max(k2, 0))))
        if rest or win * win != k2 or win < 5:
            raise ValueError(f"an Expancity policy needs the observation's spatial crop; this one "
                             f"was exported for {self.n_obs} observation values")
        self.win = win
        layout = EK.observation_layout(EK.make_config(obs_window=win))
        self._parts = {name: (layout.slice(name), layout.shape(name))
                       for name in ("tiles", "hand", "window_info", "window")}
        self._n_table = layout.offset("window_info")
        actions = EK.ACTIONS
        self._other = np.array([actions.action("gather"), actions.action("stop"),
                                actions.action("keep_contract", 0), actions.action("keep_contract", 1),
                                actions.action("keep_tile", 0), actions.action("keep_tile", 1)])
        self._place = (actions.offset("place"), actions.size("place") // EK.HAND_SLOTS)
        self._build = slice(actions.offset("build"), actions.offset("build") + actions.size("build"))
        self._roof = slice(actions.offset("roof"), actions.offset("roof") + actions.size("roof"))
        # the Sequential layers by index, as torch's state_dict names them
        self._cells = sorted({int(n.split(".")[1]) for n in self.w if n.startswith("cells.")})

    def _linear(self, x, name):
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def _part(self, obs, name):
        where, shape = self._parts[name]
        return obs[:, where].reshape(obs.shape[0], *shape)


    def batch_logits(self, obs):
        """Action logits ``(B, n_actions)`` (float32) for observations ``(B, n_obs)``."""
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.n_obs:
            raise ValueError(f"observations must have shape (B, {self.n_obs}), got {obs.shape}")
        b, w = obs.shape[0], self.w
        scaled = obs / w["scale"]
        tiles = self._part(obs, "tiles")
        placed = tiles[..., EK.TILE_ROW.offset("placed")] > 0.5
        tx, ty = tiles[..., EK.TILE_ROW.offset("x")], tiles[..., EK.TILE_ROW.offset("y")]
        info = self._part(obs, "window_info")
        cx, cy = info[:, EK.WINDOW_INFO.offset("centre_x")], info[:, EK.WINDOW_INFO.offset("centre_y")]
        cells = self._part(scaled, "window")
        for i in self._cells:   # Conv2d, ReLU pairs
            cells = relu(conv3x3(cells, w[f"cells.{i}.weight"], w[f"cells.{i}.bias"]))
        pooled = np.concatenate([cells.mean(axis=(2, 3)), cells.max(axis=(2, 3))], axis=1)
        g = relu(self._linear(np.concatenate([scaled[:, :self._n_table], pooled], axis=1), "table.0"))
        g = relu(self._linear(g, "table.2"))
        ctx = np.broadcast_to(self._linear(g, "context")[:, :, None, None],
                              (b, cells.shape[1], self.win, self.win))
        heads = relu(conv1x1(np.concatenate([cells, ctx], axis=1),
                               w["cell_head.0.weight"], w["cell_head.0.bias"]))
        heads = conv1x1(heads, w["cell_head.2.weight"], w["cell_head.2.bias"]).reshape(b, -1, self.win ** 2)

        bias = self._linear(g, "kind_bias")
        logits = np.zeros((b, self.n_actions), dtype=np.float32)
        logits[:, self._other] = self._linear(g, "other_logits")
        flat, inside = EK.crop_cells(tx[:, :, None] + EK.DX, ty[:, :, None] + EK.DY, cx, cy, self.win)
        ok = (inside & placed[:, :, None]).reshape(b, -1).astype(np.float32)
        flat = flat.reshape(b, -1)
        hand = self._part(obs, "hand")
        per_type = heads[:, :EK.NUM_TYPES]
        first, slot_size = self._place
        for s in range(EK.HAND_SLOTS):
            score = np.einsum("bt,btn->bn", hand[:, s], per_type)
            logits[:, first + s * slot_size:first + (s + 1) * slot_size] = (
                np.take_along_axis(score, flat, axis=1) * ok + bias[:, :1])
        flat_t, inside_t = EK.crop_cells(tx[:, :, None], ty[:, :, None], cx, cy, self.win)
        flat_t, ok_t = flat_t[:, :, 0], (inside_t[:, :, 0] & placed).astype(np.float32)
        logits[:, self._build] = np.take_along_axis(heads[:, EK.NUM_TYPES], flat_t, axis=1) * ok_t + bias[:, 1:2]
        logits[:, self._roof] = np.take_along_axis(heads[:, EK.NUM_TYPES + 1], flat_t, axis=1) * ok_t + bias[:, 2:3]
        return logits
