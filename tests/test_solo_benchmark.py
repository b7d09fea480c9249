"""The solo yardstick report (benchmarks/solo.py): which games it plays and what its tables say."""
import numpy as np
import pytest

from benchmarks import solo


def test_games_of_sets_one_agents_games_in_every_mode_or_in_one():
    modes, labels = list(solo.MODES), list(solo.AGENTS)
    games_of = solo.parse_games_of(["mcts_200it=0", "tiny_towns/mcts_200it=3"], modes, labels)
    jobs = solo.make_jobs(modes, ["greedy", "mcts_200it"], 2, 1, 500, {}, games_of)
    count = {}
    for j in jobs:
        count[(j["mode"], j["label"])] = count.get((j["mode"], j["label"]), 0) + 1
    assert count == {("tiny_towns", "greedy"): 2, ("tiny_towns", "mcts_200it"): 3,
                     ("between_two_cities", "greedy"): 2, ("smartphone_inc", "greedy"): 2}   # (one job: 5 levels)
    assert [j["seed"] for j in jobs if j["label"] == "mcts_200it"] == [500, 501, 502]
    for bad in (["mcts_200it"], ["nobody=2"], ["chess/greedy=1"], ["greedy=-1"], ["greedy=x"]):
        with pytest.raises(ValueError, match="--games-of"):
            solo.parse_games_of(bad, modes, labels)


def test_between_two_cities_report_gives_the_break_even_adjustment():
    """One job per seed plays every level; the Deep Learning City's unadjusted score is the
    same at every level of a (random, level-blind) game, so the break-even adjustment is the
    median margin over it, and each level's distance is that minus the level's adjustment."""
    jobs = solo.make_jobs(["between_two_cities"], ["random"], 3, 0, 500, {})
    assert len(jobs) == 3 and all(j["levels"] == [1, 2, 3, 4, 5] for j in jobs)
    results = solo.run(jobs, 1)
    assert len(results) == 15
    adjust = solo._difficulty_adjustment()
    assert [adjust[d] for d in range(1, 6)] == [-10, -5, 0, 5, 10]      # ruling 18
    base = {}
    for r in results:
        base.setdefault(r["seed"], set()).add(r["deep_learning_city"] - adjust[r["options"]["difficulty"]])
        if r["score"] != r["deep_learning_city"]:   # (a tie goes to the tie-breaks)
            assert r["won"] == (r["score"] > r["deep_learning_city"])
    assert all(len(v) == 1 for v in base.values())
    margins = [r["score"] - (r["deep_learning_city"] - adjust[r["options"]["difficulty"]]) for r in results]
    lines = solo.between_two_cities_table(results)
    row = next(line for line in lines if line.startswith("| random | 3 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[5] == f"{np.median(margins):+.1f}"
    assert cells[6:] == [f"{np.median(margins) - a:+.1f}" for a in (-10, -5, 0, 5, 10)]
    assert any("break-even" in line.lower() for line in lines)


@pytest.mark.parametrize("name,options", [("greedy", {}), ("mcts", {"simulations": 20}),
                                          ("az", {"simulations": 8}), ("az_policy", {})])
def test_play_levels_gives_the_games_each_level_would_give_alone(name, options):
    """Sharing the moves before the agent can see the end of the game changes nothing: every
    level's outcome equals the game played at that level from the start (MCTS with an
    iteration budget is deterministic; its play does depend on the level near the end).  The
    learned search and its policy share no moves (they may depend on the level from the
    first move)."""
    job = {"mode": "between_two_cities", "game": "between_two_cities_v0", "options": {"num_players": 1},
           "level_option": "difficulty", "levels": [1, 2, 3, 4, 5], "label": name, "name": name,
           "agent_options": options, "seed": 503}
    shared = solo.play_levels(job)
    keys = ("score", "automata", "won", "margin", "deep_learning_city")
    for r, level in zip(shared, job["levels"]):
        assert r["options"]["difficulty"] == level
        alone = solo.play_one({**{k: v for k, v in job.items() if k not in ("levels", "level_option")},
                               "options": {"num_players": 1, "difficulty": level}})
        assert [r[k] for k in keys] == [alone[k] for k in keys]
    moves = shared[0]["moves"]
    if name == "greedy":        # the only decision left to each level is the forced last one
        assert shared[0]["shared_moves"] == moves - 1
    elif name in solo.SEES_LEVEL:
        assert shared[0]["shared_moves"] == 0
    else:                       # the search reaches the end well before the last decision
        assert 0 < shared[0]["shared_moves"] < moves - 1


def test_results_file_resumes_a_run_without_replaying_finished_games(tmp_path, monkeypatch):
    """Each job's results are appended as it finishes; a second run with the same file plays
    only the jobs it lacks and returns the same results."""
    path = tmp_path / "results.jsonl"
    jobs = solo.make_jobs(["tiny_towns"], ["random"], 3, 0, 500, {})
    first = solo.run(jobs[:2], 1, path)
    assert len(path.read_text().splitlines()) == 2
    played = []
    real_play = solo._play
    monkeypatch.setattr(solo, "_play", lambda job: played.append(job["seed"]) or real_play(job))
    again = solo.run(jobs, 1, path)
    assert played == [502]
    assert len(path.read_text().splitlines()) == 3
    keys = ("seed", "score", "won")
    assert [[r[k] for k in keys] for r in again[:2]] == [[r[k] for k in keys] for r in first]


def test_agent_options_are_laid_over_an_agents_own_and_checked_first(tmp_path, capsys):
    """``--agent-options`` changes the named agent's jobs only, keys their results apart from
    the agent's own (a results file does not mix the two), and a bad label or option is
    refused in one line before any game."""
    over = {"az": {"simulations": 7, "search_options": {"playout_depth": 2}}}
    jobs = solo.make_jobs(["tiny_towns"], ["greedy", "az"], 1, 1, 500, {}, None, over)
    by_label = {j["label"]: j for j in jobs}
    assert by_label["az"]["agent_options"] == {"simulations": 7, "search_options": {"playout_depth": 2}}
    assert by_label["greedy"]["agent_options"] == {}
    plain = solo.make_jobs(["tiny_towns"], ["az"], 1, 1, 500, {})[0]
    assert solo._job_key(plain) != solo._job_key(by_label["az"])
    assert solo._job_key(by_label["greedy"]) == solo._job_key(
        solo.make_jobs(["tiny_towns"], ["greedy"], 1, 1, 500, {})[0])
    solo.check_agent_options(over, ["az"], ["tiny_towns"])
    for bad, problem in [('{"mcts_1s": {}}', "not one of --agents"), ('{"az": 3}', "object of options"),
                         ('{"az": {"search_options": {"playout_depth": -1}}}', "playout_depth"),
                         ('{"az": {"flavour": 1}}', "flavour")]:
        with pytest.raises(SystemExit):
            solo.main(["--mode", "tiny_towns", "--agents", "az", "--agent-options", bad,
                       "--out", str(tmp_path / "solo.md")])
        err = capsys.readouterr().err
        assert problem in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "solo.md").exists()
