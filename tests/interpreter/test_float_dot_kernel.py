"""The block programs' float32 `dot_general` kernel under `--semantics spec`
(`structured_kernels.float_dot_kernel`): the same float64 sums rounded once to float32
as the interpreter function. Oracle: integer operands scaled by powers of two whose
sums are exact in int64 and in float64 (any summation order), some beyond 2^24 and
odd, rounded once to float32 (a float32 accumulation would round them earlier)."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.dialects import stablehlo as sh
from tests.interpreter.test_straight_line import kernel_ops, run_twice


def _operand(shape, seed: int, top: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ints = rng.integers(-top, top, shape, endpoint=True)
    ints.reshape(-1)[:3] = (top, -top, top - 1 if top % 2 == 0 else top)
    return ints, ints.astype(np.float32)


CASES = [
    # (lhs shape, rhs shape, dimension numbers, einsum of the same contraction)
    ((5, 33), (33, 4), "contracting_dims = [1] x [0]", "mk,kn->mn"),
    ((2, 3, 6, 9), (2, 3, 7, 9), "batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3]",
     "bhqd,bhkd->bhqk"),
    ((2, 3, 6, 7), (2, 3, 7, 9), "batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2]",
     "bhqk,bhkd->bhqd"),
    ((4, 2, 5), (5, 3, 4), "batching_dims = [0] x [2], contracting_dims = [2] x [0]", "bmk,knb->bmn"),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_float32_dot_kernel_rounds_the_float64_sum_once(case):
    ls, rs, dims, spec = CASES[case]
    li, lf = _operand(ls, case, 4095)
    ri, rf = _operand(rs, 10 + case, 4095)  # products up to 2^24: sums beyond float32's
    rf = rf * np.float32(2.0 ** -7)
    exact = np.einsum(spec, li, ri)  # int64, exact
    out_shape = exact.shape
    T = lambda s: "tensor<" + "x".join(map(str, s)) + "xf32>"  # noqa: E731
    text = (f"func.func @main(%a: {T(ls)}, %b: {T(rs)}) -> {T(out_shape)} {{\n"
            f"  %r = stablehlo.dot_general %a, %b, {dims} : ({T(ls)}, {T(rs)}) -> {T(out_shape)}\n"
            f"  func.return %r : {T(out_shape)}\n}}\n")
    (first,), (second,), programs = run_twice(text, [lf, rf])
    assert sh.DotGeneralOp in kernel_ops(programs)
    expect = (exact.astype(np.float64) * 2.0 ** -7).astype(np.float32)
    assert np.any(np.abs(exact) > 1 << 24)
    assert second.tobytes() == expect.tobytes()
    assert first.tobytes() == second.tobytes()
    f32_sums = np.einsum(spec, lf, rf)  # summed in float32: differs, so the case can fail
    assert f32_sums.tobytes() != expect.tobytes() or case == 0


@pytest.mark.parametrize("element", ["f64", "f16", "i32"])
def test_other_element_types_run_the_interpreter_function(element):
    t = f"tensor<3x4x{element}>"
    text = (f"func.func @main(%a: {t}, %b: tensor<4x2x{element}>) -> tensor<3x2x{element}> {{\n"
            f"  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            f"({t}, tensor<4x2x{element}>) -> tensor<3x2x{element}>\n"
            f"  func.return %r : tensor<3x2x{element}>\n}}\n")
    dt = {"f64": np.float64, "f16": np.float16, "i32": np.int32}[element]
    a, b = np.arange(12).reshape(3, 4).astype(dt), np.arange(8).reshape(4, 2).astype(dt)
    (first,), (second,), programs = run_twice(text, [a, b])
    assert sh.DotGeneralOp not in kernel_ops(programs)
    assert second.astype(np.int64).tolist() == (np.arange(12).reshape(3, 4) @ np.arange(8).reshape(4, 2)).tolist()
