"""Extreme scales compute quietly in IEEE arithmetic (qcomp/quant/ieee.py): no NumPy
RuntimeWarning reaches the user, and the results are the IEEE ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

from qcomp.quant import stablehlo as up
from qcomp.quant import uniform
from qcomp.quant.accumulator import rescale_accumulator

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 1.5e-45>>
  %r = stablehlo.uniform_quantize %q : (tensor<3x!quant.uniform<i8:f32, 1.5e-45>>) -> tensor<3x!quant.uniform<i8:f32, 3.0e38>>
  %a = stablehlo.add %r, %r : tensor<3x!quant.uniform<i8:f32, 3.0e38>>
  %e = stablehlo.uniform_dequantize %a : (tensor<3x!quant.uniform<i8:f32, 3.0e38>>) -> tensor<3xf32>
  return %e : tensor<3xf32>
}
"""


def test_formulas_raise_no_warnings_and_saturate():
    x = np.array([1e30, -1e30, np.inf, np.nan], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning fails the test
        q = uniform.quantize(x, np.float32(1.5e-45), 0, -128, 127, "f32")
        u = up.quantize(x, np.float32(1.5e-45), 0, -128, 127, 8)
        d = uniform.dequantize(np.array([127], np.int8), np.float32(3e38), -128, "f32")
        r = rescale_accumulator(np.array([2**40]), 3e38, 3e38, 1e-300, 0, -128, 127)
    assert q.tolist() == [127, -128, 127, 0] and u.tolist() == [127, -128, 127, 0]
    assert np.isinf(d).all() and r.tolist() == [127]


TOOLS_DRIVER = """
import contextlib, io, json, sys
from qcomp.tools import qcomp_opt, qcomp_run
results = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = {"qcomp-run": qcomp_run, "qcomp-opt": qcomp_opt}[argv[0]].main(argv[1:])
    results.append([argv, code, err.getvalue()])
print(json.dumps(results))
"""
"""The tools' runs in one fresh interpreter (each warning is shown under
PYTHONWARNINGS=always, again in a later run too; an import's warning reaches the
process's own stderr)."""


def test_tools_print_no_warnings(tmp_path):
    f = tmp_path / "x.mlir"
    f.write_text(PROGRAM)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "always"}
    runs = [["qcomp-run", str(f), "--input=3xf32=1e30,-1,0"]] + [
        ["qcomp-opt", str(f), "-p", f"stablehlo-legalize-quant-to-math{{rescale={m}}}",
         "--verify-numerics", "-o", str(tmp_path / "out.mlir")]
        for m in ("float", "fixed-point", "stablehlo")]
    r = subprocess.run([sys.executable, "-c", TOOLS_DRIVER, json.dumps(runs)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    results = json.loads(r.stdout)
    assert [argv for argv, _, _ in results] == runs
    for argv, code, err in results:
        assert code == 0 and err == "", (argv, err)
