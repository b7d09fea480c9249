"""The layout of ``agents/`` (docs/code_map.md): nothing imports upward, nobody imports
``train``, and the agents modules import each other without cycles.

Layers, from the bottom: the core package (``agents`` itself: base, loop, runner, specs,
settings, yardstick), the players (``agents.players``, ``agents.pretrained``), the rating
ladders (``agents.rating``), the learning code (``agents.learning``), and the apps
(``agents.apps``, the entry packages ``agents.tournament`` ..., and every ``__main__``).  A
module may import its own layer and the layers below it.  The core reaches the players only
through the registry's lazy factories (``agents.base.BUILTIN_AGENTS``: module names as
text), which is what keeps ``import agents`` light.  Every import statement counts,
function-local ones too."""
import ast
import pathlib

import pytest

from tests.import_cycles import cycles as find_cycles

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ("core", "players", "rating", "learning", "apps")
ENTRY_PACKAGES = ("agents.tournament", "agents.play", "agents.serve", "agents.scorecard")


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module):
    """The layer of an agents module (see the module docstring)."""
    if module.endswith(".__main__") or any(module == p or module.startswith(p + ".")
                                           for p in ("agents.apps",) + ENTRY_PACKAGES):
        return "apps"
    for prefix, name in (("agents.players", "players"), ("agents.pretrained", "players"),
                         ("agents.rating", "rating"), ("agents.learning", "learning")):
        if module == prefix or module.startswith(prefix + "."):
            return name
    return "core"


def modules(*folders):
    out = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            out[module_name(path)] = path
    return out


def imports(path, known, text=None):
    """The modules ``path`` imports (every import statement; ``from package import module``
    names the module), as ``(module, line)``; ``text``: its source, if not the file's."""
    tree = ast.parse(path.read_text() if text is None else text, filename=str(path))
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in known else base, node.lineno))
    return found


AGENTS = modules("agents")


def test_the_layers_cover_every_module():
    assert {layer(m) for m in AGENTS} == set(LAYERS)
    assert layer("agents.players.greedy") == "players" and layer("agents.learning.training.run") == "learning"
    assert layer("agents.pretrained.__main__") == "apps" and layer("agents.base") == "core"


def test_no_module_imports_upward():
    wrong = []
    for module, path in AGENTS.items():
        for target, line in imports(path, AGENTS):
            if upward(module, [target]):
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({layer(module)}) imports "
                             f"{target} ({layer(target)})")
    assert not wrong, "\n".join(wrong)


def test_the_core_names_its_players_only_as_text():
    """The registry's lazy factories: ``agents.make("greedy")`` and ``agents.GreedyAgent``
    import the player on first use."""
    from agents import base

    for name, target in base.BUILTIN_AGENTS.items():
        module_name_, _, attr = target.partition(":")
        assert (ROOT / (module_name_.replace(".", "/") + ".py")).exists() or (
            ROOT / module_name_.replace(".", "/") / "__init__.py").exists(), target
        assert base.builtin_class(name).__name__ == attr and base.agent_class(name).name == name


@pytest.mark.parametrize("folder", ["agents", "envs", "kernels", "benchmarks", "examples"])
def test_nobody_imports_train(folder):
    """``train.py`` is the command line over :mod:`agents.learning.training`; code uses the
    package (only tests of the command itself run ``train.main``)."""
    users = [f"{path.relative_to(ROOT)}:{line}" for module, path in modules(folder).items()
             for target, line in imports(path, AGENTS) if target == "train"]
    assert not users, users


def test_no_import_cycles_among_agents_modules():
    graph = {m: {t for t, _ in imports(p, AGENTS) if t in AGENTS and t != m} for m, p in AGENTS.items()}
    cycles = find_cycles(graph)
    assert not cycles, cycles


def upward(module, targets):
    return [t for t in targets if (t == "agents" or t.startswith("agents."))
            and LAYERS.index(layer(t)) > LAYERS.index(layer(module))]


def test_the_checks_can_fail():
    """The checks above see what they look for: a player importing an app (also in a
    function, and relatively) or the learning code, and ``import train``."""
    path = ROOT / "agents" / "players" / "probe.py"
    text = ("from agents.apps import tournament\n"
            "def f():\n    from ..learning.training import run\n    import train\n")
    targets = [t for t, _ in imports(path, AGENTS, text=text)]
    assert targets == ["agents.apps.tournament", "agents.learning.training.run", "train"]
    assert upward("agents.players.probe", targets) == targets[:2]
    assert upward("agents.apps.probe", targets) == []
