"""qcomp-run's `--input` (iree-run-module's spelling) and its `SHAPExTYPE=[...]` results."""

from __future__ import annotations

import io
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type, Float32Type, IntegerType, TensorType, i1

from qcomp.registry import parse_module
from qcomp.tools.qcomp_run import main
from qcomp.tools.run_inputs import format_value, parse_value, read_inputs

MAIN = """func.func @main(%a: tensor<3xf32>, %b: tensor<3xi8>) -> (tensor<3x!quant.uniform<i8:f32, 0.5:-1>>, tensor<3xi8>) {
  %q = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5:-1>>
  %d = stablehlo.multiply %b, %b : tensor<3xi8>
  func.return %q, %d : tensor<3x!quant.uniform<i8:f32, 0.5:-1>>, tensor<3xi8>
}
"""
MAIN_OUT = ("@main result[0]: 3x!quant.uniform<i8:f32, 5.000000e-01:-1>=[1 4 -128]\n"
            "@main result[1]: 3xi8=[9 -112 0]\n")

MATRIX = """func.func @main(%m: tensor<2x2xf32>, %s: tensor<f32>) -> tensor<2x2xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
  %r = stablehlo.add %m, %b : tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}
"""

QARG = """func.func @main(%q: tensor<2x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<2xf32> {
  %r = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""


def cli(*argv: str):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_values_on_the_command_line(tmp_path):
    f = write(tmp_path, "m.mlir", MAIN)
    assert cli(f, "--input=3xf32=1,2.25,-100", "--input=3xi8=3,12,-128") == (0, MAIN_OUT, "")
    # spaces instead of commas, as one argv word each
    assert cli(f, "--input", "3xf32=1 2.25 -100", "--input", "3xi8=3 12 -128") == (0, MAIN_OUT, "")


def test_npy_and_npz_files(tmp_path):
    f = write(tmp_path, "m.mlir", MAIN)
    a, b = np.array([1.0, 2.25, -100], np.float32), np.array([3, 12, -128], np.int8)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    np.save(tmp_path / "b64.npy", b.astype(np.int64))  # in-range integers convert
    np.savez(tmp_path / "in.npz", arg1=b, arg0=a)  # stored out of order: read by number
    at = f"--input=@{tmp_path}/"
    assert cli(f, at + "a.npy", at + "b.npy") == (0, MAIN_OUT, "")
    assert cli(f, at + "a.npy", at + "b64.npy") == (0, MAIN_OUT, "")
    assert cli(f, at + "in.npz") == (0, MAIN_OUT, "")
    assert cli(f, "--input=3xf32=1,2.25,-100", at + "b.npy") == (0, MAIN_OUT, "")


def test_shapes_scalars_brackets_and_splats(tmp_path):
    f = write(tmp_path, "m.mlir", MATRIX)
    want = (0, "@main result[0]: 2x2xf32=[[1.5 2.5][3.5 4.5]]\n", "")
    assert cli(f, "--input=2x2xf32=1,2,3,4", "--input=f32=0.5") == want
    assert cli(f, "--input=2x2xf32=[1 2][3 4]", "--input=f32=0.5") == want
    assert cli(f, "--input=2x2xf32=[[1 2][3 4]]", "--input=f32=0.5") == want
    assert cli(f, "--input=2x2xf32=7", "--input=f32=-7") == (
        0, "@main result[0]: 2x2xf32=[[0 0][0 0]]\n", "")


def test_printed_result_reads_back_as_input(tmp_path):
    f = write(tmp_path, "m.mlir", MATRIX)
    code, out, _ = cli(f, "--input=2x2xf32=0.1,1e-8,-0.0,3e38", "--input=f32=-0")
    assert (code, out) == (0, "@main result[0]: 2x2xf32=[[0.1 1e-08][-0 3e+38]]\n")
    value = out.split(": ", 1)[1].strip()
    assert cli(f, f"--input={value}", "--input=f32=-0")[1] == out


def test_quantized_argument_takes_storage_integers(tmp_path):
    f = write(tmp_path, "q.mlir", QARG)
    want = (0, "@main result[0]: 2xf32=[3 -63.5]\n", "")
    assert cli(f, "--input=2xi8=5,-128") == want
    assert cli(f, "--input=2x!quant.uniform<i8:f32, 0.5:-1>=5,-128") == want
    np.save(Path(f).parent / "s.npy", np.array([5, -128], np.int8))
    assert cli(f, f"--input=@{Path(f).parent}/s.npy") == want


@pytest.mark.parametrize("argv, message", [
    (["--input=3xf32=1,2,3"],
     "@main takes 2 argument(s) (3xf32, 3xi8), got 1 from --input (one per argument, in order)"),
    (["--input=3xf32=1,2,3", "--input=3xi8=1,2,3", "--input=3xi8=1,2,3"],
     "@main takes 2 argument(s) (3xf32, 3xi8), got 3 from --input (one per argument, in order)"),
    (["--input=3xf32=1,2,3", "--input=4xi8=1,2,3,4"],
     "@main argument 1 (%b): expected 3xi8, got 4xi8 from --input=4xi8=1,2,3,4"),
    (["--input=3xf64=1,2,3", "--input=3xi8=1,2,3"],
     "@main argument 0 (%a): expected 3xf32, got 3xf64 from --input=3xf64=1,2,3"),
    (["--input=3xf32=1,2", "--input=3xi8=1,2,3"],
     "--input=3xf32=1,2 (argument 0): 3xf32 needs 3 value(s), got 2"),
    (["--input=3xf32=1,2,3", "--input=3xi8=1,2,300"],
     "--input=3xi8=1,2,300 (argument 1): 300 is out of range for i8 [-128, 127]"),
    (["--input=3xf32=1,x,3", "--input=3xi8=1,2,3"],
     "--input=3xf32=1,x,3 (argument 0): 'x' is not a number"),
    (["--input=3xf32=1,2,3", "--input=3xi8=1,2.5,3"],
     "--input=3xi8=1,2.5,3 (argument 1): '2.5' is not an integer"),
    (["--input=3xf23=1,2,3"],
     "--input=3xf23=1,2,3 (argument 0): 'f23' is not an element type (e.g. f32, i8, bf16)"),
    (["--input=3xf32"],
     "--input=3xf32 (argument 0): expected SHAPExTYPE=VALUES (e.g. 2x2xf32=1,2,3,4), "
     "@file.npy or @file.npz"),
    (["--input=@missing.npy"], "--input=@missing.npy: cannot read: No such file or directory"),
])
def test_input_errors_are_one_line(tmp_path, argv, message):
    f = write(tmp_path, "m.mlir", MAIN)
    code, out, err = cli(f, *argv)
    assert (code, out, err) == (1, "", f"qcomp-run: error: {message}\n")


def test_file_input_errors_name_the_argument(tmp_path):
    f = write(tmp_path, "m.mlir", MAIN)
    np.save(tmp_path / "a64.npy", np.array([1.0, 2.0, 3.0]))  # float64, argument is f32
    np.save(tmp_path / "big.npy", np.array([1, 2, 300]))
    np.save(tmp_path / "a.npy", np.zeros(3, np.float32))
    code, _, err = cli(f, f"--input=@{tmp_path}/a64.npy", "--input=3xi8=1,2,3")
    assert (code, err) == (1, f"qcomp-run: error: @main argument 0 (%a): expected 3xf32, got "
                              f"3xf64 from --input=@{tmp_path}/a64.npy\n")
    code, _, err = cli(f, f"--input=@{tmp_path}/a.npy", f"--input=@{tmp_path}/big.npy")
    assert (code, err) == (1, f"qcomp-run: error: @main argument 1 (%b): --input=@{tmp_path}/"
                              "big.npy has values outside [-128, 127] of i8\n")
    code, _, err = cli(f, "--input=3xf32=1,2,3", "--inputs", str(tmp_path / "x.npz"))
    assert (code, err) == (2, "qcomp-run: error: give the arguments with one of --input, "
                              "--inputs, --args\n")


def test_format_value():
    f32, i8 = Float32Type(), IntegerType(8)
    assert format_value(np.array([[1, 2], [3, 4]], np.float32), TensorType(f32, [2, 2])) == \
        "2x2xf32=[[1 2][3 4]]"
    assert format_value(np.float32(1.5), TensorType(f32, [])) == "f32=1.5"
    assert format_value(np.array([np.nan, np.inf, -np.inf, -0.0], np.float32),
                        TensorType(f32, [4])) == "4xf32=[nan inf -inf -0]"
    assert format_value(np.array([True, False]), TensorType(i1, [2])) == "2xi1=[1 0]"
    assert format_value(np.array([1.5, 0.1], ml_dtypes.bfloat16),
                        TensorType(BFloat16Type(), [2])) == "2xbf16=[1.5 0.1]"
    # shortest text that reads back as the same bf16: 0.1 is 0.10009765625 in bf16
    assert format_value(np.array([0.10009765625, 3.0e38, 1.015625], ml_dtypes.bfloat16),
                        TensorType(BFloat16Type(), [3])) == "3xbf16=[0.1 3e+38 1.016]"
    assert format_value(np.zeros((2, 0), np.int8), TensorType(i8, [2, 0])) == "2x0xi8=[[][]]"
    assert format_value(np.arange(6, dtype=np.int8).reshape(2, 3), TensorType(i8, [2, 3]),
                        limit=4) == "2x3xi8=[[0 1 2][3 ...]]"
    assert format_value(np.arange(5, dtype=np.int8), TensorType(i8, [5]), limit=5) == \
        "5xi8=[0 1 2 3 4]"


def test_parse_value_types_and_rounding():
    g = parse_value("3xbf16=1.00390625,0.1,-2")  # 1 + 2^-8: a tie, rounds to even (1)
    assert g.array.dtype == np.dtype(ml_dtypes.bfloat16)
    assert g.array.astype(np.float32).tolist() == [1.0, 0.10009765625, -2.0]
    assert parse_value("2xi1=true,0").array.tolist() == [True, False]
    assert parse_value("2xui8=255,0x10").array.tolist() == [255, 16]
    assert parse_value("2xui8=255,0x10").array.dtype == np.uint8
    q = parse_value("2x!quant.uniform<i8<-127:127>:f32, 0.5>=-127,127")
    assert q.array.dtype == np.int8 and q.array.tolist() == [-127, 127]
    with pytest.raises(Exception, match=r"-128 is out of range for .* \[-127, 127\]"):
        parse_value("1x!quant.uniform<i8<-127:127>:f32, 0.5>=-128")


def test_npz_order_and_names(tmp_path):
    np.savez(tmp_path / "n.npz", y=np.ones(1, np.int8), x=np.zeros(1, np.int8))
    values = read_inputs([f"@{tmp_path}/n.npz", "1xi8=2"])
    assert [g.source for g in values] == [f"--input=@{tmp_path}/n.npz ('y')",
                                          f"--input=@{tmp_path}/n.npz ('x')", "--input=1xi8=2"]
    assert [g.array.tolist() for g in values] == [[1], [0], [2]]


def test_help_documents_the_formats():
    code, out, err = cli("--help")
    assert (code, err) == (0, "")
    assert out.startswith("usage: qcomp-run")
    assert "--input=2x2xf32=1,2,3,4" in out and "@main result[0]: 2x2xf32=[[1 2][3 4]]" in out
    assert "--compare-lowered" in out and "--print-lowered" in out


def test_module_parses():  # the programs above are valid
    for text in (MAIN, MATRIX, QARG):
        parse_module(text)
