"""lit configuration for qcomp's FileCheck tests (tests/lit/**.mlir).

Tools: qcomp-opt, qcomp-run (console scripts of the installed package) and the
Python `filecheck`, also reachable as `FileCheck` so upstream RUN lines work. Each
runs as a fork of one warm server (tool_server.py) rather than a cold Python process,
reached through a small client (tool_client.c when a C compiler is there, else Python);
`QCOMP_LIT_COLD=1` runs the console scripts themselves.
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
# The rowwise ops run on their NumPy loops: numba's first compile of the kernels is ~25 s
# of CPU in a fresh checkout, and tests/quant/test_rowwise.py holds the numba loops to
# the NumPy ones (and to torch) bit for bit. QCOMP_FULL=1 (or QCOMP_ROWWISE_KERNELS
# set) runs them as a user's run does.
if "QCOMP_ROWWISE_KERNELS" in os.environ:
    config.environment["QCOMP_ROWWISE_KERNELS"] = os.environ["QCOMP_ROWWISE_KERNELS"]
elif os.environ.get("QCOMP_FULL") != "1":
    config.environment["QCOMP_ROWWISE_KERNELS"] = "numpy"


def _tool(name):
    found = shutil.which(name, path=path)
    if found is None:
        lit_config.fatal(f"cannot find '{name}' (install qcomp: pip install -e '.[test]')")
    return found


# The tools run from PATH (checked here so a missing install fails loudly);
# upstream's `FileCheck` spelling is the Python `filecheck`.
_tool("qcomp-opt")
_filecheck = _tool("filecheck")


def _start_tool_server():
    """tool_server.py's warm fork server (one per lit run): the client command line a
    RUN line's tool becomes, or None when it cannot start (then the tools run cold)."""
    import atexit
    import subprocess
    import tempfile

    server = os.path.join(os.path.dirname(__file__), "tool_server.py")
    sock = os.path.join(tempfile.mkdtemp(prefix="qcomp-lit-"), "tools.sock")
    env = dict(os.environ)
    env.update(config.environment)
    proc = subprocess.Popen([sys.executable, server, "serve", sock], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env)

    def stop():
        proc.stdin.close()  # the server's signal to exit (and remove its socket)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()

    atexit.register(stop)
    if proc.stdout.readline().strip() != b"ready":
        lit_config.warning("the lit tool server did not start; running the tools cold")
        return None
    c_client = _build_c_client()
    if c_client is not None:
        return f"{c_client} {sock}"
    return f"{sys.executable} -I -S {server} client {sock}"


def _build_c_client():
    """tool_client.c (the server's client in C: ~1 ms of CPU a tool against a Python
    client's ~15 ms) compiled for this lit run with $CC or `cc`, or None when there is
    no C compiler (then the client is tool_server.py's, in Python)."""
    import atexit
    import subprocess
    import tempfile

    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        return None
    directory = tempfile.mkdtemp(prefix="qcomp-lit-client-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    exe = os.path.join(directory, "tool_client")
    source = os.path.join(os.path.dirname(__file__), "tool_client.c")
    try:
        built = subprocess.run([cc, "-o", exe, source], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if built.returncode != 0:
        lit_config.note(f"tool_client.c did not build; using the Python client:\n"
                        f"{built.stderr.decode(errors='replace')}")
        return None
    return exe


_client = None if os.environ.get("QCOMP_LIT_COLD") == "1" else _start_tool_server()
if _client is not None:
    # a tool name as a RUN line's command word (not inside a path or a check prefix)
    for _name in ("qcomp-opt", "qcomp-run"):
        config.substitutions.append((rf"(?<![\w./-]){_name}(?![\w.-])", f"{_client} {_name}"))
    config.substitutions.append((r"\bFileCheck\b", f"{_client} filecheck"))
    config.substitutions.append(("%python", f"{_client} python"))
else:
    config.substitutions.append((r"\bFileCheck\b", _filecheck))
    config.substitutions.append(("%python", sys.executable))

# `REQUIRES: onnx`: the .onnx importer tests build their models with the onnx package.
import importlib.util  # noqa: E402

if importlib.util.find_spec("onnx") is not None:
    config.available_features.add("onnx")
