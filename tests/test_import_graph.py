"""qcomp's import graph: layers import one way (docs/design.md) and no module imports
itself back through a cycle.

The graph is read from the source with `ast`, every `import` statement counted wherever
it stands (module level, inside functions or classes, under `if TYPE_CHECKING:`), with
relative imports resolved against the importing module's package.  An edge A -> B means
"module A imports B", where:

* `import pkg.sub` (or `import pkg.sub as x`) is an edge to `pkg.sub`;
* `from pkg import name` is an edge to `pkg.name` when that is a module, else to `pkg`
  (its `__init__`); `from pkg.sub import name` is an edge to `pkg.sub` (or to
  `pkg.sub.name` when that is a module);
* a package's `__init__` is a module like any other: it has edges to whatever it
  imports, so an `__init__` that re-exports its submodules has edges to them, and
  importing a name from a package goes through the `__init__`;
* for the layer rules, importing `pkg.sub` is an edge to `pkg.sub` only; for cycles it
  is also an edge to `pkg` (and to every package around `pkg.sub` that the importer is
  not itself inside), because Python runs `pkg/__init__` before `pkg.sub`, and an
  `__init__` re-exporting its submodules can lead back to the importer
  (`with_package_inits`).  The packages around the importer are not edges: they are
  already running when the importer runs.

Layers, lowest first; a module imports only modules of its own layer or lower ones:

    0 qcomp.quant   1 qcomp.ir   2 qcomp.dialects   3 qcomp.passes, qcomp.tflite
    4 qcomp.registry, qcomp.pipeline   5 qcomp.interpreter   6 qcomp.backends, qcomp.importers
    7 qcomp.tools, qcomp.universe   8 qcomp.api (the Python API; `qcomp/__init__.py`
    imports it lazily)

and besides: `qcomp/__init__.py` imports only `qcomp.api`, inside its module
`__getattr__` and for type checkers (so `import qcomp` imports nothing), and nothing
else imports `qcomp.api`;
any other package's `__init__` imports only modules inside its own package, and nothing
outside `qcomp.tools` imports `qcomp.tools`.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests import source_tree

QCOMP = Path(__file__).resolve().parent.parent / "qcomp"

LAYERS = {
    "qcomp.quant": 0,
    "qcomp.ir": 1,
    "qcomp.dialects": 2,
    "qcomp.passes": 3,
    "qcomp.tflite": 3,
    "qcomp.registry": 4,
    "qcomp.pipeline": 4,
    "qcomp.interpreter": 5,
    "qcomp.backends": 6,
    "qcomp.importers": 6,
    "qcomp.tools": 7,
    "qcomp.universe": 7,
    "qcomp.api": 8,
}


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    file: str
    line: int
    through: str = ""  # the module imported, when this edge is to a package around it

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}: {self.source} imports {self.target}"
        if self.through:
            text += f" (its __init__ runs first, importing {self.through})"
        return text


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every `.py` under the package directory `root`
    (a package is named by its `__init__.py`)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _resolve_from(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """`name` or its longest prefix that is a module of the graph."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def import_graph(root: Path) -> dict[str, list[Edge]]:
    """Module -> its import edges to modules under `root` (see the module docstring)."""
    modules = module_files(root)
    graph: dict[str, list[Edge]] = {}
    for module, path in modules.items():
        rel = str(path.relative_to(root.parent))
        is_package = path.name == "__init__.py"
        edges = []
        for node in source_tree.walk(source_tree.parse(path)):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve_from(module, is_package, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                if (known := _known(target, modules)) is not None:
                    edges.append(Edge(module, known, rel, node.lineno))
        graph[module] = sorted(set(edges), key=lambda e: (e.line, e.target))
    return graph


def with_package_inits(graph: dict[str, list[Edge]]) -> dict[str, list[Edge]]:
    """`graph` plus, for each edge A -> pkg.sub, the edges A -> pkg for every package
    around pkg.sub that A is not inside: importing pkg.sub runs those `__init__`s first."""
    full = {}
    for module, edges in graph.items():
        added = []
        for edge in edges:
            parts = edge.target.split(".")
            for i in range(1, len(parts)):
                package = ".".join(parts[:i])
                if package in graph and not (module == package
                                             or module.startswith(package + ".")):
                    added.append(Edge(module, package, edge.file, edge.line, edge.target))
            added.append(edge)
        full[module] = list(dict.fromkeys(added))
    return full


def layer_of(module: str, layers: dict[str, int] = LAYERS) -> int | None:
    if module == "qcomp":  # the package's front door (`qcomp.compile`, ...) is on top
        return max(layers.values()) + 1
    parts = module.split(".")
    while parts:
        if (layer := layers.get(".".join(parts))) is not None:
            return layer
        parts.pop()
    return None


def upward_imports(graph: dict[str, list[Edge]], layers: dict[str, int] = LAYERS) -> list[str]:
    """Edges from a module to a module of a higher layer, and modules of no layer."""
    found = []
    for module, edges in graph.items():
        source = layer_of(module, layers)
        if source is None:
            if edges:
                found.append(f"{module} belongs to no layer but imports {edges[0]}")
            continue
        for edge in edges:
            target = layer_of(edge.target, layers)
            if target is None or target > source:
                found.append(f"{edge} (layer {source} -> layer {target})")
    return found


def package_rule_breaks(graph: dict[str, list[Edge]], root: Path) -> list[str]:
    """Imports in a package `__init__` of modules outside its own package, and imports
    of the tools package from outside it."""
    modules = module_files(root)
    found = []
    for module, edges in graph.items():
        is_package = modules[module].name == "__init__.py"
        for edge in edges:
            if is_package and not edge.target.startswith(module + "."):
                found.append(f"{edge} (a package __init__ re-exports only its own package)")
            tools = f"{root.name}.tools"
            if (edge.target == tools or edge.target.startswith(tools + ".")) and not (
                    module == tools or module.startswith(tools + ".")):
                found.append(f"{edge} (nothing outside {tools} imports it)")
    return found


def cycles(graph: dict[str, list[Edge]]) -> list[list[Edge]]:
    """One cycle (as its edges) per strongly connected component that has one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(start: str) -> None:  # iterative Tarjan
        work = [(start, iter(graph.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for edge in edges:
                if edge.target not in index:
                    index[edge.target] = low[edge.target] = len(index)
                    stack.append(edge.target)
                    on_stack.add(edge.target)
                    work.append((edge.target, iter(graph.get(edge.target, ()))))
                    break
                if edge.target in on_stack:
                    low[node] = min(low[node], index[edge.target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)

    for module in sorted(graph):
        if module not in index:
            connect(module)

    found = []
    for component in components:
        start = min(component)
        self_loop = [e for e in graph.get(start, ()) if e.target == start]
        if self_loop:
            found.append(self_loop[:1])
            continue
        if len(component) == 1:
            continue
        # shortest way back to `start` inside the component (breadth first)
        came_by: dict[str, Edge] = {}
        frontier = [start]
        while frontier and start not in came_by:
            following = []
            for node in frontier:
                for edge in graph.get(node, ()):
                    if edge.target in component and edge.target not in came_by:
                        came_by[edge.target] = edge
                        following.append(edge.target)
            frontier = following
        path, node = [], start
        while True:
            edge = came_by[node]
            path.append(edge)
            node = edge.source
            if node == start:
                break
        found.append(path[::-1])
    return found


def describe(cycle: list[Edge]) -> str:
    names = " -> ".join([cycle[0].source] + [e.target for e in cycle])
    return names + "".join(f"\n    {e}" for e in cycle)


# ---------------------------------------------------------------- qcomp itself


def test_qcomp_imports_follow_the_layers():
    graph = import_graph(QCOMP)
    assert "qcomp.dialects.stablehlo.attrs" in graph and graph["qcomp.registry"]
    # qcomp/__init__.py stands above every layer: its one rule is checked below
    found = upward_imports({k: v for k, v in graph.items() if k != "qcomp"})
    assert not found, "imports against the layer order:\n" + "\n".join(found)


def test_qcomp_has_no_import_cycle():
    found = cycles(with_package_inits(import_graph(QCOMP)))
    assert not found, "import cycles:\n" + "\n".join(describe(c) for c in found)


def test_qcomp_package_inits_and_tools():
    graph = import_graph(QCOMP)
    init = QCOMP / "__init__.py"
    assert {e.target for e in graph["qcomp"]} == {"qcomp.api"}, graph["qcomp"]
    top_level = [n for n in source_tree.parse(init).body
                 if isinstance(n, ast.Import | ast.ImportFrom)]
    assert not top_level, "qcomp/__init__.py imports at import time"
    users = [str(e) for m, edges in graph.items() if m != "qcomp"
             for e in edges if e.target == "qcomp.api"]
    assert not users, "only qcomp/__init__.py imports qcomp.api:\n" + "\n".join(users)
    found = package_rule_breaks({k: v for k, v in graph.items() if k != "qcomp"}, QCOMP)
    assert not found, "\n".join(found)


# ---------------------------------------------------------------- the checker can fail


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_checker_finds_cycles_and_upward_imports(tmp_path):
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "from pkg.low.a import A\n",
        # a -> b at module level, b -> a inside a function: a cycle all the same
        "pkg/low/a.py": "from .b import B\nA = 1\n",
        "pkg/low/b.py": "B = 2\n\ndef f():\n    from pkg.low import a\n    return a\n",
        # importing a name from a package goes through its __init__, which imports c
        "pkg/low/c.py": "def g():\n    from pkg.low import A\n    return A\n",
        "pkg/low/d.py": "import pkg.high.e\n",
        "pkg/high/__init__.py": "",
        "pkg/high/e.py": "from ..low import b\n",
        "pkg/tools.py": "",
    })
    graph = import_graph(root)
    assert {e.target for e in graph["pkg.low.b"]} == {"pkg.low.a"}
    assert {e.target for e in graph["pkg.low.c"]} == {"pkg.low"}
    assert {e.target for e in graph["pkg.high.e"]} == {"pkg.low.b"}

    found = cycles(graph)
    assert len(found) == 1
    text = describe(found[0])
    assert text.startswith("pkg.low.a -> pkg.low.b -> pkg.low.a"), text
    assert "pkg/low/b.py:4: pkg.low.b imports pkg.low.a" in text, text

    # the __init__ importing its submodule and c importing from the __init__: a cycle
    graph["pkg.low"].append(Edge("pkg.low", "pkg.low.c", "pkg/low/__init__.py", 2))
    assert any("pkg.low.c" in describe(c) for c in cycles(graph))

    layers = {"pkg.low": 0, "pkg.high": 1, "pkg.tools": 1}
    up = upward_imports(graph, layers)
    assert up == ["pkg/low/d.py:1: pkg.low.d imports pkg.high.e (layer 0 -> layer 1)"], up
    graph["pkg.high.e"].append(Edge("pkg.high.e", "pkg.tools", "pkg/high/e.py", 2))
    graph["pkg.high"].append(Edge("pkg.high", "pkg.low.a", "pkg/high/__init__.py", 1))
    assert package_rule_breaks(graph, root) == [
        "pkg/high/__init__.py:1: pkg.high imports pkg.low.a (a package __init__ re-exports "
        "only its own package)",
        "pkg/high/e.py:2: pkg.high.e imports pkg.tools "
        "(nothing outside pkg.tools imports it)"]
    assert not cycles({"x": [Edge("x", "y", "x.py", 1)], "y": []})
    assert describe(cycles({"x": [Edge("x", "x", "x.py", 3)]})[0]) == \
        "x -> x\n    x.py:3: x imports x"


def test_checker_finds_cycles_through_a_package_init(tmp_path):
    # a imports sub.x; Python runs sub/__init__ first, which imports sub.y, which imports
    # a back: `import pkg.a` fails with "partially initialized module 'pkg.a'"
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.sub.x import X\nA = 1\n",
        "pkg/sub/__init__.py": "from pkg.sub.y import Y\n",
        "pkg/sub/x.py": "X = 1\n",
        "pkg/sub/y.py": "from pkg.a import A\nY = 2\n",
        # inside pkg.sub, importing pkg.sub.x does not run pkg.sub's __init__ again
        "pkg/sub/z.py": "from . import x\n",
    })
    python = subprocess.run([sys.executable, "-c", "import pkg.a"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert python.returncode == 1 and "partially initialized module 'pkg.a'" in python.stderr

    graph = import_graph(root)
    assert not cycles(graph)  # no cycle among the imports as written
    full = with_package_inits(graph)
    assert [e.target for e in full["pkg.a"]] == ["pkg.sub", "pkg.sub.x"]
    assert [e.target for e in full["pkg.sub.z"]] == ["pkg.sub.x"]
    found = cycles(full)
    assert len(found) == 1
    assert describe(found[0]) == (
        "pkg.a -> pkg.sub -> pkg.sub.y -> pkg.a\n"
        "    pkg/a.py:1: pkg.a imports pkg.sub (its __init__ runs first, importing pkg.sub.x)\n"
        "    pkg/sub/__init__.py:1: pkg.sub imports pkg.sub.y\n"
        "    pkg/sub/y.py:1: pkg.sub.y imports pkg.a")


# ---------------------------------------------------------------- the tests' own helpers

TESTS = Path(__file__).resolve().parent


def test_tests_share_helpers_one_way():
    """Every directory of test modules is a package, and helpers are imported by their
    absolute name (`from tests.passes.pass_helpers import ...`), never by a bare module
    name that only resolves because pytest put the test's directory on `sys.path`."""
    modules = [p for p in TESTS.rglob("*.py")  # lit's config is lit's, not a module
               if "lit" not in p.relative_to(TESTS).parts]
    missing = sorted({str(p.parent.relative_to(TESTS.parent)) for p in modules
                      if not (p.parent / "__init__.py").exists()})
    assert not missing, "test directories without __init__.py: " + ", ".join(missing)
    local = {p.stem for p in modules} | {p.parent.name for p in modules}
    found = []
    for path in sorted(modules):
        rel = path.relative_to(TESTS.parent)
        for node in source_tree.walk(source_tree.parse(path)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if isinstance(node, ast.ImportFrom) and node.level:
                found.append(f"{rel}:{node.lineno}: relative import")
            found += [f"{rel}:{node.lineno}: imports {name!r} (use 'tests.<dir>.{name}')"
                      for name in names if name.split(".")[0] in local - {"tests"}]
    assert not found, "\n".join(found)
