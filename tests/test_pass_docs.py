"""docs/passes.md is generated from the passes' docstrings and must not go stale."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_pass_docs_are_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_pass_docs.py"), "--check"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_every_registered_pass_is_documented():
    from qcomp.registry import PASSES, PIPELINES

    text = (ROOT / "docs" / "passes.md").read_text()
    for name in PASSES:
        assert f"## `{name}`" in text
    for name in PIPELINES:
        assert f"## pipeline `{name}`" in text
