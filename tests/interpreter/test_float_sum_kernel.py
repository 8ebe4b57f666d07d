"""The block programs' float32 add-reduce kernel under `--semantics spec`
(`straight_line._float_sum_kernel`): the float64 sum rounded once to float32, then the
init added in float32, as the interpreter function. Oracle: values k * 2^-20 whose sums
are exact in float64 (any order) but not in float32, summed exactly with Python
integers; inputs laid out in memory in and out of row-major order."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.dialects import stablehlo as sh
from tests.interpreter.test_straight_line import kernel_ops, run_twice


def _program(shape, dims, body: str = "add", transpose: bool = False, element: str = "f32") -> str:
    """A reduce of %x over `dims`; with `transpose`, of %x transposed (a 2-d `shape`
    reversed, reduced over its dimension 0): a view in column-major order."""
    T = lambda s: "tensor<" + "x".join(map(str, s)) + f"x{element}>"  # noqa: E731
    kept = [d for i, d in enumerate(shape) if i not in dims]
    lines = [f"func.func @main(%x: {T(shape)}) -> {T(kept)} {{",
             f"  %init = stablehlo.constant dense<0.5> : tensor<{element}>"]
    src, st = "%x", shape
    if transpose:
        st = shape[::-1]
        lines.append(f"  %t = stablehlo.transpose %x, dims = [1, 0] : ({T(shape)}) -> {T(st)}")
        src, dims = "%t", (0,)
    lines += [f"  %r = stablehlo.reduce({src} init: %init) applies stablehlo.{body} across "
              f"dimensions = {list(dims)} : ({T(st)}, tensor<{element}>) -> {T(kept)}",
              f"  func.return %r : {T(kept)}", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("shape, dims, transpose", [
    ((6, 130), (1,), False),
    ((3, 4, 50), (2,), False),
    ((3, 4, 50), (0, 2), False),
    ((5, 70), (1,), True),
])
def test_float32_sum_kernel_rounds_the_float64_sum_once(shape, dims, transpose):
    rng = np.random.default_rng(len(shape) * 7 + len(dims))
    ints = rng.integers(-(1 << 30), 1 << 30, shape)
    x = (ints * 2.0 ** -20).astype(np.float32)  # |values| < 2^10, 24 significant bits
    ints = (x.astype(np.float64) * 2.0 ** 20).astype(np.int64)  # what float32 kept
    (first,), (second,), programs = run_twice(_program(shape, dims, transpose=transpose), [x])
    assert sh.ReduceOp in kernel_ops(programs)
    exact = ints.sum(axis=dims)  # Python-exact int64 sums, then float64 (exact), float32
    expect = (exact.astype(np.float64) * 2.0 ** -20).astype(np.float32) + np.float32(0.5)
    assert second.tobytes() == expect.tobytes()
    assert first.tobytes() == second.tobytes()
    f32_sum = np.add.reduce(x, axis=dims, dtype=np.float32) + np.float32(0.5)
    assert f32_sum.tobytes() != expect.tobytes()  # a float32 sum would differ


@pytest.mark.parametrize("body, element", [("maximum", "f32"), ("add", "f64"), ("add", "f16")])
def test_other_reduces_run_the_interpreter_function(body, element):
    x = np.arange(12, dtype={"f32": np.float32, "f64": np.float64, "f16": np.float16}[element])
    (first,), (second,), programs = run_twice(_program((3, 4), (1,), body, element=element),
                                              [x.reshape(3, 4)])
    assert sh.ReduceOp not in kernel_ops(programs)
    rows = x.reshape(3, 4).astype(np.float64)
    want = rows.max(axis=1) if body == "maximum" else rows.sum(axis=1) + 0.5
    assert second.astype(np.float64).tolist() == want.tolist()
