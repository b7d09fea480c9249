"""agents.players.networks: the structured Expancity policy points its action logits at the right cells."""
import os
import sys

import numpy as np
import pytest

import agents
import envs
from kernels import expancity as EK

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
from sb3_contrib import MaskablePPO  # noqa: E402

from agents.players.networks import ExpancityExtractor, ExpancityPolicy  # noqa: E402
from envs.single_agent import SingleAgentEnv  # noqa: E402

LEGAL_PLANE = EK.WIN_PLANES.index("legal_cell")
RES_PLANE, COM_PLANE = EK.WIN_PLANES.index("residential"), EK.WIN_PLANES.index("commercial")
OWNER_0 = EK.WIN_PLANES.index("owner_0")


def _positions(num_players, games=3, every=7):
    """(observation, mask) pairs of random Expancity games, taken every few steps."""
    return driver.positions(envs.make("expancity_v0", num_players=num_players), range(games), every)


def _extractor():
    return ExpancityExtractor(envs.SingleAgentEnv("expancity_v0").observation_space)


def _pointed_cells(fx, obs):
    """Crop cell indices of one observation: ``(place_cell, place_inside, tile_cell)``, the
    first two indexed by ``a*4 + d`` within a hand slot, the last by tile index."""
    t = torch.as_tensor(obs)[None]
    tiles = t[:, :EK.OBS_TILES].view(1, EK.MAX_TILES, EK.F_TILE)
    cx, cy = t[:, EK.O_OBS_WINDOW + 1], t[:, EK.O_OBS_WINDOW + 2]
    flat, inside = EK.crop_cells(tiles[..., 1, None] + fx.dx, tiles[..., 2, None] + fx.dy, cx, cy, fx.win)
    flat_t, _ = EK.crop_cells(tiles[..., 1, None], tiles[..., 2, None], cx, cy, fx.win)
    return flat.flatten(1)[0].numpy(), inside.flatten(1)[0].numpy(), flat_t[0, :, 0].numpy()


@pytest.mark.parametrize("num_players", [2, 4])
def test_pointing_actions_land_on_their_cells(num_players):
    """Every legal PLACE action's cell is a legal placement cell of the crop; every legal
    BUILD / ROOF action's tile is a residential or commercial lot, ROOF on an own building."""
    fx = _extractor()
    win2 = fx.win * fx.win
    checked = {"place": 0, "build": 0, "roof": 0}
    for obs, mask in _positions(num_players):
        if obs[EK.O_OBS_WINDOW] != 0:   # part of the city outside the crop
            continue
        planes = obs[EK.O_OBS_WINDOW + 3:].reshape(EK.NUM_WIN_PLANES, win2)
        flat, inside, flat_t = _pointed_cells(fx, obs)
        slot = EK.MAX_TILES * EK.NUM_DIRS
        for a in np.flatnonzero(mask[:2 * slot]):
            assert inside[a % slot] and planes[LEGAL_PLANE, flat[a % slot]] == 1
            checked["place"] += 1
        for kind, first in (("build", EK.A_BUILD), ("roof", EK.A_ROOF)):
            for tile in np.flatnonzero(mask[first:first + EK.MAX_TILES]):
                cell = flat_t[tile]
                assert planes[RES_PLANE, cell] + planes[COM_PLANE, cell] == 1
                if kind == "roof":
                    assert planes[OWNER_0, cell] == 1   # the observer's own building
                checked[kind] += 1
    assert min(checked.values()) > 0, checked


def test_slot_logits_read_the_laid_type_at_the_cell():
    """With the cell head replaced by a known map (type * 1000 + cell index) and the MLP parts
    zeroed, a PLACE logit is the slot's tile type at the pointed cell, BUILD / ROOF logits the
    tile's cell."""
    fx = _extractor()
    win2 = fx.win * fx.win

    class KnownMap(torch.nn.Module):
        def forward(self, x):
            b = x.shape[0]
            cell = torch.arange(win2, dtype=torch.float32).view(1, 1, fx.win, fx.win)
            kinds = torch.arange(EK.NUM_TYPES + 2, dtype=torch.float32).view(1, -1, 1, 1)
            return (kinds * 1000 + cell).expand(b, -1, -1, -1)

    fx.cell_head = KnownMap()
    for layer in (fx.kind_bias, fx.other_logits):
        torch.nn.init.zeros_(layer.weight)
        torch.nn.init.zeros_(layer.bias)
    seen = roofs = 0
    for obs, mask in _positions(2, games=2, every=3):
        if obs[EK.O_OBS_WINDOW] != 0:
            continue
        with torch.no_grad():
            logits = fx(torch.as_tensor(obs)[None])[0, :fx.n_actions].numpy()
        flat, _, flat_t = _pointed_cells(fx, obs)
        hand = obs[EK.O_OBS_PRIVATE:EK.O_OBS_PRIVATE + 2 * EK.NUM_TYPES].reshape(2, EK.NUM_TYPES)
        slot = EK.MAX_TILES * EK.NUM_DIRS
        for a in np.flatnonzero(mask[:2 * slot]):
            kind = int(np.argmax(hand[a // slot]))
            assert logits[a] == kind * 1000 + flat[a % slot]
            seen += 1
        for tile in np.flatnonzero(mask[EK.A_BUILD:EK.A_BUILD + EK.MAX_TILES]):
            assert logits[EK.A_BUILD + tile] == EK.NUM_TYPES * 1000 + flat_t[tile]
        for tile in np.flatnonzero(mask[EK.A_ROOF:EK.A_ROOF + EK.MAX_TILES]):
            assert logits[EK.A_ROOF + tile] == (EK.NUM_TYPES + 1) * 1000 + flat_t[tile]
            roofs += 1
        assert logits[EK.A_GATHER] == 0 and logits[EK.A_STOP] == 0
    assert seen > 0 and roofs > 0


def test_policy_trains_saves_and_plays_legal_moves(tmp_path):
    env = SingleAgentEnv("expancity_v0", opponents="random", agent_factory=agents.make, reward_mode="score")
    model = MaskablePPO(ExpancityPolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    path = str(tmp_path / "ex.zip")
    model.save(path)
    from agents.players import policy_files   # what train.py writes beside its models
    policy_files.write_config(tmp_path, policy_files.config_from_model(
        model, "expancity_v0", {"reward_mode": "score"}))
    bot = agents.make("policy", path=path, deterministic=False, seed=0)
    game = envs.make("expancity_v0")   # illegal actions raise
    game.reset(seed=1)
    for _ in range(120):
        who = game.agent_selection
        if game.terminations[who]:
            break
        game.step(bot.act(game, who))
    logits = bot.logits(game.observe(game.agent_selection)["observation"],
                        game.observe(game.agent_selection)["action_mask"])
    assert np.isfinite(logits).any()


def test_needs_the_spatial_crop():
    space = SingleAgentEnv("expancity_v0", obs_window=0).observation_space
    with pytest.raises(ValueError, match="obs_window"):
        ExpancityExtractor(space)
