"""Tournament runner: schedule, seat rotation, reproducibility, workers, CLI, outputs."""
import collections
import json

import pytest

import envs
from agents.apps import tournament as T
from agents.rating.elo import wilson_interval

FAST_MCTS = {"mcts": {"simulations": 4}}


def _strip_timing(result):
    keep = ("index", "seats", "scores", "ranks", "winners", "moves", "env_seed", "agent_seeds")
    rows = [{k: r[k] for k in keep} for r in result["results"]]
    summary = [{k: v for k, v in r.items() if k != "seconds_per_move"} for r in result["summary"]]
    return rows, summary, result["head_to_head"]


@pytest.mark.parametrize("num_agents,num_players", [(3, 2), (2, 2), (3, 3), (5, 3), (2, 4), (1, 2)])
def test_seat_rotation_balanced(num_agents, num_players):
    specs = [(f"a{i}", "random") for i in range(num_agents)]
    jobs, per_table = T.make_schedule("g", specs, num_players, games_per_table=5, seed=1)
    assert per_table % num_players == 0 and per_table >= 5
    counts = collections.Counter()
    for job in jobs:
        assert len(job["seats"]) == num_players
        for s, lab in enumerate(job["seats"]):
            counts[lab, s] += 1
    for lab, _ in specs:
        per_seat = {counts[lab, s] for s in range(num_players)}
        assert len(per_seat) == 1 and per_seat != {0}, (lab, counts)
    if num_players == 2 and num_agents >= 2:   # round robin: every pair meets
        pairs = {frozenset(j["seats"]) for j in jobs}
        assert len(pairs) == num_agents * (num_agents - 1) // 2
    # distinct, reproducible seeds
    again, _ = T.make_schedule("g", specs, num_players, games_per_table=5, seed=1)
    assert [j["env_seed"] for j in jobs] == [j["env_seed"] for j in again]
    assert len({j["env_seed"] for j in jobs}) == len(jobs)


def test_parse_agents_and_options_errors():
    assert T.parse_agents(["random", "fast=mcts"]) == [("random", "random"), ("fast", "mcts")]
    with pytest.raises(ValueError, match="distinct"):
        T.parse_agents(["mcts", "mcts"])
    with pytest.raises(ValueError, match="unknown agent label"):
        T.make_schedule("g", [("random", "random")], 2, 2, agent_options={"mcts": {}})


def test_wilson_interval():
    lo, hi = wilson_interval(7, 10)
    assert 0.39 < lo < 0.40 and 0.89 < hi < 0.90
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


GAME = envs.GAMES[0]


def test_reproducible_by_seed_and_independent_of_workers():
    kw = dict(games=2, seed=11, progress=False)
    a = T.run_tournament(GAME, ["random", "greedy"], workers=1, **kw)
    b = T.run_tournament(GAME, ["random", "greedy"], workers=1, **kw)
    c = T.run_tournament(GAME, ["random", "greedy"], workers=2, **kw)
    assert _strip_timing(a) == _strip_timing(b) == _strip_timing(c)
    d = T.run_tournament(GAME, ["random", "greedy"], workers=1, **dict(kw, seed=12))
    assert _strip_timing(a)[0] != _strip_timing(d)[0]


def test_every_agent_takes_a_seed():
    """The tournament seeds every agent it builds by name through its constructor."""
    import agents

    for name in agents.base.known_agents():
        if name == "policy":   # needs a saved model: tests/test_training.py builds it with seed=
            continue
        assert agents.make(name, seed=12).seed == 12, name


def test_tournament_game_is_the_shared_loop():
    """A scheduled game is agents.loop.play_game on the job's agents and seeds."""
    import agents
    from agents.loop import play_game

    jobs, _ = T.make_schedule(GAME, [("random", "random"), ("greedy", "greedy")], 2, 2, seed=4)
    job = jobs[1]
    res = T.play_job(job)
    env = envs.make(GAME, num_players=2)
    bots = [agents.make(n, seed=s) for n, s in zip(job["names"], job["agent_seeds"])]
    record = play_game(env, bots, seed=job["env_seed"])
    assert res["scores"] == [int(x) for x in record.info["scores"]]
    assert res["moves"] == record.moves
    assert res["winners"] == [env.possible_agents.index(w) for w in record.info["winners"]]


def test_summary_counts_and_ratings():
    res = T.run_tournament(GAME, ["random", "greedy", "mcts"], games=2, workers=1, seed=0,
                           agent_options=FAST_MCTS, progress=False)
    n = res["num_players"]
    assert res["games"] == 3 * res["games_per_table"]
    rows = {r["agent"]: r for r in res["summary"]}
    assert sum(r["games"] for r in rows.values()) == res["games"] * n
    for r in rows.values():
        assert 0.0 <= r["win_lo"] <= r["win_rate"] <= r["win_hi"] <= 1.0
        assert r["sigma"] < 25 / 3   # the ratings moved
        assert abs(r["ordinal"] - (r["mu"] - 3 * r["sigma"])) < 1e-9
    total_wins = sum(r["wins"] for r in rows.values())
    assert total_wins <= res["games"] + 1e-9


@pytest.mark.parametrize("game", envs.GAMES)
def test_cli_end_to_end(game, tmp_path, capsys):
    out = tmp_path / game
    T.main(["--game", game, "--agents", "greedy", "mcts", "--games", "2",
            "--workers", "1", "--seed", "3", "--agent-options", json.dumps(FAST_MCTS),
            "--out", str(out), "--no-progress"])
    text = capsys.readouterr().out
    assert "win rate" in text and "mcts" in text
    for name in ("results.json", "agents.csv", "games.csv", "head_to_head.csv", "table.md",
                 "ratings.png"):
        assert (out / name).stat().st_size > 0, name
    data = json.loads((out / "results.json").read_text())
    assert data["game"] == game and len(data["summary"]) == 2
    assert data["games"] <= max(2, data["num_players"])


@pytest.mark.slow   # starts a local ray cluster (~30 s); runs in the CI's slow stage
def test_ray_backend_matches_process_backend():
    ray = pytest.importorskip("ray")
    kw = dict(games=2, seed=5, progress=False)
    a = T.run_tournament(GAME, ["random", "greedy"], workers=1, **kw)
    try:
        b = T.run_tournament(GAME, ["random", "greedy"], workers=2, backend="ray", **kw)
    finally:
        ray.shutdown()
    assert _strip_timing(a) == _strip_timing(b)


def test_tournament_report_describes_each_games_mcts_playout():
    from benchmarks.tournament_report import _playout_text
    from agents.settings import search_settings
    for game in envs.GAMES:
        text = _playout_text(game)
        settings = search_settings(game)
        assert f"tanh(margin / {settings.margin_scale:g})" in text
        assert (f"{settings.playout_depth} greedy moves" in text) == (settings.playout == "greedy" and settings.playout_depth > 0)


def test_tournament_report_ladder_adds_the_shipped_policy_and_a_larger_search(tmp_path):
    from agents import pretrained
    from benchmarks import tournament_report as TR

    game = "smartphone_inc_v0"
    assert game in pretrained.available_games()
    rows = TR.main(["--game", game, "--games", "2", "--ladder", "--mcts-seconds", "0.001",
                    "--mcts-large-seconds", "0.002", "--speed-seconds", "0.2", "--workers", "1",
                    "--out", str(tmp_path), "--no-progress"])
    result, bench = rows[0]
    labels = {a["label"]: a for a in result["agents"]}
    assert set(labels) == {"random", "greedy", "pretrained", "mcts", "mcts_large"}
    assert labels["mcts_large"]["name"] == "mcts"
    assert labels["mcts_large"]["options"]["simulations"] == bench["mcts_large_simulations"] >= 50
    assert result["head_to_head"]["pretrained"]["greedy"] is not None
    summary = (tmp_path / "summary.md").read_text()
    assert "pretrained ahead of greedy" in summary and "mcts_large ahead of mcts" in summary
    assert TR.ladder_agents("kingdomino_duel_v0", 1000.0, 1.0, {})[1] == 1000
    # a policy trained for other options stays out (Smartphone Inc.'s: 2 companies)
    assert "pretrained" not in TR.ladder_agents(game, 1000.0, 1.0, {"num_players": 3})[0]


def test_tournament_report_refuses_a_large_search_over_one_second(capsys):
    from benchmarks import tournament_report as TR

    with pytest.raises(SystemExit):
        TR.main(["--ladder", "--mcts-large-seconds", "1.5"])
    assert "--mcts-large-seconds must be in (0, 1]" in capsys.readouterr().err
