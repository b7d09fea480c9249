"""benchmarks.value_head: how the learned network's value and the heuristic foretell the outcome."""
import json

import numpy as np
import pytest

from benchmarks import value_head


def test_judge_scores_a_perfect_a_constant_and_a_reversed_guess():
    outcome = np.array([1.0, -1.0, 0.5, -0.5, 0.0])
    perfect = value_head.judge(outcome.copy(), outcome)
    assert perfect["correlation"] == pytest.approx(1.0) and perfect["mse"] == 0.0 and perfect["sign_matches"] == 1.0
    constant = value_head.judge(np.full(5, outcome.mean()), outcome)
    assert constant["correlation"] == 0.0 and constant["mse"] == pytest.approx(outcome.var())
    reversed_ = value_head.judge(-outcome, outcome)
    assert reversed_["correlation"] == pytest.approx(-1.0) and reversed_["sign_matches"] == 0.0
    assert perfect["positions"] == 5 and perfect["outcome_variance"] == pytest.approx(outcome.var())


def test_positions_of_real_games_carry_each_games_outcome_and_the_last_third_is_judged():
    """Two games of greedy play: one outcome per game and seat (the mover's, so the two seats'
    targets are opposite), progress within [0, 1), and at the last decisions the heuristic
    (score margin plus potential) agrees with the outcome's sign more often than not."""
    net_v, heur_v, target, progress = value_head.collect("kingdomino_duel_v0", 2, players="greedy", seed=3)
    assert net_v.shape == heur_v.shape == target.shape == progress.shape and target.size > 50
    assert np.all(np.abs(net_v) <= 1.0) and np.all(np.abs(heur_v) <= 1.0) and np.all(np.abs(target) <= 1.0)
    assert np.all((progress >= 0.0) & (progress < 1.0))
    starts = np.flatnonzero(progress == 0.0)
    assert starts.size == 2
    for part in np.split(target, starts[1:]):
        assert len(np.unique(np.abs(part))) == 1 and len(np.unique(part)) <= 2
    summary = value_head.summarise(net_v, heur_v, target, progress)
    assert set(summary) == {name for name, _, _ in value_head.PHASES}
    assert summary["whole game"]["network"]["positions"] == target.size
    assert summary["last third"]["heuristic"]["sign_matches"] > 0.5


def test_command_writes_its_table_and_refuses_bad_arguments(tmp_path, capsys):
    out = tmp_path / "value_head.md"
    value_head.main(["--game", "kingdomino_duel_v0", "--games", "1", "--players", "random", "--out", str(out)])
    text = out.read_text()
    assert "| kingdomino_duel_v0 | last third |" in text and "Revision" in text
    for bad in (["--players", "nobody"], ["--path", "x.npz"], ["--games", "0"], ["--game", "chess"],
                ["--fit", "2", "--hidden", "16"], ["--fit", "2", "--hidden", "0", "8"]):
        with pytest.raises(SystemExit):
            value_head.main(bad + ["--out", str(out)])


def test_fit_command_prints_each_network_of_the_size_asked(capsys):
    pytest.importorskip("torch")
    value_head.main(["--game", "kingdomino_duel_v0", "--fit", "2", "--games", "1", "--players", "random",
                     "--hidden", "8", "4", "--epochs", "1"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["hidden"], r["with_heuristic"]) for r in rows] == [([8, 4], False), ([8, 4], True)]
    assert all(r["held_out"]["positions"] > 0 for r in rows)


def test_fitted_value_networks_are_judged_on_games_they_did_not_see():
    """--fit: untrained, the plain network says 0 everywhere and the other is the heuristic
    itself on the held-out games; one pass over the training games lowers the plain
    network's error on them."""
    pytest.importorskip("torch")
    fit = value_head.fit_value_network
    blank = fit("kingdomino_duel_v0", 4, 2, players="greedy", epochs=0)
    as_heuristic = fit("kingdomino_duel_v0", 4, 2, players="greedy", epochs=0, with_heuristic=True)
    trained = fit("kingdomino_duel_v0", 4, 2, players="greedy", epochs=1)
    assert blank["train_positions"] > 100 and blank["held_out"]["positions"] > 50
    assert blank["held_out"]["correlation"] == 0.0
    assert blank["held_out"]["mse"] >= blank["held_out"]["outcome_variance"] > 0     # 0 everywhere: variance + mean^2
    for key in ("correlation", "mse", "sign_matches"):
        assert as_heuristic["held_out"][key] == pytest.approx(as_heuristic["heuristic_held_out"][key], abs=1e-3)
    assert trained["train_mse"] < blank["train_mse"]
