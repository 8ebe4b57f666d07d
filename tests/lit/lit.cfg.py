"""lit configuration for qcomp's FileCheck tests (tests/lit/**.mlir).

Tools: qcomp-opt, qcomp-run (console scripts of the installed package) and the
Python `filecheck`, also reachable as `FileCheck` so upstream RUN lines work.
"""

import os
import shutil
import sys

import lit.formats

config.name = "qcomp"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

# Find the console scripts next to this Python first, then on PATH.
bin_dirs = [os.path.dirname(sys.executable)]
path = os.pathsep.join(bin_dirs + [os.environ.get("PATH", "")])
config.environment["PATH"] = path
for var in ("HOME", "PYTHONPATH", "QCOMP_DEBUG", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]


def _tool(name):
    found = shutil.which(name, path=path)
    if found is None:
        lit_config.fatal(f"cannot find '{name}' (install qcomp: pip install -e '.[test]')")
    return found


# The tools run from PATH (checked here so a missing install fails loudly);
# upstream's `FileCheck` spelling is the Python `filecheck`.
_tool("qcomp-opt")
config.substitutions.append((r"\bFileCheck\b", _tool("filecheck")))
config.substitutions.append(("%python", sys.executable))

# `REQUIRES: onnx`: the .onnx importer tests build their models with the onnx package.
import importlib.util  # noqa: E402

if importlib.util.find_spec("onnx") is not None:
    config.available_features.add("onnx")
