"""A new user's first minutes, for real: a fresh virtual environment (no system site
packages, no PYTHONPATH), the README's first command run as written in a copy of the
project (`python3 -m pip install -e . && qcomp-...`, no extras), then `qcomp-opt --help`,
`qcomp-run --help` and an import of every qcomp module with only the runtime
dependencies installed.

The venv sees the runtime dependencies (those of pyproject.toml's `dependencies` and
theirs, nothing else) as this machine has them installed, through one `.pth` directory
of links: pip checks them against qcomp's requirements and installs only qcomp, as it
would after downloading them. The venv's pip is this machine's pip, linked into its
site-packages (ensurepip would unpack and byte-compile a copy of the same pip: 8 s of
CPU). `QCOMP_PLAIN_INSTALL_FULL=1` makes the venv with ensurepip's pip and lets pip fetch
the dependencies from the package index into it instead (about a minute more).

Needs the package index (skipped, with the reason, when pip cannot reach it). Deselect
with `-m 'not slow'`."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.in_process import tool as run_in_process
from tests.test_readme import first_command

REPO = Path(__file__).resolve().parent.parent
PROJECT_FILES = ("pyproject.toml", "README.md", "qcomp", "examples")
FULL = os.environ.get("QCOMP_PLAIN_INSTALL_FULL") == "1"


def _env(venv: Path) -> dict[str, str]:
    # a new user's shell: none of this machine's Python settings (with this shell's
    # PYTHONDONTWRITEBYTECODE, each run in the venv compiled qcomp from source again)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP",
                        "PYTHONDONTWRITEBYTECODE")}
    env["PATH"] = str(venv / "bin") + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(venv)
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _run(cmd, env, cwd, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, shell=isinstance(cmd, str),
                          executable="/bin/bash" if isinstance(cmd, str) else None)


@pytest.fixture(scope="module")
def fresh_install(tmp_path_factory):
    """(venv, project copy, the README command's result) after running the README's
    first command in a fresh venv."""
    root = tmp_path_factory.mktemp("plain-install")
    src = root / "qcomp-src"
    src.mkdir()
    for name in PROJECT_FILES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(REPO / name, src / name)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv), *([] if FULL else ["--without-pip"])],
                   check=True, timeout=300)
    if not FULL:
        _link_runtime_dependencies(venv, root / "runtime-site")
        _link_distribution(distribution("pip"), _purelib(venv))
    env = _env(venv)
    readme_cmd = _run(first_command(), env, src)
    if readme_cmd.returncode != 0:  # asked only then (a pip run: 1 CPU-s)
        probe = _run(["python3", "-m", "pip", "index", "versions", "ml_dtypes"], env, src, 120)
        if probe.returncode != 0:
            lines = (probe.stderr or probe.stdout).strip().splitlines()
            pytest.skip("pip cannot reach the package index: "
                        f"{lines[-1] if lines else probe.returncode}")
    return venv, src, readme_cmd


def _runtime_distributions() -> list:
    """The installed distributions of qcomp's runtime dependencies and of theirs (the
    requirements that apply without extras)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    todo = [Requirement(r) for r in project["dependencies"]]
    found: dict[str, object] = {}
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            dist = distribution(req.name)
        except PackageNotFoundError:
            continue  # pip will fetch it from the index
        key = dist.metadata["Name"].lower()
        if key not in found:
            found[key] = dist
            todo += [Requirement(r) for r in dist.requires or ()]
    return list(found.values())


def _link_runtime_dependencies(venv: Path, site: Path) -> None:
    """`site`: links to the files of the runtime distributions only (their packages and
    `.dist-info`), put on the venv's path by a `.pth` file."""
    site.mkdir()
    for dist in _runtime_distributions():
        _link_distribution(dist, site)
    (_purelib(venv) / "qcomp-runtime-dependencies.pth").write_text(f"{site}\n")


def _link_distribution(dist, site: Path) -> None:
    """Links in `site` to the top-level files of `dist` (its packages, `.dist-info`)."""
    for top in sorted({f.parts[0] for f in dist.files or () if f.parts[0] != ".."}):
        target = Path(dist.locate_file(top))
        if target.exists() and not (site / top).exists():
            (site / top).symlink_to(target)


def _purelib(venv: Path) -> Path:
    return Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())


@pytest.mark.slow
def test_readme_first_command_in_fresh_venv(fresh_install):
    venv, src, r = fresh_install
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    # the installed tool prints exactly what the tool in this checkout prints
    install, _, tool_part = first_command().partition(" && ")
    assert install == "python3 -m pip install -e ."
    argv = shlex.split(tool_part)
    cwd = os.getcwd()
    try:
        os.chdir(src)
        here = run_in_process(*argv, text=True)
    finally:
        os.chdir(cwd)
    assert here.returncode == 0, here.stderr
    assert here.stdout.strip()
    assert r.stdout.endswith(here.stdout)
    # installed into the venv, not found through this checkout
    assert (venv / "bin" / argv[0]).exists()


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["qcomp-opt", "qcomp-run"])
def test_help_in_fresh_venv(fresh_install, tool):
    venv, src, _ = fresh_install
    r = _run([str(venv / "bin" / tool), "--help"], _env(venv), src)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.startswith(f"usage: {tool}")


@pytest.mark.slow
def test_every_module_imports_in_fresh_venv(fresh_install):
    venv, src, _ = fresh_install
    code = ("import importlib, pkgutil, qcomp\n"
            "names = [m.name for m in pkgutil.walk_packages(qcomp.__path__, 'qcomp.')]\n"
            f"names = [n for n in names if n not in {sorted(FAST_ONLY)!r}]\n"
            "for n in names: importlib.import_module(n)\n"
            "print(len(names), qcomp.__file__)\n")
    r = _run([str(venv / "bin" / "python"), "-c", code], _env(venv), root_of(venv))
    assert r.returncode == 0, r.stderr
    count, path = r.stdout.split()
    assert int(count) > 50
    assert Path(path).is_relative_to(src)  # the copy installed with -e, not this checkout


FAST_ONLY = {f"qcomp.quant.{m}" for m in ("jit_cache", "rowwise_jit", "rowwise_kernels",
                                           "rowwise_bag_kernels", "rowwise_rand_kernels",
                                           "rowwise_vec")}
"""The numba kernels: the `fast` extra's modules (not installed by a plain install)."""


@pytest.mark.slow
def test_rowwise_runs_without_numba_in_fresh_venv(fresh_install):
    """A plain install has no numba: the rowwise kernels run as NumPy code, with the
    bytes of the 3 x 8 table in tests/quant/test_rowwise.py (torch's)."""
    venv, src, _ = fresh_install
    code = ("import importlib.util, numpy as np\n"
            "from qcomp.quant import rowwise as rw, rowwise_bags as rb\n"
            "assert importlib.util.find_spec('numba') is None\n"
            "w = np.arange(24, dtype=np.float32).reshape(3, 8)\n"
            "q = rw.float_to_fused_8bit(w)\n"
            "s = rb.sparse_lengths(q, np.array([0, 2]), np.array([2]), 8)\n"
            "print(rw.kernel_backend(), q[0, :8].tolist(), rw.float_to_fused_nbit(w, 4)[0, :4].tolist())\n")
    r = _run([str(venv / "bin" / "python"), "-c", code], _env(venv), root_of(venv))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[0] == ("numpy [0, 36, 73, 109, 146, 182, 219, 255] "
                                       "[32, 100, 185, 253]")


def root_of(venv: Path) -> Path:
    return venv.parent


@pytest.mark.slow
def test_only_runtime_dependencies_in_fresh_venv(fresh_install):
    """The venv holds qcomp's runtime dependencies, not the test tools or the extras
    (numba is the `fast` extra's)."""
    venv, _, _ = fresh_install
    code = ("import importlib.util as u\n"
            "print([m for m in ('numpy', 'numba', 'xdsl', 'onnx', 'jax', 'torch', 'pytest',"
            " 'hypothesis', 'ai_edge_litert') if u.find_spec(m)])\n")
    r = _run([str(venv / "bin" / "python"), "-c", code], _env(venv), root_of(venv))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['numpy', 'xdsl']"
