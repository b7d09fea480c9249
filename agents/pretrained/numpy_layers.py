"""The few torch layers the numpy actors of :mod:`agents.pretrained` recompute."""
from __future__ import annotations

import numpy as np


def relu(x):
    return np.maximum(x, 0.0)


def conv3x3(x, weight, bias):
    """``torch.nn.Conv2d(kernel_size=3, padding=1)`` on ``x`` of shape (B, C, H, W)."""
    h, w = x.shape[-2:]
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((x.shape[0], weight.shape[0], h, w), dtype=np.float32)
    for i in range(3):
        for j in range(3):
            out += np.einsum("bchw,oc->bohw", padded[:, :, i:i + h, j:j + w],
                             weight[:, :, i, j], optimize=True)
    return out + bias[None, :, None, None]


def conv1x1(x, weight, bias):
    return np.einsum("bchw,oc->bohw", x, weight[:, :, 0, 0], optimize=True) + bias[None, :, None, None]
