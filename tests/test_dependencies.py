"""Every third-party module qcomp imports is a runtime dependency in pyproject.toml
(not only in an extra): `pip install .` alone must give working `qcomp-opt` and
`qcomp-run` (tests/test_plain_install.py proves it in a fresh virtual environment).
The exceptions: an optional backend in `qcomp/backends/` or a model importer in
`qcomp/importers/` may import a package of an extra (jax for `qcomp[xla]`, onnx and
protobuf for `qcomp[onnx]`, ai-edge-litert for `qcomp[litert]`); without it the tool
says which extra to install. The rowwise formats' numba kernels (`qcomp[fast]`) may
import numba and llvmlite: they load only when `qcomp.quant.rowwise` picks them (`QCOMP_ROWWISE_KERNELS`),
and a plain install runs the NumPy twins (tests/test_plain_install.py)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from tests import source_tree

REPO = Path(__file__).resolve().parent.parent


def _imported_top_level(root: Path) -> dict[str, set[str]]:
    """Top-level module name -> files importing it (at any depth of the file, so
    imports inside functions count: the tools import lazily)."""
    found: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = source_tree.parse(path)
        for node in source_tree.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(REPO)))
    return found


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(reqs: list[str]) -> set[str]:
    return {_normalize(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in reqs}


FAST_KERNELS = {f"qcomp/quant/{name}.py" for name in (
    "jit_cache", "rowwise_jit", "rowwise_kernels", "rowwise_bag_kernels", "rowwise_rand_kernels",
    "rowwise_vec", "threads")}
"""The modules that may import numba (threads: only to ask which threading layer numba's
parallel loops would run on, `numba_tbb_threads`)."""


UNINSTALLED_DISTRIBUTIONS = {"iree": ["iree-base-compiler", "iree-base-runtime"]}
"""The distributions of a module the test environment may lack (an extra that the test
extra does not install), which `packages_distributions` then cannot name."""


def test_every_imported_distribution_is_a_dependency():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = _requirement_names(project["dependencies"])
    dists = packages_distributions()
    third_party = {m: files for m, files in _imported_top_level(REPO / "qcomp").items()
                   if m not in sys.stdlib_module_names and m != "qcomp"}
    assert {"ml_dtypes", "numpy", "xdsl"} <= set(third_party)  # the scan sees the imports
    extras = set().union(*(_requirement_names(r) for r in
                           project.get("optional-dependencies", {}).values()))
    missing = {}
    for module, files in sorted(third_party.items()):
        names = {_normalize(d) for d in dists.get(
            module, UNINSTALLED_DISTRIBUTIONS.get(module, [module]))}
        if names & runtime:
            continue
        # an optional backend or importer (imported lazily by the tools) may need an
        # extra: `pip install 'qcomp[xla]'`, `'qcomp[onnx]'`, `'qcomp[litert]'`
        if names & extras and all(f.startswith(("qcomp/backends/", "qcomp/importers/"))
                                  for f in files):
            continue
        if names & _requirement_names(project["optional-dependencies"]["fast"]) \
                and set(files) <= FAST_KERNELS:
            continue
        missing[module] = sorted(files)
    assert missing == {}, f"imported by qcomp but not in [project] dependencies: {missing}"
