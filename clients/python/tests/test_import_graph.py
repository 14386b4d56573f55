"""The package imports one way (README, "How it is built"): every module imports on its own in a
fresh interpreter, and the graph of the fetchd modules each one imports has no cycle and points
down the layers. The graph is read from the source, so an import under TYPE_CHECKING or inside
a function counts: a circle there is still one for a reader and for mypy."""
import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set

import pytest

import fetchd

PACKAGE = Path(fetchd.__file__).resolve().parent
ROOT = "__init__"  # the package itself: what `from . import name` imports when name is no module

# Lowest first. A module imports from lower layers (and its own, where the flag says so); the
# clients are the only modules that talk to fetchd (streams, processes), so the I/O modules of
# the standard library are theirs alone.
LAYERS = [
    ("leaves", True, {"errors", "version", "wire_types", "locate", "gcpause"}),
    ("framing: bytes <-> messages", True, {"framing"}),
    ("protocol core: ids, pending requests, notification dispatch, mirrors", True,
     {"protocol", "changes", "mirror", "delegate"}),
    ("call builders: (method, params) and results, no I/O", True,
     {"call", "wire_calls", "requests", "context", "controller", "progress", "handshake"}),
    ("each request as a client method (generated mixins)", True, {"wire_methods"}),
    ("clients", False, {"client", "aio"}),
    ("the package", True, {ROOT, "__main__"}),
]
IO_MODULES = {"asyncio", "select", "selectors", "socket", "subprocess"}

# Imports `name` alone: the package is registered without running its __init__ (which imports
# every module), so only what `name` itself needs gets loaded; prints the fetchd modules loaded.
ISOLATED = r"""
import importlib, importlib.util, json, sys
package, name = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("fetchd", package + "/__init__.py",
                                              submodule_search_locations=[package])
root = importlib.util.module_from_spec(spec)
sys.modules["fetchd"] = root
if name == "__init__":
    spec.loader.exec_module(root)
else:
    importlib.import_module("fetchd." + name)
print(json.dumps(sorted(m[len("fetchd."):] for m in sys.modules if m.startswith("fetchd."))))
"""


def modules(package: Path) -> List[str]:
    return sorted(p.stem for p in package.glob("*.py"))


def imports_of(path: Path, names: Set[str], stdlib: bool = False) -> Set[str]:
    """The package's modules ``path`` imports anywhere in its source (or, with ``stdlib``, the
    top-level names of every other import)."""
    found: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] != "fetchd":
                    found.update([parts[0]] if stdlib else [])
                elif not stdlib:
                    found.add(parts[1] if len(parts) > 1 else ROOT)
        elif isinstance(node, ast.ImportFrom):
            assert node.level <= 1, f"{path.name}: the package is flat; {ast.dump(node)}"
            module = node.module or ""
            if node.level == 0:
                if module.split(".")[0] != "fetchd":
                    found.update([module.split(".")[0]] if stdlib else [])
                    continue
                module = module[len("fetchd."):] if module.startswith("fetchd.") else ""
            if stdlib:
                continue
            if module:
                found.add(module.split(".")[0])
            else:
                found.update(a.name if a.name in names else ROOT for a in node.names)
    return found


def graph(package: Path) -> Dict[str, Set[str]]:
    names = set(modules(package))
    return {name: imports_of(package / f"{name}.py", names) for name in names}


def find_cycle(edges: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One import circle as a path that ends where it starts, or None."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path: List[str] = []

    def visit(name: str) -> Optional[List[str]]:
        state[name] = 1
        path.append(name)
        for target in sorted(edges.get(name, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(edges):
        if name not in state:
            cycle = visit(name)
            if cycle:
                return cycle
    return None


def reachable(edges: Dict[str, Set[str]], start: str) -> Set[str]:
    seen, todo = {start}, [start]
    while todo:
        for target in edges.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_import_graph_has_no_cycle():
    cycle = find_cycle(graph(PACKAGE))
    assert cycle is None, "import circle: " + " -> ".join(cycle)


@pytest.mark.parametrize("name", modules(PACKAGE))
def test_every_module_imports_alone_in_a_fresh_interpreter(name):
    result = subprocess.run([sys.executable, "-I", "-c", ISOLATED, str(PACKAGE), name],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout)) - {ROOT}
    # What really loaded is in the graph: a check that the source reading misses no import.
    assert loaded <= reachable(graph(PACKAGE), name), f"{name} loaded modules its imports do not name"


def test_imports_point_down_the_layers():
    edges = graph(PACKAGE)
    placed = [name for _, _, members in LAYERS for name in members]
    assert sorted(placed) == sorted(edges), "each module in exactly one layer of LAYERS"
    level = {name: index for index, (_, _, members) in enumerate(LAYERS) for name in members}
    wrong = []
    for name, targets in sorted(edges.items()):
        title, own_layer, _ = LAYERS[level[name]]
        for target in sorted(targets):
            if level[target] > level[name] or (level[target] == level[name] and not own_layer):
                wrong.append(f"{name} ({title}) imports {target} ({LAYERS[level[target]][0]})")
        if level[name] < level["client"]:
            for io in sorted(imports_of(PACKAGE / f"{name}.py", set(), stdlib=True) & IO_MODULES):
                wrong.append(f"{name} ({title}) imports {io}: only the clients do I/O")
    assert wrong == []


def test_the_check_sees_imports_under_type_checking_and_in_functions(tmp_path):
    """The circle the package once had (client -> context -> controller -> client) went
    through TYPE_CHECKING imports; the check must see those."""
    (tmp_path / "__init__.py").write_text("from .client import Client\n")
    (tmp_path / "client.py").write_text("from .context import Context\n")
    (tmp_path / "context.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .controller import Controller\n")
    (tmp_path / "controller.py").write_text("def make():\n    from fetchd.client import Client\n")
    assert find_cycle(graph(tmp_path)) == ["client", "context", "controller", "client"]
    (tmp_path / "controller.py").write_text("def version():\n    from . import __version__\n")
    assert find_cycle(graph(tmp_path)) == [ROOT, "client", "context", "controller", ROOT]
