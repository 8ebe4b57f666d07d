"""ruff and pyright pass on qcomp/ with the configuration in pyproject.toml ([tool.ruff]:
xDSL's rule set; [tool.pyright]: basic mode, the relaxations it documents). Each is
skipped only when it is not installed (both are in the `test` extra)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return path


def test_ruff_finds_nothing():
    proc = subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_pyright_finds_no_error():
    # --project: this checkout's [tool.pyright], whatever config lies above it
    proc = subprocess.run([_tool("pyright"), "--outputjson", "--project", str(ROOT),
                           "--pythonpath", sys.executable],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    report = json.loads(proc.stdout)
    errors = [f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}"
              for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert not errors, "\n".join(errors)
    assert report["summary"]["filesAnalyzed"] > 150  # qcomp/ itself was checked
