"""The Python examples in examples/ run and print what they promise; plain xdsl-opt
runs qcomp's passes through the xdsl.universe entry point."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parent.parent


def _run_example(name: str) -> list[str]:
    r = subprocess.run([sys.executable, str(REPO / "examples" / name)], capture_output=True,
                       text=True, timeout=300, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return r.stdout.splitlines()


def test_embed_pass_example():
    lines = _run_example("embed_pass.py")
    split = lines.index("// after stablehlo-legalize-quant-to-math,cse:")
    built, lowered = lines[:split], lines[split + 1:]
    # the module built in Python, printed in MLIR's text
    assert ("    %2 = stablehlo.add %0, %1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>, "
            "tensor<4x!quant.uniform<i8:f32, 2.500000e-01:2>>) -> "
            "tensor<4x!quant.uniform<i8:f32, 7.500000e-01:1>>") in built
    assert ("    %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> "
            "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>") in built
    # lowered: no quant type left; quantize(x) is divide, add zp, clamp, round, convert
    assert not any("quant" in ln for ln in lowered if ln.startswith("    %"))
    body = "\n".join(lowered)
    lo = re.search(r"%(cst_\d+) = stablehlo.constant dense<-1.280000e\+02> : tensor<f32>", body)
    hi = re.search(r"%(cst_\d+) = stablehlo.constant dense<1.270000e\+02> : tensor<f32>", body)
    assert lo and hi
    clamps = re.findall(rf"= stablehlo.clamp %{lo[1]}, %\d+, %{hi[1]} : \(tensor<f32>, "
                        r"tensor<4xf32>, tensor<f32>\) -> tensor<4xf32>", body)
    assert len(clamps) == 3  # x, y and the sum: cse merged the repeated bounds
    assert body.count("stablehlo.round_nearest_even") == 3
    assert len(re.findall(r"stablehlo.convert %\d+ : \(tensor<4xf32>\) -> tensor<4xi8>", body)) == 3
    assert "stablehlo.constant dense<5.000000e-01> : tensor<f32>" in body
    assert "stablehlo.constant dense<-3> : tensor<i32>" in body
    # x = 100 saturates at 127: (127 + 3) * 0.5 + 2 = 67 -> q = 90, 66.75
    assert lines[-4:] == [
        "// quantized program: [1.5, -2.25, 2.25, 66.75]",
        "// lowered program:   [1.5, -2.25, 2.25, 66.75]",
        "// sum storage (i8):  [3, -2, 4, 90]",
        "// equal: True",
    ]


def test_xdsl_opt_runs_qcomp_pass(tmp_path, console_script):
    """xdsl-opt (xDSL's driver, not qcomp-opt) finds qcomp's pass by name."""
    f = tmp_path / "dq.mlir"
    f.write_text(
        "func.func @f(%arg0: tensor<2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.uniform_dequantize %arg0 : "
        "(tensor<2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2xf32>\n"
        "  func.return %0 : tensor<2xf32>\n}\n")
    exe = console_script("xdsl-opt")
    r = subprocess.run([exe, str(f), "-p", "stablehlo-legalize-quant-to-math"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert "  func.func @f(%arg0: tensor<2xi8>) -> tensor<2xf32> {" in out
    assert "    %1 = stablehlo.constant dense<-3> : tensor<i32>" in out
    assert "    %3 = stablehlo.subtract %0, %2 : tensor<2xi32>" in out
    assert "quant" not in r.stdout
