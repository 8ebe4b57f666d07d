"""The `keyword = value` ops' declarative formats (`stablehlo/assembly.py`'s directives)
print as upstream's custom formats do, pretty and generic input alike (the text below
is what qcomp printed with its hand-written parsers before, checked against mlir-opt by
tests/ir), and their parse errors are MLIR's one-line messages."""

from __future__ import annotations

import pytest

from qcomp.ir import print_module
from qcomp.registry import parse_module

ARGS = ("%arg0: tensor<2x3xf32>, %arg1: tensor<3x3xf32>, %arg2: tensor<4xf32>, "
        "%arg3: tensor<f32>, %arg4: tensor<2xi64>, %arg5: tensor<2xui64>, %arg6: tensor<i64>, "
        "%arg7: tensor<?x4xf32>, %arg8: tensor<1xi32>")
PRINTED = [
    "stablehlo.reverse %arg0, dims = [1, 0] : tensor<2x3xf32>",
    "stablehlo.cholesky %arg1, lower = true : tensor<3x3xf32>",
    "stablehlo.cholesky %arg1 : tensor<3x3xf32>",
    "stablehlo.fft %arg2, type = RFFT, length = [4] {x = 1 : i32} : (tensor<4xf32>) -> "
    "tensor<3xcomplex<f32>>",
    "stablehlo.rng %arg3, %arg3, %arg4, distribution = NORMAL : (tensor<f32>, tensor<f32>, "
    "tensor<2xi64>) -> tensor<2x3xf32>",
    "stablehlo.rng_bit_generator %arg5, algorithm = PHILOX : (tensor<2xui64>) -> "
    "(tensor<2xui64>, tensor<2x3xui32>)",
    "stablehlo.replica_id : tensor<ui32>",
    "stablehlo.partition_id {a = 1 : i32} : tensor<ui32>",
    "stablehlo.dynamic_slice %arg6, sizes = [] : (tensor<i64>) -> tensor<i64>",
    "stablehlo.dynamic_slice %arg0, %arg6, %arg6, sizes = [1, 2] : (tensor<2x3xf32>, "
    "tensor<i64>, tensor<i64>) -> tensor<1x2xf32>",
    "stablehlo.dynamic_broadcast_in_dim %arg7, %arg4, dims = [0, 1] "
    "{known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = "
    "array<i64: 1>} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>",
    "stablehlo.dynamic_iota %arg8, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>",
    "stablehlo.get_dimension_size %arg7, dim = 1 : (tensor<?x4xf32>) -> tensor<i32>",
]
WRITTEN = {
    # input spellings that print as PRINTED says
    2: "stablehlo.cholesky %arg1, lower = false : tensor<3x3xf32>",
    3: '"stablehlo.fft"(%arg2) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type '
       'RFFT>}> {x = 1 : i32} : (tensor<4xf32>) -> tensor<3xcomplex<f32>>',
    10: "stablehlo.dynamic_broadcast_in_dim %arg7, %arg4, dims = [0, 1] "
        "{known_nonexpanding_dimensions = array<i64: 1>, known_expanding_dimensions = "
        "array<i64: 0>} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>",
}


def _module(lines: list[str]) -> str:
    """The module as qcomp-opt prints it (rng_bit_generator's results have names)."""
    body, n = "", 0
    for line in lines:
        if "rng_bit_generator" in line:
            body += f"    %output_state, %output = {line}\n"
        else:
            body += f"    %{n} = {line}\n"
            n += 1
    return f"module {{\n  func.func @f({ARGS}) {{\n{body}    return\n  }}\n}}\n"


def test_printed_byte_for_byte():
    text = _module(PRINTED)
    assert print_module(parse_module(text)) == text


def test_other_spellings_print_alike():
    written = [WRITTEN.get(i, line) for i, line in enumerate(PRINTED)]
    assert print_module(parse_module(_module(written))) == print_module(
        parse_module(_module(PRINTED)))


@pytest.mark.parametrize("line, message", [
    ("stablehlo.fft %arg2, type = XFFT, length = [4] : (tensor<4xf32>) -> "
     "tensor<3xcomplex<f32>>",
     "custom op 'stablehlo.fft' expected ::mlir::stablehlo::FftType to be one of: FFT, IFFT, "
     "RFFT, IRFFT"),
    ("stablehlo.cholesky %arg1, lower = maybe : tensor<3x3xf32>",
     "custom op 'stablehlo.cholesky' expected 'true' or 'false'"),
])
def test_parse_errors(line, message):
    with pytest.raises(Exception) as e:  # noqa: PT011 - xDSL's ParseError
        parse_module(_module([line]))
    assert message in str(e.value)
