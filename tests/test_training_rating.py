"""train.py's evaluations rated on the game's ladder scale (agents.learning.training.ladder_rating):
the fit against rungs held at their published ratings, and what a run writes with and
without a ladder."""
import csv
import json
import math

import pytest

from agents.rating import elo, ladder as ladders
from envs.registry import spec_for

pytest.importorskip("sb3_contrib")
import train  # noqa: E402
from agents.learning.training import ladder_rating  # noqa: E402

GAME = "kingdomino_duel_v0"
TINY = ["--game", GAME, "--timesteps", "128", "--n-envs", "1", "--n-steps", "128",
        "--batch-size", "64", "--n-epochs", "1", "--opponents", "random", "--eval-every", "128",
        "--eval-games", "2", "--final-eval-games", "4", "--warm-start", "none", "--no-progress",
        "--no-tensorboard"]


def _ladder(ratings, options=None, game=GAME):
    """A stored-ladder stand-in: rung label -> (agent, options, published rating)."""
    rungs = tuple(ladders.Rung(label, agent, opts) for label, (agent, opts, _) in ratings.items())
    spec = ladders.LadderSpec(game, "table", dict(options or {}), rungs)
    return ladders.Ladder(spec=spec, ratings={k: v[2] for k, v in ratings.items()},
                          halfwidths={k: 0.0 if k == "greedy" else 25.0 for k in ratings},
                          seconds_per_move={k: 0.001 for k in ratings}, pairs=[], seed_results={},
                          seeds=[], meta={"rules_revision": spec_for(game).rules_revision})


RUNGS = {"random": ("random", {}, 600.0), "greedy": ("greedy", {}, 1000.0),
         "greedy_50": ("greedy", {"noise": 0.5}, 800.0)}


@pytest.fixture
def stored(tmp_path, monkeypatch):
    """RUNGS saved as GAME's ladder in a tmp folder that ladders.load reads."""
    lad = _ladder(RUNGS)
    monkeypatch.setattr(ladders, "SPECS", {GAME: lad.spec})      # the only ladder defined
    monkeypatch.setattr(ladders, "LADDERS_DIR", tmp_path / "ladders")
    ladders.save(lad)
    return lad


def _scale(opponents):
    lad = _ladder(RUNGS)
    rungs = {name: lad.rung_matching(name, opts) for name, opts in opponents}
    return ladder_rating.LadderScale(lad, {name: r for name, r in rungs.items() if r is not None})


# ---------------------------------------------------------------- the fit
def test_a_score_of_76_percent_against_greedy_rates_200_above_it():
    """Bradley-Terry: an expected score of 1/(1 + 10^(-200/400)) = 0.7597 is a lead of 200
    Elo; the 95 % half-width is 1.96 / sqrt(n p (1 - p)) natural-log units (400 / ln 10 Elo
    each), the inverse of the Fisher information of n games."""
    n, share = 1000, 0.76
    points = [1.0] * int(n * share) + [0.0] * int(n * (1 - share))
    result = ladder_rating.rate(_scale([("greedy", {})]), {"greedy": points})
    lead = 400.0 * math.log10(share / (1 - share))           # 200.4
    assert result["rating"] == pytest.approx(1000.0 + lead, abs=1.0)   # the weak prior: < 1 Elo
    half = 1.96 / math.sqrt(n * share * (1 - share)) * 400.0 / math.log(10.0)
    assert result["halfwidth"] == pytest.approx(half, rel=0.01)
    assert result["games"] == n and result["bounded"] and result["rungs"] == {"greedy": 1000.0}


def test_two_rungs_place_the_learner_between_them():
    """76 % against a rung at 600 and 24 % against one at 1000: 800 makes both expected
    (0.7597 and 0.2403 add up to 1, so the likelihood's slope is zero there); ties count 1/2
    and an opponent that is no rung does not count."""
    scale = _scale([("random", {}), ("greedy", {}), ("mcts", {})])     # mcts: no rung
    games = {"random": [1.0] * 370 + [0.5] * 20 + [0.0] * 110,      # 380 of 500 points
             "greedy": [1.0] * 110 + [0.5] * 20 + [0.0] * 370,      # 120 of 500
             "mcts": [0.0] * 50}
    result = ladder_rating.rate(scale, games)
    assert result["rating"] == pytest.approx(800.0, abs=2.0)
    assert result["games"] == 1000 and result["rungs"] == {"random": 600.0, "greedy": 1000.0}
    lo, hi = result["interval"]
    assert lo < 800.0 < hi and hi - lo == pytest.approx(2 * result["halfwidth"], abs=0.2)


def test_all_won_is_a_bound_kept_finite_by_the_prior():
    result = ladder_rating.rate(_scale([("greedy", {})]), {"greedy": [1.0] * 6})
    assert not result["bounded"] and 1000.0 < result["rating"] < 1000.0 + 3 * 800.0
    assert ladder_rating.rate(_scale([("greedy", {})]), {"random": [1.0] * 6}) is None


# ------------------------------------------------------- which runs have a scale
def test_scale_found_for_the_ladders_table(stored):
    scale, why = ladder_rating.scale_for(GAME, {"reward_mode": "score"},
                                         [("random", {}), ("greedy", {}), ("mcts", {})])
    assert why is None and scale.name == GAME
    assert {n: r.label for n, r in scale.rungs.items()} == {"random": "random", "greedy": "greedy"}
    assert scale.describe() == "random (600), greedy (1000)"


@pytest.mark.parametrize("game, options, opponents, needle", [
    (GAME, {"first_start_player": 1}, [("greedy", {})], "first_start_player=None; this run with first_start_player=1"),
    (GAME, {}, [("mcts", {}), ("greedy", {"noise": 0.2})], "no evaluation opponent (mcts, greedy) is a rung"),
    ("expancity_v0", {"num_players": 3}, [("greedy", {})], "this run plays 3 seats"),
    ("tiny_towns_v0", {"num_players": 1}, [("solo", {})], "agents.scorecard --game tiny_towns_v0 --solo"),
    ("tiny_towns_v0", {}, [("greedy", {})], "no rating ladder for 'tiny_towns_v0'"),
])
def test_no_scale_says_why(stored, game, options, opponents, needle):
    scale, why = ladder_rating.scale_for(game, options, opponents)
    assert scale is None and needle in why


def test_an_unbuilt_or_outdated_ladder_is_no_scale(stored, tmp_path):
    scale, why = ladder_rating.scale_for(GAME, {}, [("greedy", {})], directory=tmp_path / "empty")
    assert scale is None and "has not been built yet" in why
    path = ladders.path_for(GAME).parent / f"{GAME}.json"
    data = json.loads(path.read_text())
    data["rules_revision"] = -1
    path.write_text(json.dumps(data))
    scale, why = ladder_rating.scale_for(GAME, {}, [("greedy", {})])
    assert scale is None and "rules revision" in why


# ------------------------------------------------------------- tiny train.py runs
def _rows(out):
    with open(out / "eval.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_a_run_reports_its_rating_on_the_ladder(stored, tmp_path, capsys):
    out = tmp_path / "run"
    summary = train.main([*TINY, "--out", str(out), "--save-games", str(out / "games"),
                          "--verbose", "1"])
    rows = _rows(out)
    # the untrained policy, step 128, final; each against random and greedy (both rungs)
    assert [r["opponent"] for r in rows] == ["random", "greedy"] * 2 + ["random (final)", "greedy (final)"]
    for first, second in zip(rows[::2], rows[1::2]):       # one rating per evaluation
        assert first["ladder_rating"] == second["ladder_rating"] != ""
        assert float(first["ladder_halfwidth"]) > 0
    final = summary["final_ladder_rating"]
    assert summary["ladder_rating_note"] is None
    assert final["ladder"] == GAME and final["games"] == 8
    assert float(rows[-1]["ladder_rating"]) == pytest.approx(final["rating"])
    # the rating is the fit of the final games as recorded, rungs fixed at their ratings
    from envs import records
    triples = []
    for name in ("random", "greedy"):
        for game in records.load_all(str(out / "games" / f"final-vs-{name}.jsonl")):
            me, other = game["players"].index("learner"), 1 - game["players"].index("learner")
            mine, theirs = game["ranks"][me], game["ranks"][other]
            triples.append(("learner", name, 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0))
    labels = ["learner", "random", "greedy"]
    fit = elo.fit(labels, *elo.tally(labels, triples), {"random": 600.0, "greedy": 1000.0},
                  prior_sd=800.0, prior_mean=1000.0)
    assert final["rating"] == pytest.approx(fit.rating("learner"), abs=0.1)
    assert final["halfwidth"] == pytest.approx(fit.halfwidth("learner"), abs=0.1)
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk["final_ladder_rating"] == final
    # sb3's logger (the CSV twin of TensorBoard) has the rating of every evaluation
    with open(out / "logs" / "progress.csv", newline="") as f:
        logged = [r["eval/ladder_rating"] for r in csv.DictReader(f)]
    assert any(logged) and float([v for v in logged if v][-1]) == pytest.approx(final["rating"])
    assert (out / "learning_curve.png").exists()
    err = capsys.readouterr().err
    assert err.count(f"[train] ladder rating: on {GAME}, anchored by random (600), greedy (1000)") == 1


def test_without_a_ladder_the_column_is_empty_and_the_run_succeeds(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ladders, "SPECS", {GAME: _ladder(RUNGS).spec})
    monkeypatch.setattr(ladders, "LADDERS_DIR", tmp_path / "no_ladders")
    out = tmp_path / "run"
    summary = train.main([*TINY, "--out", str(out), "--verbose", "1", "--eval-every", "0"])
    rows = _rows(out)
    assert [r["opponent"] for r in rows] == ["random (final)", "greedy (final)"]
    assert all(r["ladder_rating"] == "" and r["ladder_halfwidth"] == "" for r in rows)
    assert summary["final_ladder_rating"] is None
    assert "has not been built yet" in summary["ladder_rating_note"]
    assert summary["final_win_rates"].keys() == {"random", "greedy"}
    assert capsys.readouterr().err.count("[train] no ladder rating: ") == 1


def test_the_learning_curve_draws_the_rating_only_when_present(tmp_path):
    from PIL import Image

    from agents.learning.training.plots import plot_learning_curve

    row = {"timesteps": 0, "opponent": "greedy", "games": 2, "win_rate": 0.5, "mean_reward": 0.0,
           "train_reward": float("nan"), "ladder_rating": None, "ladder_halfwidth": None}
    rated = [{**row, "timesteps": t, "ladder_rating": 900.0 + t, "ladder_halfwidth": 80.0}
             for t in (0, 128)] + [{**row, "timesteps": 128, "opponent": "greedy (final)",
                                   "ladder_rating": 1010.0, "ladder_halfwidth": 40.0}]
    sizes = []
    for history in ([row, {**row, "timesteps": 128}], rated):
        path = tmp_path / f"curve{len(sizes)}.png"
        plot_learning_curve(history, str(path), GAME)
        sizes.append(Image.open(path).size[0])
    assert sizes[1] > sizes[0] * 1.3          # a third panel
