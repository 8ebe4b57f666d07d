"""A `chlo.broadcast_*` op and its StableHLO twin give the same bits for every element
type: they declare one kernel (`qcomp.dialects.stablehlo.kernels`), and its facts, the
sign of NaN among them, come with it (0/0 in f4E2M1FN is +0 from both: upstream's
interpreter makes a NaN with a clear sign bit and the type turns NaN into a zero of
that sign)."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.interpreter.values import numpy_dtype
from qcomp.registry import parse_module

FLOATS = ["f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ",
          "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ", "f8E8M0FNU", "bf16", "f16", "f32", "f64"]
INTS = ["i2", "i4", "i8", "i16", "i32", "i64", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"]
TWINS = [("divide", "broadcast_divide"), ("remainder", "broadcast_remainder")]
SPECIAL = [0.0, -0.0, 1.0, -1.5, 3.0, np.inf, -np.inf, np.nan, -np.nan, 6.0, 0.5, 1e30]


def _program(ty: str, stablehlo_op: str, chlo_op: str) -> str:
    f = "f32" if ty.startswith(("f", "bf")) else ty
    a, t = f"tensor<{len(SPECIAL)}x{f}>", f"tensor<{len(SPECIAL)}x{ty}>"
    convert = f != ty
    body = [f"func.func @main(%x: {a}, %y: {a}) -> ({t}, {t}) {{"]
    if convert:
        body += [f"  %a = stablehlo.convert %x : ({a}) -> {t}",
                 f"  %b = stablehlo.convert %y : ({a}) -> {t}"]
    x, y = ("%a", "%b") if convert else ("%x", "%y")
    body += [f"  %s = stablehlo.{stablehlo_op} {x}, {y} : {t}",
             f"  %c = chlo.{chlo_op} {x}, {y} : ({t}, {t}) -> {t}",
             f"  return %s, %c : {t}, {t}", "}"]
    return "\n".join(body)


def _pairs(values: list) -> tuple[np.ndarray, np.ndarray]:
    """Every value against every value (0/0, x/0, NaN operands among them)."""
    x, y = np.meshgrid(values, values, indexing="ij")
    return x.ravel(), y.ravel()


def _run(ty: str, twin: tuple[str, str], x: np.ndarray, y: np.ndarray):
    src = _program(ty, *twin).replace(str(len(SPECIAL)), str(x.size))
    (r,) = run(parse_module(src), [x, y])
    assert r.error is None, r.error.message
    return r.results


@pytest.mark.parametrize("twin", TWINS, ids=[t[0] for t in TWINS])
@pytest.mark.parametrize("ty", FLOATS)
def test_float_twins_agree_bit_for_bit(ty, twin):
    x, y = _pairs(SPECIAL)
    if ty == "f8E8M0FNU":  # no sign, no zero: its own values
        x, y = _pairs([0.25, 1.0, 2.0, 3.0, np.inf, np.nan])
    s, c = _run(ty, twin, x.astype(np.float32), y.astype(np.float32))
    assert s.dtype == c.dtype == numpy_dtype_of(ty)
    assert s.tobytes() == c.tobytes()


@pytest.mark.parametrize("twin", TWINS, ids=[t[0] for t in TWINS])
@pytest.mark.parametrize("ty", INTS)
def test_integer_twins_agree(ty, twin):
    dt = numpy_dtype_of(ty)
    width = int(ty.lstrip("ui"))
    lo, hi = (0, 2 ** width - 1) if ty.startswith("u") else (-2 ** (width - 1), 2 ** (width - 1) - 1)
    values = sorted({lo, hi, 0, 1, min(2, hi), max(-1, lo), max(lo, -2), min(3, hi)})
    x, y = _pairs(np.array(values, dt))
    s, c = _run(ty, twin, x, y)
    assert s.tobytes() == c.tobytes()


def test_zero_by_zero_is_positive_zero_in_f4():
    x = np.array([0.0, -0.0, 1.0], np.float32)
    y = np.zeros(3, np.float32)
    s, c = _run("f4E2M1FN", TWINS[0], x, y)
    assert s.view(np.uint8).tolist() == c.view(np.uint8).tolist() == [0x0, 0x0, 0x0]


def numpy_dtype_of(ty: str) -> np.dtype:
    """The NumPy dtype of an element type written as MLIR text."""
    from xdsl.dialects.builtin import TensorType

    t = parse_module(f"func.func @f(%x: tensor<{ty}>) {{\n  return\n}}").body.block.ops.first
    (arg,) = t.function_type.inputs.data
    assert isinstance(arg, TensorType)
    return numpy_dtype(arg.element_type)
