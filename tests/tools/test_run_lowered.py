"""qcomp-run --compare-lowered and --print-lowered: the quantized program and the one
stablehlo-lower-quant makes of it (rescale matching --semantics), run side by side."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np

from qcomp.tools import run_lowered
from qcomp.tools.qcomp_run import main
from qcomp.tools.run_lowered import first_difference

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = str(REPO / "examples" / "quantized_add.mlir")
INPUTS = ("--input=4xf32=1,2.5,-3,0.2", "--input=4xf32=0.5,-1,7.25,2")
# spec: dequantize, add in f32 (1.5, 1.5, 4.25, 2.2), quantize to scale 0.75 (zp 1)
SUM = "4xf32=[1.5 1.5 4.5 2.25]"


def cli(*argv: str):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_compare_lowered_agrees_on_the_example():
    for sem in ("spec", "stablehlo"):
        assert cli(EXAMPLE, "--compare-lowered", "--semantics", sem, *INPUTS) == (0, (
            f"@main result[0] quantized: {SUM}\n"
            f"@main result[0] lowered:   {SUM}\n"
            "@main: quantized and lowered results agree bit for bit\n"), "")


def _split_printed(out: str) -> tuple[str, str, list[str]]:
    """(header comment, printed module, the lines after it)."""
    lines = out.splitlines()
    end = lines.index("}")
    return lines[0], "\n".join(lines[1:end + 1]), lines[end + 1:]


def test_print_lowered_spec_is_the_program_compared():
    code, out, err = cli(EXAMPLE, "--compare-lowered", "--print-lowered", *INPUTS)
    assert (code, err) == (0, "")
    header, module, rest = _split_printed(out)
    assert header == ("// qcomp-run: the program lowered by stablehlo-lower-quant{rescale=float}; "
                      "--compare-lowered runs it beside the quantized program")
    assert "  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {" in module
    assert "quant" not in module
    # the spec's add: both operands dequantized (q - zp) * s, added in f32, quantized once
    assert module.count("stablehlo.round_nearest_even") == 3
    assert len(re.findall(r"stablehlo.convert %\d+ : \(tensor<4xf32>\) -> tensor<4xi8>", module)) == 3
    assert rest == [f"@main result[0] quantized: {SUM}", f"@main result[0] lowered:   {SUM}",
                    "@main: quantized and lowered results agree bit for bit"]


def test_print_lowered_stablehlo_is_upstreams_integer_program():
    code, out, err = cli(EXAMPLE, "--print-lowered", "--semantics", "stablehlo", *INPUTS)
    assert (code, err) == (0, "")
    header, module, rest = _split_printed(out)
    assert header == ("// qcomp-run: the program lowered by stablehlo-lower-quant{rescale=stablehlo}, "
                      "which upstream's reference interpreter runs; qcomp-run runs the quantized "
                      "program, with the same results (--compare-lowered runs both)")
    # upstream's add: each operand requantized to the result scale (0.5/0.75, 0.25/0.75),
    # summed in i32, minus the zero point, clamped
    assert "stablehlo.constant dense<0.666666686> : tensor<f32>" in module
    assert "stablehlo.constant dense<0.333333343> : tensor<f32>" in module
    assert "stablehlo.add %20, %26 : tensor<4xi32>" in module
    assert "quant" not in module
    assert rest == [f"@main result[0]: {SUM}"]


def test_print_lowered_without_compare_spec():
    code, out, _ = cli(EXAMPLE, "--print-lowered", *INPUTS)
    header, _, rest = _split_printed(out)
    assert code == 0
    assert header == ("// qcomp-run: the program lowered by stablehlo-lower-quant{rescale=float} "
                      "(the spec's formulas); qcomp-run runs the quantized program "
                      "(--compare-lowered runs both)")
    assert rest == [f"@main result[0]: {SUM}"]


REQUANTIZE = """func.func @main(%a: tensor<8x!quant.uniform<i8:f32, 0.5>>) -> tensor<8x!quant.uniform<i8:f32, 1.0>> {
  %r = stablehlo.uniform_quantize %a : (tensor<8x!quant.uniform<i8:f32, 0.5>>) -> tensor<8x!quant.uniform<i8:f32, 1.0>>
  func.return %r : tensor<8x!quant.uniform<i8:f32, 1.0>>
}
"""


def test_disagreement_exits_1(tmp_path, monkeypatch):
    """A lowering that is not exact (fixed-point rounds ties up, the spec to even) is
    caught: both results printed, the first difference named, exit code 1."""
    f = write(tmp_path, "rq.mlir", REQUANTIZE)
    storage = "--input=8xi8=1,2,3,4,5,-1,-3,127"
    assert cli(f, "--compare-lowered", storage)[0] == 0
    monkeypatch.setitem(run_lowered.RESCALE, "spec", "fixed-point")
    assert cli(f, "--compare-lowered", storage) == (1, (
        "@main result[0] quantized: 8x!quant.uniform<i8:f32, 1.000000e+00>=[0 1 2 2 2 0 -2 64]\n"
        "@main result[0] lowered:   8xi8=[1 1 2 2 3 0 -1 64]\n"
        "@main: quantized and lowered results differ: result[0] at [0]: quantized 0, "
        "lowered 1 (3 of 8 element(s) differ)\n"), "")


def test_lowering_failure_is_a_diagnostic(tmp_path):
    f = write(tmp_path, "f16.mlir", """func.func @main(%a: tensor<2xf16>) -> tensor<2x!quant.uniform<i8:f16, 0.5>> {
  %r = stablehlo.uniform_quantize %a : (tensor<2xf16>) -> tensor<2x!quant.uniform<i8:f16, 0.5>>
  func.return %r : tensor<2x!quant.uniform<i8:f16, 0.5>>
}
""")
    code, out, err = cli(f, "--compare-lowered", "--semantics", "stablehlo", "--input=2xf16=1,2.5")
    assert code == 1
    assert out == "@main result[0]: 2x!quant.uniform<i8:f16, 5.000000e-01>=[2 5]\n"
    assert err.splitlines()[0] == (
        f"{f}:2:8: error: Unsupported input element type. (lowering with "
        "stablehlo-lower-quant{rescale=stablehlo}, pass 'stablehlo-legalize-quant-to-math')")
    assert "Traceback" not in err


def test_compare_on_a_check_program_counts_both_programs(tmp_path):
    f = write(tmp_path, "c.mlir", """func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.6]> : tensor<2xf32>
  %q = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  %d = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2xf32>
  check.expect_eq_const %d, dense<[1.0, 2.5]> : tensor<2xf32>
  func.return
}
""")
    assert cli(f) == (0, "1 passed, 0 failed\n", "")
    assert cli(f, "--compare-lowered") == (0, "@main: no results to compare\n2 passed, 0 failed\n", "")


def test_first_difference_is_bit_for_bit():
    f = np.array([0.0, np.nan], np.float32)
    assert first_difference([f], [f.copy()]) is None
    assert first_difference([f], [np.array([-0.0, np.nan], np.float32)]) == (
        "result[0] at [0]: quantized 0, lowered -0 (1 of 2 element(s) differ)")
    assert first_difference([np.array([3], np.int8)], [np.array([3], np.int32)]) is None
    assert first_difference([np.array([1.0], np.float32)], [np.array([1.0])]) == (
        "result[0] has dtype float32 quantized, float64 lowered")
    assert first_difference([np.zeros(2)], [np.zeros(3)]) == (
        "result[0] has shape (2,) quantized, (3,) lowered")
