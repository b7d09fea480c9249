"""Game records (envs.records): record -> save -> load -> replay gives back every state of
the game, for every game; bad files and records that do not replay are refused with a
clear ValueError; the tournament writes one record per game on request."""
import json

import numpy as np
import pytest

import envs
from envs import records

# Every game, two player counts where the game allows several, a variant on one of them.
CONFIGS = [
    ("kingdomino_duel_v0", {}),
    ("kingdomino_duel_v0", {"first_start_player": 1}),
    ("tiny_towns_v0", {"num_players": 1}),
    ("tiny_towns_v0", {"num_players": 3, "variant": "town_hall", "cave_rule": True}),
    ("between_two_cities_v0", {"num_players": 1, "solo_mode": "full"}),
    ("between_two_cities_v0", {"num_players": 3, "assign_at_selection": True}),
    ("expancity_v0", {"num_players": 2}),
    ("expancity_v0", {"num_players": 3, "obs_window": 9}),
    ("smartphone_inc_v0", {"num_players": 1}),
    ("smartphone_inc_v0", {"num_players": 3, "steve": True, "tech_sides": "back"}),
]


def _snapshot(env):
    """Everything a replay must reproduce: the whole kernel state, whose turn, and every
    seat's observation and mask (copies)."""
    return (env._state.copy(), env.agent_selection,
            [(o["observation"], o["action_mask"]) for o in map(env.observe, env.possible_agents)])


def _play_random(game, options, seed, snapshots=None):
    """A random game of ``game``, recorded; optionally a snapshot after reset and each move."""
    env = envs.make(game, **options)
    record = records.new_record(game, options, seed, players=["random"] * len(env.possible_agents))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    if snapshots is not None:
        snapshots.append(_snapshot(env))
    while env.phase != "game_over":
        action = int(rng.choice(env.legal_actions()))
        records.add_action(record, env, action)
        env.step(action)
        if snapshots is not None:
            snapshots.append(_snapshot(env))
    records.finish(record, env)
    return record, env


@pytest.mark.parametrize("game,options", CONFIGS, ids=[f"{g}-{json.dumps(o)}" for g, o in CONFIGS])
def test_replay_reproduces_every_state(game, options, tmp_path):
    original = []
    record, env = _play_random(game, options, seed=11, snapshots=original)
    assert record["scores"] == env.scores()
    assert record["ranks"] == env.infos["player_0"]["ranks"]
    assert len(record["actions"]) == len(record["labels"]) == len(original) - 1

    path = records.save(record, tmp_path / "game.json")
    loaded = records.load(path)
    assert loaded == record
    steps = 0
    for index, replayed in records.replay_steps(loaded):
        state, selection, views = _snapshot(replayed)
        want_state, want_selection, want_views = original[index]
        np.testing.assert_array_equal(state, want_state, err_msg=f"state after move {index}")
        assert selection == want_selection, index
        for (obs, mask), (want_obs, want_mask) in zip(views, want_views):
            np.testing.assert_array_equal(obs, want_obs, err_msg=f"observation after move {index}")
            np.testing.assert_array_equal(mask, want_mask, err_msg=f"mask after move {index}")
        steps += 1
    assert steps == len(original)
    final = records.replay(loaded)
    assert final.phase == "game_over" and final.scores() == record["scores"]


def _short_record(game="kingdomino_duel_v0", options=None, seed=3):
    return _play_random(game, options or {}, seed)[0]


def test_record_keys_and_outcome():
    record = _short_record("between_two_cities_v0", {"num_players": 1}, seed=4)
    assert set(record) == {"format", "game", "options", "seed", "actions", "labels", "players",
                           "scores", "ranks", "winners"}
    assert record["format"] == records.FORMAT and record["game"] == "between_two_cities_v0"
    assert record["options"] == {"num_players": 1} and record["seed"] == 4
    assert all(isinstance(a, int) for a in record["actions"])
    json.dumps(record, allow_nan=False)   # plain JSON, nothing numpy
    # solo against the automata: the winners are the seats ranked first, maybe none
    assert record["winners"] == [i for i, r in enumerate(record["ranks"]) if r == 1]


def test_unfinished_record_replays_to_where_it_stopped():
    env = envs.make("tiny_towns_v0", num_players=2)
    env.reset(seed=5)
    record = records.new_record("tiny_towns_v0", {"num_players": 2}, 5)
    for _ in range(7):
        action = env.legal_actions()[-1]
        records.add_action(record, env, action)
        env.step(action)
    records.finish(record, env)
    assert record["ranks"] is None and record["winners"] is None
    replayed = records.replay(record)
    np.testing.assert_array_equal(replayed.game_state(), env.game_state())
    assert records.truncated(record, 3)["actions"] == record["actions"][:3]


def test_add_action_refuses_an_illegal_action_and_changes_nothing():
    env = envs.make("kingdomino_duel_v0")
    env.reset(seed=1)
    record = records.new_record("kingdomino_duel_v0", {}, 1)
    illegal = next(a for a in range(env.action_space("player_0").n) if a not in env.legal_actions())
    with pytest.raises(ValueError, match=f"action {illegal} is not legal"):
        records.add_action(record, env, illegal)
    with pytest.raises(ValueError, match="action must be an integer"):
        records.add_action(record, env, "3")
    assert record["actions"] == [] and record["labels"] == []


def test_new_record_checks_its_arguments():
    with pytest.raises(ValueError, match="unknown game 'chess_v0'"):
        records.new_record("chess_v0", {}, 0)
    with pytest.raises(ValueError, match="options must be JSON-able"):
        records.new_record("tiny_towns_v0", {"buildings": object()}, 0)
    with pytest.raises(ValueError, match="seed must be an integer"):
        records.new_record("tiny_towns_v0", {}, 1.5)
    with pytest.raises(ValueError, match="players must be a list of strings"):
        records.new_record("tiny_towns_v0", {}, 0, players=[1, 2])
    # how the env is shown is no part of the game
    assert records.new_record("tiny_towns_v0", {"render_mode": "ansi"}, 0)["options"] == {}


def _write(path, record):
    path.write_text(json.dumps(record))
    return path


def test_a_minimal_hand_written_record_loads_and_replays(tmp_path):
    full = _short_record(seed=2)
    minimal = {k: full[k] for k in ("format", "game", "options", "seed", "actions", "labels")}
    loaded = records.load(_write(tmp_path / "minimal.json", minimal))
    assert loaded == dict(minimal, players=None, scores=None, ranks=None, winners=None)
    assert records.replay(loaded).scores() == full["scores"]


def test_load_refuses_another_format_version(tmp_path):
    record = dict(_short_record(), format=records.FORMAT + 1)
    with pytest.raises(ValueError, match=f"format version {records.FORMAT + 1}.*reads format "
                                         f"{records.FORMAT} only"):
        records.load(_write(tmp_path / "new.json", record))
    with pytest.raises(ValueError, match="not a cityzoo game record"):
        records.load(_write(tmp_path / "other.json", {"game": "kingdomino_duel_v0"}))
    with pytest.raises(ValueError, match="format version"):
        records.replay(record)


def test_load_refuses_an_unknown_game(tmp_path):
    record = dict(_short_record(), game="kingdomino_v9")
    with pytest.raises(ValueError, match="unknown game 'kingdomino_v9'"):
        records.load(_write(tmp_path / "g.json", record))
    with pytest.raises(ValueError, match="unknown game"):
        records.save(record, tmp_path / "g2.json")
    assert not (tmp_path / "g2.json").exists()


def test_load_refuses_damaged_files(tmp_path):
    path = records.save(_short_record(), tmp_path / "game.json")
    text = path.read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match="cut.json.*not valid JSON"):
        records.load(cut)
    garbled = tmp_path / "garbled.json"
    garbled.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="garbled.json"):
        records.load(garbled)
    with pytest.raises(ValueError, match="cannot read"):
        records.load(tmp_path / "missing.json")
    with pytest.raises(ValueError, match=r"must end in \.json"):
        records.load(tmp_path / "game.txt")
    bad = json.loads(text)
    bad["labels"] = bad["labels"][:-1]
    with pytest.raises(ValueError, match="one per action"):
        records.load(_write(tmp_path / "labels.json", bad))
    bad = dict(json.loads(text), actions=[1, "2"], labels=["a", "b"])
    with pytest.raises(ValueError, match="'actions' must be a list of integers"):
        records.load(_write(tmp_path / "actions.json", bad))


def test_replay_names_the_move_that_does_not_replay():
    record = _short_record(seed=8)
    move = 6   # 0-based index of the action we spoil; the error names it 1-based
    before = records.replay(records.truncated(record, move))
    illegal = next(a for a in range(before.action_space("player_0").n) if a not in before.legal_actions())
    spoiled = dict(record, actions=record["actions"][:move] + [illegal] + record["actions"][move + 1:])
    with pytest.raises(ValueError, match=f"move {move + 1}: action {illegal} .* is not legal"):
        records.replay(spoiled)

    # a legal action that means something else than recorded: another version's record
    other = next(a for a in before.legal_actions()
                 if before.action_label(a) != record["labels"][move])
    changed = dict(record, actions=record["actions"][:move] + [other] + record["actions"][move + 1:])
    with pytest.raises(ValueError, match=f"move {move + 1}: .*another version"):
        records.replay(changed)

    longer = dict(record, actions=record["actions"] + [0], labels=record["labels"] + ["x"])
    with pytest.raises(ValueError, match=f"move {len(longer['actions'])}: the game is already over"):
        records.replay(longer)
    with pytest.raises(ValueError, match="scores"):
        records.replay(dict(record, scores=[s + 1 for s in record["scores"]]))
    with pytest.raises(ValueError, match="options do not make"):
        records.replay(dict(record, options={"num_players": 3}))


def test_json_lines_hold_several_games(tmp_path):
    games = [_short_record("kingdomino_duel_v0", {}, 1),
             _short_record("tiny_towns_v0", {"num_players": 1}, 2),
             _short_record("smartphone_inc_v0", {"num_players": 1}, 3)]
    path = tmp_path / "games.jsonl"
    for record in games:
        records.save(record, path)
    assert len(path.read_text().splitlines()) == 3
    loaded = records.load_all(path)
    assert loaded == games
    for record in loaded:
        assert records.replay(record).scores() == record["scores"]
    with pytest.raises(ValueError, match="3 records, not one"):
        records.load(path)
    with open(path, "a") as f:
        f.write('{"format": 1, "game": \n')
    with pytest.raises(ValueError, match="line 4 is not valid JSON"):
        records.load_all(path)


def test_play_game_records_the_game():
    import agents
    from agents.loop import play_game

    env = envs.make("tiny_towns_v0", num_players=2)
    record = records.new_record("tiny_towns_v0", {"num_players": 2}, 21)
    outcome = play_game(env, [agents.make("random", seed=1), agents.make("random", seed=2)],
                        record=record)
    assert sum(outcome.moves) == len(record["actions"])
    assert record["scores"] == outcome.info["scores"] and record["ranks"] == outcome.info["ranks"]
    np.testing.assert_array_equal(records.replay(record).game_state(), env.game_state())
    with pytest.raises(ValueError, match="differs from the record's seed"):
        play_game(env, [agents.make("random")] * 2, seed=5,
                  record=records.new_record("tiny_towns_v0", {"num_players": 2}, 6))


def test_tournament_saves_one_record_per_game(tmp_path):
    from agents import tournament as T

    game = "kingdomino_duel_v0"
    out, saved = tmp_path / "out", tmp_path / "records"
    T.main(["--game", game, "--agents", "rnd=random", "random", "--games", "2", "--workers", "1",
            "--seed", "9", "--out", str(out), "--no-progress", "--save-games", str(saved)])
    results = json.loads((out / "results.json").read_text())["results"]
    files = sorted(p.name for p in saved.iterdir())
    assert files == sorted(r["record"] for r in results) and len(files) == 2
    for res in results:
        name = res["record"]
        assert name.startswith(f"{res['index']:04d}-{game}-seed{res['env_seed']}-")
        assert name.endswith("-".join(res["seats"]) + ".json")
        record = records.load(saved / name)
        assert record["players"] == res["seats"] and record["seed"] == res["env_seed"]
        assert record["options"] == {"num_players": 2}
        assert sum(res["moves"]) == len(record["actions"])
        assert records.replay(record).scores() == res["scores"] == record["scores"]
    # the rotation seats the agents the other way round in the second game
    assert results[0]["seats"] == list(reversed(results[1]["seats"]))
