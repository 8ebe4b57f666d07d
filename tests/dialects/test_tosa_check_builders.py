"""Ops built from Python (as the passes build them) print exactly as upstream MLIR
prints them, and verify with upstream's words."""

from __future__ import annotations

import io
import re

import pytest
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    f32,
    i8,
    i32,
)
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.check import (
    ExpectAlmostEqConstOp,
    ExpectCloseOp,
    ExpectEqConstOp,
    ExpectSerializedEqOp,
)
from qcomp.ir import QcompPrinter
from qcomp.dialects.tosa import (
    ClampOp,
    ConstOp,
    MaximumOp,
    MulOp,
    NanMode,
    RescaleOp,
    RoundingMode,
)


def text(op, generic: bool = False) -> str:
    """The op's text with SSA names replaced by %V (each print names values afresh)."""
    out = io.StringIO()
    QcompPrinter(stream=out, print_generic_format=generic).print_op(op)
    return re.sub(r"%[A-Za-z0-9_]+", "%V", out.getvalue())


def const(values, element, shape=(1,)) -> ConstOp:
    return ConstOp(DenseIntOrFPElementsAttr.from_list(TensorType(element, shape), values))


def test_rescale_builder_text():
    block = Block(arg_types=[TensorType(i8, [4])])
    m, s, izp, ozp = const([1431655765], i32), const([31], i8), const([3], i8), const([-1], i8)
    op = RescaleOp(block.args[0], m.output, s.output, izp.output, ozp.output,
                   TensorType(i8, [4]))
    block.add_ops([m, s, izp, ozp, op])
    op.verify()
    assert text(m) == ('%V = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> '
                       ': () -> tensor<1xi32>')
    assert text(op).endswith(
        "%V = tosa.rescale %V, %V, %V, %V, %V {input_unsigned = false, output_unsigned = false, "
        "per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, "
        "tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>")
    assert "rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>" in text(op, generic=True)
    assert (op.is_scale32, op.is_per_channel, op.is_input_unsigned,
            op.is_output_unsigned) == (True, False, False, False)


def test_rescale_builder_modes_and_zero_point_check():
    block = Block(arg_types=[TensorType(IntegerType(16), [4])])
    m, s = const([16384], IntegerType(16)), const([14], i8)
    izp, ozp = const([1], IntegerType(16)), const([0], i32)
    op = RescaleOp(block.args[0], m.output, s.output, izp.output, ozp.output,
                   TensorType(i32, [4]), scale32=False,
                   rounding_mode=RoundingMode.DOUBLE_ROUND)
    block.add_ops([m, s, izp, ozp, op])
    assert "rounding_mode = DOUBLE_ROUND, scale32 = false" in text(op)
    with pytest.raises(VerifyException, match="^expect input_zp of 0, got 1\n"):
        op.verify()


def test_clamp_and_maximum_builders():
    block = Block(arg_types=[TensorType(i8, [4]), TensorType(f32, [4])])
    c = ClampOp(block.args[0], TensorType(i8, [4]), IntegerAttr(-5, i8), IntegerAttr(5, i8))
    mx = MaximumOp(block.args[1], block.args[1], TensorType(f32, [4]), NanMode.IGNORE)
    block.add_ops([c, mx])
    c.verify()
    mx.verify()
    assert text(c) == ("%V = tosa.clamp %V {max_val = 5 : i8, min_val = -5 : i8} : "
                       "(tensor<4xi8>) -> tensor<4xi8>")
    assert "nan_mode = #tosa.nan_mode<PROPAGATE>" in text(c, generic=True)
    assert text(mx).endswith("{nan_mode = IGNORE} : (tensor<4xf32>, tensor<4xf32>) -> "
                             "tensor<4xf32>")
    bad = ClampOp(block.args[1], TensorType(f32, [4]), FloatAttr(2.0, f32), FloatAttr(1.0, f32))
    block.add_op(bad)
    with pytest.raises(VerifyException, match="expected min_val <= max_val, got "
                                              "min_val=2.000000e\\+00 : f32, "
                                              "max_val=1.000000e\\+00 : f32"):
        bad.verify()


def test_mul_shift_must_be_zero_for_floats():
    block = Block(arg_types=[TensorType(f32, [4])])
    shift = const([1], i8)
    op = MulOp(block.args[0], block.args[0], shift.output, TensorType(f32, [4]))
    block.add_ops([shift, op])
    with pytest.raises(VerifyException, match="require shift to be 0 for float type"):
        op.verify()


def test_check_builders():
    block = Block(arg_types=[TensorType(i8, [2]), TensorType(f32, [2])])
    v8 = DenseIntOrFPElementsAttr.from_list(TensorType(i8, [2]), [10, -3])
    vf = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2]), [4.0, 15.0])
    ops = [ExpectEqConstOp(block.args[0], v8),
           ExpectAlmostEqConstOp(block.args[1], vf, tolerance=0.1),
           ExpectCloseOp(block.args[1], block.args[1], max_ulp_difference=3),
           ExpectSerializedEqOp(block.args[0], "probe0", iteration=2)]
    block.add_ops(ops)
    for op in ops:
        op.verify()
    assert [text(op) for op in ops] == [
        "check.expect_eq_const %V, dense<[10, -3]> : tensor<2xi8>",
        "check.expect_almost_eq_const %V, dense<[4.000000e+00, 1.500000e+01]> : "
        "tensor<2xf32>, tolerance = 1.000000e-01",
        "check.expect_close %V, %V, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>",
        'check.expect_serialized_eq %V, probe_id = "probe0", iter = 2 : tensor<2xi8>',
    ]
    assert ops[1].tolerance_value == 0.1
    wrong = ExpectEqConstOp(block.args[1], v8)
    block.add_op(wrong)
    with pytest.raises(VerifyException, match="all of \\{lhs, value\\} have same type"):
        wrong.verify()
