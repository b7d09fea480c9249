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
                     ("between_two_cities", "greedy"): 10, ("smartphone_inc", "greedy"): 2}
    assert [j["seed"] for j in jobs if j["label"] == "mcts_200it"] == [500, 501, 502]
    for bad in (["mcts_200it"], ["nobody=2"], ["chess/greedy=1"], ["greedy=-1"], ["greedy=x"]):
        with pytest.raises(ValueError, match="--games-of"):
            solo.parse_games_of(bad, modes, labels)


def test_between_two_cities_report_gives_the_break_even_bonus():
    """The same random games at every difficulty: the Deep Learning City without its bonus is
    the same game by game, so the break-even bonus is the median margin over it."""
    jobs = solo.make_jobs(["between_two_cities"], ["random"], 3, 0, 500, {})
    results = solo.run(jobs, 1)
    bonus = solo._difficulty_bonus()
    base = {}
    for r in results:
        base.setdefault(r["seed"], set()).add(r["deep_learning_city"] - bonus[r["options"]["difficulty"]])
        if r["score"] != r["deep_learning_city"]:   # (a tie goes to the tie-breaks)
            assert r["won"] == (r["score"] > r["deep_learning_city"])
    assert all(len(v) == 1 for v in base.values())
    margins = [r["score"] - (r["deep_learning_city"] - bonus[r["options"]["difficulty"]]) for r in results]
    lines = solo.between_two_cities_table(results)
    row = next(line for line in lines if line.startswith("| random | 15 |"))
    assert row.endswith(f"| {np.median(margins):+.1f} |")
    assert any("break-even" in line.lower() for line in lines)
