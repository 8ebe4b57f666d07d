"""`func.return` diagnostics against the MLIR in jaxlib: the same message at the same
line and column for operand-count and operand-type mismatches."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.lazy import installed, lazy_module

_jmlir = lazy_module("jax._src.interpreters.mlir")
_ir = lazy_module("jax._src.lib.mlir", "ir")


CASES = [
    "func.func @f(%a: tensor<2xf32>) -> tensor<4xf32> {\n  return %a : tensor<2xf32>\n}\n",
    "func.func @g(%a: i32) -> (i32, i32) {\n  return %a : i32\n}\n",
    "func.func @h(%a: i32, %b: f32) -> (i32, i32) {\n  return %a, %b : i32, f32\n}\n",
    "func.func @k() -> i8 {\n  return\n}\n",
]


def _upstream(src: str) -> str:
    ctx = _jmlir.make_ir_context()
    with ctx, _ir.Location.unknown():
        try:
            _ir.Module.parse(src)
        except _ir.MLIRError as e:
            first = e.error_diagnostics[0]
            m = re.search(r":(\d+):(\d+)", str(first.location))
            return f"{m.group(1)}:{m.group(2)}: {first.message}"
    return "no error"


def _ours(src: str) -> str:
    run = subprocess.run(["qcomp-opt", "-"], input=src, capture_output=True, text=True)
    if run.returncode == 0:
        return "no error"
    m = re.match(r"<stdin>:(\d+):(\d+): error: (.*)", run.stderr)
    assert m is not None, run.stderr
    return f"{m.group(1)}:{m.group(2)}: {m.group(3)}"


@pytest.mark.skipif(not installed("jax", "jaxlib"), reason="jaxlib not installed")
@pytest.mark.parametrize("src", CASES)
def test_return_diagnostics_match_upstream(src):
    assert _ours(src) == _upstream(src)
