"""The replay viewer: ``python -m envs.view RECORD -o FILE.html`` (envs/view.py).

The page's JavaScript (stepping, arrow keys, the seat toggle) runs in a real browser in
tests/test_browser.py; here: the data the page is built from, the file, and the errors.
"""
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import envs
from envs import records
from envs.view import build_html, display_names, main, with_player_names


def random_record(game, seed, players=None, **options):
    """A finished game of uniformly random legal moves, recorded."""
    env = envs.make(game, **options)
    env.reset(seed=seed)
    raw, rng = env.unwrapped, np.random.default_rng(seed)
    record = records.new_record(game, options, seed, players=players)
    while raw.phase != "game_over":
        action = int(rng.choice(raw.legal_actions()))
        records.add_action(record, raw, action)
        env.step(action)
    return records.finish(record, raw)


def embedded_data(page):
    match = re.search(r'<script id="cz-data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(match.group(1))


def decode(data, number):
    """Picture ``number`` of the page's data: runs [first, count, ...] of shared lines."""
    runs = data["pictures"][number]
    return "\n".join(line for first, count in zip(runs[::2], runs[1::2])
                     for line in data["lines"][first:first + count])


@pytest.fixture(scope="module")
def kingdomino():
    record = random_record("kingdomino_duel_v0", seed=4, players=["alice", "bob"])
    return record, embedded_data(build_html(record))


def test_every_position_and_move_is_on_the_page(kingdomino):
    record, data = kingdomino
    n = len(record["actions"])
    assert len(data["steps"]) == n + 1 and len(data["moves"]) == n
    assert [m["label"] for m in data["moves"]] == record["labels"]
    assert data["players"] == ["alice", "bob"]
    assert data["final"] == {"scores": record["scores"], "ranks": record["ranks"]}
    assert data["steps"][-1]["to_move"] is None and data["steps"][-1]["phase"] == "game_over"
    # Each position's pictures are those of the game replayed to that move, independently.
    for i in (0, 1, n // 2, n):
        raw = records.replay(records.truncated(record, i))
        views = data["steps"][i]["views"]
        names = data["players"]      # the pictures call the seats by the players' names
        assert decode(data, views[0]) == with_player_names(raw.svg(), names)
        assert [decode(data, v) for v in views[1:]] == [with_player_names(raw.svg(observer=k), names)
                                                         for k in (0, 1)]
        assert data["steps"][i]["scores"] == raw.scores()
        if i < n:
            assert data["moves"][i]["seat"] == raw.possible_agents.index(raw.agent_selection)


def test_the_pictures_name_the_players_and_keep_the_seat_colours(kingdomino):
    record, data = kingdomino
    first = decode(data, data["steps"][0]["views"][0])
    texts = re.findall(r">([^<]*)</text>", first)
    assert not any(re.search(r"\bplayer_\d", t) for t in texts)
    # Kingdomino Duel draws each seat's disc just before its bold name: the page's colour
    # of a seat (move list, chart) is the picture's.
    discs = re.findall(r'<circle [^>]*r="7" fill="(#[0-9a-f]{6})"[^>]*/>\n<text [^>]*font-weight="bold"[^>]*>'
                       r"(alice|bob)\b", first)
    assert dict((name, colour) for colour, name in discs) == {"alice": data["colours"][0],
                                                              "bob": data["colours"][1]}
    lines = dict(re.findall(r'<polyline data-seat="(\d)" fill="none" stroke="(#[0-9a-f]{6})"', data["chart"]))
    assert lines == {"0": data["colours"][0], "1": data["colours"][1]}


def test_smartphone_inc_seats_have_their_company_colours():
    from envs.pictures.smartphone_inc import COMPANY_COLOURS

    record = random_record("smartphone_inc_v0", seed=3, num_players=2, colours=["yellow", "blue"])
    data = embedded_data(build_html(record))
    assert data["colours"] == [COMPANY_COLOURS["yellow"], COMPANY_COLOURS["blue"]]


def test_the_seed_is_a_string_that_a_browser_cannot_round():
    seed = 1234567890123209511            # above 2**53: a JavaScript number would end in ...209500
    record = random_record("kingdomino_duel_v0", seed=seed)
    page = build_html(record)
    assert embedded_data(page)["seed"] == str(seed)
    assert f"seed {seed}" in page


def test_names_shared_by_two_seats_are_told_apart():
    assert display_names(["greedy", "greedy"], ["player_0", "player_1"]) == \
        ["greedy (player_0)", "greedy (player_1)"]
    assert display_names(["you", "mcts"], ["player_0", "player_1"]) == ["you", "mcts"]
    assert with_player_names('<text a="player_0">player_1 to move</text>', ["x", "y&z"]) == \
        '<text a="player_0">y&amp;z to move</text>'


def test_pictures_are_stored_once(kingdomino):
    _, data = kingdomino
    used = {v for step in data["steps"] for v in step["views"]}
    assert used == set(range(len(data["pictures"])))   # every stored picture is used...
    decoded = [decode(data, p) for p in range(len(data["pictures"]))]
    assert len(set(decoded)) == len(decoded)            # ...and none is stored twice
    assert len(set(data["lines"])) == len(data["lines"])
    # Shared lines: far fewer stored than drawn (most of the table stays put between moves).
    drawn = sum(len(decode(data, p).split("\n")) for p in range(len(data["pictures"])))
    assert len(data["lines"]) < drawn / 4


def test_seat_views_are_that_seats_pictures():
    # Tiny Towns with monuments: each player keeps one monument card in secret.
    record = random_record("tiny_towns_v0", seed=3, num_players=2, monuments=True)
    data = embedded_data(build_html(record))
    raw = records.replay(records.truncated(record, 4))
    views = data["steps"][4]["views"]
    assert [decode(data, v) for v in views] == [raw.svg(), raw.svg(observer=0), raw.svg(observer=1)]
    assert len({views[0], views[1], views[2]}) == 3   # the secrets differ between views


def test_score_chart(kingdomino):
    record, data = kingdomino
    chart = data["chart"]
    assert chart.startswith("<svg") and 'id="cz-cursor"' in chart
    lines = re.findall(r'<polyline[^>]*points="([^"]*)"', chart)
    assert len(lines) == 2
    points = [[tuple(map(float, p.split(","))) for p in line.split()] for line in lines]
    assert all(len(p) == len(record["actions"]) + 1 for p in points)
    # Higher score, higher on the chart (smaller y) at the end.
    final = record["scores"]
    if final[0] != final[1]:
        assert (points[0][-1][1] < points[1][-1][1]) == (final[0] > final[1])


def test_the_page_is_self_contained(tmp_path, kingdomino):
    record, _ = kingdomino
    path = tmp_path / "game.json"
    records.save(record, path)
    out = tmp_path / "game.html"
    run = subprocess.run([sys.executable, "-m", "envs.view", str(path), "-o", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|link|iframe)[^>]*\b(src|href)\s*=", page)
    assert set(re.findall(r"https?://[\w./-]*", page)) <= {"http://www.w3.org/2000/svg"}
    assert embedded_data(page)["moves"][0]["label"] == record["labels"][0]


def test_text_in_a_record_cannot_end_the_script(kingdomino):
    record, _ = kingdomino
    page = build_html(dict(record, players=["</script><script>alert(1)</script>", "bob"]))
    assert page.count("</script>") == 2   # the data block's and the page script's own
    assert embedded_data(page)["players"][0] == "</script><script>alert(1)</script>"


def broken(record, **changes):
    return dict(record, **changes)


@pytest.mark.parametrize("make_file, message", [
    (lambda path, rec: None, "cannot read"),
    (lambda path, rec: path.write_text("{not json"), "not valid JSON"),
    (lambda path, rec: path.write_text(json.dumps(broken(rec, format=99))), "format version 99"),
    (lambda path, rec: path.write_text(json.dumps(broken(rec, game="chess_v0"))), "unknown game"),
    (lambda path, rec: path.write_text(json.dumps(broken(rec, actions=[10_000] + rec["actions"][1:]))),
     "move 1"),
])
def test_a_bad_record_is_a_clear_error_and_exit_code_2(tmp_path, capsys, kingdomino, make_file, message):
    record, _ = kingdomino
    path, out = tmp_path / "game.json", tmp_path / "game.html"
    make_file(path, record)
    assert main([str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert not out.exists()


def test_index_picks_a_game_of_a_jsonl_file(tmp_path, capsys, kingdomino):
    record, _ = kingdomino
    path = tmp_path / "games.jsonl"
    short = records.truncated(record, 3)
    records.save(record, path)
    records.save(short, path)
    out = tmp_path / "second.html"
    assert main([str(path), "-o", str(out), "--index", "1"]) == 0
    assert len(embedded_data(out.read_text())["moves"]) == 3
    assert main([str(path), "-o", str(out), "--index", "2"]) == 2
    assert "holds 2 game(s)" in capsys.readouterr().err
