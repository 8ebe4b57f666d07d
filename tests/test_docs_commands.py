"""Every command and snippet the README and docs/ show runs as shown.

- A ```sh block holds commands run from the checkout's root, in order (a later command
  may read what an earlier one wrote). `qcomp-opt` / `qcomp-run` run in-process through
  their `main`, `xdsl-opt` as a subprocess (it reaches qcomp through the `xdsl.universe`
  entry point), `python3 tools/X.py ...` with `--help` (the tool exists and parses its
  arguments; what it measures has its own test). A `python3 -m pip install -e '.[x]'`
  step is not run: the extras it names must exist in pyproject.toml; nor is the test
  command (`python3 -m pytest`, which `.ci/run` is). A command must exit
  0, or the code its trailing comment names (`# exit 1`). Paths under `/tmp/` are taken
  to a fresh temporary directory.
- A ```python block of the README runs with the checkout as the working directory and
  must not raise (docs/'s are run by tests/test_api.py).
- ```text blocks are output or synopses and are not run (the README's first command's
  output is compared by tests/test_readme.py).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.sampling import rowwise_numpy_loops

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
EXIT = re.compile(r"#\s*exit\s+(\d+)\b")


def _blocks(page: Path) -> list[tuple[str, str]]:
    return re.findall(r"^```(sh|python)\n(.*?)^```", page.read_text(), re.S | re.M)


def _commands(block: str) -> list[tuple[str, int]]:
    """(command, expected exit code) per line; a trailing `# ...` comment is dropped."""
    out = []
    for line in block.splitlines():
        if not line.strip():
            continue
        code = int(m[1]) if (m := EXIT.search(line)) else 0
        command = re.split(r"\s+#", line, maxsplit=1)[0].strip()
        out.append((command, code))
    return out


def _extras() -> set[str]:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    return set(meta["project"]["optional-dependencies"])


def _run_tool(argv: list[str]) -> tuple[int, str]:
    if argv[0] in ("qcomp-opt", "qcomp-run"):
        if argv[0] == "qcomp-opt":
            from qcomp.tools.qcomp_opt import main
        else:
            from qcomp.tools.qcomp_run import main
        out, err = io.StringIO(), io.StringIO()
        code = main(argv[1:], io.StringIO(""), out, err)
        return code, out.getvalue() + err.getvalue()
    if argv[0] == "xdsl-opt":
        exe = Path(sys.executable).parent / "xdsl-opt"
        r = subprocess.run([str(exe), *argv[1:]], capture_output=True, text=True,
                           timeout=300, cwd=REPO)
        return r.returncode, r.stdout + r.stderr
    if argv[0] in ("python3", "python") and len(argv) > 1 and argv[1].startswith("tools/"):
        r = subprocess.run([sys.executable, argv[1], "--help"], capture_output=True,
                           text=True, timeout=300, cwd=REPO)
        return r.returncode, r.stdout + r.stderr
    raise AssertionError(f"the docs run a command this test does not know: {argv[0]}")


def _needs(text: str) -> None:
    """Skip a block whose input format's optional dependency is missing."""
    if ".onnx" in text:
        pytest.importorskip("onnx")
        pytest.importorskip("onnxruntime")
    if ".tflite" in text:
        pytest.importorskip("ai_edge_litert")
    if "xla" in text:
        pytest.importorskip("jax")


CASES = [pytest.param(page, i, kind, text, id=f"{page.relative_to(REPO)}#{i}")
         for page in PAGES for i, (kind, text) in enumerate(_blocks(page))]


@pytest.mark.parametrize(("page", "index", "kind", "text"), CASES)
def test_docs_block_runs(page: Path, index: int, kind: str, text: str, tmp_path, monkeypatch):
    _needs(text)
    monkeypatch.chdir(REPO)
    if kind == "python":
        if page.name != "README.md":
            pytest.skip("tests/test_api.py runs the docs' Python snippets")
        text = text.replace("/tmp/", f"{tmp_path}/")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(text, f"{page.name} block {index}", "exec"), {"__name__": "__docs__"})
        return
    # an earlier block of the same page that writes (`-o`) a file this block reads
    # runs first
    reads = set(re.findall(r"(?<!-o )(/tmp/\S+)", text))
    for earlier_kind, earlier in _blocks(page)[:index]:
        if earlier_kind == "sh" and reads & set(re.findall(r"-o (/tmp/\S+)", earlier)):
            _run_sh(earlier, tmp_path, check=False)
    _run_sh(text, tmp_path, check=True)


def _run_sh(text: str, tmp_path: Path, check: bool) -> None:
    # the rowwise examples on their NumPy loops in CI, as the lit suite runs them
    # (`tests.sampling.rowwise_numpy_loops`: a fresh checkout's first numba compile of
    # the kernels is ~30 s of CPU; tests/quant/test_rowwise.py holds the two alike)
    with rowwise_numpy_loops():
        _run_commands(text, tmp_path, check)


def _run_commands(text: str, tmp_path: Path, check: bool) -> None:
    for command, want in _commands(text):
        for part in command.split(" && "):
            argv = shlex.split(part.replace("/tmp/", f"{tmp_path}/"))
            if argv[:4] == ["python3", "-m", "pip", "install"]:
                named = set(re.findall(r"\[([\w,]+)\]", part))
                for group in named:
                    assert set(group.split(",")) <= _extras(), part
                continue
            if argv[:3] == ["python3", "-m", "pytest"]:
                continue  # the suite itself: .ci/run runs it (tests/test_readme.py)
            code, output = _run_tool(argv)
            if check:
                assert code == want, f"{part}\nexit {code}, expected {want}\n{output}"


def test_every_page_runs_something_or_says_why():
    """The tour's pages show commands in ```sh, never in a bare ``` block."""
    bare = []
    for page in PAGES:
        for block in re.findall(r"^```\n(.*?)^```", page.read_text(), re.S | re.M):
            first = block.strip().splitlines()[0] if block.strip() else ""
            if re.match(r"(qcomp-opt|qcomp-run|python3? |xdsl-opt) ", first):
                bare.append(f"{page.name}: {first}")
    assert not bare, "commands in bare ``` blocks (use ```sh, or ```text for a synopsis):\n" \
        + "\n".join(bare)

