"""The import graph of the ``envs`` package has no cycle.

Every import statement counts, module level or inside a function (a function-local import
hides a cycle from the interpreter, not from a reader).  Pictures and text tables read the
game's state through ``envs/<game>_readouts.py`` and the kernels; a game's adapter reaches its picture
only inside ``picture()``, and no picture imports its game's adapter.
"""
import ast
from pathlib import Path

import envs
from tests.import_cycles import cycles

ROOT = Path(envs.__file__).resolve().parent.parent
GAMES = ("between_two_cities", "expancity", "kingdomino_duel", "smartphone_inc", "tiny_towns")


def module_names(package="envs"):
    """Dotted name -> file of every module of ``package`` (packages by their ``__init__``)."""
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(path, name, modules):
    """The modules of ``modules`` that ``path`` (module ``name``) imports, with whether each
    import sits at module level: {target: top_level}."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = {id(node) for node in tree.body}
    found = {}

    def add(target, node):
        while target and target not in modules:     # a name inside a module: the module
            target = target.rpartition(".")[0]
        if target and target != name:
            found[target] = found.get(target, False) or id(node) in top

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:        # ``from envs import records``: the submodule
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base, node)
    return found


def import_graph(package="envs"):
    modules = module_names(package)
    return {name: imports_of(path, name, modules) for name, path in modules.items()}


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b": True}, "b": {"c": False}, "c": {"a": True}, "d": {"a": True}, "e": {"e": False}}
    assert sorted(cycles(graph)) == [["a", "b", "c"], ["e"]]
    assert cycles({"a": {"b": True}, "b": {}}) == []


def test_the_graph_sees_function_local_imports_and_submodules():
    graph = import_graph()
    # envs.shell reaches its pictures only through the spec; envs.<game> imports its picture
    # inside picture() (a function-local import the graph must see)
    for game in GAMES:
        assert graph[f"envs.{game}"].get(f"envs.pictures.{game}") is False, game
    assert graph["envs.view"].get("envs.records") is True                 # from envs import records
    assert graph["envs.pictures.kingdomino_duel"].get("envs.pictures") is True   # a name of a package


# Cycles left to another change, each with its way out; the test fails once one is gone, so
# that the entry is removed with it.
KNOWN_CYCLES = set()


def test_no_import_cycle_among_envs_modules():
    found = {tuple(c) for c in cycles(import_graph())}
    new = found - KNOWN_CYCLES
    assert not new, "import cycles among envs modules: " + "; ".join(" -> ".join(c) for c in sorted(new))
    assert KNOWN_CYCLES <= found, f"fixed, remove from KNOWN_CYCLES: {sorted(KNOWN_CYCLES - found)}"


def test_pictures_do_not_import_game_adapters():
    graph = import_graph()
    for game in GAMES:
        picture = graph[f"envs.pictures.{game}"]
        adapters = [m for m in picture if m.startswith("envs.") and m.split(".")[1] in GAMES]
        assert not adapters, f"envs.pictures.{game} imports {adapters}"
        # and no adapter imports a picture at import time
        for target, top_level in graph[f"envs.{game}"].items():
            assert not (target.startswith("envs.pictures") and top_level), (game, target)
