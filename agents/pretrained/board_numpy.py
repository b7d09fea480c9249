"""The board policy network (:class:`agents.players.networks.BoardPolicy`) in numpy.

As for Expancity (:mod:`agents.pretrained.expancity_numpy`), a shipped board policy plays
without torch, so its actor's forward pass is written here a second time, layer for layer:
the board convolutions (over the same region planes, :func:`agents.players.boards.region_planes`),
the table MLP, the per-cell scores read at the cell each pointing action points to, the
kind biases and the other actions' logits.  ``export_arrays`` (torch side) and
:class:`BoardActor` (numpy side) agree on the array names; ``tests/test_board_network.py``
checks that both give the same logits.
"""
from __future__ import annotations

import numpy as np

from agents.players.boards import board_geometry, board_planes, region_planes
from agents.pretrained.numpy_layers import conv1x1, conv3x3, relu

KIND = "board"
_LAYERS = ("cells", "table", "context", "cell_head", "other_logits", "kind_bias")


def export_arrays(policy):
    """``{name: array}`` of the actor of a ``BoardPolicy`` (or a MaskablePPO model holding
    one): its game, the per-value observation scale and every layer the logits use."""
    policy = getattr(policy, "policy", policy)
    fx = policy.features_extractor
    arrays = {"game": np.array(fx.geometry.game),
              "scale": fx.scale.detach().cpu().numpy().astype(np.float32)}
    for prefix in _LAYERS:
        for name, p in getattr(fx, prefix).state_dict().items():
            arrays[f"{prefix}.{name}"] = p.detach().cpu().numpy().astype(np.float32)
    return arrays


class BoardActor:
    """Unmasked action logits ``(B, n_actions)`` of an exported board policy."""

    def __init__(self, arrays):
        self.geometry = geo = board_geometry(str(arrays["game"]))
        self.w = {name: np.asarray(value, dtype=np.float32) for name, value in arrays.items()
                  if name not in ("game", "kind")}
        self.n_obs, self.n_actions = geo.n_obs, geo.n_actions
        if self.w["scale"].shape != (geo.n_obs,):
            raise ValueError(f"a board policy for {geo.game!r} needs {geo.n_obs} observation "
                             f"values; this one was exported for {self.w['scale'].shape}")
        # the Sequential layers by index, as torch's state_dict names them
        self._convs = sorted({int(n.split(".")[1]) for n in self.w if n.startswith("cells.")})

    def _linear(self, x, name):
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def batch_logits(self, obs):
        """Action logits ``(B, n_actions)`` (float32) for observations ``(B, n_obs)``."""
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.n_obs:
            raise ValueError(f"observations must have shape (B, {self.n_obs}), got {obs.shape}")
        b, w, geo = obs.shape[0], self.w, self.geometry
        scaled = obs / w["scale"]
        cells = board_planes(scaled, geo, np.concatenate)
        if geo.n_region_planes:
            cells = np.concatenate([cells, region_planes(obs, geo)], axis=1)
        for i in self._convs:   # Conv2d, ReLU pairs
            cells = relu(conv3x3(cells, w[f"cells.{i}.weight"], w[f"cells.{i}.bias"]))
        pooled = np.concatenate([cells.mean(axis=(2, 3)), cells.max(axis=(2, 3))], axis=1)
        g = relu(self._linear(np.concatenate([scaled, pooled], axis=1), "table.0"))
        g = relu(self._linear(g, "table.2"))
        ctx = np.broadcast_to(self._linear(g, "context")[:, :, None, None],
                              (b, cells.shape[1], geo.height, geo.width))
        heads = relu(conv1x1(np.concatenate([cells, ctx], axis=1),
                             w["cell_head.0.weight"], w["cell_head.0.bias"]))
        heads = conv1x1(heads, w["cell_head.2.weight"], w["cell_head.2.bias"])
        heads = heads.reshape(b, geo.n_channels, -1)
        logits = np.empty((b, self.n_actions), dtype=np.float32)
        logits[:, geo.other_actions] = self._linear(g, "other_logits")
        logits[:, geo.point_actions] = (heads[:, geo.point_channel, geo.point_cell]
                                        + self._linear(g, "kind_bias")[:, geo.point_kind])
        return logits
