"""train.py in the solo modes: the learner alone (automata inside the game), evaluated by
the rulebooks' yardsticks instead of against baseline opponents."""
import csv
import json
import os

import numpy as np
import pytest

import envs
from envs import records

pytest.importorskip("sb3_contrib")
import train  # noqa: E402
from agents.learning.training.command import parse_config  # noqa: E402
from agents.learning.training.recipes import GAME_DEFAULTS, SOLO_DEFAULTS, defaults_for  # noqa: E402
from agents.yardstick import TITLES  # noqa: E402

SOLO_GAMES = ("tiny_towns_v0", "between_two_cities_v0", "smartphone_inc_v0")
AUTOMATA = {"tiny_towns_v0": 0, "between_two_cities_v0": 2, "smartphone_inc_v0": 1}
TINY = ["--timesteps", "64", "--n-envs", "1", "--n-steps", "64", "--batch-size", "64",
        "--n-epochs", "1", "--eval-every", "64", "--eval-games", "2", "--final-eval-games", "3",
        "--no-progress", "--no-tensorboard", "--verbose", "0"]


def _run(game, out, *extra):
    return train.main(["--game", game, "--num-players", "1", "--out", str(out),
                       "--save-games", str(out / "games"), *TINY, *extra])


def _eval_rows(out):
    with open(out / "eval.csv", newline="") as f:
        return list(csv.DictReader(f))


def _check_yardstick(game, out, summary):
    """The summary and eval.csv carry the solo yardstick, and its figures are those of the
    final evaluation's recorded games (replayed from their actions)."""
    assert summary["solo_automata"] == AUTOMATA[game]
    assert summary["final_win_rates"] == {} and summary["final_mean_rewards"] == {}
    solo = summary["final_solo"]
    games = records.load_all(str(out / "games" / "final-solo.jsonl"))
    assert len(games) == solo["games"] == 3
    assert not os.path.exists(out / "games" / "final-vs-random.jsonl")
    replayed = []
    for record in games:
        env = records.replay(record)          # verifies the recorded scores
        replayed.append(int(env.scores()[0]))
    assert solo["scores"] == replayed
    assert solo["mean_score"] == pytest.approx(np.mean(replayed))
    # no evaluation against baselines: one solo row per evaluation (untrained, step 64, final)
    rows = _eval_rows(out)
    assert [r["opponent"] for r in rows] == ["solo", "solo", "solo (final)"]
    final = rows[-1]
    assert float(final["mean_score"]) == pytest.approx(solo["mean_score"])
    assert int(final["games"]) == 3
    if AUTOMATA[game]:
        # won: the seat is among the recorded winners (first place, alone or shared)
        won = [r["winners"] == [0] for r in games]
        assert solo["win_rate"] == pytest.approx(np.mean(won))
        assert float(final["win_rate"]) == pytest.approx(solo["win_rate"])
        assert float(final["mean_margin"]) == pytest.approx(solo["mean_margin"])
        assert solo["titles"] is None and final["titles"] == ""
    else:
        # a lone player has no one to beat: no win rate or margin, the rating titles instead
        assert solo["win_rate"] is None and final["win_rate"] == "" and final["mean_margin"] == ""
        from envs.tiny_towns import solo_title
        expected = {t: sum(solo_title(s) == t for s in replayed) for t in TITLES}
        assert solo["titles"] == expected == json.loads(final["titles"])
        assert final["train_win_rate"] in ("", "nan")


def test_tiny_solo_runs_report_the_yardstick(tmp_path):
    """A tiny run of each solo mode (one test, not one per game: under pytest-xdist each
    test of a shared fixture may rerun it).  Over the AEC env: the batched path compiles
    its seat kernels for tens of seconds and has its own slow test."""
    for game in SOLO_GAMES:
        out = tmp_path / game
        summary = _run(game, out, "--env", "aec", "--vec-env", "dummy")
        config = summary["config"]
        assert config["opponents"] == "none" and config["eval_opponents"] == ()
        assert summary["options"]["num_players"] == 1
        _check_yardstick(game, out, summary)
        for name in ("final_model.zip", "best_model.zip", "learning_curve.png", "summary.json"):
            assert os.path.exists(out / name), name
        if game == "between_two_cities_v0":
            # two automata: the margin is over the better one (the seat wins only by
            # reaching it), not over their mean
            margins = []
            for record in records.load_all(str(out / "games" / "final-solo.jsonl")):
                env = records.replay(record)
                automata = env.infos["player_0"]["automata_scores"]
                margins.append(env.scores()[0] - max(automata))
            assert summary["final_solo"]["mean_margin"] == pytest.approx(np.mean(margins))


def _refusal(capsys, run):
    """The one line train.py prints when it refuses a command (exit status 2)."""
    with pytest.raises(SystemExit) as exc:
        run()
    assert exc.value.code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("train.py: error: ")
    return lines[0]


@pytest.mark.parametrize("argv, problem", [
    (["--opponents", "greedy"], "opponents='greedy'"),
    (["--opponents", "mix"], "opponents='mix'"),
    (["--eval-opponents", "random"], "eval_opponents"),
    (["--eval-games", "0"], "--eval-games must be an integer >= 1"),
])
def test_meaningless_solo_settings_are_refused(tmp_path, capsys, argv, problem):
    line = _refusal(capsys, lambda: _run("smartphone_inc_v0", tmp_path / "run", *argv))
    assert problem in line
    assert not os.path.exists(tmp_path / "run")     # refused before anything is written


def test_no_opponents_needs_a_solo_game(tmp_path, capsys):
    line = _refusal(capsys, lambda: train.main(["--game", "smartphone_inc_v0", "--opponents", "none",
                                                "--out", str(tmp_path / "run"), *TINY]))
    assert "opponents='none'" in line
    assert not os.path.exists(tmp_path / "run")


def test_solo_defaults():
    for game in SOLO_GAMES:
        cfg = parse_config(["--game", game, "--num-players", "1"])
        assert cfg == SOLO_DEFAULTS[game] == defaults_for(game, num_players=1)
        assert cfg.options["num_players"] == 1 and cfg.opponents == "none"
        # without --num-players: the multi-seat defaults, unchanged
        assert parse_config(["--game", game]) == GAME_DEFAULTS[game]
    # an option given as --option num_players=1 finds the solo defaults too
    cfg = parse_config(["--game", "tiny_towns_v0", "--option", "num_players=1"])
    assert cfg.opponents == "none" and cfg.options["num_players"] == 1
    # flags still override the solo defaults
    cfg = parse_config(["--game", "smartphone_inc_v0", "--num-players", "1",
                              "--shaping", "0"])
    assert cfg.shaping == 0.0 and cfg.opponents == "none"
    # Between Two Cities' difficulty is a game option of its solo mode
    cfg = parse_config(["--game", "between_two_cities_v0", "--num-players", "1",
                              "--option", "difficulty=4"])
    assert cfg.options["difficulty"] == 4
    assert envs.make(cfg.game, **cfg.options).unwrapped.cfg.options["difficulty"] == 4


def test_help_lists_solo_defaults(capsys):
    with pytest.raises(SystemExit):
        train.main(["--help"])
    text = capsys.readouterr().out
    assert "solo defaults (--num-players 1):" in text
    for game in SOLO_GAMES:
        assert text.count(f"  {game}: ") == 2       # its multi-seat and its solo defaults


@pytest.mark.slow
@pytest.mark.parametrize("game", SOLO_GAMES)
def test_batched_solo_run_reports_the_yardstick(tmp_path, game):
    """The default (batched) training path in each solo mode, with its solo defaults."""
    summary = _run(game, tmp_path)
    assert summary["config"]["env"] == "batched"
    _check_yardstick(game, tmp_path, summary)
