"""Structured policy networks for games whose actions point at places on a board.

A plain MLP has to learn, separately for every action index, which input values matter for
it; in Expancity, where 488 of the 616 actions are "lay a tile next to tile a in direction
d" and 122 more are "build / roof on tile t", that is more than a small network learns in a
training budget (it plays its tile placements no better than chance).  The policy here
scores every board cell with one shared convolutional head instead and reads each
pointing action's logit at the cell it points to (plus one learned bias per kind of
pointing action); a small MLP scores the six other actions and gives the value.  It plugs
into sb3-contrib's ``MaskablePPO`` as ``MaskablePPO(ExpancityPolicy, env)`` (``train.py``
picks it through the game's ``policy`` default).

Expancity's observation (``envs.expancity``) needs its spatial crop (``obs_window`` > 0,
the default 21): the crop's planes feed the convolutions; the tile table gives each tile's
coordinates, so that cell (x, y) sits at row ``cy + K//2 - y``, column ``x - cx + K//2``
of the crop centred on (cx, cy).  A cell outside the crop gets only its kind's bias.

:class:`BoardPolicy` is the same design for any game with a fixed board, built from a
declaration (:data:`agents.players.boards.BOARD_SPECS`: which observation parts are the board's
planes, which action blocks point at its cells) instead of written per game.

:class:`ActionValuesPolicy` scores every action from what it does: it reads the
environments' ``action_values`` (each legal action's one-ply value below the best one's,
see :mod:`envs.shell`) after the observation, and adds to an MLP's logits two per-position
weights times two features of each action's value.  It starts out as greedy's choice (the
MLP's logits start at zero) and learns where to depart from it.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.players.boards import board_geometry, board_planes, region_planes
from agents.players.features import action_value_features
from kernels import expancity as EK
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

__all__ = ["ActionValuesExtractor", "ActionValuesPolicy", "BoardExtractor", "BoardPolicy", "ExpancityExtractor",
           "ExpancityPolicy"]


def _obs_scale(space):
    """A fixed per-value divisor bringing every observation value into [-1, 1]."""
    bound = np.maximum(np.abs(space.low), np.abs(space.high))
    bound = np.where(np.isfinite(bound) & (bound > 1.0), bound, 1.0)
    return torch.as_tensor(bound, dtype=torch.float32)


class ExpancityExtractor(BaseFeaturesExtractor):
    """Observation -> ``[616 action logits, value features]`` for :class:`ExpancityPolicy`."""

    def __init__(self, observation_space, channels=16, conv_layers=2, hidden=128):
        n_obs = int(np.prod(observation_space.shape))
        planes = len(EK.WIN_PLANES)
        k2, rest = divmod(n_obs - EK.OBS.size - EK.WINDOW_INFO.size, planes)
        win = int(round(np.sqrt(max(k2, 0))))
        if rest or win * win != k2 or win < 5:
            raise ValueError("ExpancityPolicy needs Expancity's observation with its spatial crop "
                             f"(obs_window > 0); got {n_obs} observation values")
        # the observation's parts by name (offsets do not depend on the data file)
        layout = EK.observation_layout(EK.make_config(obs_window=win))
        self._parts = {name: (layout.slice(name), layout.shape(name))
                       for name in ("tiles", "hand", "window_info", "window")}
        self._n_table = layout.offset("window_info")      # every part before the crop
        actions = EK.ACTIONS
        n_actions = actions.num_actions
        super().__init__(observation_space, features_dim=n_actions + hidden)
        self.n_actions = n_actions
        self.win = win
        self.register_buffer("scale", _obs_scale(observation_space), persistent=False)
        self.register_buffer("dx", torch.as_tensor(EK.DX, dtype=torch.float32), persistent=False)
        self.register_buffer("dy", torch.as_tensor(EK.DY, dtype=torch.float32), persistent=False)
        # two 3x3 layers see 2 cells away: a cell's neighbours and their neighbours, all that
        # a building's per-floor value (and so a laid tile's effect) depends on
        convs = []
        for i in range(conv_layers):
            convs += [nn.Conv2d(planes if i == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.cells = nn.Sequential(*convs)
        self.table = nn.Sequential(nn.Linear(self._n_table + 2 * channels, hidden), nn.ReLU(),
                                   nn.Linear(hidden, hidden), nn.ReLU())
        self.context = nn.Linear(hidden, channels)
        # per cell: one score per tile type laid there, then BUILD and ROOF on the cell's tile
        self.cell_head = nn.Sequential(nn.Conv2d(2 * channels, channels, 1), nn.ReLU(),
                                       nn.Conv2d(channels, EK.NUM_TYPES + 2, 1))
        # Pointing actions get their logit from the cell head only (plus one bias per kind
        # of action, PLACE / BUILD / ROOF): an index-specific MLP logit would learn each of
        # the 610 pointing actions separately and drown the shared cell scores.  The MLP
        # scores the 6 other actions (GATHER, STOP, keep contract / tile 0 / 1).
        self.register_buffer("other_actions", torch.as_tensor(
            [actions.action("gather"), actions.action("stop"), actions.action("keep_contract", 0),
             actions.action("keep_contract", 1), actions.action("keep_tile", 0), actions.action("keep_tile", 1)]),
            persistent=False)
        self._place = (actions.offset("place"), actions.size("place") // EK.HAND_SLOTS)
        self._build = slice(actions.offset("build"), actions.offset("build") + actions.size("build"))
        self._roof = slice(actions.offset("roof"), actions.offset("roof") + actions.size("roof"))
        self.other_logits = nn.Linear(hidden, len(self.other_actions))
        self.kind_bias = nn.Linear(hidden, 3)
        self.value = nn.Sequential(nn.Linear(hidden + 2 * channels, hidden), nn.ReLU())

    def _part(self, obs, name):
        """The observation part ``name`` of a batch, in its declared shape."""
        where, shape = self._parts[name]
        return obs[:, where].reshape(obs.shape[0], *shape)


    def forward(self, obs):
        b = obs.shape[0]
        scaled = obs / self.scale
        tiles = self._part(obs, "tiles")                                     # (b, 61, 25)
        placed = tiles[..., EK.TILE_ROW.offset("placed")] > 0.5
        tx, ty = tiles[..., EK.TILE_ROW.offset("x")], tiles[..., EK.TILE_ROW.offset("y")]
        info = self._part(obs, "window_info")
        cx, cy = info[:, EK.WINDOW_INFO.offset("centre_x")], info[:, EK.WINDOW_INFO.offset("centre_y")]
        grid = self._part(scaled, "window")                                  # (b, 14, K, K)

        cells = self.cells(grid)
        pooled = torch.cat([cells.mean(dim=(2, 3)), cells.amax(dim=(2, 3))], dim=1)
        g = self.table(torch.cat([scaled[:, :self._n_table], pooled], dim=1))
        ctx = self.context(g)[:, :, None, None].expand(-1, -1, self.win, self.win)
        heads = self.cell_head(torch.cat([cells, ctx], dim=1)).flatten(2)   # (b, 14, K*K)

        bias = self.kind_bias(g)
        logits = torch.zeros(b, self.n_actions, dtype=obs.dtype, device=obs.device)
        logits[:, self.other_actions] = self.other_logits(g)
        # PLACE slot s next to tile a in direction d: the laid type's score at that cell
        flat, inside = EK.crop_cells(tx[:, :, None] + self.dx, ty[:, :, None] + self.dy, cx, cy, self.win)
        ok = (inside & placed[:, :, None]).flatten(1).float()                # (b, 244)
        flat = flat.flatten(1)
        hand = self._part(obs, "hand")                                       # (b, 2, 12)
        per_type = heads[:, :EK.NUM_TYPES]                                        # (b, 12, K*K)
        first, slot_size = self._place
        for s in range(EK.HAND_SLOTS):
            score = torch.einsum("bt,btn->bn", hand[:, s], per_type)
            logits[:, first + s * slot_size:first + (s + 1) * slot_size] = score.gather(1, flat) * ok + bias[:, :1]
        # BUILD / ROOF on tile t: the scores at the tile's own cell
        flat_t, inside_t = EK.crop_cells(tx[:, :, None], ty[:, :, None], cx, cy, self.win)
        flat_t, ok_t = flat_t[:, :, 0], (inside_t[:, :, 0] & placed).float()
        logits[:, self._build] = heads[:, EK.NUM_TYPES].gather(1, flat_t) * ok_t + bias[:, 1:2]
        logits[:, self._roof] = heads[:, EK.NUM_TYPES + 1].gather(1, flat_t) * ok_t + bias[:, 2:3]
        value = self.value(torch.cat([g, pooled], dim=1))
        return torch.cat([logits, value], dim=1)


class _Split(nn.Module):
    """The extractor's output split into the actor's logits and the critic's features."""

    def __init__(self, n_actions, hidden):
        super().__init__()
        self.n_actions = n_actions
        self.latent_dim_pi = n_actions
        self.latent_dim_vf = hidden

    def forward(self, features):
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features):
        return features[:, :self.n_actions]

    def forward_critic(self, features):
        return features[:, self.n_actions:]


class _ExtractorLogitsPolicy(MaskableActorCriticPolicy):
    """A MaskablePPO policy whose features extractor is the whole network: it returns the
    action logits followed by the critic's features (:class:`_Split` divides them).
    Subclasses name their extractor as ``features_extractor_class``."""

    def __init__(self, observation_space, action_space, lr_schedule, **kwargs):
        kwargs.pop("net_arch", None)   # the extractor is the whole network
        kwargs["share_features_extractor"] = True
        super().__init__(observation_space, action_space, lr_schedule, net_arch=[], **kwargs)

    def _build_mlp_extractor(self):
        fx = self.features_extractor
        self.mlp_extractor = _Split(fx.n_actions, fx.features_dim - fx.n_actions)

    def _build(self, lr_schedule):
        super()._build(lr_schedule)
        # the extractor already produced the logits
        self.action_net = nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)


class ExpancityPolicy(_ExtractorLogitsPolicy):
    """MaskablePPO policy with :class:`ExpancityExtractor`'s per-cell action scores.

    ``features_extractor_kwargs`` may set ``channels`` (default 16), ``conv_layers`` (2) and
    ``hidden`` (128)."""

    def __init__(self, observation_space, action_space, lr_schedule, **kwargs):
        kwargs.setdefault("features_extractor_class", ExpancityExtractor)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)


class BoardExtractor(BaseFeaturesExtractor):
    """Observation -> ``[action logits, value features]`` for :class:`BoardPolicy`.

    Convolutions over the game's board planes (:data:`agents.players.boards.BOARD_SPECS`), with
    the sizes of the connected regions around each cell
    (:func:`agents.players.boards.region_planes`), give every cell a feature vector; an MLP over
    the whole observation (plus the pooled cells) gives the table's context, broadcast
    back to the cells.  A 1x1 head scores every cell, and each
    pointing action's logit is its cell's score for its choice plus a learned bias per
    kind of pointing action; the MLP scores the other actions and feeds the value."""

    def __init__(self, observation_space, game, channels=32, conv_layers=3, hidden=128):
        geo = board_geometry(game)
        n_obs = int(np.prod(observation_space.shape))
        if n_obs != geo.n_obs:
            raise ValueError(f"BoardPolicy for {game!r} needs {geo.n_obs} observation values, "
                             f"got {n_obs}")
        super().__init__(observation_space, features_dim=geo.n_actions + hidden)
        self.geometry = geo
        self.n_actions = geo.n_actions
        self.register_buffer("scale", _obs_scale(observation_space), persistent=False)
        convs = []
        for i in range(conv_layers):
            inputs = geo.n_planes + geo.n_region_planes if i == 0 else channels
            convs += [nn.Conv2d(inputs, channels, 3, padding=1), nn.ReLU()]
        self.cells = nn.Sequential(*convs)
        self.table = nn.Sequential(nn.Linear(n_obs + 2 * channels, hidden), nn.ReLU(),
                                   nn.Linear(hidden, hidden), nn.ReLU())
        self.context = nn.Linear(hidden, channels)
        self.cell_head = nn.Sequential(nn.Conv2d(2 * channels, channels, 1), nn.ReLU(),
                                       nn.Conv2d(channels, geo.n_channels, 1))
        self.other_logits = nn.Linear(hidden, len(geo.other_actions))
        self.kind_bias = nn.Linear(hidden, geo.n_kinds)
        self.value = nn.Sequential(nn.Linear(hidden + 2 * channels, hidden), nn.ReLU())
        for name in ("point_actions", "point_channel", "point_cell", "point_kind", "other_actions"):
            self.register_buffer(name, torch.as_tensor(getattr(geo, name)), persistent=False)

    def forward(self, obs):
        b, geo = obs.shape[0], self.geometry
        scaled = obs / self.scale
        grid = board_planes(scaled, geo, torch.cat)
        if geo.n_region_planes:   # computed from the observation's values; no gradient flows there
            regions = torch.from_numpy(region_planes(obs.detach().cpu().numpy(), geo)).to(grid)
            grid = torch.cat([grid, regions], dim=1)
        cells = self.cells(grid)
        pooled = torch.cat([cells.mean(dim=(2, 3)), cells.amax(dim=(2, 3))], dim=1)
        g = self.table(torch.cat([scaled, pooled], dim=1))
        ctx = self.context(g)[:, :, None, None].expand(-1, -1, geo.height, geo.width)
        heads = self.cell_head(torch.cat([cells, ctx], dim=1)).flatten(2)   # (b, channels, cells)
        logits = torch.empty(b, self.n_actions, dtype=obs.dtype, device=obs.device)
        logits[:, self.other_actions] = self.other_logits(g)
        logits[:, self.point_actions] = (heads[:, self.point_channel, self.point_cell]
                                         + self.kind_bias(g)[:, self.point_kind])
        value = self.value(torch.cat([g, pooled], dim=1))
        return torch.cat([logits, value], dim=1)


class BoardPolicy(_ExtractorLogitsPolicy):
    """MaskablePPO policy with :class:`BoardExtractor`'s per-cell action scores, for the
    games of :data:`agents.players.boards.BOARD_SPECS`.  ``features_extractor_kwargs`` must name
    the ``game``; it may set ``channels`` (default 32), ``conv_layers`` (3) and ``hidden``
    (128)."""

    def __init__(self, observation_space, action_space, lr_schedule, **kwargs):
        kwargs.setdefault("features_extractor_class", BoardExtractor)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)


class ActionValuesExtractor(BaseFeaturesExtractor):
    """``[observation, action values]`` -> ``[action logits, value features]`` for
    :class:`ActionValuesPolicy`: ``logits = head(g) + w1(g) * f1 + w2(g) * f2`` where ``g``
    is an MLP of the scaled observation and ``f1, f2`` are :func:`agents.players.features.action_value_features`.
    ``tie_break``: the head's bias starts falling linearly by this many logits from the first
    action to the last, so that among actions greedy values alike the untrained policy
    leans to the lower ids (0: no lean).  ``learn_head=False`` keeps ``head`` as it starts
    (no MLP logits, only the lean): training then tunes the state-dependent weights ``w1,
    w2`` alone, which rescale every action's features alike and so cannot reorder actions
    that greedy values alike."""

    def __init__(self, observation_space, n_actions, hidden=(256, 256), value_scale=5.0,
                 value_weights=(2.0, 4.0), tie_break=0.0, learn_head=True):
        n_obs = int(np.prod(observation_space.shape)) - int(n_actions)
        if n_obs <= 0:
            raise ValueError("ActionValuesPolicy needs the observation followed by the action values "
                             f"(the env option action_values=True); got {observation_space.shape[0]} values "
                             f"for {n_actions} actions")
        hidden = tuple(int(h) for h in hidden)
        super().__init__(observation_space, features_dim=int(n_actions) + hidden[-1])
        self.n_obs, self.n_actions = n_obs, int(n_actions)
        self.value_scale = float(value_scale)
        self.value_weights = tuple(float(w) for w in value_weights)
        self.tie_break = float(tie_break)
        if not (np.isfinite(self.tie_break) and self.tie_break >= 0.0):
            raise ValueError(f"tie_break must be a finite number >= 0, got {tie_break!r}")
        if not isinstance(learn_head, (bool, np.bool_)):
            raise ValueError(f"learn_head must be True or False, got {learn_head!r}")
        self.register_buffer("scale", _obs_scale(observation_space)[:n_obs], persistent=False)
        layers, width = [], n_obs
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, self.n_actions)
        self.head.requires_grad_(bool(learn_head))    # no gradient, so the optimiser leaves it
        self.mix = nn.Linear(width, 2)
        self.init_value_weights()

    def init_value_weights(self):
        """Start as greedy's choice, softened: no MLP logits, fixed weights of the features,
        and the ``tie_break`` lean in the head's bias."""
        with torch.no_grad():
            nn.init.zeros_(self.head.weight)
            self.head.bias.copy_(-self.tie_break * torch.linspace(0.0, 1.0, self.n_actions))
            nn.init.zeros_(self.mix.weight)
            self.mix.bias.copy_(torch.tensor(self.value_weights))

    def forward(self, obs):
        g = self.body(obs[:, :self.n_obs] / self.scale)
        f1, f2 = action_value_features(obs[:, self.n_obs:], self.value_scale)
        w = self.mix(g)
        logits = self.head(g) + w[:, :1] * f1 + w[:, 1:2] * f2
        return torch.cat([logits, g], dim=1)


class ActionValuesPolicy(_ExtractorLogitsPolicy):
    """MaskablePPO policy with :class:`ActionValuesExtractor` (train it on an env made with
    ``action_values=True``).  ``features_extractor_kwargs`` may set ``hidden`` (default
    ``(256, 256)``), ``value_scale`` (5), ``value_weights`` (``(2, 4)``: the starting
    weights of the two features), ``tie_break`` (0: the starting lean to lower action
    ids) and ``learn_head`` (True; False keeps the per-action head at that start)."""

    def __init__(self, observation_space, action_space, lr_schedule, **kwargs):
        kwargs.setdefault("features_extractor_class", ActionValuesExtractor)
        extractor_kwargs = dict(kwargs.get("features_extractor_kwargs") or {})
        extractor_kwargs.setdefault("n_actions", int(action_space.n))
        kwargs["features_extractor_kwargs"] = extractor_kwargs
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule):
        super()._build(lr_schedule)
        self.features_extractor.init_value_weights()   # after sb3's orthogonal initialisation
