"""The replay buffer of self-play samples and their training targets.

A sample is one decision with more than one legal action: the mover's observation, greedy's
one-ply action values (the network's second input), the legal mask, the search's improved
policy (the policy target) and the game's final outcome seen from the mover (the value
target: entry ``k`` for seat ``mover + k``; see :func:`agents.players.az_search` 's
``outcome_vector``).  Stored compactly (float16 observations and policies, int8 masks) in a
ring of ``capacity`` samples: the oldest games leave first.
"""
from __future__ import annotations

import numpy as np


class ReplayBuffer:
    FIELDS = ("obs", "av", "mask", "pi", "z")

    def __init__(self, capacity, n_obs, n_actions, n_players):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity!r}")
        self.capacity = int(capacity)
        self.obs = np.zeros((capacity, n_obs), np.float16)
        self.av = np.zeros((capacity, n_actions), np.float16)
        self.mask = np.zeros((capacity, n_actions), np.int8)
        self.pi = np.zeros((capacity, n_actions), np.float16)
        self.z = np.zeros((capacity, n_players), np.float32)
        self.size = 0
        self.head = 0
        self.added = 0

    def add(self, batch):
        """Append the samples of ``batch`` (a dict of the :data:`FIELDS`, same length)."""
        n = len(batch["obs"])
        for i in range(0, n, self.capacity):
            part = {k: batch[k][i:i + self.capacity] for k in self.FIELDS}
            m = len(part["obs"])
            idx = (self.head + np.arange(m)) % self.capacity
            for k in self.FIELDS:
                getattr(self, k)[idx] = part[k]
            self.head = int((self.head + m) % self.capacity)
            self.size = int(min(self.capacity, self.size + m))
        self.added += n

    def sample(self, rng, batch_size):
        """A random minibatch (with replacement) as float32/bool numpy arrays."""
        idx = rng.integers(0, self.size, size=batch_size)
        return (self.obs[idx].astype(np.float32), self.av[idx].astype(np.float32), self.mask[idx] != 0,
                self.pi[idx].astype(np.float32), self.z[idx])

    def state(self):
        return {"obs": self.obs[:self.size], "av": self.av[:self.size], "mask": self.mask[:self.size],
                "pi": self.pi[:self.size], "z": self.z[:self.size],
                "meta": np.array([self.head, self.size, self.added], np.int64)}

    def save(self, path):
        np.savez(path, **self.state())

    def load(self, path):
        with np.load(path) as data:
            head, size, added = (int(x) for x in data["meta"])
            for k in self.FIELDS:
                getattr(self, k)[:size] = data[k]
        self.head, self.size, self.added = head % self.capacity, min(size, self.capacity), added
