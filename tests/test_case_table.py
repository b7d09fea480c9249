"""The case table of ``envs.testing``: every registered game x player count x declared variant,
read by every generic suite -- so that a game added with ``envs.registry.register`` is tested by
them all without editing a list (shown here with the toy game of ``tests/toy_game.py``)."""
import os
import subprocess
import sys

import pytest

import envs
from envs import registry, testing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOY = "toy_race_v0"
# The generic suites: each runs every case of the table (or every registered game).
GENERIC_SUITES = ["tests/test_conformance.py", "tests/test_pictures.py", "tests/test_records.py",
                  "tests/test_fuzz.py", "tests/test_kernel_contract.py"]


def test_every_game_count_and_variant_has_a_case():
    table = testing.cases()
    assert len({c.id for c in table}) == len(table), "case ids are unique"
    for game in envs.GAMES:
        spec = registry.spec_for(game)
        mine = [c for c in table if c.game == game]
        assert sorted(c.num_players for c in mine if c.kind == "players") == sorted(spec.player_counts)
        options = {o.name: o for o in spec.options}
        for name in spec.variant_options:
            shown = {repr(c.options[name]) for c in mine if c.kind == "variant" and name in c.options}
            default = options[name].default
            # every non-default value has its case, unless it makes the same game as another case
            assert shown and repr(default) not in shown, (game, name, shown)
        for case in mine:
            spec.configure(**case.options)          # every case is a valid option set
    kinds = {(c.game, c.kind) for c in table}
    assert ("tiny_towns_v0", "variant") in kinds and ("expancity_v0", "extra") in kinds
    # an option set that configures the same game as a player-count case is left out
    assert not any(c.options == {"num_players": 2, "steve": False} for c in table)


def test_variant_options_must_be_declared_in_the_option_table(monkeypatch):
    spec = type(registry.spec_for("kingdomino_duel_v0"))
    monkeypatch.setattr(spec, "variant_options", ("no_such_option",))
    with pytest.raises(ValueError, match="no_such_option"):
        testing.game_cases("kingdomino_duel_v0")


def test_a_registered_game_joins_the_case_table():
    assert TOY not in envs.GAMES
    registry.register(TOY, "tests.toy_game:ToySpec")
    try:
        assert envs.GAMES[-1] == TOY and registry.GAMES == envs.GAMES
        toy = testing.cases([TOY])
        assert [c.id for c in toy] == ["toy_race-1p", "toy_race-2p", "toy_race-3p", "toy_race-4p",
                                       "toy_race-2p-automaton=loses", "toy_race-2p-automaton=ties"]
        assert toy == [c for c in testing.cases() if c.game == TOY]
        env = toy[-1].make()
        env.reset(seed=1)
        assert env.unwrapped.cfg.num_participants == 3
        with pytest.raises(ValueError, match="already registered"):
            registry.register(TOY, "tests.toy_game:ToySpec")
    finally:
        registry.unregister(TOY)
    assert TOY not in envs.GAMES and TOY not in registry.ADAPTERS
    for bad in ("Toy", "toy", 3):
        with pytest.raises(ValueError, match="game_id"):
            registry.register(bad, "tests.toy_game:ToySpec")
    with pytest.raises(ValueError, match="shipped|not a game registered"):
        registry.unregister("kingdomino_duel_v0")


def test_the_whole_kit_passes_on_the_toy_game():
    """envs.testing.check_game: what a user runs on a game of their own (docs/testing.md)."""
    registered_here = TOY not in registry.ADAPTERS
    if registered_here:
        registry.register(TOY, "tests.toy_game:ToySpec")
    try:
        played = testing.check_game(TOY, seeds=(0, 1), allocations=False)
        assert sorted(played) == sorted(c.id for c in testing.cases([TOY]))
        assert all(moves > 0 for moves in played.values())
    finally:
        if registered_here:
            registry.unregister(TOY)


def test_the_kit_imports_without_pytest():
    code = ("import sys; sys.modules['pytest'] = None\n"
            "import envs.testing, envs.testing.checks, envs.testing.golden\n"
            "assert 'pytest' not in sys.modules or sys.modules['pytest'] is None\nprint('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


TOY_SUITES = ["-p", "tests.toy_registration", "-p", "no:cacheprovider", "-k", "toy_race", *GENERIC_SUITES]


@pytest.mark.timeout(600)
def test_the_generic_suites_collect_a_registered_game():
    """README: "a new game is tested automatically".  With the toy game registered by a plugin
    before collection, every generic suite collects toy cases (``test_the_whole_kit_passes_on_the_
    toy_game`` runs the checks; the slow stage runs the suites themselves on it)."""
    listed = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", *TOY_SUITES],
                            cwd=ROOT, capture_output=True, text=True, timeout=500)
    assert listed.returncode == 0, listed.stdout[-3000:] + listed.stderr[-3000:]
    collected = [line for line in listed.stdout.splitlines() if "toy_race" in line]
    for suite in GENERIC_SUITES:
        assert any(line.startswith(suite) for line in collected), f"{suite} collects no toy case"
    assert len(collected) > 40


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_generic_suites_pass_on_a_registered_game():
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-rs", *TOY_SUITES],
                         cwd=ROOT, capture_output=True, text=True, timeout=800)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-3000:]
    assert " passed" in run.stdout.splitlines()[-1]
