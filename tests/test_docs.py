"""The documentation a user reads agrees with the code: one docstring template for every
game module (headings in order, the stated action and observation sizes are the real
ones), and no user-facing text points outside the repository."""
import ast
import pathlib
import re

import pytest

import envs
from envs.registry import ADAPTERS, spec_for

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The template every game module's docstring follows (Kingdomino Duel's is the model).
HEADINGS = ("Options", "Decisions (phases)", "Action encoding", "Observation", "Rewards",
            "Hidden information", "Scoring helpers", "Baselines", "Data and provenance",
            "Version history")


def _docstring(game):
    path = ROOT / (ADAPTERS[game].replace(".", "/") + ".py")
    return ast.get_docstring(ast.parse(path.read_text()))


def _headings(doc):
    lines = doc.splitlines()
    return [lines[i].strip() for i in range(len(lines) - 1)
            if lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip())]


@pytest.mark.parametrize("game", envs.GAMES)
def test_module_docstring_follows_the_template(game):
    doc = _docstring(game)
    assert doc.splitlines()[0].endswith(f"(``{game}``)"), "first line: '<Game name> (``game_id``)'"
    found = _headings(doc)
    assert len(found) == len(HEADINGS) and all(h.startswith(t) for h, t in zip(found, HEADINGS)), \
        f"{game}: headings {found}, template {HEADINGS}"


@pytest.mark.parametrize("game", envs.GAMES)
def test_module_docstring_states_the_real_sizes(game):
    doc = _docstring(game)
    spec = spec_for(game)
    cfg = spec.configure()
    actions = re.search(r"^Actions\s+``Discrete\((\d+)\)``", doc, re.M)
    obs = re.search(r"^Observation\s+``Box\((\d+),\)``", doc, re.M)
    assert actions and obs, f"{game}: the summary table states 'Actions ``Discrete(n)``' and 'Observation ``Box(n,)``'"
    assert int(actions.group(1)) == spec.num_actions
    assert int(obs.group(1)) == cfg.obs_size, "observation size with the default options"


def test_user_facing_text_stays_inside_the_repository():
    """Users do not have the development folder beside the repository: nothing they read
    may send them there."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted(ROOT.glob("envs/*.py")), *sorted(ROOT.glob("agents/*.py")),
             *sorted(ROOT.glob("kernels/*.py")), ROOT / "train.py"]
    offenders = [str(p.relative_to(ROOT)) for p in paths if "../shared" in p.read_text()]
    assert not offenders, offenders
