"""Game records (envs.records): record -> save -> load -> replay gives back every state of
the game, for every game; bad files and records that do not replay are refused with a
clear ValueError; the tournament writes one record per game on request."""
import json
import re

import numpy as np
import pytest

import envs
from envs import records, testing

# The case table (envs.testing): every registered game, player count and variant.
CONFIGS = testing.cases()


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


@pytest.mark.parametrize("case", **testing.params(CONFIGS))
def test_replay_reproduces_every_state(case, tmp_path):
    game, options = case.game, case.options
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
    assert set(record) == {"format", "game", "rules", "options", "seed", "actions", "labels",
                           "players", "scores", "ranks", "winners"}
    assert record["rules"] == envs.registry.spec_for("between_two_cities_v0").rules_revision
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
    from agents.apps import tournament as T

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


# ------------------------------------------------------------- rules revision
def test_a_record_of_another_rules_revision_is_refused(monkeypatch):
    from envs.registry import spec_for

    record = _short_record(seed=5)
    spec = type(spec_for("kingdomino_duel_v0"))
    current = spec.rules_revision
    assert record["rules"] == current
    monkeypatch.setattr(spec, "rules_revision", current + 1)
    with pytest.raises(ValueError, match=rf"'rules' is revision {current} .* plays revision {current + 1}"):
        records.replay(record)
    old = {k: v for k, v in record.items() if k != "rules"}   # no 'rules': revision 1
    if current + 1 != 1:
        with pytest.raises(ValueError, match="'rules' is revision 1"):
            records.replay(old)
    assert records.replay(dict(record, rules=current + 1)).scores() == record["scores"]
    for bad in (True, 0, "1", 1.0):
        with pytest.raises(ValueError, match="'rules' must be"):
            records.check(dict(record, rules=bad))


# ------------------------------------------------------------ files in records
def _expancity_record(data_path):
    record, _ = _play_random("expancity_v0", {}, seed=4)
    return dict(record, options={"data_path": data_path})


def test_a_record_naming_a_file_is_refused_unless_allowed(tmp_path):
    import shutil

    from kernels.data_files import DATA_DIR

    good = tmp_path / "expancity.yaml"
    shutil.copy(DATA_DIR / "expancity.yaml", good)
    messages = set()
    for path in (str(good), str(tmp_path / "missing.yaml"), str(tmp_path), "/dev/stdin"):
        record = _expancity_record(path)
        with pytest.raises(ValueError, match="'data_path' names a file") as info:
            records.replay(record)
        assert path not in str(info.value) and "allow_files=True" in str(info.value)
        messages.add(str(info.value))
    assert len(messages) == 1   # the same answer whatever the path
    # the person who trusts the record and holds the file says so
    record = _expancity_record(str(good))
    assert records.replay(record, allow_files=True).scores() == record["scores"]
    assert records.replay(dict(record, options={"data_path": None})).scores() == record["scores"]


@pytest.mark.timeout(300)
def test_the_viewer_refuses_a_record_naming_a_file(tmp_path):
    """A record with data_path on a FIFO hung python -m envs.view; it is refused at once
    (exit 2, one line), and --allow-files opens the file on purpose."""
    import os
    import shutil
    import subprocess
    import sys

    from kernels.data_files import DATA_DIR

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    path = records.save(_expancity_record(str(fifo)), tmp_path / "fifo.json")
    run = subprocess.run([sys.executable, "-m", "envs.view", str(path), "-o", str(tmp_path / "v.html")],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 2 and not (tmp_path / "v.html").exists()
    assert len(run.stderr.strip().splitlines()) == 1 and "data_path" in run.stderr
    assert "--allow-files" in run.stderr and str(fifo) not in run.stderr
    good = tmp_path / "expancity.yaml"
    shutil.copy(DATA_DIR / "expancity.yaml", good)
    path = records.save(_expancity_record(str(good)), tmp_path / "good.json")
    from envs.view import main
    assert main([str(path), "-o", str(tmp_path / "refused.html")]) == 2
    assert main([str(path), "-o", str(tmp_path / "g.html"), "--allow-files"]) == 0


# -------------------------------------------------------------- broken records
def _broken(change):
    record = _short_record(seed=6)
    return change(json.loads(json.dumps(record)))


BROKEN = {   # what is wrong -> (the record made wrong, the words of the error)
    "format true": (lambda r: dict(r, format=True), "format version True"),
    "format 1.0": (lambda r: dict(r, format=1.0), "format version 1.0"),
    "game a list": (lambda r: dict(r, game=["kingdomino_duel_v0"]), "unknown game"),
    "seed a bool": (lambda r: dict(r, seed=True), "'seed' must be an integer"),
    "actions with a bool": (lambda r: dict(r, actions=[True] + r["actions"][1:]), "'actions'"),
    "options not a dict": (lambda r: dict(r, options=[]), "'options' must be a dict"),
    "options nested deep": (lambda r: dict(r, options={"x": json.loads("[" * 40 + "]" * 40)}), "deep"),
    "players longer than the seats": (lambda r: dict(r, players=r["players"] + ["x"]), "'players'"),
    "players shorter than the seats": (lambda r: dict(r, players=r["players"][:1]), "'players'"),
    "scores and ranks of other lengths": (lambda r: dict(r, scores=r["scores"] + [0]), "'scores'"),
    "ranks from 0": (lambda r: dict(r, ranks=[0, 1]), "'ranks'"),
    "winners not a seat": (lambda r: dict(r, winners=[5]), "'winners'"),
    "winners negative": (lambda r: dict(r, winners=[-1]), "'winners'"),
    "winners twice": (lambda r: dict(r, winners=[0, 0]), "'winners'"),
    "winners a bool": (lambda r: dict(r, winners=[True]), "'winners'"),
    "winners without ranks": (lambda r: dict(r, ranks=None), "'winners'"),
    "winners that did not win": (lambda r: dict(r, winners=[1 - r["winners"][0]] if len(r["winners"]) == 1
                                                else []), "winners"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_record_is_a_value_error_naming_the_key(case, tmp_path):
    change, words = BROKEN[case]
    record = _broken(change)
    with pytest.raises(ValueError, match=re.escape(words)):
        records.replay(record)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(record))
    from envs.view import main
    assert main([str(path), "-o", str(tmp_path / "b.html")]) == 2


def test_deeply_nested_json_is_a_value_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="deep"):
        records.load(path)
    lines = tmp_path / "deep.jsonl"
    lines.write_text(json.dumps(_short_record()) + "\n" + '{"format": ' + "[" * 5000 + "]" * 5000 + "}\n")
    with pytest.raises(ValueError, match="line 2 nests"):
        records.load_all(lines)
    deep = {}
    for _ in range(5000):
        deep = {"x": deep}
    with pytest.raises(ValueError, match="deep"):
        records.check(dict(_short_record(), options=deep))
    looped = []
    looped.append(looped)
    with pytest.raises(ValueError, match="'options'"):
        records.check(dict(_short_record(), options={"x": looped}))
    with pytest.raises(ValueError, match="options must be JSON-able"):
        records.new_record("kingdomino_duel_v0", {"x": deep}, 0)
