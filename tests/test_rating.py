"""Rating ladders and the scorecard (agents.rating, agents.apps.scorecard)."""
import dataclasses
import json
import subprocess
import sys
import time

import numpy as np
import pytest

from agents.rating import elo, ladder as ladders, scorecard

GAME = "kingdomino_duel_v0"


def _simulate(true, pairs_games, rng, tie=0.1):
    """Two-seat results drawn from the Bradley-Terry model with ties: A ties with
    probability ``draw`` (``tie``, less near 0 and 1) and wins with p - draw/2, so A's
    expected score is exactly p."""
    results = []
    for (a, b), n in pairs_games.items():
        p = elo.expected_score(true[a], true[b])
        u = rng.random(n)
        draw = min(tie, 2 * p, 2 * (1 - p))      # so that a win stays possible and likely enough
        win = p - draw / 2
        results += [(a, b, 1.0 if x < win else 0.5 if x < win + draw else 0.0) for x in u]
    return results


def test_fit_recovers_known_strengths():
    rng = np.random.default_rng(1)
    true = {"r": -600.0, "a": -350.0, "b": -100.0, "greedy": 0.0, "c": 180.0, "d": 420.0}
    labels = list(true)
    pairs = {(x, y): 400 for i, x in enumerate(labels) for y in labels[i + 1:]}
    points, games = elo.tally(labels, _simulate(true, pairs, rng))
    fit = elo.fit(labels, points, games, {"greedy": 0.0})
    for lab in labels:
        lo, hi = fit.interval(lab)
        assert lo - 5 <= true[lab] <= hi + 5, (lab, fit.rating(lab), (lo, hi))
    assert fit.halfwidth("greedy") == 0.0
    assert max(abs(fit.rating(lab) - true[lab]) for lab in labels) < 40


def test_fit_intervals_cover_about_95_percent():
    rng = np.random.default_rng(2)
    true = {"a": -200.0, "greedy": 0.0, "b": 150.0}
    labels = list(true)
    covered = 0
    trials = 200
    for _ in range(trials):
        pairs = {("a", "greedy"): 120, ("greedy", "b"): 120, ("a", "b"): 60}
        points, games = elo.tally(labels, _simulate(true, pairs, rng))
        fit = elo.fit(labels, points, games, {"greedy": 0.0})
        lo, hi = fit.interval("b")
        covered += lo <= true["b"] <= hi
    assert 0.90 <= covered / trials <= 0.99


def test_fit_refuses_an_agent_that_won_everything_unless_given_a_prior():
    labels = ["greedy", "x"]
    points = np.array([[0.0, 0.0], [10.0, 0.0]])
    games = np.array([[0.0, 10.0], [10.0, 0.0]])
    with pytest.raises(ValueError, match="no finite rating for x"):
        elo.fit(labels, points, games, {"greedy": 1000.0})
    fit = elo.fit(labels, points, games, {"greedy": 1000.0}, prior_sd=800.0)
    assert fit.rating("x") > 1300


@pytest.mark.parametrize("points, games, message", [
    ([[0, 1], [1, 0]], [[0, 1], [2, 0]], "symmetric"),
    ([[0, 3], [0, 0]], [[0, 2], [2, 0]], "between 0 and games"),
    ([[0, 1], [0, 0]], [[0, 2], [2, 0]], "must equal"),
])
def test_fit_refuses_inconsistent_tallies(points, games, message):
    with pytest.raises(ValueError, match=message):
        elo.fit(["greedy", "x"], points, games, {"greedy": 0.0})


def test_expected_score_and_difference_are_inverse():
    assert elo.expected_score(1200, 1000) == pytest.approx(0.7597, abs=1e-4)
    assert elo.elo_difference(elo.expected_score(1345, 1000)) == pytest.approx(345)


def _fake_ladder(ratings, mode="table"):
    rungs = tuple(ladders.Rung(lab, "greedy", {"noise": i / 10}) for i, lab in enumerate(ratings))
    spec = ladders.LadderSpec(GAME, mode, {}, rungs)
    return ladders.Ladder(spec=spec, ratings=dict(ratings), halfwidths={k: 20.0 for k in ratings},
                          seconds_per_move={k: 0.001 for k in ratings}, pairs=[], seed_results={},
                          seeds=[], meta={})


def test_the_adaptive_schedule_converges_to_the_true_rating(monkeypatch):
    """With games drawn from the model, the scorecard's estimate converges on the agent's
    true rating, plays mostly the rungs near it, and stops at the target."""
    lad = _fake_ladder({"r0": 0.0, "r1": 300.0, "r2": 550.0, "r3": 800.0, "greedy": 1000.0,
                        "r5": 1250.0, "r6": 1500.0})
    true = 1380.0
    rng = np.random.default_rng(3)

    def fake_play(jobs, player, runner, _lad):
        out = []
        for job in jobs:
            rung = [lab for lab in job["labels"] if lab != "agent"][0]
            p = elo.expected_score(true, lad.rating(rung))
            agent_wins = rng.random() < p
            seat = job["labels"].index("agent")
            ranks = [1, 2] if agent_wins == (seat == 0) else [2, 1]
            out.append({"ranks": ranks, "scores": [0, 0], "moves": [10, 10], "think": [0.01, 0.01]})
        return out

    monkeypatch.setattr(scorecard, "_play", fake_play)
    card = scorecard.rate(GAME, "greedy", seed=5, ladder=lad, target=50.0, max_games=2000)
    assert card["stopped"] == "interval"
    lo, hi = card["interval"]
    assert lo <= true <= hi and card["halfwidth"] <= 50.0
    near = sum(r["games"] for r in card["rungs"] if abs(r["rating"] - true) <= 300)
    assert near / card["games"] > 0.8


def test_a_build_reaches_its_targets_and_pins_a_cheap_top_rung_directly(monkeypatch):
    """A build on games drawn from known strengths: every interval ends within target, the
    ratings cover the truth, and a cheap top rung above a dear one (a policy above MCTS)
    gets most of its games against the anchor directly rather than through the dear rung."""
    true = {"random": 0.0, "g50": 500.0, "greedy": 1000.0, "mcts": 1150.0, "policy": 1300.0}
    think = {"random": 1e-4, "g50": 1e-4, "greedy": 1e-4, "mcts": 0.05, "policy": 1e-4}
    spec = ladders.LadderSpec(GAME, "table", {}, tuple(ladders.Rung(lab, "random", {"n": k})
                                                      for k, lab in enumerate(true)))

    def fake_match(job):
        a, b = job["labels"]
        u = np.random.default_rng(job["env_seed"]).random()
        p = elo.expected_score(true[a], true[b])
        ranks = [1, 2] if u < p else [2, 1]
        return {"ranks": ranks, "scores": [0, 0], "moves": [10, 10],
                "think": [10 * think[a], 10 * think[b]], "seconds": 10 * (think[a] + think[b])}

    monkeypatch.setattr(ladders, "play_match", fake_match)
    lad = ladders.build_table(spec, base_games=40, batch=40, max_games=40000, seed=1, workers=1,
                              progress=False, log=lambda *_: None)
    assert all(h <= ladders.TARGET_HALFWIDTH for h in lad.halfwidths.values()), lad.halfwidths
    assert sum(abs(lad.ratings[k] - v) <= lad.halfwidths[k] + 1e-9 for k, v in true.items()) >= 4
    games = {(p["a"], p["b"]): p["games"] for p in lad.pairs}
    assert games[("greedy", "policy")] > games[("mcts", "policy")]


def _plain_json(value):
    """True when ``value`` holds only the JSON types (a numpy scalar is not one)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


@pytest.mark.parametrize("agent_wins", [0.6, 1.0], ids=["estimate", "bound"])
def test_the_scorecard_command_writes_its_card_as_json(agent_wins, monkeypatch, tmp_path, capsys):
    """``--json`` writes the whole card, which reads back equal to the printed one: every
    value a plain JSON type (a numpy bool in it once broke the file half-way)."""
    from agents.apps import scorecard as command

    lad = _fake_ladder({"r0": 600.0, "greedy": 1000.0, "r2": 1300.0})
    rng = np.random.default_rng(2)

    def fake_play(jobs, *a):
        out = []
        for job in jobs:
            seat = job["labels"].index("agent")
            won = rng.random() < agent_wins
            out.append({"ranks": [1, 2] if won == (seat == 0) else [2, 1], "scores": [0, 0],
                        "moves": [10, 10], "think": [0.01, 0.01]})
        return out

    monkeypatch.setattr(ladders, "load", lambda *a, **k: lad)
    monkeypatch.setattr(scorecard, "_play", fake_play)
    path = tmp_path / "card.json"
    card = command.main(["--game", GAME, "--agent", "greedy", "--options", '{"noise": 0.1}',
                         "--seed", "4", "--workers", "1", "--max-games", "80", "--quiet",
                         "--json", str(path)])
    back = json.loads(path.read_text())
    assert back["bounded"] is (agent_wins < 1.0) and back["games"] == card["games"] > 0
    assert _plain_json(back) and back == json.loads(json.dumps(card))
    assert f"{back['rating']:.0f}" in capsys.readouterr().out


def test_an_interrupted_build_goes_on_from_its_checkpoint(monkeypatch, tmp_path):
    """``--checkpoint DIR``: the ladder so far is written after every round; a build stopped
    half-way and run again keeps those games, plays only what is still missing, and the
    package's ladder is written only when the build ends."""
    from benchmarks import ladder as command

    true = dict(zip([r.label for r in ladders.spec_for(GAME).rungs], [0.0, 250.0, 500.0, 750.0, 1000.0, 1150.0]))
    played, stop_after = [], [600]

    def fake_match(job):
        if len(played) >= stop_after[0]:
            raise KeyboardInterrupt
        played.append(job["env_seed"])
        a, b = job["labels"]
        u = np.random.default_rng(job["env_seed"]).random()
        ranks = [1, 2] if u < elo.expected_score(true[a], true[b]) else [2, 1]
        return {"ranks": ranks, "scores": [0, 0], "moves": [10, 10], "think": [1e-3, 1e-3], "seconds": 0.01}

    monkeypatch.setattr(ladders, "play_match", fake_match)
    argv = ["--game", GAME, "--games", "40", "--workers", "1", "--no-progress", "--checkpoint",
            str(tmp_path / "partial"), "--ladder-dir", str(tmp_path / "final"), "--out", str(tmp_path / "report")]
    with pytest.raises(KeyboardInterrupt):
        command.main(argv)
    assert not (tmp_path / "final").exists()
    partial = ladders.load(GAME, directory=tmp_path / "partial")
    kept = partial.meta["games"]
    assert 0 < kept < len(played) <= 600
    first_run = len(played)
    stop_after[0] = 10 ** 9
    done = command.main(argv)
    again = played[first_run:]
    assert not set(played[:kept]) & set(again)            # no kept game is played again
    assert set(played[kept:first_run]) <= set(again)      # the unfinished round: again, same seeds
    assert done.meta["games"] == kept + len(again)
    assert all(h <= ladders.TARGET_HALFWIDTH for h in done.halfwidths.values())
    assert ladders.load(GAME, directory=tmp_path / "final").meta["games"] == done.meta["games"]


def test_a_ladder_member_reports_its_published_rating(monkeypatch):
    lad = _fake_ladder({"r0": 0.0, "greedy": 1000.0})
    monkeypatch.setattr(scorecard, "_play", lambda jobs, *a: [
        {"ranks": [1, 1], "scores": [0, 0], "moves": [1, 1], "think": [0.0, 0.0]} for _ in jobs])
    card = scorecard.rate(GAME, "greedy", agent_options={"noise": 0.1}, seed=1, ladder=lad, max_games=40)
    assert card["ladder_rung"] == "greedy" and card["ladder_rating"] == 1000.0


@pytest.fixture(scope="module")
def tiny_ladder(tmp_path_factory):
    """A small real ladder of Kingdomino Duel: random and two greedy players that play
    mostly at random (close enough in strength for 16 games a pair to link them)."""
    spec = ladders.LadderSpec(GAME, "table", {}, (
        ladders.Rung("random", "random"), ladders.Rung("greedy", "greedy", {"noise": 0.9}),
        ladders.Rung("greedy_80", "greedy", {"noise": 0.8})))
    return ladders.build_table(spec, base_games=16, batch=8, max_games=48, seed=3, workers=1,
                               progress=False, log=lambda *_: None)


def test_a_user_factory_agent_is_rated_and_the_card_is_reproducible(tiny_ladder):
    kw = dict(seed=11, ladder=tiny_ladder, max_games=16, batch=8)
    first = scorecard.rate(GAME, "tests.user_agents:noisy_greedy", **kw)
    again = scorecard.rate(GAME, "tests.user_agents:noisy_greedy", **kw)
    assert first["games"] == 16
    for key in ("rating", "interval", "rungs", "games"):
        assert first[key] == again[key]
    batch_only = scorecard.rate(GAME, "tests.user_agents:batch_only", **kw)
    assert batch_only["games"] == 16 and np.isfinite(batch_only["rating"])
    other_seed = scorecard.rate(GAME, "tests.user_agents:noisy_greedy", **{**kw, "seed": 12})
    assert other_seed["rungs"] != first["rungs"] or other_seed["rating"] != first["rating"]


def test_stored_ladder_round_trip(tiny_ladder, tmp_path, monkeypatch):
    monkeypatch.setitem(ladders.SPECS, GAME, tiny_ladder.spec)
    ladders.save(tiny_ladder, tmp_path)
    back = ladders.load(GAME, directory=tmp_path)
    assert back.ratings == pytest.approx({k: round(v, 1) for k, v in tiny_ladder.ratings.items()})
    data = json.loads((tmp_path / f"{GAME}.json").read_text())
    data["rules_revision"] = -1
    (tmp_path / f"{GAME}.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="rules revision"):
        ladders.load(GAME, directory=tmp_path)
    data["rules_revision"], data["ladder_version"] = back.meta["rules_revision"], 99
    (tmp_path / f"{GAME}.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="version 99, this code defines version 1"):
        ladders.load(GAME, directory=tmp_path)


def test_a_build_goes_on_from_a_stored_ladder(tiny_ladder):
    """--resume: the stored games are kept and new ones added with new seeds; another seed
    or other rungs are refused."""
    seen = []
    real = ladders.pair_jobs

    def spy(*args):
        jobs = real(*args)
        seen.extend(job["env_seed"] for job in jobs)
        return jobs

    spec = tiny_ladder.spec
    first_seeds = {job["env_seed"] for p in tiny_ladder.pairs
                   for job in real(spec, spec.rung(p["a"]), spec.rung(p["b"]), p["games"], 3, 0)}
    try:
        ladders.pair_jobs = spy
        more = ladders.build_table(tiny_ladder.spec, batch=8, max_games=tiny_ladder.meta["games"] + 8,
                                   seed=3, workers=1, progress=False, log=lambda *_: None,
                                   previous=tiny_ladder)
    finally:
        ladders.pair_jobs = real
    assert seen and not first_seeds & set(seen)
    assert more.meta["games"] == tiny_ladder.meta["games"] + len(seen)
    before = {(p["a"], p["b"]): p["games"] for p in tiny_ladder.pairs}
    after = {(p["a"], p["b"]): p["games"] for p in more.pairs}
    assert all(after[k] >= n for k, n in before.items()) and sum(after.values()) > sum(before.values())
    with pytest.raises(ValueError, match="seed"):
        ladders.build_table(tiny_ladder.spec, seed=4, progress=False, previous=tiny_ladder)
    other = ladders.LadderSpec(GAME, "table", {}, tiny_ladder.spec.rungs[:2])
    with pytest.raises(ValueError, match="other rungs"):
        ladders.build_table(other, seed=3, progress=False, previous=tiny_ladder)
    changed = ladders.LadderSpec(GAME, "table", {}, tiny_ladder.spec.rungs[:2] + (
        ladders.Rung("greedy_80", "greedy", {"noise": 0.7}),))
    with pytest.raises(ValueError, match="other rungs"):
        ladders.build_table(changed, seed=3, progress=False, previous=tiny_ladder)


def test_a_rung_added_to_a_stored_ladder_plays_its_round_robin_and_keeps_the_rest(
        tiny_ladder, tmp_path, monkeypatch):
    added = ladders.Rung("greedy_70", "greedy", {"noise": 0.7})
    spec = ladders.LadderSpec(GAME, "table", {}, tiny_ladder.spec.rungs + (added,))
    monkeypatch.setitem(ladders.SPECS, GAME, tiny_ladder.spec)
    ladders.save(tiny_ladder, tmp_path)
    monkeypatch.setitem(ladders.SPECS, GAME, spec)       # the code now defines one more rung
    with pytest.raises(ValueError, match="other rungs"):
        ladders.load(GAME, directory=tmp_path)
    stored = ladders.load(GAME, directory=tmp_path, rungs_added=True)
    assert stored.spec.rungs == tiny_ladder.spec.rungs
    more = ladders.build_table(spec, base_games=8, batch=8, max_games=tiny_ladder.meta["games"] + 8,
                               seed=3, workers=1, progress=False, log=lambda *_: None,
                               previous=stored)
    before = {(p["a"], p["b"]): p["games"] for p in tiny_ladder.pairs}
    after = {(p["a"], p["b"]): p["games"] for p in more.pairs}
    assert {k: n for k, n in after.items() if "greedy_70" not in k} == before   # no games but the new rung's
    # first round: 8 games with its neighbour in the spec's order, 4 with each rung further down
    assert {k: n for k, n in after.items() if "greedy_70" in k} == {
        ("greedy_80", "greedy_70"): 8, ("greedy", "greedy_70"): 4, ("random", "greedy_70"): 4}
    assert np.isfinite(more.ratings["greedy_70"]) and more.meta["games"] == tiny_ladder.meta["games"] + 16


def test_solo_fit_ranks_by_seed_comparisons():
    rng = np.random.default_rng(4)
    base = rng.normal(0, 5, 300)
    per = {"weak": list(base - 4 + rng.normal(0, 2, 300)), "greedy": list(base + rng.normal(0, 2, 300)),
           "strong": list(base + 3 + rng.normal(0, 2, 300))}
    fit, half = ladders.solo_fit(list(per), per, {"greedy": 1000.0}, bootstrap=100)
    assert fit.rating("weak") < 1000.0 < fit.rating("strong")
    assert all(h < 120 for h in half)


def test_a_solo_build_keeps_its_games_and_a_stopped_build_goes_on(tmp_path, monkeypatch):
    """Every rung plays the same seeds; the games file holds every finished game, a build
    with all of them in the file plays nothing, and one stopped half-way (the file cut
    after the first chunk) plays only the rest and gives the same ladder."""
    spec = ladders.LadderSpec("tiny_towns_v0", "solo", {"num_players": 1}, (
        ladders.Rung("random", "random"), ladders.Rung("greedy_90", "greedy", {"noise": 0.9}),
        ladders.Rung("greedy", "greedy", {"noise": 0.8})))    # close enough for 10 seeds to link
    quiet = dict(seed=2, workers=1, progress=False, log=lambda *_: None, bootstrap=50)
    games = tmp_path / "games.jsonl"
    seeds = 10                                  # more than one chunk (8 seeds a chunk)
    full = ladders.build_solo(spec, seeds=seeds, games_file=str(games), **quiet)
    lines = games.read_text().splitlines()
    assert len(lines) == seeds * len(spec.rungs)
    assert {len(set(v)) > 1 for v in full.seed_results.values()} == {True}   # real games
    assert full.ratings["greedy"] == 1000.0 and all(np.isfinite(list(full.ratings.values())))

    def no_games(job):
        raise AssertionError("played a game the file holds")
    monkeypatch.setattr(ladders, "play_match", no_games)
    again = ladders.build_solo(spec, seeds=seeds, games_file=str(games), **quiet)
    assert again.ratings == full.ratings and again.seed_results == full.seed_results
    monkeypatch.undo()

    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:8 * len(spec.rungs)]) + "\n")
    played = []
    real = ladders.play_match
    monkeypatch.setattr(ladders, "play_match", lambda job: played.append(job) or real(job))
    resumed = ladders.build_solo(spec, seeds=seeds, games_file=str(cut), **quiet)
    assert len(played) == (seeds - 8) * len(spec.rungs)
    assert resumed.seed_results == full.seed_results and resumed.ratings == full.ratings
    cut.write_text("not json\n")
    with pytest.raises(ValueError, match="line 1: not a finished solo game"):
        ladders.build_solo(spec, seeds=seeds, games_file=str(cut), **quiet)
    # the build compares the outcome kept with each game, so a game without one is refused
    entry = json.loads(lines[0])
    del entry["result"]["outcome"]
    cut.write_text(json.dumps(entry) + "\n")
    with pytest.raises(ValueError, match="line 1: not a finished solo game"):
        ladders.build_solo(spec, seeds=seeds, games_file=str(cut), **quiet)


@pytest.mark.parametrize("argv, needle", [
    (["--game", "nope", "--agent", "greedy"], "unknown game"),
    (["--game", GAME, "--agent", "randon"], "unknown agent 'randon'"),
    (["--game", GAME, "--agent", "greedy", "--options", "[1"], "--options: bad JSON"),
    (["--game", GAME, "--agent", "greedy", "--max-games", "0"], "--max-games: must be a positive integer"),
    (["--game", GAME, "--agent", "no_such_module_xyz:factory"], "cannot import"),
])
def test_bad_scorecard_commands_fail_at_once_with_one_line(argv, needle):
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "agents.scorecard", *argv], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert time.perf_counter() - start < 30


def test_tournament_agents_are_rated_on_the_ladder_scale():
    lad = _fake_ladder({"r0": 600.0, "greedy": 1000.0})
    # r0 is greedy with noise 0.0 in the fake ladder; "mine" is not a rung
    agents_ = [{"label": "anchor", "name": "greedy", "options": {"noise": 0.1}},
               {"label": "mine", "name": "mcts", "options": {"simulations": 5}}]
    rng = np.random.default_rng(0)
    results = []
    for k in range(400):     # "mine" scores 0.76 against a 1000 anchor: about 1200
        win = rng.random() < 0.76
        seats = ["mine", "anchor"] if k % 2 else ["anchor", "mine"]
        mine_first = (seats[0] == "mine")
        ranks = [1, 2] if win == mine_first else [2, 1]
        results.append({"seats": seats, "ranks": ranks})
    result = {"game": GAME, "num_players": 2, "env_options": {}, "agents": agents_, "results": results}
    rated = ladders.rate_tournament(lad, result)
    assert rated["anchor"] == {"rating": 1000.0, "halfwidth": 0.0, "rung": True}
    assert abs(rated["mine"]["rating"] - 1200) < 2 * rated["mine"]["halfwidth"]
    with pytest.raises(ValueError, match="no agent of the tournament is a rung"):
        ladders.rate_tournament(lad, {**result, "agents": [dict(agents_[1], label="anchor"), agents_[1]]})
    with pytest.raises(ValueError, match="two-seat"):
        ladders.rate_tournament(lad, {**result, "num_players": 3})


def test_every_game_has_a_two_seat_ladder_shipped_as_package_data():
    import fnmatch
    import tomllib
    from pathlib import Path

    import envs

    assert {name for name in ladders.SPECS if "/" not in name} == set(envs.GAMES)
    root = Path(ladders.__file__).resolve().parents[2]
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for name in ladders.SPECS:
        rel = ladders.path_for(name).relative_to(root / "agents" / "rating").as_posix()
        assert any(fnmatch.fnmatch(rel, pat) for pat in shipped["agents.rating"]), rel


@pytest.mark.parametrize("name", sorted(ladders.SPECS))
def test_a_stored_ladder_meets_its_targets(name):
    """Every shipped ladder loads (same rungs, same rules revision), starts at random, lists
    its rungs weakest first, puts greedy at 1000, has neighbours 100-300 Elo apart, and
    every interval within its target (±30 Elo; ±50 for rungs slower than 0.3 s a move)."""
    spec = ladders.SPECS[name]
    lad = ladders.load(spec.game, spec.mode)
    assert spec.rungs[0].agent == "random"
    assert lad.rating(ladders.ANCHOR) == ladders.ANCHOR_RATING
    order = lad.sorted_rungs()
    assert [r.label for r in order] == [r.label for r in spec.rungs], "rungs are listed weakest first"
    for low, high in zip(order, order[1:]):
        gap = lad.rating(high.label) - lad.rating(low.label)
        assert 100 <= gap <= 300, f"{high.label} - {low.label} = {gap:.0f} Elo"
    for r in spec.rungs:
        slow = (lad.seconds_per_move.get(r.label) or 0.0) > ladders.SLOW_SECONDS
        limit = ladders.SLOW_HALFWIDTH if slow else ladders.TARGET_HALFWIDTH
        assert lad.halfwidths[r.label] <= limit, f"{r.label} ±{lad.halfwidths[r.label]}"


@pytest.mark.parametrize("name", sorted(ladders.SPECS))
def test_a_ladder_has_at_least_six_rungs(name):
    assert len(ladders.SPECS[name].rungs) >= 6


@pytest.mark.parametrize("text, needle", [("random", "label=agent"), ("g=greedy:{noise", "not JSON"),
                                          ("g=greedy:[1]", "JSON object")])
def test_pilot_rungs_are_checked(text, needle):
    from benchmarks.ladder_pilot import parse_rung
    with pytest.raises(ValueError, match=needle):
        parse_rung(text)
    assert parse_rung('g50=greedy:{"noise": 0.5}') == ladders.Rung("g50", "greedy", {"noise": 0.5})


def test_the_scorecard_check_compares_rungs_with_their_published_ratings(tiny_ladder, monkeypatch):
    """benchmarks.scorecards: a rung's card is compared with its published rating, another
    agent's card is only reported."""
    from benchmarks import scorecards as check_module

    def fake_rate(game, agent, *, agent_options=None, **_):
        card = {"rating": 1030.0, "halfwidth": 48.0, "games": 100, "seconds": 5.0, "stopped": "interval"}
        rung = tiny_ladder.rung_matching(agent, agent_options)
        if rung is not None:
            card.update(ladder_rating=tiny_ladder.rating(rung.label), ladder_rung=rung.label)
        return card

    monkeypatch.setattr(ladders, "load", lambda game, mode: tiny_ladder)
    monkeypatch.setattr(scorecard, "rate", fake_rate)
    rows = check_module.check(GAME, "table", 1, lambda *_: None, also=["pretrained"])
    by_agent = {(r["agent"], r["rung"]): r for r in rows}
    greedy = next(r for r in rows if r["rung"] == "greedy")
    assert greedy["published"] == tiny_ladder.rating("greedy")
    assert greedy["off"] == pytest.approx(1030.0 - tiny_ladder.rating("greedy"), abs=0.1)
    assert greedy["within"] == (abs(greedy["off"]) <= check_module.WITHIN)
    other = by_agent[("pretrained", None)]
    assert other["published"] is None and other["within"] is None and len(rows) == 3


def test_rechecked_cards_replace_their_agent_and_drop_an_older_ladder_version(tmp_path, monkeypatch):
    """benchmarks.scorecards: a fresh card replaces the agent's last one; the cards of an
    earlier version of the same ladder (another scale) are dropped, other ladders' kept."""
    from benchmarks import scorecards as check_module

    name = ladders.spec_for(GAME).name
    version = ladders.spec_for(GAME).version
    old = {"rung": "random", "agent": "random", "options": {}, "published": 90.0, "rating": 95.0,
           "halfwidth": 40.0, "off": 5.0, "within": True, "games": 50, "seconds": 3.0,
           "stopped": "interval", "yardstick": None, "date": "2026-11-29", "revision": "abc",
           "machine": "m"}
    (tmp_path / "scorecards.json").write_text(json.dumps([
        {**old, "ladder": name, "ladder_version": version - 1},
        {**old, "ladder": name, "rung": "greedy", "agent": "greedy", "ladder_version": version},
        {**old, "ladder": "tiny_towns_v0"}]))
    fresh = {**old, "ladder": name, "rung": "greedy", "agent": "greedy", "rating": 1010.0}
    monkeypatch.setattr(check_module, "check", lambda *a, **k: [fresh])
    check_module.main(["--game", GAME, "--out", str(tmp_path)])
    cards = json.loads((tmp_path / "scorecards.json").read_text())
    assert [(c["ladder"], c["agent"], c["rating"], c.get("ladder_version")) for c in cards] == [
        ("tiny_towns_v0", "random", 95.0, None), (name, "greedy", 1010.0, version)]


def test_a_ladder_report_names_the_command_that_builds_it_again(tiny_ladder):
    from benchmarks.ladder import DEFAULT_MAX_GAMES, rebuild_command

    assert rebuild_command(tiny_ladder) == f"python -m benchmarks.ladder --game {GAME}"
    many = dataclasses.replace(tiny_ladder, meta={**tiny_ladder.meta, "games": DEFAULT_MAX_GAMES + 7})
    assert rebuild_command(many).endswith(f"--max-games {DEFAULT_MAX_GAMES + 7}")
    solo = dataclasses.replace(tiny_ladder, spec=ladders.LadderSpec("tiny_towns_v0", "solo", {}, ()),
                               seed_results={"a": [1, 2, 3, None], "b": [1, 2, 3, 4]})
    assert rebuild_command(solo) == ("python -m benchmarks.ladder --game tiny_towns_v0 --solo "
                                     "--seeds 3 --max-seeds 4")
    solo.seed_results["a"][3] = 0
    assert rebuild_command(solo).endswith("--solo --seeds 4")


def test_a_solo_pilot_rates_its_candidates_and_keeps_their_games(tmp_path, capsys):
    from benchmarks.ladder_pilot import main
    games = tmp_path / "pilot.jsonl"
    argv = ["--game", "tiny_towns_v0", "--solo", "--seeds", "6", "--workers", "1", "--games-file", str(games),
            "random=random", 'greedy=greedy:{"noise":0.8}', 'g90=greedy:{"noise":0.9}']
    main(argv)
    assert len(games.read_text().splitlines()) == 18
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# solo pilot tiny_towns_v0: 6 seeds x 3 candidates")
    rows = {line.split()[0]: line for line in out[1:]}
    assert set(rows) == {"random", "greedy", "g90"} and rows["greedy"].split()[1] == "1000"


@pytest.mark.slow   # starts a local ray cluster (~30 s); runs in the CI's slow stage
def test_a_ladder_builds_the_same_on_ray(tiny_ladder):
    ray = pytest.importorskip("ray")
    quiet = dict(workers=2, backend="ray", progress=False, log=lambda *_: None)
    solo = ladders.LadderSpec("tiny_towns_v0", "solo", {"num_players": 1}, (
        ladders.Rung("random", "random"), ladders.Rung("greedy", "greedy", {"noise": 0.8})))
    try:
        on_ray = ladders.build_table(tiny_ladder.spec, base_games=16, batch=8, max_games=48, seed=3, **quiet)
        solo_ray = ladders.build_solo(solo, seeds=8, seed=1, bootstrap=50, **quiet)
    finally:
        ray.shutdown()
    assert on_ray.pairs == tiny_ladder.pairs and on_ray.ratings == tiny_ladder.ratings
    solo_here = ladders.build_solo(solo, seeds=8, seed=1, bootstrap=50, workers=1, progress=False,
                                   log=lambda *_: None)
    assert solo_ray.seed_results == solo_here.seed_results and solo_ray.ratings == solo_here.ratings


def test_a_solo_build_adds_seeds_only_for_the_rungs_still_over_target(monkeypatch):
    """Results drawn from known strengths: a dear top rung within target after the first
    seeds plays no more, while the seeds added for the bottom of the ladder are played by
    the rungs between it and the anchor; the fit compares rungs on the seeds both played."""
    rng = np.random.default_rng(0)
    shift = {"random": -6.0, "g50": -3.0, "greedy": 0.0, "dear": 4.0}
    noise = rng.normal(0.0, 1.0, (4, 400))
    spec = ladders.LadderSpec("tiny_towns_v0", "solo", {"num_players": 1}, tuple(
        ladders.Rung(lab, "random", {"n": k}) for k, lab in enumerate(shift)))
    seeds_seen = {}

    def fake_match(job):
        lab = job["labels"][0]
        k = seeds_seen.setdefault(job["env_seed"], len(seeds_seen))
        value = shift[lab] + 3.0 * noise[list(shift).index(lab), k]
        think = 0.5 if lab == "dear" else 1e-4         # s/move: "dear" is a slow rung
        return {"result": float(value), "outcome": {"score": float(value), "margin": None},
                "ranks": [1], "scores": [0], "moves": [10], "think": [10 * think], "seconds": 10 * think}

    monkeypatch.setattr(ladders, "play_match", fake_match)
    monkeypatch.setattr(ladders, "TARGET_HALFWIDTH", 120.0)
    monkeypatch.setattr(ladders, "SLOW_HALFWIDTH", 400.0)
    lad = ladders.build_solo(spec, seeds=40, max_seeds=400, workers=1, progress=False,
                             log=lambda *_: None, bootstrap=100)
    played = {lab: sum(v is not None for v in lad.seed_results[lab]) for lab in shift}
    assert played["dear"] == 40 < played["random"] == played["g50"] == played["greedy"] == len(lad.seeds)
    assert lad.halfwidths["random"] <= 120.0 and lad.halfwidths["dear"] <= 400.0
    assert lad.ratings["random"] < lad.ratings["g50"] < lad.ratings["greedy"] < lad.ratings["dear"]
    points, games = ladders.solo_tally(list(shift), lad.seed_results)
    assert games[0, 3] == 40 and games[0, 1] == len(lad.seeds)

    # the solo scorecard on such a ladder: an agent that plays like g50 rates near it, and
    # meets the dear rung only on the seeds the dear rung played
    seed_index = {s: k for k, s in enumerate(lad.seeds)}
    monkeypatch.setattr(scorecard, "_play", lambda jobs, *a: [
        {"result": shift["g50"] + 3.0 * noise[1, seed_index[job["env_seed"]]],
         "outcome": {"score": 0, "automata": [], "won": None, "margin": None, "title": None,
                     "deep_learning_city": None, "levels_won": None},
         "ranks": [1], "scores": [0], "moves": [10], "think": [0.001]} for job in jobs])
    card = scorecard.rate("tiny_towns_v0", "greedy", mode="solo", seed=3, ladder=lad, max_games=len(lad.seeds))
    assert abs(card["rating"] - lad.ratings["g50"]) <= card["halfwidth"] + lad.halfwidths["g50"]
    met = {r["label"]: r["games"] for r in card["rungs"]}
    assert met["dear"] < met["random"] == card["games"]


def test_between_two_cities_solo_games_are_compared_on_how_far_they_are_from_winning():
    """The solo result of Between Two Cities is the score minus the Deep Learning City's: in
    real games it is >= 0 at every level the seat wins and > 0 wins it (ties go to the
    tie-breaks), and a seat whose cities both trail that city gets less for scoring less --
    the margin over the automata, which then score the seat's own cities, rewarded keeping
    them level instead."""
    import envs
    from agents import make
    from agents.loop import play_game
    from agents.yardstick import solo_outcome

    env = envs.make("between_two_cities_v0", num_players=1)
    kernel = env.unwrapped.spec.kernel
    checked = 0
    for seed in range(12):
        record = play_game(env, [make("greedy", noise=0.5, seed=seed)], seed=seed)
        outcome = solo_outcome(env, record)
        result = ladders.solo_result(outcome)
        level = int(env.unwrapped.kernel_state[kernel.DIFFICULTY])
        assert result == outcome["score"] - outcome["deep_learning_city"]
        for other, won in outcome["levels_won"].items():
            shifted = result + int(kernel.DIFFICULTY_ADJUSTMENT[level]) - int(kernel.DIFFICULTY_ADJUSTMENT[other])
            assert (shifted >= 0) if won else (shifted <= 0), (seed, other, shifted)
            checked += 1
    assert checked == 12 * 5
    # Both cities trail a Deep Learning City of 58: cities 48 and 56 beat 42 and 43.
    better = {"score": 48, "automata": [48, 56], "margin": -8, "deep_learning_city": 58}
    worse = {"score": 42, "automata": [42, 43], "margin": -1, "deep_learning_city": 58}
    assert ladders.solo_result(better) > ladders.solo_result(worse)
    assert better["margin"] < worse["margin"]
    # Without a Deep Learning City the margin over the best automaton, or the score.
    assert ladders.solo_result({"score": 30, "automata": [20, 25], "margin": 5}) == 5
    assert ladders.solo_result({"score": 30, "automata": [], "margin": None}) == 30
