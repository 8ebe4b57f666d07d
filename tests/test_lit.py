"""The lit suite (tests/lit/**.mlir) from pytest: lit runs once (`-j2`), and each
lit file is one pytest test that fails with that file's lit output."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).parent / "lit"
FILES = sorted(
    p.relative_to(LIT_DIR).as_posix()
    for p in LIT_DIR.rglob("*.mlir")
    if not {"Inputs", "Output"} & set(p.relative_to(LIT_DIR).parts)
)


def _lit_command() -> list[str]:
    exe = shutil.which("lit", path=os.path.dirname(sys.executable) + os.pathsep
                       + os.environ.get("PATH", ""))
    if exe is not None:
        return [exe]
    return [sys.executable, "-c", "import sys, lit.main; sys.argv[0] = 'lit'; lit.main.main()"]


@pytest.fixture(scope="session")
def lit_results(tmp_path_factory) -> dict[str, str | None]:
    """lit file (relative path) -> None when it passed, else lit's output for it."""
    pytest.importorskip("lit")
    if shutil.which("filecheck", path=os.path.dirname(sys.executable) + os.pathsep
                    + os.environ.get("PATH", "")) is None:
        pytest.skip("the Python `filecheck` is not installed (pip install -e '.[test]')")
    xml = tmp_path_factory.mktemp("lit") / "results.xml"
    proc = subprocess.run(
        [*_lit_command(), "-j2", "-q", f"--xunit-xml-output={xml}", str(LIT_DIR)],
        capture_output=True, text=True, timeout=1800)
    if not xml.exists():
        pytest.fail(f"lit did not run (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    results: dict[str, str | None] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        failure = case.find("failure")
        key = f"{case.get('classname')}::{case.get('name')}"
        results[key] = None if failure is None else (failure.text or "failed")
    return results


def _xunit_key(lit_file: str) -> str:
    """How lit's xunit report names a file: suite.dir (dots as `_`) and the file name."""
    directory, _, name = lit_file.rpartition("/")
    return f"qcomp.{directory.replace('.', '_') or 'qcomp'}::{name}"


@pytest.mark.parametrize("lit_file", FILES)
def test_lit(lit_file: str, lit_results: dict[str, str | None]):
    key = _xunit_key(lit_file)
    assert key in lit_results, f"lit did not run {lit_file}"
    output = lit_results[key]
    if output is not None:
        pytest.fail(f"lit test {lit_file} failed:\n{output}", pytrace=False)
