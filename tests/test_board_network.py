"""agents.players.boards / agents.players.networks.BoardPolicy: the board network reads each fixed-board
game's planes and points its actions at the right cells; its numpy twin (shipped policies
play without torch) computes torch's logits; train.py trains, saves and exports it."""
import json
import os
import sys

import numpy as np
import pytest

import envs
from agents.players.boards import BOARD_SPECS, board_geometry, board_planes, region_planes
from agents.pretrained import board_numpy
from kernels import kingdomino_duel as KD

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from stored_policy import as_stored  # noqa: E402

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
from agents.players.networks import BoardExtractor, BoardPolicy  # noqa: E402

KD_GAME = "kingdomino_duel_v0"


def _positions(game, games=3, every=3):
    """(observation, mask) pairs of random games, every few decisions."""
    return driver.positions(envs.make(game), range(games), every)


def _policy(game, seed):
    env = envs.make(game)
    agent = env.possible_agents[0]
    torch.manual_seed(seed)
    return BoardPolicy(env.observation_space(agent)["observation"], env.action_space(agent),
                       lambda _: 3e-4, features_extractor_kwargs=dict(game=game))


def _torch_logits(policy, obs):
    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(obs), policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()


@pytest.mark.parametrize("game", sorted(BOARD_SPECS))
def test_every_action_is_scored_once(game):
    geo = board_geometry(game)
    every = np.concatenate([geo.point_actions, geo.other_actions])
    assert sorted(every.tolist()) == list(range(geo.n_actions))
    assert geo.point_cell.max() < geo.height * geo.width and geo.point_channel.max() < geo.n_channels


def test_kingdomino_duel_actions_point_at_their_cells():
    """PLACE(cell, dir) is 28 + 4*cell + dir and CELL(c) is 168 + c (the env's documented
    encoding): each is read from its own cell, PLACE from the channel of its direction."""
    geo = board_geometry(KD_GAME)
    where = {int(a): (int(ch), int(c)) for a, ch, c in zip(geo.point_actions, geo.point_channel, geo.point_cell)}
    for cell in range(35):
        for d in range(4):
            assert where[28 + 4 * cell + d] == (d, cell)
        assert where[168 + cell] == (4, cell)
    assert 203 in geo.other_actions and 0 in geo.other_actions


def test_tiny_towns_actions_point_at_their_squares():
    """CONSTRUCT is 128*slot + 16*t + anchor and SQUARE q is 1024 + q (the env's documented
    encoding): a construction is read at its anchor square, from the channel of its (slot,
    transform); the own town's 25 square planes come first."""
    geo = board_geometry("tiny_towns_v0")
    where = {int(a): (int(ch), int(c)) for a, ch, c in zip(geo.point_actions, geo.point_channel, geo.point_cell)}
    for slot in range(8):
        for t in range(8):
            for anchor in range(16):
                assert where[128 * slot + 16 * t + anchor] == (8 * slot + t, anchor)
    for q in range(16):
        assert where[1024 + q] == (64, q)
    env = envs.make("tiny_towns_v0")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    squares = env.unwrapped.split_observation(obs)["player0_squares"]          # (16, 25)
    planes = board_planes(obs[None], geo, np.concatenate)[0]
    np.testing.assert_array_equal(planes[:25].reshape(25, 16), squares.T)


def test_legal_placements_point_at_empty_cells_of_my_map():
    """In real play, every legal PLACE action's cell is empty on the mover's own map plane
    as the network sees it (planes and action cells agree on the board's orientation)."""
    geo = board_geometry(KD_GAME)
    place = geo.point_kind == 0
    checked = 0
    for obs, mask in _positions(KD_GAME):
        planes = board_planes(obs[None], geo, np.concatenate)[0]       # (20, 5, 7)
        empty_mine = planes[KD.PLANE_EMPTY].reshape(-1)
        legal = mask[geo.point_actions] & place
        assert (empty_mine[geo.point_cell[legal]] == 1.0).all()
        checked += int(legal.sum())
    assert checked > 100


def _reference_regions(kind_of, weight_of, n_kinds, rows, cols):
    """Plain-Python region features of one map (dicts cell -> kind / weight), as
    :func:`agents.players.boards.region_planes` documents them, unscaled: (2 + 2*kinds, cells)."""
    cells = rows * cols
    nbrs = {c: [r * cols + q for r, q in ((c // cols - 1, c % cols), (c // cols, c % cols + 1),
                                         (c // cols + 1, c % cols), (c // cols, c % cols - 1))
                if 0 <= r < rows and 0 <= q < cols] for c in range(cells)}
    region = {}
    for start in range(cells):
        if start in region or kind_of[start] < 0:
            continue
        todo, members = [start], {start}
        while todo:
            c = todo.pop()
            for q in nbrs[c]:
                if q not in members and kind_of[q] == kind_of[start]:
                    members.add(q)
                    todo.append(q)
        group = frozenset(members)
        for c in group:
            region[c] = group
    out = np.zeros((2 + 2 * n_kinds, cells))
    for c in range(cells):
        if c in region:
            out[0, c] = len(region[c])
            out[1, c] = sum(weight_of[q] for q in region[c])
        for group in {region[q] for q in nbrs[c] if q in region}:
            k = kind_of[next(iter(group))]
            out[2 + 2 * k, c] += len(group)
            out[3 + 2 * k, c] += sum(weight_of[q] for q in group)
    return out


def test_region_planes_match_a_plain_python_count():
    """Kingdomino Duel's domain planes, on real positions and on random maps, agree with a
    breadth-first search written out in Python (both players' maps)."""
    geo = board_geometry(KD_GAME)
    spec = BOARD_SPECS[KD_GAME]
    layout = KD.OBS
    real = np.asarray([o for o, _ in _positions(KD_GAME, games=2, every=5)], dtype=np.float32)
    rng = np.random.default_rng(0)
    fake = np.zeros((20, geo.n_obs), dtype=np.float32)
    maps = np.zeros((20, 2, 9, 35), dtype=np.float32)
    kinds = rng.integers(-1, 6, size=(20, 2, 35))
    for b, m, c in zip(*np.nonzero(kinds >= 0)):
        maps[b, m, kinds[b, m, c], c] = 1.0
        maps[b, m, 7, c] = float(rng.random() < 0.4)
        maps[b, m, 8, c] = float(maps[b, m, 7, c] and rng.random() < 0.3)
    fake[:, layout.slice("maps")] = maps.reshape(20, -1)
    for obs in (real, fake):
        got = region_planes(obs, geo).reshape(len(obs), -1, 35)
        for b in range(len(obs)):
            planes = obs[b, layout.slice("maps")].reshape(2, 9, 35)
            at = 0
            for r in spec.regions:
                one = planes[r.index]
                kind_of = {c: (int(one[:6, c].argmax()) if one[:6, c].max() > 0.5 else -1) for c in range(35)}
                weight_of = {c: float(one[7, c] + one[8, c]) for c in range(35)}
                ref = _reference_regions(kind_of, weight_of, 6, 5, 7)
                scale = np.array([r.max_size, r.max_weight] * 7)[:, None]
                np.testing.assert_allclose(got[b, at:at + 14], ref / scale, atol=1e-6)
                at += 14
    assert region_planes(real, geo)[:, 2:].max() > 0     # some cell touches a domain


def test_numpy_board_network_matches_torch():
    policy = _policy(KD_GAME, seed=1)
    actor = board_numpy.BoardActor(board_numpy.export_arrays(policy))
    real = np.asarray([o for o, _ in _positions(KD_GAME, games=1)], dtype=np.float32)
    rng = np.random.default_rng(3)
    space = envs.make(KD_GAME).observation_space("player_0")["observation"]
    noise = rng.uniform(space.low, np.minimum(space.high, 30), size=(6, space.shape[0])).astype(np.float32)
    for obs in (real, noise):
        np.testing.assert_allclose(actor.batch_logits(obs), _torch_logits(policy, obs), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="observations must have shape"):
        actor.batch_logits(real[:, :-1])


def test_a_cell_score_moves_only_its_own_actions():
    """Raising the cell head's output for one (channel, cell) pair changes exactly the
    logits of the actions pointing there (the index arrays are not shuffled)."""
    policy = _policy(KD_GAME, seed=2)
    fx = policy.features_extractor
    obs = np.asarray([o for o, _ in _positions(KD_GAME, games=1)][:4], dtype=np.float32)
    before = _torch_logits(policy, obs)
    geo = fx.geometry
    channel, cell = 2, 17
    hook = fx.cell_head.register_forward_hook(
        lambda m, i, out: out + 5.0 * torch.nn.functional.one_hot(
            torch.tensor(channel * geo.height * geo.width + cell), out[0].numel()).view(out.shape[1:]))
    try:
        after = _torch_logits(policy, obs)
    finally:
        hook.remove()
    changed = np.flatnonzero(np.abs(after - before).max(axis=0) > 1e-6)
    assert changed.tolist() == [28 + 4 * cell + channel]


def test_wrong_game_or_observation_is_refused():
    with pytest.raises(ValueError, match="no board network for game 'expancity_v0'"):
        board_geometry("expancity_v0")
    space = envs.make("smartphone_inc_v0").observation_space("player_0")["observation"]
    with pytest.raises(ValueError, match="observation values"):
        BoardExtractor(space, game=KD_GAME)


def test_train_board_policy_exports_and_plays(tmp_path):
    """``train.py --policy board`` trains and saves; the run exports to a numpy policy whose
    logits are the model's and which plays a legal game without torch's help."""
    import train
    from agents import pretrained
    from agents.players.policy import load_model
    from agents.learning.training.export import export

    run = tmp_path / "run"
    summary = train.main(["--game", KD_GAME, "--policy", "board", "--timesteps", "256", "--n-envs", "2",
                          "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
                          "--eval-every", "0", "--final-eval-games", "2", "--warm-start", "none", "--out", str(run),
                          "--no-progress", "--no-plot", "--verbose", "0"])
    assert summary["config"]["policy"] == "board"
    out = tmp_path / "models"
    record = export(str(run), str(out), check_games=1)
    assert record["overridden"]["policy"] == "board"
    assert json.loads((out / f"{KD_GAME}.json").read_text())["weights_sha256"] == record["weights_sha256"]
    actor = pretrained.load_actor(KD_GAME, directory=str(out))
    assert isinstance(actor, board_numpy.BoardActor)
    obs = np.asarray([o for o, _ in _positions(KD_GAME, games=1)], dtype=np.float32)
    model = as_stored(load_model(str(run / "final_model.zip")), record["storage"])
    np.testing.assert_allclose(actor.batch_logits(obs), _torch_logits(model.policy, obs), rtol=1e-5, atol=1e-5)
    env = envs.make(KD_GAME)
    env.reset(seed=4)
    while not env.terminations[env.agent_selection]:
        ob = env.observe(env.agent_selection)
        logits = np.where(ob["action_mask"].astype(bool), actor.batch_logits(ob["observation"][None])[0], -np.inf)
        env.step(int(np.argmax(logits)))
