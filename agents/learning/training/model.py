"""The MaskablePPO model of a run: its network, the network's arguments, the learning rate,
and a model continued from a saved one."""
from __future__ import annotations

from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import LinearSchedule

from agents.learning.training.config import POLICY_CHOICES
from agents.players import networks, policy_files


def learning_rate_schedule(cfg):
    """PPO's ``learning_rate``: the number ``cfg.learning_rate``, or with ``lr_schedule ==
    "linear"`` a function of sb3's remaining progress (1 at the first update, 0 at the
    end of this ``learn`` call) going from it down to 0."""
    if cfg.lr_schedule == "constant":
        return cfg.learning_rate
    return LinearSchedule(cfg.learning_rate, 0.0, 1.0)


def policy_class(name):
    """The MaskablePPO policy for a ``--policy`` name."""
    if name not in POLICY_CHOICES:
        raise ValueError(f"policy must be one of {sorted(POLICY_CHOICES)}, got {name!r}")
    if POLICY_CHOICES[name] is None:
        return "MlpPolicy"
    return getattr(networks, POLICY_CHOICES[name])


def policy_kwargs(cfg):
    """The policy's constructor arguments: the MLP's layer sizes; the board network is told
    its game (it reads the board's planes and pointing actions from agents.players.boards); the
    values network gets them as its body's."""
    kwargs = dict(net_arch=list(cfg.net_arch))
    if cfg.policy == "board":
        kwargs["features_extractor_kwargs"] = dict(game=cfg.game)
    if cfg.policy == "values":   # its MLP is the extractor's body
        kwargs["features_extractor_kwargs"] = dict(hidden=tuple(cfg.net_arch),
                                                   tie_break=float(cfg.tie_break),
                                                   learn_head=bool(cfg.learn_head))
    return kwargs


def load_initial_model(path, venv, cfg, hyper):
    """``--init-model`` without unpickling: a new MaskablePPO of the network in the model's
    ``policy.json``, given the zip's weights, optimiser state and step counts
    (:func:`agents.players.policy_files.load_zip`)."""
    loaded = policy_files.load_zip(path, device=cfg.device)
    config = loaded.config
    if config["game"] != cfg.game:
        raise ValueError(f"--init-model {path!r} was trained on {config['game']}, not {cfg.game}")
    if loaded.policy.observation_space.shape != venv.observation_space.shape:
        raise ValueError(f"--init-model {path!r} reads {loaded.policy.observation_space.shape[0]} "
                         f"observation values, the training env gives {venv.observation_space.shape[0]}: "
                         f"train with the model's options {config['options']}")
    model = MaskablePPO(policy_files.network_class(config["network"]), venv, seed=cfg.seed,
                        device=cfg.device, policy_kwargs=dict(config["policy_kwargs"]), verbose=0,
                        **hyper)
    model.policy.load_state_dict(loaded.policy.state_dict())
    if loaded.optimizer_state is not None:
        model.policy.optimizer.load_state_dict(loaded.optimizer_state)
    model.num_timesteps = loaded.num_timesteps
    model._n_updates = loaded.n_updates
    return model
