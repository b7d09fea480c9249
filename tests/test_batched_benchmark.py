"""benchmarks.batched: the batch-size table and its argument checks (tiny budgets)."""
import pytest

from benchmarks import batched


def test_batch_size_table_has_a_positive_rate_per_size_and_thread():
    lines = batched.batch_size_table(["kingdomino_duel_v0"], [4, 16], [1], 0.05)
    assert len(lines) == 3 and lines[0].count("games, 1 thread") == 2
    cells = [c.strip() for c in lines[2].strip("|").split("|")]
    assert cells[0] == "kingdomino_duel_v0"
    assert int(cells[1].replace(",", "")) == batched.bytes_per_game("kingdomino_duel_v0")
    assert all(float(c.replace(",", "")) > 0 for c in cells[2:]) and len(cells) == 4


@pytest.mark.parametrize("flag, message", [(["--num-envs", "0"], "--num-envs: must be a positive integer"),
                                           (["--batch-sizes", "64", "0"], "batch sizes must be at least 1")])
def test_batch_sizes_below_one_are_refused(flag, message, capsys):
    with pytest.raises(SystemExit):
        batched.main(["--games"] + flag)
    assert message in capsys.readouterr().err


def test_best_of_keeps_each_measures_best_round_and_takes_turns():
    from benchmarks.throughput import best_of

    calls = []
    values = {"a": iter([3, 5, 4]), "b": iter([(2, 9), (1, 0), (7, 1)])}

    def measure(name):
        calls.append(name)
        return next(values[name])

    assert best_of(3, [lambda: measure("a"), lambda: measure("b")]) == [5, (7, 1)]
    assert calls == ["a", "b"] * 3
