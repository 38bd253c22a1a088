"""The engine's folders are its layers: every module sits in one, a layer imports only the layers
before it, and no import cycle exists anywhere, counting the imports inside functions (docs/contributing.md's
"Layout"). The walker reads the source with ast, so an import a function makes only when it runs
counts the same as one at the top of the file."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

# Bottom to top. The package root (flashviz/__init__.py, the public face, and __main__.py, the CLI)
# sits above them all.
LAYERS = ("model", "run", "hardware", "players", "teach")
ROOT_MODULES = ("flashviz", "flashviz.__main__")
FOREIGN = {"streamlit", "plotly", "explorer", "lessons", "app", "tests", "bench"}  # never from the engine


def engine_modules(top: Path = ROOT / "flashviz") -> dict[str, Path]:
    """Dotted name -> file, for every module and package under `top`."""
    found = {}
    for path in sorted(top.rglob("*.py")):
        parts = path.relative_to(top.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """What `name` (at `path`) imports: modules of its own package (flashviz, or explorer) by dotted
    name, other packages by their top name. `from pkg import x` counts x when x is a module, else pkg.
    Every import in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    own = name.split(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name if a.name.split(".")[0] == own else a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != own:
                out.add(target.split(".")[0])
                continue
            for a in node.names:
                out.add(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target)
    return out


def graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    return {name: imported(name, path, modules) for name, path in modules.items()}


def layer_of(name: str) -> str:
    """'model', 'run', ... for a module in a layer; 'root' for the package root and the CLI;
    the folder's name otherwise (a folder that is no layer)."""
    if name in ROOT_MODULES:
        return "root"
    return name.split(".")[1]


def rank(name: str) -> int:
    where = layer_of(name)
    return len(LAYERS) if where == "root" else LAYERS.index(where)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (or a module importing itself), as a
    path around it: Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start] & edges.keys())))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges[child] & edges.keys()))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    group.append(top)
                    if top == node:
                        break
                if len(group) > 1 or node in edges[node]:
                    found.append(sorted(group))
    return found


def broken_rules(edges: dict[str, set[str]]) -> list[str]:
    """Each import of a later layer, of the package root, or of the app and its tools."""
    bad = []
    for name, targets in sorted(edges.items()):
        for target in sorted(targets):
            if target in FOREIGN:
                bad.append(f"{name} imports {target} (the engine never imports the app or its libraries)")
            elif target in edges and rank(target) > rank(name):
                bad.append(f"{name} ({layer_of(name)}) imports {target} ({layer_of(target)}), a later layer")
    return bad


MODULES = engine_modules()
EDGES = graph(MODULES)
# The app layer: explorer/'s modules (ui.py, what lessons call, re-exports from the modules of each
# idea: widgets, deck, share, notes, display, css; charts/ one module per chapter over its style).
APP_EDGES = graph(engine_modules(ROOT / "explorer"))


def test_every_engine_module_sits_in_a_layer():
    loose = [n for n in MODULES if n not in ROOT_MODULES and layer_of(n) not in LAYERS]
    flat = [n for n, path in MODULES.items() if path.parent.name == "flashviz" and n not in ROOT_MODULES]
    folders = ",".join(LAYERS)
    assert not flat + loose, (f"{sorted(set(flat + loose))}: put each module in one of flashviz/{{{folders}}}/ "
                              "(docs/contributing.md's Layout says which)")


def test_every_engine_import_names_a_module_that_exists():
    missing = sorted(f"{n} -> {t}" for n, ts in EDGES.items() for t in ts
                     if t.split(".")[0] == "flashviz" and t not in MODULES)
    assert not missing, missing


def test_no_import_cycle_in_the_engine_or_the_app_layer():
    """In explorer/ too: a module behind ui.py (or charts/__init__.py) that imported the facade would
    close a cycle through it."""
    found = cycles(EDGES) + cycles(APP_EDGES)
    assert not found, f"import cycles (function-level imports included): {found}"


def test_lower_layers_never_import_upper_ones():
    assert not broken_rules(EDGES), "\n".join(broken_rules(EDGES))


def test_the_walker_sees_imports_inside_functions():
    """claims imports memory only inside its functions; the walker must see that edge, or the two
    tests above would pass on a tree they never read."""
    assert "flashviz.model.memory" in EDGES["flashviz.teach.claims"]
    assert "flashviz.teach.demos" in EDGES["flashviz.__main__"], "a function-level import in the CLI"
    assert "flashviz.model.costs" in EDGES["flashviz.players.animation"], "`from ..model import costs`"


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return graph(engine_modules(tmp_path / "flashviz"))


def test_a_cycle_through_a_function_level_import_is_caught(tmp_path):
    edges = _package(tmp_path, {
        "flashviz/__init__.py": "",
        "flashviz/players/__init__.py": "",
        "flashviz/players/animation.py": "def f():\n    from ..teach.bugs import BUGS\n",
        "flashviz/teach/__init__.py": "",
        "flashviz/teach/bugs.py": "from ..players import animation\n",
    })
    assert cycles(edges) == [["flashviz.players.animation", "flashviz.teach.bugs"]]
    assert broken_rules(edges) == ["flashviz.players.animation (players) imports flashviz.teach.bugs (teach), "
                                   "a later layer"]


def test_an_upward_import_and_a_foreign_one_are_caught(tmp_path):
    edges = _package(tmp_path, {
        "flashviz/__init__.py": "",
        "flashviz/model/__init__.py": "",
        "flashviz/model/config.py": "import flashviz.run.attention as a\nimport streamlit as st\n",
        "flashviz/run/__init__.py": "",
        "flashviz/run/attention.py": "from flashviz.model.config import Config\n",
    })
    assert broken_rules(edges) == [
        "flashviz.model.config (model) imports flashviz.run.attention (run), a later layer",
        "flashviz.model.config imports streamlit (the engine never imports the app or its libraries)"]
    assert cycles(edges) == [["flashviz.model.config", "flashviz.run.attention"]]


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_folder_says_what_it_may_import(layer):
    doc = ast.get_docstring(ast.parse((ROOT / "flashviz" / layer / "__init__.py").read_text())) or ""
    assert "Imports" in doc, f"flashviz/{layer}/__init__.py: say which layers it may import"


def test_contributing_lists_the_layers_in_their_order():
    text = (ROOT / "docs" / "contributing.md").read_text()
    section = text[text.index("## Layout"):]
    section = section[:section.index("\n## ", 4)]
    listed = [m for m in re.findall(r"`flashviz/(\w+)/`", section) if m in LAYERS]
    assert listed == list(LAYERS), listed


def test_every_module_of_the_app_layer_holds_one_idea_in_at_most_350_lines():
    """Rooms sized to one idea (issue 40): ui.py and charts.py grew to 635 and 857 lines holding everything; each
    part now has a module of its own, and none may grow past 350 lines unnoticed."""
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "explorer").rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 350}
    assert not long, f"split these by what they do: {long}"
