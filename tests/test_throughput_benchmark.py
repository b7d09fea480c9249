"""benchmarks.throughput: the split of an AEC step's time, the floor of each game's shapes
and the table that divides by it (tiny budgets)."""
import envs
from benchmarks import throughput


def test_step_breakdown_parts_are_positive_and_cover_the_step():
    env = envs.make("kingdomino_duel_v0")
    last, pick, step, rest = throughput.aec_step_breakdown(env, 0.05)
    assert min(last, pick, step) > 0 and rest >= 0


def test_breakdown_table_has_the_floor_then_each_game_against_it():
    lines = throughput.breakdown_table(["kingdomino_duel_v0", "tiny_towns_v0"], 0.05).splitlines()
    assert len(lines) == 5
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert [r[0] for r in rows] == ["rule-less floor (same shell)", "kingdomino_duel_v0", "tiny_towns_v0"]
    assert [int(r[1]) for r in rows] == [64, 204, 1056]
    assert rows[0][8] == "—"
    for r in rows:
        parts = [float(c) for c in r[3:7]]
        assert abs(sum(parts) - float(r[7])) < 0.02
    for r in rows[1:]:
        over = [float(c) for c in r[8].split(" / ")]
        assert len(over) == 4
        floor = [float(c) for c in rows[0][3:7]]
        assert all(abs(o - (float(p) - f)) < 0.02 for o, p, f in zip(over, r[3:7], floor))


def test_shaped_floor_has_the_games_shapes():
    env = envs.make("tiny_towns_v0", num_players=3)
    floor = throughput.shaped_floor(env)
    assert (floor.spec.num_actions, floor.cfg.obs_size, floor.cfg.num_players) == (1056, env.cfg.obs_size, 3)


def test_table_gives_each_game_its_share_of_both_floors():
    rows, c4, floor = throughput.measure(["kingdomino_duel_v0"], 0.05)
    assert [r[0] for r in rows[:2]] == ["rule-less floor (same shell)", "pettingzoo connect_four_v3"]
    game = next(r for r in rows if r[0] == "kingdomino_duel_v0")
    assert game[2][0] > 0 and game[3][0] > 0 and game[4] > 0
    line = next(l for l in throughput.table(rows, c4, floor).splitlines() if l.startswith("| kingdomino"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[5] == f"{game[2][0] / floor:.0%}"
    assert cells[6] == f"{game[2][0] / game[4]:.0%} of {game[4]:,.0f}"
