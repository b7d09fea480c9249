"""benchmarks.training_throughput: the timing of learning and of PPO's updates (tiny budget)."""
import os
from dataclasses import replace

import pytest

from agents.learning.training.recipes import defaults_for
from benchmarks import training_throughput

pytest.importorskip("sb3_contrib")
from agents.learning.training import model as training_model  # noqa: E402


def test_rate_and_update_seconds_come_from_the_games_own_network(monkeypatch, tmp_path):
    cfg = replace(defaults_for("tiny_towns_v0"), opponents="random", env="batched",
                  n_envs=2, n_steps=32, batch_size=32, n_epochs=1, out=str(tmp_path))
    cfg = cfg.resolved()
    asked = []
    real = training_model.policy_kwargs

    def spy(c):
        kwargs = real(c)
        asked.append(kwargs)
        return kwargs

    monkeypatch.setattr(training_model, "policy_kwargs", spy)
    rate, seconds, updates = training_throughput.learner_steps_per_second(cfg, 128)
    # the game's own extractor settings (Tiny Towns keeps its per-action head fixed), not
    # only its layer sizes
    assert asked == [real(cfg)] and asked[0]["features_extractor_kwargs"]["learn_head"] is False
    assert 0.0 < updates < seconds
    assert rate == pytest.approx(128 / seconds, rel=1e-6)
    assert not os.listdir(tmp_path)     # the run writes into a temporary directory only
