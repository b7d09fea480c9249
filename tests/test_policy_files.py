"""Policy files load without unpickling (agents.players.policy_files, agents.players.policy): a crafted
file runs no code, a model saved with its policy.json plays exactly as MaskablePPO.load's
copy, and trust_pickle / the convert command are the explicit ways past the default."""
import base64
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
import envs  # noqa: E402
from agents.players import policy, policy_files  # noqa: E402
from agents.base import policy_observation  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
GAME = "kingdomino_duel_v0"


class _Payload:
    """Unpickling this runs ``code`` (what a crafted policy file would do)."""

    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return exec, (self.code,)


def _touch(marker):
    return pickle.dumps(_Payload(f"open({str(marker)!r}, 'w').close()"))


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small MLP MaskablePPO of Kingdomino Duel saved as train.py saves it: the zip and the
    run's policy.json."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("run")
    env = envs.SingleAgentEnv(GAME, opponents="random", agent_factory=agents.make)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0,
                        policy_kwargs={"net_arch": [32, 32]})
    path = directory / "final_model.zip"
    model.save(path)
    policy_files.write_config(directory, policy_files.config_from_model(model, GAME, {}))
    return path


def _crafted(src, dst, marker, replace="data"):
    """A copy of the zip ``src`` whose ``data`` (or ``policy.pth``) runs code when unpickled."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            content = zin.read(item.filename)
            if item.filename == "data" and replace == "data":
                data = json.loads(content)
                data["policy_class"] = {":type:": "<class 'abc.ABCMeta'>",
                                        ":serialized:": base64.b64encode(_touch(marker)).decode()}
                content = json.dumps(data).encode()
            if item.filename == "policy.pth" and replace == "policy.pth":
                content = _touch(marker)
            zout.writestr(item, content)
    return dst


def _logits(bot, seed=3):
    env = envs.make(GAME)
    env.reset(seed=seed)
    obs, mask = policy_observation(env, env.agent_selection, bot.n_obs)
    return bot.logits(obs, mask)


def test_a_crafted_zip_runs_no_code_when_loaded(saved, tmp_path):
    """The old loader unpickled the zip's metadata first: this file created ``marker``."""
    marker = tmp_path / "owned"
    (tmp_path / "alone").mkdir()
    alone = _crafted(saved, tmp_path / "alone" / "model.zip", marker)
    with pytest.raises(ValueError, match="does not unpickle") as info:
        agents.make("policy", path=str(alone))
    assert "convert" in str(info.value) and "trust_pickle=True" in str(info.value)
    assert not marker.exists()
    # beside a policy.json the weights alone are read: the pickled metadata never is
    beside = _crafted(saved, saved.parent / "crafted.zip", marker)
    bot = agents.make("policy", path=str(beside))
    assert np.array_equal(_logits(bot), _logits(agents.make("policy", path=str(saved))))
    assert not marker.exists()


def test_weights_that_need_unpickling_are_refused(saved, tmp_path):
    marker = tmp_path / "owned"
    crafted = _crafted(saved, saved.parent / "crafted_weights.zip", marker, replace="policy.pth")
    with pytest.raises(ValueError, match="policy.pth holds more than weights"):
        agents.make("policy", path=str(crafted))
    assert not marker.exists()


def test_a_numpy_policy_with_pickled_arrays_is_refused(tmp_path):
    marker = tmp_path / "owned"
    path = tmp_path / "actor.npz"
    payload = np.empty(1, dtype=object)
    payload[0] = _Payload(f"open({str(marker)!r}, 'w').close()")
    np.savez(path, num_layers=payload, n_obs=np.array(3), n_actions=np.array(2))
    with pytest.raises(ValueError, match="without unpickling"):
        agents.make("policy", path=str(path))
    assert not marker.exists()


def test_a_safe_load_plays_as_the_unpickled_model(saved, monkeypatch):
    trusted = agents.make("policy", path=str(saved), trust_pickle=True)
    import cloudpickle

    def refuse(*args, **kwargs):
        raise AssertionError("unpickled")
    monkeypatch.setattr(cloudpickle, "loads", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    safe = agents.make("policy", path=str(saved), config=str(saved.parent / "policy.json"))
    assert safe.n_obs == trusted.n_obs and safe.n_actions == trusted.n_actions
    for seed in range(3):
        assert np.array_equal(_logits(safe, seed), _logits(trusted, seed))


def test_policy_configs_are_checked(saved, tmp_path):
    config = json.loads((saved.parent / "policy.json").read_text())
    assert config["network"] == "mlp" and config["game"] == GAME and config["rules"] >= 1
    for changes, words in (({"format": "other"}, "not a cityzoo policy config"),
                           ({"game": "chess"}, "'game'"), ({"network": "evil"}, "'network'"),
                           ({"policy_kwargs": {"optimizer_class": "x"}}, "'policy_kwargs'"),
                           ({"game": "expancity_v0", "options": {"data_path": "/dev/stdin"}},
                            "'data_path' names a file"),
                           ({"rules": True}, "'rules'")):
        bad = dict(config, **changes)
        with pytest.raises(ValueError, match=words):
            agents.make("policy", path=str(saved), config=bad)
    deep = tmp_path / "policy.json"
    deep.write_text('{"format": ' + "[" * 10_000 + "]" * 10_000 + "}")
    with pytest.raises(ValueError, match="deep"):
        policy_files.read_config(deep)


def test_an_old_run_is_converted_once(saved, tmp_path):
    """A zip without policy.json (an older train.py) is refused; converting it (which
    unpickles it, so only with --trust-pickle) writes the safe files."""
    old = tmp_path / "old"
    old.mkdir()
    (old / "final_model.zip").write_bytes(saved.read_bytes())
    (old / "summary.json").write_text(json.dumps({"game": GAME, "options": {}}))
    with pytest.raises(ValueError, match="convert"):
        agents.make("policy", path=str(old / "final_model.zip"))
    with pytest.raises(ValueError, match="trust_pickle"):
        policy.convert(old / "final_model.zip")
    run = subprocess.run([sys.executable, "-m", "agents.players.policy", "convert",
                          str(old / "final_model.zip")], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 2 and "--trust-pickle" in run.stderr   # the flag is required
    run = subprocess.run([sys.executable, "-m", "agents.players.policy", "convert",
                          str(old / "final_model.zip"), "--trust-pickle"], cwd=REPO,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (old / "policy.json").exists() and (old / "final_model.npz").exists()
    reference = _logits(agents.make("policy", path=str(saved)))
    assert np.array_equal(_logits(agents.make("policy", path=str(old / "final_model.zip"))), reference)
    assert np.allclose(_logits(agents.make("policy", path=str(old / "final_model.npz"))), reference,
                       atol=1e-4)
    # the wrong game is caught: its observation differs
    with pytest.raises(ValueError, match="does not give the observation"):
        policy.convert(old / "final_model.zip", game="tiny_towns_v0", trust_pickle=True)


def test_the_command_lines_pass_trust_pickle_to_policy_agents():
    from agents.apps import play, tournament

    assert tournament.trusting_pickle({"p": {"path": "x"}}, ["p=policy", "random"]) == \
        {"p": {"trust_pickle": True, "path": "x"}}
    assert tournament.trusting_pickle({}, ["random"]) == {}
    assert play.trusting_pickle({"policy": {"path": "x", "trust_pickle": False}}, ["policy"]) == \
        {"policy": {"path": "x", "trust_pickle": False}}
    from agents.learning.training.command import parse_config
    assert parse_config(["--game", GAME, "--trust-pickle"]).trust_pickle is True
    assert parse_config(["--game", GAME]).trust_pickle is False
