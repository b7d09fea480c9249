"""Golden playthroughs (tests/golden, made by envs.testing.golden): every committed game is
played again and must give the same text -- observations, masks, labels, rewards, scores.  A
difference is printed as a diff; if the change is meant, regenerate with
``python -m tests.golden --regen`` and review the diff."""
import json
from pathlib import Path

import pytest

import envs
from envs.testing import golden
from tests.golden import PLAYTHROUGHS, path_of

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", [p[0] for p in PLAYTHROUGHS])
def test_playthrough_is_unchanged(name):
    path = path_of(name)
    assert path.exists(), f"{path} is missing: python -m tests.golden --regen {name}"
    text = path.read_text()
    entry = next(p for p in PLAYTHROUGHS if p[0] == name)
    assert golden.read_header(text) == {"game": entry[1], "options": entry[2], "seed": entry[3],
                                        "max_steps": entry[4]}, "the file is not the listed game"
    assert golden.check_playthrough(path) > 20


def test_every_shipped_game_has_a_whole_game():
    for game in envs.registry.SHIPPED_GAMES:
        whole = [p for p in PLAYTHROUGHS if p[1] == game and p[4] is None]
        assert whole, f"{game} has no whole-game playthrough"
        text = path_of(whole[0][0]).read_text()
        assert "\ngame over after " in text and "\nfinal scores " in text


def test_the_shipped_policies_environments_are_among_them():
    """The pretrained policies read exact observation encodings: each one's environment
    options (as its record gives them) are those of a playthrough."""
    records = [json.loads(p.read_text()) for p in ROOT.glob("agents/**/models/*.json")]
    records = [r for r in records if "game" in r and "options" in r]
    assert len(records) >= 5
    listed = [(p[1], p[2]) for p in PLAYTHROUGHS]
    for record in records:
        assert (record["game"], record["options"]) in listed, \
            f"no playthrough of {record['game']} with the pretrained options {record['options']}"


def test_the_files_stay_modest():
    total = sum(path_of(p[0]).stat().st_size for p in PLAYTHROUGHS)
    assert total < 400_000, f"{total} bytes of playthroughs"


def test_a_change_shows_as_a_readable_diff(tmp_path):
    name = PLAYTHROUGHS[0][0]
    lines = path_of(name).read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("  obs ") and i > 20)
    spoilt = lines[:at] + ["  obs 0:0.5\n"] + lines[at + 1:]
    path = tmp_path / f"{name}.txt"
    path.write_text("".join(spoilt))
    with pytest.raises(AssertionError) as info:
        golden.check_playthrough(path)
    message = str(info.value)
    assert "regenerate" in message and "\n-  obs 0:0.5" in message and "\n+" + lines[at].rstrip("\n") in message
    with pytest.raises(ValueError, match="not a playthrough"):
        golden.read_header("move 0\n")


def test_compact_notation():
    import numpy as np
    assert golden.ids([0, 1, 2, 5, 7, 8]) == "0-2 5 7-8"
    before = np.zeros(8, np.float32)
    after = np.array([0, 1, 1, 1, 0.5, 0, 0, 1 / 3], np.float32)
    assert golden.observation_delta(before, after) == "1-3:1 4:0.5 7:0.33333334"
    assert golden.observation_delta(after, before) == "1-4:0 7:0"
