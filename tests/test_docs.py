"""The documentation a user reads agrees with the code: one docstring template for every
game module (headings in order, the stated action and observation sizes are the real
ones), no user-facing text points outside the repository, the manual's generated tables
equal the declarations, the README's links resolve, and every Python example of the README
and docs/ runs (blocks after ``<!-- skip: reason -->`` excepted)."""
import ast
import importlib
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

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
             *sorted(ROOT.glob("envs/*.py")), *sorted(ROOT.glob("agents/**/*.py")),
             *sorted(ROOT.glob("kernels/*.py")), ROOT / "train.py"]
    offenders = [str(p.relative_to(ROOT)) for p in paths if "../shared" in p.read_text()]
    assert not offenders, offenders


# ---------------------------------------------------------------------------------------
# The manual (mkdocs.yml, docs/) and the README: generated tables, links, runnable examples.


DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _hooks():
    spec = importlib.util.spec_from_file_location("cityzoo_docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", envs.GAMES)
def test_game_page_tables_are_generated_from_the_declarations(game):
    """Each game's page asks for its tables, and the build puts in what the game declares."""
    from envs.options import table_markdown
    page = (ROOT / "docs" / "games" / f"{game.removesuffix('_v0')}.md").read_text()
    for kind in ("glance", "options", "actions", "observation"):
        assert f"<!-- cityzoo:{kind} {game} -->" in page, f"{game}: page lacks its {kind} block"
    built = _hooks().expand(page)
    assert "cityzoo:" not in built
    spec = spec_for(game)
    assert table_markdown(spec.options) in built
    # independently of table_markdown: one row per declared option, with its default
    lines = built.splitlines()
    start = lines.index("| option | accepts | default | meaning |") + 2
    option_rows = []
    while start < len(lines) and lines[start].startswith("| `"):
        option_rows.append(lines[start])
        start += 1
    assert [r.split("|")[1].strip().strip("`") for r in option_rows] == [o.name for o in spec.options]
    for row, opt in zip(option_rows, spec.options):
        assert f"`{opt.default!r}`" in row
    assert f"`Discrete({spec.num_actions})`" in built
    assert f"`Box({spec.configure().obs_size},)`" in built
    # the action table's blocks cover every id once, in order
    blocks = importlib.import_module("kernels." + game.removesuffix("_v0")).ACTIONS
    sizes = [int(line.split("|")[3]) for line in built.splitlines()
             if re.match(r"^\| \d+(–\d+)? \| `\w+` \| \d+ \|$", line)]
    assert sizes == [blocks.size(b) for b in blocks.names()] and sum(sizes) == spec.num_actions


def test_training_defaults_table_is_generated():
    from agents.learning.training.recipes import GAME_DEFAULTS
    built = _hooks().expand((ROOT / "docs" / "training.md").read_text())
    for game, cfg in GAME_DEFAULTS.items():
        row = next(line for line in built.splitlines() if line.startswith(f"| `{game}` |"))
        assert f"`{cfg.timesteps!r}`" in row and f"`{cfg.policy!r}`" in row


def test_ladder_tables_are_generated_from_the_stored_ladders():
    from agents.rating import ladder as ladders
    page = (ROOT / "docs" / "ratings.md").read_text()
    built = _hooks().expand(page)
    for which in ("all", "solo"):
        assert f"<!-- cityzoo:ladders {which} -->" in page
    for name, spec in ladders.SPECS.items():
        lad = ladders.load(spec.game, spec.mode)
        row = next(line for line in built.splitlines() if line.startswith(f"| `{name}` v{spec.version} |"))
        for r in spec.rungs:
            assert f"`{r.label}` {lad.rating(r.label):.0f}" in row


def test_generated_blocks_refuse_unknown_names():
    hooks = _hooks()
    with pytest.raises(ValueError, match="unknown game"):
        hooks.expand("<!-- cityzoo:options chess_v0 -->")
    with pytest.raises(ValueError, match="unknown generated block"):
        hooks.expand("<!-- cityzoo:rules tiny_towns_v0 -->")


def test_no_hand_written_option_table():
    """The option tables exist only as generated blocks."""
    offenders = [str(p.relative_to(ROOT)) for p in DOC_FILES
                 if "| option | accepts |" in p.read_text()]
    assert not offenders, offenders


def test_every_page_is_in_the_nav():
    text = (ROOT / "mkdocs.yml").read_text()
    nav = set(re.findall(r":\s*([\w/]+\.md)\s*$", text, re.M))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert pages - nav == set(), f"pages missing from mkdocs.yml's nav: {sorted(pages - nav)}"
    assert nav - pages == set(), f"nav entries without a page: {sorted(nav - pages)}"


def _github_anchor(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _links(text):
    """Relative link targets of Markdown text: [..](target), ![..](target), src="target"."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)          # not inside code blocks
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text)
    return [t for t in targets if not re.match(r"^(https?:|mailto:)", t)]


def test_readme_links_point_at_files_that_exist():
    """The README is read on GitHub and in the clone: every relative link must resolve, and
    an anchor must name a heading of the page it points at."""
    broken = []
    for target in _links((ROOT / "README.md").read_text()):
        path, _, anchor = target.partition("#")
        file = ROOT / path if path else ROOT / "README.md"
        if not file.exists():
            broken.append(target)
        elif anchor:
            headings = re.findall(r"^#+ (.+)$", file.read_text(), re.M)
            if anchor not in {_github_anchor(h) for h in headings}:
                broken.append(target)
    assert not broken, broken


def test_results_files_link_inside_the_repository():
    broken = []
    for page in sorted((ROOT / "benchmarks" / "results").glob("*.md")):
        for target in _links(page.read_text()):
            if not (page.parent / target.partition("#")[0]).exists():
                broken.append(f"{page.name}: {target}")
    assert not broken, broken


def test_readme_shows_the_test_command_ci_runs():
    command = "python -m pytest -n 2 -q"
    readme = (ROOT / "README.md").read_text()
    assert any(line.strip().endswith(command) for line in readme.splitlines()), \
        "the README's second command runs the test suite"
    assert command in (ROOT / ".ci" / "run").read_text()


def _python_blocks():
    """Every ```python block of the README and the docs, except those right after a line
    ``<!-- skip: reason -->``."""
    blocks = []
    for path in DOC_FILES:
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```python":
                start = i
                j = i + 1
                while lines[j].strip() != "```":
                    j += 1
                marker = lines[start - 1].strip() if start else ""
                skip = re.fullmatch(r"<!-- skip: (.+) -->", marker)
                blocks.append(pytest.param("\n".join(lines[start + 1:j]),
                                           id=f"{path.relative_to(ROOT)}:{start + 1}",
                                           marks=[pytest.mark.skip(reason=skip.group(1))] if skip else []))
                i = j
            i += 1
    return blocks


@pytest.mark.parametrize("code", _python_blocks())
def test_code_block_runs(code, tmp_path):
    """Each example runs as a reader would paste it: a fresh process in an empty folder,
    with this checkout on the path as the editable install puts it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


def test_readme_ratings_are_the_stored_ladders():
    """The README's table of ladder ratings says what the ladder files and the scorecard
    results hold."""
    from agents.rating import ladder as ladders
    readme = (ROOT / "README.md").read_text()
    cards = json.loads((ROOT / "benchmarks" / "results" / "ladder" / "scorecards.json").read_text())
    rows = [line for line in readme.splitlines() if re.match(r"^\| `\w+_v0` \| -?\d+ ± \d+ \| 1000 \|", line)]
    assert {re.match(r"^\| `(\w+)`", r).group(1) for r in rows} == {
        s.game for s in ladders.SPECS.values() if s.mode == "table"}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        game = cells[0].strip("`")
        lad = ladders.load(game)
        top = lad.sorted_rungs()[-1]
        assert cells[1] == f"{lad.rating('random'):.0f} ± {lad.halfwidths['random']:.0f}"
        assert cells[3] == f"`{top.label}` {lad.rating(top.label):.0f} ± {lad.halfwidths[top.label]:.0f}"
        card = next(c for c in cards if c["ladder"] == game and c["agent"] == "pretrained")
        assert cells[4] == f"{card['rating']:.0f} ± {card['halfwidth']:.0f}"
