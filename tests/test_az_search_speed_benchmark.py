"""benchmarks.az_search_speed: the learned search's speed under several search settings."""
import pytest

from benchmarks import az_search_speed


def test_settings_are_timed_on_the_same_positions_and_tabled(capsys):
    az_search_speed.main(["--game", "kingdomino_duel_v0", "--simulations", "6", "--rounds", "1", "--options",
                          '{"heuristic_mix": 1.0}', '{"heuristic_mix": 1.0, "delay_expansion": false}'])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| `")]
    assert len(rows) == 2 and '"delay_expansion": false' in rows[1]
    assert rows[0].endswith("| 1.00 |")         # the first setting is the yardstick
    assert "kingdomino_duel_v0, 6 simulations a move" in out


@pytest.mark.parametrize("options, problem", [('{"heuristic_mix": 2}', "heuristic_mix must be in [0, 1]"),
                                              ('{"playout_depth": -3}', "playout_depth"),
                                              ("[1]", "JSON object"), ('{"nope": 1}', "unknown search parameter")])
def test_bad_settings_are_refused_in_one_line_before_anything_runs(options, problem, capsys):
    with pytest.raises(SystemExit):
        az_search_speed.main(["--game", "kingdomino_duel_v0", "--simulations", "6", "--options", options])
    err = capsys.readouterr().err
    assert problem in err and "Traceback" not in err
